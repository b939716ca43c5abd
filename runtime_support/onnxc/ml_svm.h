// Support vector machines of ai.onnx.ml, computed in float whatever the input type, as
// onnxruntime does:
//   svm_kernel            K(x, s): LINEAR x.s; POLY (gamma x.s + coef0)^degree; RBF
//                         e^(-gamma |x - s|^2); SIGMOID tanh(gamma x.s + coef0)
//   svm_regressor_ref     y = sum_v coef[v] K(x, support_v) + rho, or, without support vectors
//                         (liblinear form), y = x.coef + rho; one_class: y = y > 0 ? 1 : -1
// Parameters are computed by the compiler; kernels never validate them.
#ifndef ONNXC_ML_SVM_H
#define ONNXC_ML_SVM_H

#include <cmath>

#include "onnxc/base.h"

namespace onnxc {

enum : int { kSvmLinear, kSvmPoly, kSvmRbf, kSvmSigmoid };

struct SvmParams {
  index_t rows, features;
  index_t vectors;       // support vectors; 0: the liblinear form
  const float* support;  // [vectors, features], or nullptr
  const float* coef;     // [vectors], or [features] in the liblinear form
  float rho;
  int kernel;  // kSvmLinear .. kSvmSigmoid
  float gamma, coef0, degree;
  int one_class;
};

template <typename X>
inline float svm_kernel(const SvmParams& p, const X* x, const float* s) {
  float acc = 0.0f;
  if (p.kernel == kSvmRbf) {
    for (index_t f = 0; f < p.features; ++f) {
      const float d = static_cast<float>(x[f]) - s[f];
      acc += d * d;
    }
    return std::exp(-p.gamma * acc);
  }
  for (index_t f = 0; f < p.features; ++f) acc += static_cast<float>(x[f]) * s[f];
  if (p.kernel == kSvmLinear) return acc;
  const float v = p.gamma * acc + p.coef0;
  if (p.kernel == kSvmSigmoid) return std::tanh(v);
  return p.degree == 2.0f ? v * v : p.degree == 3.0f ? v * v * v : std::pow(v, p.degree);
}

template <typename X>
inline void svm_regressor_ref(const SvmParams& p, const X* x, float* y) {
  for (index_t r = 0; r < p.rows; ++r) {
    const X* row = x + r * p.features;
    float sum = 0.0f;
    if (p.vectors == 0) {
      sum = svm_kernel(p, row, p.coef);  // the compiler sets kernel LINEAR for this form
    } else {
      for (index_t v = 0; v < p.vectors; ++v)
        sum += p.coef[v] * svm_kernel(p, row, p.support + v * p.features);
    }
    sum += p.rho;
    y[r] = p.one_class ? (sum > 0.0f ? 1.0f : -1.0f) : sum;
  }
}

}  // namespace onnxc

#endif  // ONNXC_ML_SVM_H
