// com.microsoft session-optimizer fusions and the Gelu family, as standard ONNX nodes
// (see contrib_expander.cpp). Definitions: ORT docs/ContribOperators.md, version 1; the CPU
// kernels in onnxruntime/contrib_ops/cpu decide where the text is silent.
#include <cmath>
#include <limits>

#include "frontend/contrib_expand_util.h"

namespace onnxc::contrib {
namespace {

constexpr float kAbsent = std::numeric_limits<float>::quiet_NaN();

// FusedConv (contrib_ops/cpu/fused_conv.cc, core/providers/cpu/nn/conv.cc):
//   Y = activation(Conv(X, W, B) + Z), activation/activation_params as MLAS_ACTIVATION.
// -> Conv [-> Add Z] -> activation; fuse-epilogue fuses the activation back into the Conv.
bool fused_conv(Expansion& e) {
  const std::string act = e.attr_s("activation", "");
  onnx::NodeProto* conv = e.emit("Conv", {e.in(0), e.in(1)}, {""});
  if (e.has_in(2)) conv->add_input(e.in(2));
  for (const auto& a : e.n.attribute())
    if (a.name() != "activation" && a.name() != "activation_params") *conv->add_attribute() = a;
  std::string y = conv->output(0);
  if (e.has_in(3)) y = e.emit1("Add", {y, e.in(3)});
  return emit_activation(e, act, e.attr_floats("activation_params"), y, e.out(0));
}

// FusedGemm (contrib_ops/cpu/fused_gemm.cc): Y = activation(Gemm(A, B, C)), the activation's
// parameters in activation_alpha / activation_beta / activation_gamma.
bool fused_gemm(Expansion& e) {
  const std::string act = e.attr_s("activation", "");
  onnx::NodeProto* gemm = e.emit("Gemm", {e.in(0), e.in(1)}, {""});
  if (e.has_in(2)) gemm->add_input(e.in(2));
  for (const auto& a : e.n.attribute())
    if (a.name() == "alpha" || a.name() == "beta" || a.name() == "transA" || a.name() == "transB")
      *gemm->add_attribute() = a;
  if (act == "Clip") return e.fail("activation Clip is not supported in FusedGemm");
  std::vector<float> params = {
      e.attr_f("activation_alpha", kAbsent),
      e.attr_f(act == "Selu" ? "activation_gamma" : "activation_beta", kAbsent)};
  return emit_activation(e, act, params, gemm->output(0), e.out(0));
}

// Transposes the last two axes of `x` (rank `r`).
std::string transpose_last2(Expansion& e, const std::string& x, int r) {
  std::vector<int64_t> perm;
  for (int i = 0; i < r; ++i) perm.push_back(i);
  std::swap(perm[r - 2], perm[r - 1]);
  onnx::NodeProto* t = e.emit("Transpose", {x}, {""});
  set_attr(t, "perm", perm);
  return t->output(0);
}

// FusedMatMul / TransposeMatMul (contrib_ops/cpu/matmul_fusion, core/providers/cpu/math/
// matmul.cc): Y = alpha * MatMul(transA ? A^T : A, transB ? B^T : B), ^T on the last two axes.
bool fused_matmul(Expansion& e) {
  if (e.attr_i("transBatchA", 0) || e.attr_i("transBatchB", 0))
    return e.fail("transBatchA/transBatchB are not supported");
  std::string a = e.in(0), b = e.in(1);
  for (auto [name, v] : {std::pair<const char*, std::string*>{"transA", &a}, {"transB", &b}}) {
    if (!e.attr_i(name, 0)) continue;
    int r = e.rank(*v);
    if (r < 2) return e.fail("{} needs an input of known rank >= 2", name);
    *v = transpose_last2(e, *v, r);
  }
  const float alpha = e.attr_f("alpha", 1.0f);
  if (alpha == 1.0f) {
    e.emit("MatMul", {a, b}, {e.out(0)});
  } else {
    e.emit("Mul", {e.emit1("MatMul", {a, b}), e.const_f({alpha})}, {e.out(0)});
  }
  return true;
}

// Gelu(x) = 0.5 * x * (1 + erf(x / sqrt(2))): ONNX Gelu from opset 20, else its function body.
void emit_gelu(Expansion& e, const std::string& x, const std::string& y) {
  if (e.opset >= 20) {
    e.emit("Gelu", {x}, {y});
    return;
  }
  std::string t = e.emit1("Div", {x, e.const_f({std::sqrt(2.0f)})});
  t = e.emit1("Erf", {t});
  t = e.emit1("Add", {t, e.const_f({1.0f})});
  t = e.emit1("Mul", {x, t});
  e.emit("Mul", {t, e.const_f({0.5f})}, {y});
}

// Gelu (contrib_ops/cpu/activations.h): the erf form.
bool gelu(Expansion& e) {
  emit_gelu(e, e.in(0), e.out(0));
  return true;
}

// BiasGelu (contrib_ops/cpu/bert/bias_gelu.cc): Gelu(A + B).
bool bias_gelu(Expansion& e) {
  emit_gelu(e, e.emit1("Add", {e.in(0), e.in(1)}), e.out(0));
  return true;
}

// FastGelu (contrib_ops/cpu/bert/fast_gelu.cc), x = X (+ bias):
//   Y = 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))): ONNX Gelu(approximate="tanh")
//   from opset 20, else its function body.
bool fast_gelu(Expansion& e) {
  std::string x = e.has_in(1) ? e.emit1("Add", {e.in(0), e.in(1)}) : e.in(0);
  if (e.opset >= 20) {
    set_attr(e.emit("Gelu", {x}, {e.out(0)}), "approximate", std::string("tanh"));
    return true;
  }
  std::string x3 = e.emit1("Mul", {e.emit1("Mul", {x, x}), x});
  std::string t = e.emit1("Add", {x, e.emit1("Mul", {x3, e.const_f({0.044715f})})});
  t = e.emit1("Mul", {t, e.const_f({0.7978845608028654f})});
  t = e.emit1("Add", {e.emit1("Tanh", {t}), e.const_f({1.0f})});
  e.emit("Mul", {e.emit1("Mul", {x, t}), e.const_f({0.5f})}, {e.out(0)});
  return true;
}

// QuickGelu (contrib_ops/cpu/activations.h): Y = X * Sigmoid(alpha * X), alpha = 1.702.
bool quick_gelu(Expansion& e) {
  const float alpha = e.attr_f("alpha", 1.702f);
  std::string s = alpha == 1.0f ? e.in(0) : e.emit1("Mul", {e.in(0), e.const_f({alpha})});
  e.emit("Mul", {e.in(0), e.emit1("Sigmoid", {s})}, {e.out(0)});
  return true;
}

}  // namespace

std::vector<ExpandRule> fused_rules() {
  return {{"FusedConv", fused_conv},
          {"FusedGemm", fused_gemm},
          {"FusedMatMul", fused_matmul},
          {"TransposeMatMul", fused_matmul},
          {"Gelu", gelu},
          {"BiasGelu", bias_gelu},
          {"FastGelu", fast_gelu},
          {"QuickGelu", quick_gelu}};
}

}  // namespace onnxc::contrib
