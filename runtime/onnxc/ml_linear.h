// Linear models of ai.onnx.ml, scores computed in float as onnxruntime does:
//   linear_scores_ref       z[r, t] = sum_c x[r, c] * coef[t, c] + intercept[t]
//   linear_regressor_ref    y = post_transform(z) per row
//   linear_classifier_ref   labels[r] = classlabels[argmax_t z[r, t]] (the first maximum); scores
//                           are z after the post transform. With one score column (binary) the
//                           label is positive when z > 0, and the two score columns are
//                           [1 - z, z], or [1 - s, s] with s = 1 / (1 + e^-z) under LOGISTIC
//                           (onnxruntime's convention; SOFTMAX/SOFTMAX_ZERO leave z as it is).
// Parameters are computed by the compiler; kernels never validate them.
#ifndef ONNXC_ML_LINEAR_H
#define ONNXC_ML_LINEAR_H

#include <cstdint>

#include "onnxc/base.h"
#include "onnxc/ml_common.h"

namespace onnxc {

struct LinearParams {
  index_t rows, features, targets;
  const float* coef;       // [targets, features]
  const float* intercept;  // [targets] or nullptr
  int post_transform;      // kPostNone .. kPostSoftmaxZero
};

template <typename X>
inline void linear_scores_ref(const LinearParams& p, const X* x, float* z, index_t stride) {
  for (index_t r = 0; r < p.rows; ++r)
    for (index_t t = 0; t < p.targets; ++t) {
      float acc = p.intercept ? p.intercept[t] : 0.0f;
      for (index_t c = 0; c < p.features; ++c)
        acc += static_cast<float>(x[r * p.features + c]) * p.coef[t * p.features + c];
      z[r * stride + t] = acc;
    }
}

template <typename X>
inline void linear_regressor_ref(const LinearParams& p, const X* x, float* y) {
  linear_scores_ref(p, x, y, p.targets);
  for (index_t r = 0; r < p.rows; ++r)
    ml_post_transform(p.post_transform, y + r * p.targets, p.targets);
}

template <typename X>
inline void linear_classifier_ref(const LinearParams& p, const int64_t* classlabels, const X* x,
                                  int64_t* labels, float* scores) {
  const bool binary = p.targets == 1;
  const index_t stride = binary ? 2 : p.targets;
  linear_scores_ref(p, x, scores + (binary ? 1 : 0), stride);
  for (index_t r = 0; r < p.rows; ++r) {
    float* z = scores + r * stride;
    if (binary) {
      labels[r] = z[1] > 0.0f ? classlabels[1] : classlabels[0];
      if (p.post_transform == kPostLogistic) z[1] = 1.0f / (1.0f + std::exp(-z[1]));
      z[0] = 1.0f - z[1];
      continue;
    }
    index_t best = 0;
    for (index_t t = 1; t < p.targets; ++t)
      if (z[t] > z[best]) best = t;
    labels[r] = classlabels[best];
    ml_post_transform(p.post_transform, z, p.targets);
  }
}

}  // namespace onnxc

#endif  // ONNXC_ML_LINEAR_H
