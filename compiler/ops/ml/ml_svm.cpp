// Support vector machines of ai.onnx.ml: SVMRegressor and SVMClassifier (opset 1+), kernels in
// onnxc/ml_svm.h. Scores are computed in float whatever the input type (float, double, int32,
// int64), as onnxruntime does. Without support vectors a model is in liblinear form (one row of
// coefficients per output, the kernel is linear whatever kernel_type says, as in onnxruntime).
// The spec leaves SVMClassifier's scores and two-class labels open: they follow onnxruntime
// (onnxc/ml_svm.h). Not done: string class labels, PROBIT: refused with a message.
#include "onnxc/ml_svm.h"

#include "ops/ml/ml_util.h"
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

// kernel_type and kernel_params into `s`.
bool parse_kernel(InferContext& ctx, SvmState& s) {
  const std::vector<float> kp = floats_of(ctx.node(), "kernel_params");
  const std::string kernel = ctx.attr_string("kernel_type", "LINEAR");
  s.kernel = kernel_code(kernel);
  if (s.kernel < 0) return ctx.fail("kernel_type '{}' is not LINEAR/POLY/RBF/SIGMOID", kernel);
  if (!kp.empty() && kp.size() != 3)
    return ctx.fail("kernel_params has {} values, not 3 (gamma, coef0, degree)", kp.size());
  if (kp.size() == 3) s.gamma = kp[0], s.coef0 = kp[1], s.degree = kp[2];
  return true;
}

// The support vectors, coefficients and `p`, the SvmParams, in the node's block.
void emit_svm_params(EmitContext& ctx, const SvmState& s) {
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
}

class SvmRegressorOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    auto& s = ctx.make_state<SvmState>();
    if (!ml::numeric_rows(ctx, s.rows, s.features)) return false;
    const Node& node = ctx.node();
    s.coef = floats_of(node, "coefficients");
    s.support = floats_of(node, "support_vectors");
    const std::vector<float> rho = floats_of(node, "rho");
    s.vectors = ctx.attr_int("n_supports", 0);
    s.one_class = ctx.attr_int("one_class", 0) != 0;
    if (!parse_kernel(ctx, s)) return false;
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
    emit_svm_params(ctx, s);
    ctx.line("onnxc::svm_regressor_ref<{}>(p, {}, {});", dtype_cpp(ctx.input(0)->dtype), ctx.in(0),
             ctx.out(0));
  }
};

struct SvmClassifierState : SvmState {
  std::vector<int64_t> labels;
  std::vector<index_t> class_vectors;
  std::vector<float> rho_all, prob_a, prob_b;
  int weights_positive = 1, post = kPostNone;
  int64_t score_columns = 0;
  SvmClassifierParams classifier() const {
    return {params(),
            static_cast<index_t>(labels.size()),
            labels.data(),
            class_vectors.empty() ? nullptr : class_vectors.data(),
            rho_all.data(),
            prob_a.empty() ? nullptr : prob_a.data(),
            prob_b.empty() ? nullptr : prob_b.data(),
            weights_positive,
            post,
            score_columns};
  }
};

class SvmClassifierOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 2, 2)) return false;
    auto& s = ctx.make_state<SvmClassifierState>();
    if (!ml::int_class_labels(ctx, "classlabels_ints", 2, s.labels) ||
        !ml::numeric_rows(ctx, s.rows, s.features))
      return false;
    const int64_t k = static_cast<int64_t>(s.labels.size()), pairs = k * (k - 1) / 2;
    if (!parse_kernel(ctx, s)) return false;
    const Node& node = ctx.node();
    s.coef = floats_of(node, "coefficients");
    s.support = floats_of(node, "support_vectors");
    s.rho_all = floats_of(node, "rho");
    s.prob_a = floats_of(node, "prob_a");
    s.prob_b = floats_of(node, "prob_b");
    const std::string post = ctx.attr_string("post_transform", "NONE");
    s.post = ml::post_transform_code(post);
    if (s.post < 0) return ctx.fail("post_transform '{}' is not supported", post);
    for (float c : s.coef)
      if (c < 0) s.weights_positive = 0;
    if (s.prob_a.size() != s.prob_b.size())
      return ctx.fail("prob_a has {} values, prob_b {}", s.prob_a.size(), s.prob_b.size());
    for (int64_t v : ctx.attr_ints("vectors_per_class")) {
      if (v < 0) return ctx.fail("vectors_per_class has a negative count {}", v);
      s.class_vectors.push_back(v);
      s.vectors += v;
    }
    const size_t f = static_cast<size_t>(s.features), v = static_cast<size_t>(s.vectors);
    if (s.vectors == 0) {  // liblinear
      s.kernel = kSvmLinear;
      s.class_vectors.clear();
      if (s.coef.size() != static_cast<size_t>(k) * f)
        return ctx.fail("coefficients has {} values, {} classes x {} features need {}",
                        s.coef.size(), k, f, static_cast<size_t>(k) * f);
      if (s.rho_all.empty()) return ctx.fail("rho is required");
      s.score_columns = k;
    } else {
      if (static_cast<int64_t>(s.class_vectors.size()) != k)
        return ctx.fail("vectors_per_class has {} entries for {} classes", s.class_vectors.size(),
                        k);
      if (s.support.size() != v * f || s.coef.size() != static_cast<size_t>(k - 1) * v)
        return ctx.fail(
            "{} support vectors of {} features for {} classes need {} support_vectors and {} "
            "coefficients values, got {} and {}",
            v, f, k, v * f, static_cast<size_t>(k - 1) * v, s.support.size(), s.coef.size());
      if (static_cast<int64_t>(s.rho_all.size()) != pairs)
        return ctx.fail("rho has {} values, {} class pairs need {}", s.rho_all.size(), pairs,
                        pairs);
      if (!s.prob_a.empty() && static_cast<int64_t>(s.prob_a.size()) != pairs)
        return ctx.fail("prob_a has {} values, {} class pairs need {}", s.prob_a.size(), pairs,
                        pairs);
      s.score_columns = !s.prob_a.empty() ? k : k > 2 ? pairs : 2;
      if (k == 2 && s.prob_a.empty() && s.post != kPostNone && s.post != kPostLogistic)
        return ctx.fail("post_transform '{}' of a two-class SVM without prob_a is not supported",
                        post);
    }
    ctx.request_scratch(sizeof(float) * static_cast<size_t>(svm_classifier_scratch_floats(
                                            static_cast<index_t>(s.vectors), k)));
    return ctx.set_output(0, DataType::kInt64, {s.rows}) &&
           ctx.set_output(1, DataType::kFloat, {s.rows, s.score_columns});
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<SvmClassifierState>();
    std::vector<float> scratch(static_cast<size_t>(svm_classifier_scratch_floats(
        static_cast<index_t>(s.vectors), static_cast<index_t>(s.labels.size()))));
    visit_dtype<ml::kInputTypes>(in[0]->dtype, [&](auto t) {
      using X = decltype(t);
      svm_classifier_ref<X>(s.classifier(), in[0]->as<X>(), out[0].as<int64_t>(),
                            out[1].as<float>(), scratch.data());
    });
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<SvmClassifierState>();
    emit_svm_params(ctx, s);
    auto f = [](float v) { return cpp_float(v); };
    auto idx = [](index_t v) { return std::to_string(v); };
    ml::emit_array(ctx, "int64_t", "svm_labels", s.labels, cpp_int64);
    if (!s.class_vectors.empty())
      ml::emit_array(ctx, "onnxc::index_t", "svm_class_vectors", s.class_vectors, idx);
    ml::emit_array(ctx, "float", "svm_rho", s.rho_all, f);
    if (!s.prob_a.empty()) {
      ml::emit_array(ctx, "float", "svm_prob_a", s.prob_a, f);
      ml::emit_array(ctx, "float", "svm_prob_b", s.prob_b, f);
    }
    ctx.line("static constexpr onnxc::SvmClassifierParams c = {};",
             labeled({{"svm", "p"},
                      {"classes", std::to_string(s.labels.size())},
                      {"labels", "svm_labels"},
                      {"class_vectors", s.class_vectors.empty() ? "nullptr" : "svm_class_vectors"},
                      {"rho", "svm_rho"},
                      {"prob_a", s.prob_a.empty() ? "nullptr" : "svm_prob_a"},
                      {"prob_b", s.prob_a.empty() ? "nullptr" : "svm_prob_b"},
                      {"weights_positive", std::to_string(s.weights_positive)},
                      {"post_transform", std::to_string(s.post)},
                      {"score_columns", std::to_string(s.score_columns)}}));
    ctx.line("onnxc::svm_classifier_ref<{}>(c, {}, {}, {}, reinterpret_cast<float*>({}));",
             dtype_cpp(ctx.input(0)->dtype), ctx.in(0), ctx.out(0), ctx.out(1), ctx.scratch());
  }
};

const SvmRegressorOp kSvmRegressor;
const SvmClassifierOp kSvmClassifier;

}  // namespace

std::vector<OpRegistration> ml_svm_ops() {
  return {{"ai.onnx.ml", "SVMRegressor", 1, 5, &kSvmRegressor},
          {"ai.onnx.ml", "SVMClassifier", 1, 5, &kSvmClassifier}};
}

}  // namespace onnxc
