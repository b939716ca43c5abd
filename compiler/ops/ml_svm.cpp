// Support vector machines of ai.onnx.ml: SVMRegressor (opset 1+), kernels in onnxc/ml_svm.h.
// Scores are computed in float whatever the input type (float, double, int32, int64), as
// onnxruntime does. With n_supports = 0 the model is in liblinear form (coefficients are one
// weight per feature, the kernel is linear whatever kernel_type says, as in onnxruntime).
// Not done: SVMClassifier (refused as an unknown op).
#include "onnxc/ml_svm.h"

#include "ops/ml_util.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

struct SvmState : OpState {
  int64_t rows = 1, features = 0, vectors = 0;
  std::vector<float> support, coef;
  float rho = 0, gamma = 0, coef0 = 0, degree = 0;
  int kernel = kSvmLinear, one_class = 0;
  SvmParams params() const {
    return {rows,        features, vectors,  support.empty() ? nullptr : support.data(),
            coef.data(), rho,      kernel,   gamma,
            coef0,       degree,   one_class};
  }
};

std::vector<float> floats_of(const Node& node, const std::string& name) {
  std::vector<float> out;
  for (double v : ml::attr_numbers(node, name)) out.push_back(static_cast<float>(v));
  return out;
}

int kernel_code(const std::string& name) {
  static const char* const kNames[] = {"LINEAR", "POLY", "RBF", "SIGMOID"};
  for (int i = 0; i < 4; ++i)
    if (name == kNames[i]) return i;
  return -1;
}

class SvmRegressorOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    if (!ctx.check_dtype(0,
                         {DataType::kFloat, DataType::kDouble, DataType::kInt64, DataType::kInt32}))
      return false;
    auto& s = ctx.make_state<SvmState>();
    const Shape& xs = ctx.input(0)->shape;
    if (xs.size() == 1)
      s.features = xs[0];
    else if (xs.size() == 2)
      s.rows = xs[0], s.features = xs[1];
    else
      return ctx.fail("X must be [N, C] or [C], has rank {}", xs.size());
    const Node& node = ctx.node();
    s.coef = floats_of(node, "coefficients");
    s.support = floats_of(node, "support_vectors");
    const std::vector<float> rho = floats_of(node, "rho");
    const std::vector<float> kp = floats_of(node, "kernel_params");
    const std::string kernel = ctx.attr_string("kernel_type", "LINEAR");
    s.vectors = ctx.attr_int("n_supports", 0);
    s.one_class = ctx.attr_int("one_class", 0) != 0;
    s.kernel = kernel_code(kernel);
    if (s.kernel < 0) return ctx.fail("kernel_type '{}' is not LINEAR/POLY/RBF/SIGMOID", kernel);
    if (!kp.empty() && kp.size() != 3)
      return ctx.fail("kernel_params has {} values, not 3 (gamma, coef0, degree)", kp.size());
    if (kp.size() == 3) s.gamma = kp[0], s.coef0 = kp[1], s.degree = kp[2];
    if (rho.size() != 1) return ctx.fail("rho has {} values, not 1", rho.size());
    s.rho = rho[0];
    if (s.vectors < 0) return ctx.fail("n_supports must be >= 0, is {}", s.vectors);
    const size_t f = static_cast<size_t>(s.features), v = static_cast<size_t>(s.vectors);
    if (s.vectors == 0) {
      s.kernel = kSvmLinear;
      if (s.coef.size() != f)
        return ctx.fail("coefficients has {} values, X has {} features (liblinear form)",
                        s.coef.size(), f);
    } else if (s.coef.size() != v || s.support.size() != v * f) {
      return ctx.fail(
          "{} support vectors of {} features need {} coefficients and {} support_vectors "
          "values, got {} and {}",
          v, f, v, v * f, s.coef.size(), s.support.size());
    }
    return ctx.set_output(0, DataType::kFloat, {s.rows, 1});
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<SvmState>();
    visit_dtype<ml::kInputTypes>(in[0]->dtype, [&](auto t) {
      using X = decltype(t);
      svm_regressor_ref<X>(s.params(), in[0]->as<X>(), out[0].as<float>());
    });
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<SvmState>();
    ctx.include("onnxc/ml_svm.h");
    auto f = [](float v) { return cpp_float(v); };
    if (s.vectors > 0) ml::emit_array(ctx, "float", "svm_support", s.support, f);
    ml::emit_array(ctx, "float", "svm_coef", s.coef, f);
    static const char* const kKernels[] = {"onnxc::kSvmLinear", "onnxc::kSvmPoly", "onnxc::kSvmRbf",
                                           "onnxc::kSvmSigmoid"};
    ctx.line("static constexpr onnxc::SvmParams p = {};",
             labeled({{"rows", std::to_string(s.rows)},
                      {"features", std::to_string(s.features)},
                      {"vectors", std::to_string(s.vectors)},
                      {"support", s.vectors > 0 ? "svm_support" : "nullptr"},
                      {"coef", "svm_coef"},
                      {"rho", cpp_float(s.rho)},
                      {"kernel", kKernels[s.kernel]},
                      {"gamma", cpp_float(s.gamma)},
                      {"coef0", cpp_float(s.coef0)},
                      {"degree", cpp_float(s.degree)},
                      {"one_class", std::to_string(s.one_class)}}));
    ctx.line("onnxc::svm_regressor_ref<{}>(p, {}, {});", dtype_cpp(ctx.input(0)->dtype), ctx.in(0),
             ctx.out(0));
  }
};

const SvmRegressorOp kSvmRegressor;

}  // namespace

std::vector<OpRegistration> ml_svm_ops() {
  return {{"ai.onnx.ml", "SVMRegressor", 1, 5, &kSvmRegressor}};
}

}  // namespace onnxc
