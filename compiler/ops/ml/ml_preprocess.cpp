// Feature preprocessing of ai.onnx.ml (opset 1+): ArrayFeatureExtractor, Binarizer, Scaler,
// Normalizer and Imputer over numeric tensors, with their kernels in onnxc/ml_preprocess.h. The
// last axis holds the features; per-feature attribute lists have 1 or C entries. String tensors
// (ArrayFeatureExtractor's string X) are refused: onnxc has no string tensors yet.
#include "onnxc/ml_preprocess.h"

#include "ops/ml/ml_util.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

const std::initializer_list<DataType> kNumeric = {DataType::kFloat, DataType::kDouble,
                                                  DataType::kInt64, DataType::kInt32};

// Rows and features of X: [C] is one row, [..., C] has prod(leading dims) rows.
struct RowsState : OpState {
  int64_t rows = 1, cols = 1, count = 0;  // count: indices (ArrayFeatureExtractor)
  int norm = 0;
  double threshold = 0, replaced = 0;
  std::vector<double> a, b;  // offset/scale, imputed values
};

void split_rows(const Shape& s, RowsState& st) {
  st.cols = s.empty() ? 1 : s.back();
  st.rows = s.empty() || st.cols == 0 ? 1 : shape_numel(s) / st.cols;
  if (st.cols == 0) st.rows = 0;
}

bool check_feature_list(InferContext& ctx, const char* name, size_t n, int64_t cols) {
  if (n == 1 || static_cast<int64_t>(n) == cols) return true;
  return ctx.fail("{} has {} entries; it needs 1 or one per feature ({})", name, n, cols);
}

std::string numbers(DataType t, const std::vector<double>& v) {
  return ml::array_literal(v, [&](double d) { return cpp_scalar(t, d); });
}

// ---- ArrayFeatureExtractor ----------------------------------------------------------------------

class ArrayFeatureExtractorOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 2, 1, 1)) return false;
    if (ctx.input(0)->dtype == DataType::kString)
      return ctx.fail("string X is not supported (onnxc has no string tensors)");
    if (!ctx.check_dtype(0, kNumeric) || !ctx.check_dtype(1, {DataType::kInt64})) return false;
    auto& s = ctx.make_state<RowsState>();
    const Shape& xs = ctx.input(0)->shape;
    split_rows(xs, s);
    s.count = shape_numel(ctx.input(1)->shape);
    if (const Tensor* idx = ctx.constant_input(1))
      for (int64_t i = 0; i < idx->numel(); ++i)
        if (idx->int_at(i) < 0 || idx->int_at(i) >= s.cols)
          return ctx.fail("index {} is outside the {} features", idx->int_at(i), s.cols);
    Shape ys = xs.size() <= 1 ? Shape{1, s.count} : xs;
    ys.back() = s.count;
    return ctx.set_output(0, ctx.input(0)->dtype, ys);
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<RowsState>();
    visit_dtype<ml::kInputTypes>(in[0]->dtype, [&](auto t) {
      using T = decltype(t);
      array_feature_extractor_ref<T>(s.rows, s.cols, in[0]->as<T>(), in[1]->as<int64_t>(), s.count,
                                     out[0].as<T>());
    });
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<RowsState>();
    ctx.include("onnxc/ml_preprocess.h");
    ctx.line("onnxc::array_feature_extractor_ref<{}>({}, {}, {}, {}, {}, {});",
             dtype_cpp(ctx.input(0)->dtype), s.rows, s.cols, ctx.in(0), ctx.in(1), s.count,
             ctx.out(0));
  }
};

// ---- Binarizer ----------------------------------------------------------------------------------

class BinarizerOp final : public OpHandler {
 public:
  AliasInfo alias(const Node&) const override { return {AliasKind::kInPlace}; }
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1) || !ctx.check_dtype(0, kNumeric)) return false;
    auto& s = ctx.make_state<RowsState>();
    s.threshold = ctx.attr_float("threshold", 0.0f);
    s.count = shape_numel(ctx.input(0)->shape);
    return ctx.set_output(0, ctx.input(0)->dtype, ctx.input(0)->shape);
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<RowsState>();
    visit_dtype<ml::kInputTypes>(in[0]->dtype, [&](auto t) {
      using T = decltype(t);
      binarizer_ref<T>(s.count, in[0]->as<T>(), static_cast<T>(s.threshold), out[0].as<T>());
    });
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<RowsState>();
    const DataType t = ctx.input(0)->dtype;
    ctx.include("onnxc/ml_preprocess.h");
    ctx.line("onnxc::binarizer_ref<{}>({}, {}, {}, {});", dtype_cpp(t), s.count, ctx.in(0),
             t == DataType::kFloat || t == DataType::kDouble
                 ? cpp_scalar(t, static_cast<float>(s.threshold))
                 : fmt::format("static_cast<{}>({})", dtype_cpp(t), cpp_float(s.threshold)),
             ctx.out(0));
  }
};

// ---- Scaler -------------------------------------------------------------------------------------

class ScalerOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1) || !ctx.check_dtype(0, kNumeric)) return false;
    auto& s = ctx.make_state<RowsState>();
    split_rows(ctx.input(0)->shape, s);
    s.a = ml::attr_numbers(ctx.node(), "offset");
    s.b = ml::attr_numbers(ctx.node(), "scale");
    if (s.a.empty()) s.a = {0.0};
    if (s.b.empty()) s.b = {1.0};
    if (!check_feature_list(ctx, "offset", s.a.size(), s.cols) ||
        !check_feature_list(ctx, "scale", s.b.size(), s.cols))
      return false;
    return ctx.set_output(0, DataType::kFloat, ctx.input(0)->shape);
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<RowsState>();
    const std::vector<float> o(s.a.begin(), s.a.end()), k(s.b.begin(), s.b.end());
    visit_dtype<ml::kInputTypes>(in[0]->dtype, [&](auto t) {
      using T = decltype(t);
      scaler_ref<T>(s.rows, s.cols, in[0]->as<T>(), o.data(), static_cast<index_t>(o.size()),
                    k.data(), static_cast<index_t>(k.size()), out[0].as<float>());
    });
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<RowsState>();
    ctx.include("onnxc/ml_preprocess.h");
    ctx.line("static constexpr float scaler_offset[{}] = {};", s.a.size(),
             numbers(DataType::kFloat, s.a));
    ctx.line("static constexpr float scaler_scale[{}] = {};", s.b.size(),
             numbers(DataType::kFloat, s.b));
    ctx.line("onnxc::scaler_ref<{}>({}, {}, {}, scaler_offset, {}, scaler_scale, {}, {});",
             dtype_cpp(ctx.input(0)->dtype), s.rows, s.cols, ctx.in(0), s.a.size(), s.b.size(),
             ctx.out(0));
  }
};

// ---- Normalizer ---------------------------------------------------------------------------------

class NormalizerOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1) || !ctx.check_dtype(0, kNumeric)) return false;
    const Shape& xs = ctx.input(0)->shape;
    if (xs.size() != 1 && xs.size() != 2)
      return ctx.fail("X must be [N, C] or [C], has rank {}", xs.size());
    auto& s = ctx.make_state<RowsState>();
    split_rows(xs, s);
    const std::string norm = ctx.attr_string("norm", "MAX");
    if (norm == "MAX")
      s.norm = kNormMax;
    else if (norm == "L1")
      s.norm = kNormL1;
    else if (norm == "L2")
      s.norm = kNormL2;
    else
      return ctx.fail("norm '{}' is not one of MAX, L1, L2", norm);
    if (s.cols == 0) return ctx.fail("X has no features");
    return ctx.set_output(0, DataType::kFloat, xs);
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<RowsState>();
    visit_dtype<ml::kInputTypes>(in[0]->dtype, [&](auto t) {
      using T = decltype(t);
      normalizer_ref<T>(s.rows, s.cols, s.norm, in[0]->as<T>(), out[0].as<float>());
    });
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<RowsState>();
    static const char* const kNames[] = {"onnxc::kNormMax", "onnxc::kNormL1", "onnxc::kNormL2"};
    ctx.include("onnxc/ml_preprocess.h");
    ctx.line("onnxc::normalizer_ref<{}>({}, {}, {}, {}, {});", dtype_cpp(ctx.input(0)->dtype),
             s.rows, s.cols, kNames[s.norm], ctx.in(0), ctx.out(0));
  }
};

// ---- Imputer ------------------------------------------------------------------------------------

class ImputerOp final : public OpHandler {
 public:
  AliasInfo alias(const Node&) const override { return {AliasKind::kInPlace}; }
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1) || !ctx.check_dtype(0, kNumeric)) return false;
    const DataType t = ctx.input(0)->dtype;
    const bool floating = t == DataType::kFloat || t == DataType::kDouble;
    auto& s = ctx.make_state<RowsState>();
    split_rows(ctx.input(0)->shape, s);
    const char* list = floating ? "imputed_value_floats" : "imputed_value_int64s";
    const char* other = floating ? "imputed_value_int64s" : "imputed_value_floats";
    if (!ctx.has_attr(list))
      return ctx.fail("{} X needs {} ({} is for {} inputs)", dtype_name(t), list, other,
                      floating ? "integer" : "float");
    s.b = ml::attr_numbers(ctx.node(), list);
    s.replaced = floating ? ctx.attr_float("replaced_value_float", 0.0f)
                          : static_cast<double>(ctx.attr_int("replaced_value_int64", 0));
    if (!check_feature_list(ctx, list, s.b.size(), s.cols)) return false;
    return ctx.set_output(0, t, ctx.input(0)->shape);
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<RowsState>();
    visit_dtype<ml::kInputTypes>(in[0]->dtype, [&](auto t) {
      using T = decltype(t);
      const std::vector<T> imputed(s.b.begin(), s.b.end());
      imputer_ref<T>(s.rows, s.cols, in[0]->as<T>(), static_cast<T>(s.replaced), imputed.data(),
                     static_cast<index_t>(imputed.size()), out[0].as<T>());
    });
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<RowsState>();
    const DataType t = ctx.input(0)->dtype;
    ctx.include("onnxc/ml_preprocess.h");
    ctx.line("static constexpr {} imputed[{}] = {};", dtype_cpp(t), s.b.size(), numbers(t, s.b));
    ctx.line("onnxc::imputer_ref<{}>({}, {}, {}, {}, imputed, {}, {});", dtype_cpp(t), s.rows,
             s.cols, ctx.in(0), cpp_scalar(t, s.replaced), s.b.size(), ctx.out(0));
  }
};

const ArrayFeatureExtractorOp kArrayFeatureExtractor;
const BinarizerOp kBinarizer;
const ScalerOp kScaler;
const NormalizerOp kNormalizer;
const ImputerOp kImputer;

}  // namespace

std::vector<OpRegistration> ml_preprocess_ops() {
  return {{"ai.onnx.ml", "ArrayFeatureExtractor", 1, 5, &kArrayFeatureExtractor},
          {"ai.onnx.ml", "Binarizer", 1, 5, &kBinarizer},
          {"ai.onnx.ml", "Scaler", 1, 5, &kScaler},
          {"ai.onnx.ml", "Normalizer", 1, 5, &kNormalizer},
          {"ai.onnx.ml", "Imputer", 1, 5, &kImputer}};
}

}  // namespace onnxc
