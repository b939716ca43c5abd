// Linear models of ai.onnx.ml (opset 1+): LinearRegressor and LinearClassifier, kernels in
// onnxc/ml_linear.h. Scores are computed in float whatever the input type (float, double, int32,
// int64), as onnxruntime does. LinearClassifier needs int64 labels (classlabels_ints): string
// labels are refused (onnxc has no string tensors yet). PROBIT post transforms are refused.
#include "onnxc/ml_linear.h"

#include "ops/ml/ml_util.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

struct LinearState : OpState {
  int64_t rows = 1, features = 0, targets = 1;
  std::vector<float> coef, intercept;
  std::vector<int64_t> labels;
  int post = kPostNone;
  LinearParams params() const {
    return {rows, features, targets, coef.data(), intercept.empty() ? nullptr : intercept.data(),
            post};
  }
};

// Shared checks: X is [N, C] or [C]; coefficients hold `targets` rows of C (targets 0: derive).
bool parse_linear(InferContext& ctx, LinearState& s, int64_t targets) {
  if (!ctx.check_dtype(0,
                       {DataType::kFloat, DataType::kDouble, DataType::kInt64, DataType::kInt32}))
    return false;
  const Shape& xs = ctx.input(0)->shape;
  if (xs.size() == 1)
    s.rows = 1, s.features = xs[0];
  else if (xs.size() == 2)
    s.rows = xs[0], s.features = xs[1];
  else
    return ctx.fail("X must be [N, C] or [C], has rank {}", xs.size());
  for (double v : ml::attr_numbers(ctx.node(), "coefficients"))
    s.coef.push_back(static_cast<float>(v));
  for (double v : ml::attr_numbers(ctx.node(), "intercepts"))
    s.intercept.push_back(static_cast<float>(v));
  if (s.coef.empty()) return ctx.fail("coefficients is required");
  if (s.features == 0 || s.coef.size() % static_cast<size_t>(s.features) != 0)
    return ctx.fail("{} coefficients are not a whole number of rows of {} features", s.coef.size(),
                    s.features);
  s.targets = targets > 0 ? targets : static_cast<int64_t>(s.coef.size()) / s.features;
  if (static_cast<int64_t>(s.coef.size()) != s.targets * s.features)
    return ctx.fail("coefficients has {} entries, {} targets x {} features need {}", s.coef.size(),
                    s.targets, s.features, s.targets * s.features);
  if (!s.intercept.empty() && static_cast<int64_t>(s.intercept.size()) != s.targets)
    return ctx.fail("intercepts has {} entries, not one per target ({})", s.intercept.size(),
                    s.targets);
  const std::string post = ctx.attr_string("post_transform", "NONE");
  s.post = ml::post_transform_code(post);
  if (s.post < 0) return ctx.fail("post_transform '{}' is not supported", post);
  return true;
}

void emit_tables(EmitContext& ctx, const LinearState& s) {
  ctx.include("onnxc/ml_linear.h");
  auto f = [](float v) { return cpp_float(v); };
  ml::emit_array(ctx, "float", "lin_coef", s.coef, f);
  if (!s.intercept.empty()) ml::emit_array(ctx, "float", "lin_intercept", s.intercept, f);
  ctx.line("static constexpr onnxc::LinearParams p = {};",
           labeled({{"rows", std::to_string(s.rows)},
                    {"features", std::to_string(s.features)},
                    {"targets", std::to_string(s.targets)},
                    {"coef", "lin_coef"},
                    {"intercept", s.intercept.empty() ? "nullptr" : "lin_intercept"},
                    {"post_transform", std::to_string(s.post)}}));
}

class LinearRegressorOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    auto& s = ctx.make_state<LinearState>();
    const int64_t targets = ctx.attr_int("targets", 1);
    if (targets < 1) return ctx.fail("targets must be >= 1, is {}", targets);
    if (!parse_linear(ctx, s, targets)) return false;
    return ctx.set_output(0, DataType::kFloat, {s.rows, s.targets});
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<LinearState>();
    visit_dtype<ml::kInputTypes>(in[0]->dtype, [&](auto t) {
      using X = decltype(t);
      linear_regressor_ref<X>(s.params(), in[0]->as<X>(), out[0].as<float>());
    });
    return true;
  }
  void emit(EmitContext& ctx) const override {
    emit_tables(ctx, ctx.node().state_as<LinearState>());
    ctx.line("onnxc::linear_regressor_ref<{}>(p, {}, {});", dtype_cpp(ctx.input(0)->dtype),
             ctx.in(0), ctx.out(0));
  }
};

class LinearClassifierOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 2, 2)) return false;
    if (ctx.has_attr("classlabels_strings"))
      return ctx.fail(
          "classlabels_strings is not supported (onnxc has no string tensors); use "
          "classlabels_ints");
    if (!ctx.has_attr("classlabels_ints")) return ctx.fail("classlabels_ints is required");
    auto& s = ctx.make_state<LinearState>();
    if (!parse_linear(ctx, s, 0)) return false;
    s.labels = ctx.attr_ints("classlabels_ints");
    const size_t want = s.targets == 1 ? 2 : static_cast<size_t>(s.targets);
    if (s.labels.size() != want)
      return ctx.fail("classlabels_ints has {} labels, {} score rows need {}", s.labels.size(),
                      s.targets, want);
    return ctx.set_output(0, DataType::kInt64, {s.rows}) &&
           ctx.set_output(1, DataType::kFloat, {s.rows, static_cast<int64_t>(want)});
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<LinearState>();
    visit_dtype<ml::kInputTypes>(in[0]->dtype, [&](auto t) {
      using X = decltype(t);
      linear_classifier_ref<X>(s.params(), s.labels.data(), in[0]->as<X>(), out[0].as<int64_t>(),
                               out[1].as<float>());
    });
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<LinearState>();
    emit_tables(ctx, s);
    ml::emit_array(ctx, "int64_t", "lin_labels", s.labels, cpp_int64);
    ctx.line("onnxc::linear_classifier_ref<{}>(p, lin_labels, {}, {}, {});",
             dtype_cpp(ctx.input(0)->dtype), ctx.in(0), ctx.out(0), ctx.out(1));
  }
};

const LinearRegressorOp kLinearRegressor;
const LinearClassifierOp kLinearClassifier;

}  // namespace

std::vector<OpRegistration> ml_linear_ops() {
  return {{"ai.onnx.ml", "LinearRegressor", 1, 5, &kLinearRegressor},
          {"ai.onnx.ml", "LinearClassifier", 1, 5, &kLinearClassifier}};
}

}  // namespace onnxc
