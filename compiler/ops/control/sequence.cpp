// Sequence ops, resolved at compile time (ops/containers.h): a sequence is the ordered list of
// the tensor values it holds. Building ops compute that list and emit nothing; reading ops become
// tensor nodes:
//   SequenceConstruct/Empty/Insert/Erase  -> the output lists the tensors (no node left)
//   SequenceLength                         -> a constant
//   SequenceAt                             -> Identity of the element
//   SplitToSequence                        -> one Slice per piece (Gather when keepdims=0)
//   ConcatFromSequence                     -> Concat of the elements (Unsqueezed for new_axis=1)
//   SequenceMap                            -> the body copied once per element
// Positions and split sizes must be compile-time constants; the error says so otherwise. A
// sequence grown by a Loop that --max-trip-count bounds (ops/control/unroll.cpp) has a run-time
// length: ConcatFromSequence along axis 0 gives its rows (a graph output then), SequenceLength the
// Loop's trip count; other ops refuse it.
#include "ops/containers.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

// Each element of a sequence is a tensor value (and usually a node) of the IR: SplitToSequence
// refuses to make more.
constexpr int64_t kMaxSequenceLength = 65536;

// Input `i`, a sequence; `run_time`: one whose length is known only at run time is accepted.
const Value* sequence_input(InferContext& ctx, size_t i, bool run_time = false) {
  const Value* v = ctx.input(i);
  if (!v || v->kind != ValueKind::kSequence) {
    ctx.fail("input {} must be a sequence", i);
    return nullptr;
  }
  if (v->rows && !run_time) {
    ctx.fail(
        "sequence '{}' grows in a Loop bounded by --max-trip-count, so its length is known only "
        "at run time: only ConcatFromSequence (along axis 0) and SequenceLength can read it",
        v->name);
    return nullptr;
  }
  return v;
}

// The position input `i` (absent: `def`), normalized into [0, size) or, for an insertion,
// [0, size].
bool position_input(InferContext& ctx, size_t i, int64_t size, bool insertion, int64_t def,
                    int64_t& pos) {
  pos = def;
  if (!ctx.has_input(i)) return true;
  const Tensor* t = ctx.constant_input(i);
  if (!t)
    return ctx.fail(
        "input 'position' must be a constant: sequences are resolved at compile time (a "
        "position computed at run time is not supported)");
  if (t->numel() != 1) return ctx.fail("'position' must hold one element");
  pos = t->int_at(0);
  const int64_t high = insertion ? size : size - 1;
  if (pos < -size || pos > high)
    return ctx.fail("position {} is out of range [{}, {}] for a sequence of {} tensors", pos, -size,
                    high, size);
  if (pos < 0) pos += size;
  return true;
}

Value* out0(InferContext& ctx) {
  return ctx.node().output(0);
}

class SequenceConstructOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, SIZE_MAX, 1, 1)) return false;
    std::vector<Value*> elements;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      Value* in = ctx.node().input(i);
      if (!in || in->is_container()) return ctx.fail("input {} must be a tensor", i);
      if (in->dtype != ctx.input(0)->dtype)
        return ctx.fail("input {} is {}, input 0 {}: a sequence holds one element type", i,
                        dtype_name(in->dtype), dtype_name(ctx.input(0)->dtype));
      elements.push_back(in);
    }
    set_sequence(out0(ctx), ctx.input(0)->dtype, std::move(elements));
    ctx.replace_node({});
    return true;
  }
  void emit(EmitContext&) const override {}
};

class SequenceEmptyOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(0, 0, 1, 1)) return false;
    const int64_t dtype = ctx.attr_int("dtype", static_cast<int64_t>(DataType::kFloat));
    if (!is_valid_dtype(static_cast<int>(dtype))) return ctx.fail("invalid dtype {}", dtype);
    set_sequence(out0(ctx), static_cast<DataType>(dtype), {});
    ctx.replace_node({});
    return true;
  }
  void emit(EmitContext&) const override {}
};

class SequenceInsertOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 3, 1, 1)) return false;
    const Value* seq = sequence_input(ctx, 0);
    Value* t = ctx.node().input(1);
    if (!seq) return false;
    if (!t || t->is_container()) return ctx.fail("input 'tensor' must be a tensor");
    if (!seq->elements.empty() && t->dtype != seq->dtype)
      return ctx.fail("inserting a {} tensor into a sequence of {}", dtype_name(t->dtype),
                      dtype_name(seq->dtype));
    const int64_t size = static_cast<int64_t>(seq->elements.size());
    int64_t pos;
    if (!position_input(ctx, 2, size, true, size, pos)) return false;
    std::vector<Value*> elements = seq->elements;
    elements.insert(elements.begin() + pos, t);
    set_sequence(out0(ctx), t->dtype, std::move(elements));
    ctx.replace_node({});
    return true;
  }
  void emit(EmitContext&) const override {}
};

class SequenceEraseOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 2, 1, 1)) return false;
    const Value* seq = sequence_input(ctx, 0);
    if (!seq) return false;
    const int64_t size = static_cast<int64_t>(seq->elements.size());
    if (size == 0) return ctx.fail("erasing from an empty sequence");
    int64_t pos;
    if (!position_input(ctx, 1, size, false, size - 1, pos)) return false;
    std::vector<Value*> elements = seq->elements;
    elements.erase(elements.begin() + pos);
    set_sequence(out0(ctx), seq->dtype, std::move(elements));
    ctx.replace_node({});
    return true;
  }
  void emit(EmitContext&) const override {}
};

class SequenceAtOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 2, 1, 1)) return false;
    const Value* seq = sequence_input(ctx, 0);
    if (!seq) return false;
    const int64_t size = static_cast<int64_t>(seq->elements.size());
    if (!ctx.has_input(1)) return ctx.fail("input 'position' is required");
    int64_t pos;
    if (!position_input(ctx, 1, size, false, 0, pos)) return false;
    std::vector<std::unique_ptr<Node>> nodes;
    nodes.push_back(make_node(ctx.node(), "Identity", 16, "at",
                              {seq->elements[static_cast<size_t>(pos)]}, {out0(ctx)}));
    ctx.replace_node(std::move(nodes));
    return true;
  }
  void emit(EmitContext&) const override {}
};

class SequenceLengthOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    const Value* seq = sequence_input(ctx, 0, true);
    if (!seq) return false;
    if (seq->rows) {  // the Loop's trip count, as a scalar
      Graph& g = *ctx.graph();
      Value* scalar = add_int64s(g, ctx.node().name + "/scalar", {});
      std::vector<std::unique_ptr<Node>> nodes;
      nodes.push_back(
          make_node(ctx.node(), "Reshape", 14, "count", {seq->count, scalar}, {out0(ctx)}));
      ctx.replace_node(std::move(nodes));
      return true;
    }
    Tensor n = Tensor::zeros(DataType::kInt64, {});
    n.as<int64_t>()[0] = static_cast<int64_t>(seq->elements.size());
    ctx.set_output_constant(0, std::move(n));
    ctx.replace_node({});
    return true;
  }
  void emit(EmitContext&) const override {}
};

// ---- SplitToSequence ---------------------------------------------------------------------------

class SplitToSequenceOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 2, 1, 1)) return false;
    Value* x = ctx.node().input(0);
    if (!x || x->is_container()) return ctx.fail("input 'input' must be a tensor");
    int64_t axis = ctx.attr_int("axis", 0);
    if (!ctx.normalize_axis(axis, static_cast<int64_t>(x->shape.size()))) return false;
    const int64_t dim = x->shape[static_cast<size_t>(axis)];
    std::vector<int64_t> sizes;
    if (!split_sizes(ctx, dim, sizes)) return false;
    if (static_cast<int64_t>(sizes.size()) > kMaxSequenceLength)
      return ctx.fail("splitting into {} tensors: at most {} are supported", sizes.size(),
                      kMaxSequenceLength);
    const bool squeeze = !ctx.has_input(1) && ctx.attr_int("keepdims", 1) == 0;
    Graph& g = *ctx.graph();
    const Node& node = ctx.node();
    std::vector<std::unique_ptr<Node>> nodes;
    std::vector<Value*> elements;
    Value* axes = add_int64s(g, node.name + "/axes", {axis});
    int64_t start = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      Value* piece = g.add_value(fmt::format("{}.{}", out0(ctx)->name, i));
      if (squeeze) {  // a scalar index drops the axis
        Value* index = add_int64s(g, fmt::format("{}/index{}", node.name, i), {start}, true);
        auto gather =
            make_node(node, "Gather", 13, fmt::format("gather{}", i), {x, index}, {piece});
        gather->attributes["axis"] = int_attr(axis);
        nodes.push_back(std::move(gather));
      } else {
        Value* starts = add_int64s(g, fmt::format("{}/starts{}", node.name, i), {start});
        Value* ends = add_int64s(g, fmt::format("{}/ends{}", node.name, i), {start + sizes[i]});
        nodes.push_back(make_node(node, "Slice", 13, fmt::format("slice{}", i),
                                  {x, starts, ends, axes}, {piece}));
      }
      elements.push_back(piece);
      start += sizes[i];
    }
    set_sequence(out0(ctx), x->dtype, std::move(elements));
    ctx.replace_node(std::move(nodes));
    return true;
  }
  void emit(EmitContext&) const override {}

 private:
  static Attribute int_attr(int64_t v) {
    Attribute a;
    a.kind = Attribute::Kind::kInt;
    a.i = v;
    return a;
  }

  // Piece lengths along the axis: ones without `split`, equal chunks (the last one shorter) for a
  // scalar, the given lengths for a 1-D split.
  static bool split_sizes(InferContext& ctx, int64_t dim, std::vector<int64_t>& sizes) {
    if (!ctx.has_input(1)) {
      if (dim > kMaxSequenceLength)
        return ctx.fail("splitting into {} tensors: at most {} are supported", dim,
                        kMaxSequenceLength);
      sizes.assign(static_cast<size_t>(dim), 1);
      return true;
    }
    const Tensor* s = ctx.constant_input(1);
    if (!s)
      return ctx.fail(
          "input 'split' must be a constant: sequences are resolved at compile time (split "
          "sizes computed at run time are not supported)");
    if (s->shape.empty()) {
      const int64_t chunk = s->int_at(0);
      if (chunk <= 0) return ctx.fail("a scalar 'split' must be positive, got {}", chunk);
      const int64_t pieces = dim / chunk + (dim % chunk != 0 ? 1 : 0);
      if (pieces > kMaxSequenceLength)
        return ctx.fail("splitting into {} tensors: at most {} are supported", pieces,
                        kMaxSequenceLength);
      for (int64_t at = 0; at < dim; at += chunk) sizes.push_back(std::min(chunk, dim - at));
      return true;
    }
    int64_t total = 0;
    for (int64_t v : s->to_ints()) {
      if (v < 0) return ctx.fail("'split' lengths must be non-negative, got {}", v);
      sizes.push_back(v);
      total += v;
    }
    if (total != dim) return ctx.fail("'split' lengths add up to {}, the axis has {}", total, dim);
    return true;
  }
};

// ---- ConcatFromSequence ----------------------------------------------------------------------

class ConcatFromSequenceOp final : public OpHandler {
  // A sequence of run-time length is the rows of a bounded Loop's scan output, [B, dims...]:
  // stacked along axis 0 (new_axis) they are that tensor, concatenated along axis 0 when dims[0]
  // is 1 its reshape to [B, dims[1:]...]. Either way the result holds B rows of which the Loop's
  // NODE.trip_count are values (the rest zeros), a run-time fact no op could take: it must be a
  // graph output that no node reads.
  static bool concat_rows(InferContext& ctx, const Value& seq, int64_t axis, bool new_axis) {
    const Shape& rows = seq.rows->shape;
    const Value* out = out0(ctx);
    const int64_t rank = static_cast<int64_t>(rows.size()) - (new_axis ? 0 : 1);
    if (!ctx.normalize_axis(axis, rank)) return false;
    if (axis != 0 || (!new_axis && rows.size() > 1 && rows[1] != 1))
      return ctx.fail(
          "sequence '{}' has a length known only at run time (its Loop is bounded by "
          "--max-trip-count): it can be stacked along axis 0 (new_axis=1) or concatenated along "
          "axis 0 when its tensors' first dim is 1, not along axis {} of [{}]",
          seq.name, axis, shape_str(Shape(rows.begin() + 1, rows.end())));
    if (rows.size() < 2 && !new_axis) return ctx.fail("cannot concatenate scalars");
    if (!out->is_graph_output || reads(*ctx.graph(), out) > 0)
      return ctx.fail(
          "'{}' concatenates sequence '{}', whose length is known only at run time (its Loop is "
          "bounded by --max-trip-count): it must be a graph output that no node reads",
          out->name, seq.name);
    Graph& g = *ctx.graph();
    std::vector<std::unique_ptr<Node>> nodes;
    if (new_axis) {
      nodes.push_back(make_node(ctx.node(), "Identity", 16, "rows", {seq.rows}, {out0(ctx)}));
    } else {
      Shape dims(rows.begin() + 2, rows.end());
      dims.insert(dims.begin(), rows[0]);
      nodes.push_back(make_node(ctx.node(), "Reshape", 14, "rows",
                                {seq.rows, add_int64s(g, ctx.node().name + "/shape", dims)},
                                {out0(ctx)}));
    }
    ctx.replace_node(std::move(nodes));
    return true;
  }

 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    const Value* seq = sequence_input(ctx, 0, true);
    if (!seq) return false;
    if (!ctx.has_attr("axis")) return ctx.fail("attribute 'axis' is required");
    int64_t axis = ctx.attr_int("axis", 0);
    const bool new_axis = ctx.attr_int("new_axis", 0) != 0;
    if (seq->rows) return concat_rows(ctx, *seq, axis, new_axis);
    if (seq->elements.empty()) return ctx.fail("the sequence is empty: nothing to concatenate");
    const int64_t rank = static_cast<int64_t>(seq->elements[0]->shape.size()) + (new_axis ? 1 : 0);
    if (!ctx.normalize_axis(axis, rank)) return false;
    Graph& g = *ctx.graph();
    const Node& node = ctx.node();
    std::vector<std::unique_ptr<Node>> nodes;
    std::vector<Value*> parts = seq->elements;
    if (new_axis) {
      Value* axes = add_int64s(g, node.name + "/axes", {axis});
      for (size_t i = 0; i < parts.size(); ++i) {
        Value* u = g.add_value(fmt::format("{}/unsqueezed{}", node.name, i));
        nodes.push_back(
            make_node(node, "Unsqueeze", 13, fmt::format("unsqueeze{}", i), {parts[i], axes}, {u}));
        parts[i] = u;
      }
    }
    auto concat = make_node(node, "Concat", 13, "concat", parts, {out0(ctx)});
    Attribute a;
    a.kind = Attribute::Kind::kInt;
    a.i = axis;
    concat->attributes["axis"] = a;
    nodes.push_back(std::move(concat));
    ctx.replace_node(std::move(nodes));
    return true;
  }
  void emit(EmitContext&) const override {}
};

// ---- SequenceMap ------------------------------------------------------------------------------

class SequenceMapOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, SIZE_MAX, 1, SIZE_MAX)) return false;
    const Attribute* a = ctx.node().attr("body");
    const Graph* body = a && a->kind == Attribute::Kind::kGraph ? a->g.get() : nullptr;
    if (!body) return ctx.fail("attribute 'body' (a graph) is required");
    if (body->inputs.size() != ctx.num_inputs() || body->outputs.size() != ctx.num_outputs())
      return ctx.fail("the body has {} inputs and {} outputs, the node {} and {}",
                      body->inputs.size(), body->outputs.size(), ctx.num_inputs(),
                      ctx.num_outputs());
    const Value* first = sequence_input(ctx, 0);
    if (!first) return false;
    const size_t n = first->elements.size();
    for (size_t j = 0; j < ctx.num_inputs(); ++j) {
      const Value* in = ctx.input(j);
      if (!in || in->kind == ValueKind::kOptional)
        return ctx.fail("input {} must be a tensor or a sequence", j);
      if (in->kind == ValueKind::kSequence && in->elements.size() != n)
        return ctx.fail("input {} holds {} tensors, input 0 {}", j, in->elements.size(), n);
    }
    if (n == 0) return ctx.fail("empty input sequences are not supported");
    Graph& g = *ctx.graph();
    std::vector<std::unique_ptr<Node>> nodes;
    std::vector<std::vector<Value*>> results(ctx.num_outputs());
    for (size_t t = 0; t < n; ++t) {
      const std::string tag = fmt::format("@{}#{}", ctx.node().name, t);
      std::map<const Value*, Value*> map;
      for (size_t j = 0; j < ctx.num_inputs(); ++j) {
        Value* in = ctx.node().input(j);
        map[body->inputs[j]] = in->kind == ValueKind::kSequence ? in->elements[t] : in;
      }
      for (auto& node : clone_nodes(*body, g, tag, map)) nodes.push_back(std::move(node));
      for (size_t k = 0; k < results.size(); ++k)
        results[k].push_back(cloned(body->outputs[k], g, tag, map));
    }
    // The outputs are built once the copies are inferred (their element types are known then).
    for (size_t k = 0; k < results.size(); ++k)
      if (ctx.has_output(k))
        nodes.push_back(make_node(ctx.node(), "SequenceConstruct", 11, fmt::format("out{}", k),
                                  results[k], {ctx.node().output(k)}));
    ctx.replace_node(std::move(nodes));
    return true;
  }
  void emit(EmitContext&) const override {}
};

const SequenceConstructOp kSequenceConstruct;
const SequenceEmptyOp kSequenceEmpty;
const SequenceInsertOp kSequenceInsert;
const SequenceEraseOp kSequenceErase;
const SequenceAtOp kSequenceAt;
const SequenceLengthOp kSequenceLength;
const SplitToSequenceOp kSplitToSequence;
const ConcatFromSequenceOp kConcatFromSequence;
const SequenceMapOp kSequenceMap;

}  // namespace

std::vector<OpRegistration> sequence_ops() {
  return {
      {"", "ConcatFromSequence", 11, kMaxOpset, &kConcatFromSequence},
      {"", "SequenceAt", 11, kMaxOpset, &kSequenceAt},
      {"", "SequenceConstruct", 11, kMaxOpset, &kSequenceConstruct},
      {"", "SequenceEmpty", 11, kMaxOpset, &kSequenceEmpty},
      {"", "SequenceErase", 11, kMaxOpset, &kSequenceErase},
      {"", "SequenceInsert", 11, kMaxOpset, &kSequenceInsert},
      {"", "SequenceLength", 11, kMaxOpset, &kSequenceLength},
      {"", "SequenceMap", 17, kMaxOpset, &kSequenceMap},
      {"", "SplitToSequence", 11, kMaxOpset, &kSplitToSequence},
  };
}

}  // namespace onnxc
