// The map ops of ai.onnx.ml, kernels in onnxc/ml_map.h. Maps are compile-time containers
// (ValueKind::kMap, ops/containers.h): a map is its keys and values tensors, of an entry count
// known at compile time (a map graph input takes it from --shape NAME=N).
//   ZipMap          -> a sequence of maps, one per row of X: the keys a constant of the class
//                      labels, the values the row (a Gather; X itself when 1-D). No code of its
//                      own: the maps' tensors are what later nodes and the outputs read.
//   DictVectorizer  -> the same node reading the map's keys and values tensors; [1, vocabulary].
//   CastMap         -> the same, over int64 keys; [1, n] (DENSE) or [1, max_map] (SPARSE).
// The rewritten DictVectorizer/CastMap nodes carry the attribute kMapEntriesAttribute, which no
// model can (the validator refuses attributes an op does not declare), so the handler knows its
// node reads a map's two tensors. Refused with a message: CastMap between strings and numbers
// (parsing and printing floats needs the C library's heap-using conversions on embedded targets).
#include "onnxc/ml_map.h"

#include "ops/containers.h"
#include "ops/registry.h"
#include "ops/strings.h"

namespace onnxc {
namespace {

// The map that input 0 is, or null (and the error) when it is none.
const Value* map_input(InferContext& ctx) {
  const Value* m = ctx.input(0);
  if (!m || m->kind != ValueKind::kMap || m->elements.size() != 2) {
    ctx.fail("input 'X' must be a map");
    return nullptr;
  }
  return m;
}

// Replaces the node by a copy that reads the keys and values of map input 0 (kMapEntriesAttribute
// set).
bool read_map_entries(InferContext& ctx, const Value* m) {
  const Node& node = ctx.node();
  auto n = make_node(node, node.op_type, node.opset, "entries", {m->elements[0], m->elements[1]},
                     {node.outputs[0]});
  n->domain = node.domain;
  n->attributes = node.attributes;
  n->attributes[kMapEntriesAttribute].kind = Attribute::Kind::kInt;
  n->attributes[kMapEntriesAttribute].i = 1;
  std::vector<std::unique_ptr<Node>> nodes;
  nodes.push_back(std::move(n));
  ctx.replace_node(std::move(nodes));
  return true;
}

// The slot size of a string value, 0 for numbers (the kernels ignore it then).
int64_t slot_of(const Value* v) {
  return v->dtype == DataType::kString ? v->string_slot() : 0;
}

// The C++ type of a map column's elements as the kernels take them (char for string slots).
const char* column_type(DataType t) {
  return t == DataType::kString ? "char" : dtype_cpp(t);
}

// ---- ZipMap -----------------------------------------------------------------------------------

class ZipMapOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1) || !ctx.check_dtype(0, {DataType::kFloat})) return false;
    const bool ints = ctx.has_attr("classlabels_int64s");
    if (ints == ctx.has_attr("classlabels_strings"))
      return ctx.fail("exactly one of classlabels_int64s and classlabels_strings must be given");
    Tensor labels;
    if (ints) {
      const std::vector<int64_t> v = ctx.attr_ints("classlabels_int64s");
      labels = Tensor::zeros(DataType::kInt64, {static_cast<int64_t>(v.size())});
      std::copy(v.begin(), v.end(), labels.as<int64_t>());
    } else {
      labels.dtype = DataType::kString;
      labels.strings = ctx.node().attr("classlabels_strings")->strings;
      labels.shape = {static_cast<int64_t>(labels.strings.size())};
    }
    Value* x = ctx.node().input(0);
    const Shape& xs = x->shape;
    if (xs.empty() || xs.size() > 2)
      return ctx.fail("input 'X' must be [N, C] or [C], got {}", shape_str(xs));
    if (xs.back() != labels.numel())
      return ctx.fail("X has {} columns but {} class labels are given", xs.back(), labels.numel());
    Graph& g = *ctx.graph();
    const Node& node = ctx.node();
    Value* keys = g.add_constant(node.name + "/labels", std::move(labels));
    std::vector<std::unique_ptr<Node>> nodes;
    std::vector<Value*> maps;
    const int64_t rows = xs.size() == 2 ? xs[0] : 1;
    for (int64_t i = 0; i < rows; ++i) {
      Value* row = x;
      if (xs.size() == 2) {
        row = g.add_value(fmt::format("{}.{}.values", node.outputs[0]->name, i));
        Value* index = add_int64s(g, fmt::format("{}/row{}", node.name, i), {i}, true);
        nodes.push_back(make_node(node, "Gather", 13, fmt::format("row{}", i), {x, index}, {row}));
      }
      Value* m = g.add_value(fmt::format("{}.{}", node.outputs[0]->name, i));
      set_map(m, keys, row);
      maps.push_back(m);
    }
    set_sequence(node.outputs[0], DataType::kFloat, std::move(maps));
    ctx.replace_node(std::move(nodes));
    return true;
  }
  void emit(EmitContext&) const override {}
};

// ---- DictVectorizer ----------------------------------------------------------------------------

struct DictVectorizerState : OpState {
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
};

class DictVectorizerOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.has_attr(kMapEntriesAttribute)) {
      if (!ctx.check_arity(1, 1, 1, 1)) return false;
      const Value* m = map_input(ctx);
      return m && check_types(ctx, m->elements[0]->dtype, m->dtype) && read_map_entries(ctx, m);
    }
    auto& s = ctx.make_state<DictVectorizerState>();
    s.ints = ctx.attr_ints("int64_vocabulary");
    if (ctx.has_attr("string_vocabulary"))
      s.strings = ctx.node().attr("string_vocabulary")->strings;
    const int64_t size = static_cast<int64_t>(s.ints.size() + s.strings.size());
    const Value* values = ctx.input(1);
    if (values->dtype != DataType::kString) return ctx.set_output(0, values->dtype, {1, size});
    return set_string_output(ctx, 0, {1, size}, string_capacity(values));
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<DictVectorizerState>();
    const Value *keys = ctx.input(0), *values = ctx.input(1), *y = ctx.output(0);
    ctx.include("onnxc/ml_map.h");
    const bool string_keys = keys->dtype == DataType::kString;
    const size_t size = std::max<size_t>(1, s.ints.size() + s.strings.size());
    std::string vocab;
    for (size_t i = 0; i < s.ints.size(); ++i) vocab += (i ? ", " : "") + cpp_int64(s.ints[i]);
    for (size_t i = 0; i < s.strings.size(); ++i)
      vocab += (i ? ", " : "") + cpp_string_literal(s.strings[i]);
    ctx.line("static constexpr {} vocabulary[{}] = {{{}}};",
             string_keys ? "const char*" : "std::int64_t", size,
             vocab.empty() ? (string_keys ? "nullptr" : "0") : vocab);
    ctx.line(
        "if (!onnxc::dict_vectorizer_ref<{}, {}, {}>(/*entries=*/{}, {}, /*key_slot=*/{}, {}, "
        "/*value_slot=*/{}, vocabulary, /*vocabulary_size=*/{}, {}, /*y_slot=*/{})) return "
        "onnxc::kStringTooLong;",
        column_type(keys->dtype), string_keys ? "const char*" : "std::int64_t",
        column_type(values->dtype), keys->numel(), ctx.in(0), slot_of(keys), ctx.in(1),
        slot_of(values), s.ints.size() + s.strings.size(), ctx.out(0), slot_of(y));
  }

 private:
  // The vocabulary matches the key type, and the map is one the type constraints allow.
  static bool check_types(InferContext& ctx, DataType key, DataType value) {
    const bool ints = ctx.has_attr("int64_vocabulary");
    if (ints == ctx.has_attr("string_vocabulary"))
      return ctx.fail("exactly one of int64_vocabulary and string_vocabulary must be given");
    if (key != (ints ? DataType::kInt64 : DataType::kString))
      return ctx.fail("a map with {} keys needs {}", dtype_name(key),
                      ints ? "string_vocabulary" : "int64_vocabulary");
    const bool allowed =
        key == DataType::kString
            ? value == DataType::kInt64 || value == DataType::kFloat || value == DataType::kDouble
            : value == DataType::kString || value == DataType::kFloat || value == DataType::kDouble;
    if (!allowed)
      return ctx.fail("map({}, {}) is not one of the input types DictVectorizer allows",
                      dtype_name(key), dtype_name(value));
    return true;
  }
};

// ---- CastMap -----------------------------------------------------------------------------------

struct CastMapState : OpState {
  DataType to = DataType::kFloat;
  int64_t max_map = 0;  // 0: DENSE
};

class CastMapOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.has_attr(kMapEntriesAttribute)) {
      if (!ctx.check_arity(1, 1, 1, 1)) return false;
      const Value* m = map_input(ctx);
      if (!m) return false;
      if (m->elements[0]->dtype != DataType::kInt64 ||
          (m->dtype != DataType::kFloat && m->dtype != DataType::kString))
        return ctx.fail(
            "input 'X' must be map(int64, float) or map(int64, string), got map({}, {})",
            dtype_name(m->elements[0]->dtype), dtype_name(m->dtype));
      return read_map_entries(ctx, m);
    }
    auto& s = ctx.make_state<CastMapState>();
    const std::string cast_to = ctx.attr_string("cast_to", "TO_FLOAT");
    const std::string form = ctx.attr_string("map_form", "DENSE");
    s.to = cast_to == "TO_FLOAT"    ? DataType::kFloat
           : cast_to == "TO_INT64"  ? DataType::kInt64
           : cast_to == "TO_STRING" ? DataType::kString
                                    : DataType::kUndefined;
    if (s.to == DataType::kUndefined)
      return ctx.fail("cast_to '{}' is not one of TO_FLOAT, TO_INT64, TO_STRING", cast_to);
    if (form != "DENSE" && form != "SPARSE")
      return ctx.fail("map_form '{}' is not one of DENSE, SPARSE", form);
    const Value* values = ctx.input(1);
    if ((values->dtype == DataType::kString) != (s.to == DataType::kString))
      return ctx.fail(
          "casting map values of {} {} is not supported (no string/number conversion without "
          "the C library's heap)",
          dtype_name(values->dtype), cast_to);
    const int64_t entries = ctx.input(0)->numel();
    if (form == "SPARSE") {
      s.max_map = ctx.attr_int("max_map", 1);
      if (s.max_map <= 0) return ctx.fail("max_map must be positive with map_form SPARSE");
    }
    const Shape shape = {1, s.max_map > 0 ? s.max_map : entries};
    if (s.to != DataType::kString) return ctx.set_output(0, s.to, shape);
    // SPARSE pads with onnxruntime's "0.f".
    return set_string_output(ctx, 0, shape, std::max<int64_t>(string_capacity(values), 3));
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<CastMapState>();
    const Value *keys = ctx.input(0), *values = ctx.input(1), *y = ctx.output(0);
    ctx.include("onnxc/ml_map.h");
    const bool strings = s.to == DataType::kString;
    ctx.line(
        "if (const int status = onnxc::cast_map_ref<{}, {}>(/*entries=*/{}, {}, {}, "
        "/*value_slot=*/{}, /*max_map=*/{}, /*pad=*/{}, {}, /*y_slot=*/{})) return status;",
        column_type(values->dtype), column_type(s.to), keys->numel(), ctx.in(0), ctx.in(1),
        slot_of(values), s.max_map,
        strings                    ? "\"0.f\""
        : s.to == DataType::kInt64 ? "std::int64_t{0}"
                                   : "0.0f",
        ctx.out(0), slot_of(y));
  }
};

const ZipMapOp kZipMap;
const DictVectorizerOp kDictVectorizer;
const CastMapOp kCastMap;

}  // namespace

std::vector<OpRegistration> ml_map_ops() {
  return {{"ai.onnx.ml", "ZipMap", 1, 5, &kZipMap},
          {"ai.onnx.ml", "DictVectorizer", 1, 5, &kDictVectorizer},
          {"ai.onnx.ml", "CastMap", 1, 5, &kCastMap}};
}

}  // namespace onnxc
