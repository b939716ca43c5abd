// Encoders of ai.onnx.ml over numeric tensors, kernels in onnxc/ml_encode.h:
//   LabelEncoder (opsets 2-4): numeric keys and values given as keys_int64s/keys_floats,
//     values_int64s/values_floats or (opset 4) keys_tensor/values_tensor/default_tensor;
//   OneHotEncoder: cats_int64s over int32/int64/float/double input (zeros=1);
//   FeatureVectorizer: inputs concatenated along the features, each padded/cut to its width;
//   CategoryMapper: rewritten into the LabelEncoder it is (strings to int64s or back).
// String keys or values go to ops/text/strings.cpp (with_strings). Refused with a message: string
// categories,
// LabelEncoder opset 1 (string classes only), and OneHotEncoder zeros=0 (its unseen-category
// error is a run-time failure generated code cannot report).
#include "onnxc/ml_encode.h"

#include "ops/containers.h"
#include "ops/ml/ml_util.h"
#include "ops/registry.h"
#include "ops/strings.h"

namespace onnxc {
namespace {

// The element types the kernels are instantiated for: the ml input types and int16.
constexpr TypeSet kEncodeTypes = ml::kInputTypes | type_set({DataType::kInt16});

std::string literal(const Tensor& t, int64_t i) {
  if (t.dtype == DataType::kFloat || t.dtype == DataType::kDouble)
    return cpp_scalar(t.dtype, t.double_at(i));
  const int64_t v = t.int_at(i);
  if (t.dtype == DataType::kInt64) return cpp_int64(v);
  return fmt::format("static_cast<{}>({})", dtype_cpp(t.dtype), v);
}

std::string array_of(const Tensor& t) {
  std::string s = "{";
  for (int64_t i = 0; i < t.numel(); ++i) s += (i ? ", " : "") + literal(t, i);
  return t.numel() ? s + "}" : "{0}";
}

// ---- LabelEncoder -----------------------------------------------------------------------------

struct LabelEncoderState : OpState {
  Tensor keys, values, fallback;  // fallback: one element of the values' type
  int64_t count = 0;
};

class LabelEncoderOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    for (const char* a : {"keys_strings", "values_strings", "classes_strings"})
      if (ctx.has_attr(a))
        return ctx.fail("{} is not supported (onnxc has no string tensors yet)", a);
    auto& s = ctx.make_state<LabelEncoderState>();
    if (!ml::label_table(ctx, "keys", s.keys) || !ml::label_table(ctx, "values", s.values))
      return false;
    if (s.keys.numel() != s.values.numel())
      return ctx.fail("{} keys but {} values", s.keys.numel(), s.values.numel());
    const DataType xt = ctx.input(0)->dtype;
    if (xt != s.keys.dtype)
      return ctx.fail("input type {} differs from the keys' type {}", dtype_name(xt),
                      dtype_name(s.keys.dtype));
    if (!visit_dtype<kEncodeTypes>(xt, [](auto) {}) ||
        !visit_dtype<kEncodeTypes>(s.values.dtype, [](auto) {}))
      return ctx.fail("keys of {} / values of {} are not supported", dtype_name(xt),
                      dtype_name(s.values.dtype));
    if (!ml::label_default(ctx, s.values.dtype, s.fallback)) return false;
    s.count = shape_numel(ctx.input(0)->shape);
    return ctx.set_output(0, s.values.dtype, ctx.input(0)->shape);
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<LabelEncoderState>();
    return visit_dtype<kEncodeTypes>(s.keys.dtype, [&](auto k) {
      using K = decltype(k);
      visit_dtype<kEncodeTypes>(s.values.dtype, [&](auto v) {
        using V = decltype(v);
        label_encoder_ref<K, V>(s.count, in[0]->as<K>(), s.keys.as<K>(), s.values.as<V>(),
                                s.keys.numel(), s.fallback.as<V>()[0], out[0].as<V>());
      });
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<LabelEncoderState>();
    const std::string k = dtype_cpp(s.keys.dtype), v = dtype_cpp(s.values.dtype);
    ctx.include("onnxc/ml_encode.h");
    const size_t n = static_cast<size_t>(std::max<int64_t>(1, s.keys.numel()));
    ctx.line("static constexpr {} le_keys[{}] = {};", k, n, array_of(s.keys));
    ctx.line("static constexpr {} le_values[{}] = {};", v, n, array_of(s.values));
    ctx.line("onnxc::label_encoder_ref<{}, {}>({}, {}, le_keys, le_values, {}, {}, {});", k, v,
             s.count, ctx.in(0), s.keys.numel(), literal(s.fallback, 0), ctx.out(0));
  }

 private:
};

// ---- OneHotEncoder ----------------------------------------------------------------------------

struct OneHotState : OpState {
  std::vector<int64_t> cats;
  int64_t count = 0;
};

class OneHotEncoderOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    if (ctx.has_attr("cats_strings"))
      return ctx.fail("cats_strings is not supported (onnxc has no string tensors yet)");
    if (!ctx.check_dtype(0,
                         {DataType::kInt64, DataType::kInt32, DataType::kFloat, DataType::kDouble}))
      return false;
    if (ctx.attr_int("zeros", 1) == 0)
      return ctx.fail(
          "zeros=0 is not supported (an unseen category is a run-time error that generated "
          "code cannot report)");
    auto& s = ctx.make_state<OneHotState>();
    s.cats = ctx.attr_ints("cats_int64s");
    if (s.cats.empty()) return ctx.fail("cats_int64s is required");
    s.count = shape_numel(ctx.input(0)->shape);
    Shape ys = ctx.input(0)->shape;
    ys.push_back(static_cast<int64_t>(s.cats.size()));
    return ctx.set_output(0, DataType::kFloat, ys);
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<OneHotState>();
    return visit_dtype<kEncodeTypes>(in[0]->dtype, [&](auto t) {
      using T = decltype(t);
      one_hot_encoder_ref<T>(s.count, in[0]->as<T>(), s.cats.data(),
                             static_cast<index_t>(s.cats.size()), out[0].as<float>());
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<OneHotState>();
    ctx.include("onnxc/ml_encode.h");
    ml::emit_array(ctx, "int64_t", "ohe_cats", s.cats, cpp_int64);
    ctx.line("onnxc::one_hot_encoder_ref<{}>({}, {}, ohe_cats, {}, {});",
             dtype_cpp(ctx.input(0)->dtype), s.count, ctx.in(0), s.cats.size(), ctx.out(0));
  }
};

// ---- FeatureVectorizer ------------------------------------------------------------------------

struct VectorizerState : OpState {
  int64_t rows = 1, out_cols = 0;
  std::vector<int64_t> cols, width, offset;
};

class FeatureVectorizerOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1024, 1, 1)) return false;
    auto& s = ctx.make_state<VectorizerState>();
    s.width = ctx.attr_ints("inputdimensions");
    if (s.width.size() != ctx.num_inputs())
      return ctx.fail("inputdimensions has {} entries for {} inputs", s.width.size(),
                      ctx.num_inputs());
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      if (!ctx.has_input(i)) return ctx.fail("input {} is absent", i);
      if (!ctx.check_dtype(
              i, {DataType::kInt32, DataType::kInt64, DataType::kFloat, DataType::kDouble}))
        return false;
      const Shape& xs = ctx.input(i)->shape;
      if (xs.empty() || xs.size() > 2) return ctx.fail("input {} must be [N, C] or [C]", i);
      const int64_t rows = xs.size() == 1 ? 1 : xs[0];
      if (i > 0 && rows != s.rows)
        return ctx.fail("input {} has {} rows, input 0 has {}", i, rows, s.rows);
      if (s.width[i] < 0) return ctx.fail("inputdimensions[{}] is negative", i);
      s.rows = rows;
      s.cols.push_back(xs.back());
      s.offset.push_back(s.out_cols);
      s.out_cols += s.width[i];
    }
    return ctx.set_output(0, DataType::kFloat, {s.rows, s.out_cols});
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<VectorizerState>();
    for (size_t i = 0; i < in.size(); ++i)
      visit_dtype<kEncodeTypes>(in[i]->dtype, [&](auto t) {
        using T = decltype(t);
        feature_vectorizer_copy<T>(s.rows, s.cols[i], s.width[i], s.offset[i], s.out_cols,
                                   in[i]->as<T>(), out[0].as<float>());
      });
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<VectorizerState>();
    ctx.include("onnxc/ml_encode.h");
    for (size_t i = 0; i < s.cols.size(); ++i)
      ctx.line("onnxc::feature_vectorizer_copy<{}>({}, {}, {}, {}, {}, {}, {});",
               dtype_cpp(ctx.input(i)->dtype), s.rows, s.cols[i], s.width[i], s.offset[i],
               s.out_cols, ctx.in(i), ctx.out(0));
  }
};

// ---- CategoryMapper ----------------------------------------------------------------------------

// CategoryMapper maps cats_strings[i] to cats_int64s[i] (string input, default_int64 for a string
// not listed) or back (int64 input, default_string): a LabelEncoder with those keys and values,
// which replaces it during inference.
class CategoryMapperOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1) || !ctx.check_dtype(0, {DataType::kString, DataType::kInt64}))
      return false;
    const std::vector<int64_t> ints = ctx.attr_ints("cats_int64s");
    const std::vector<std::string> strings = ml::attr_strings(ctx.node(), "cats_strings");
    if (ints.size() != strings.size())
      return ctx.fail("cats_int64s has {} values but cats_strings {}", ints.size(), strings.size());
    const bool from_strings = ctx.input(0)->dtype == DataType::kString;
    std::vector<std::unique_ptr<Node>> nodes;
    nodes.push_back(make_node(ctx.node(), "LabelEncoder", 2, "encoder", {ctx.node().input(0)},
                              {ctx.node().output(0)}));
    Node& encoder = *nodes.back();
    encoder.domain = "ai.onnx.ml";
    Attribute& keys = encoder.attributes[from_strings ? "keys_strings" : "keys_int64s"];
    Attribute& values = encoder.attributes[from_strings ? "values_int64s" : "values_strings"];
    Attribute& fallback = encoder.attributes[from_strings ? "default_int64" : "default_string"];
    (from_strings ? keys : values).kind = Attribute::Kind::kStrings;
    (from_strings ? keys : values).strings = strings;
    (from_strings ? values : keys).kind = Attribute::Kind::kInts;
    (from_strings ? values : keys).ints = ints;
    fallback.kind = from_strings ? Attribute::Kind::kInt : Attribute::Kind::kString;
    if (from_strings)
      fallback.i = ctx.attr_int("default_int64", -1);
    else
      fallback.s = ctx.attr_string("default_string", "_Unused");
    ctx.replace_node(std::move(nodes));
    return true;
  }
  void emit(EmitContext&) const override {}
};

const LabelEncoderOp kLabelEncoder;
const CategoryMapperOp kCategoryMapper;
const OneHotEncoderOp kOneHotEncoder;
const FeatureVectorizerOp kFeatureVectorizer;

}  // namespace

std::vector<OpRegistration> ml_encode_ops() {
  return {{"ai.onnx.ml", "LabelEncoder", 2, 5, with_strings(&kLabelEncoder, "LabelEncoder")},
          {"ai.onnx.ml", "OneHotEncoder", 1, 5, &kOneHotEncoder},
          {"ai.onnx.ml", "FeatureVectorizer", 1, 5, &kFeatureVectorizer},
          {"ai.onnx.ml", "CategoryMapper", 1, 5, &kCategoryMapper}};
}

}  // namespace onnxc
