// Shared by the ai.onnx.ml kernels: the post transform applied to a row of n scores.
//   kPostNone; kPostSoftmax; kPostLogistic 1 / (1 + e^-v); kPostSoftmaxZero (softmax over the
//   non-zero entries, zeros stay zero). PROBIT is not implemented (the compiler refuses it).
#ifndef ONNXC_ML_COMMON_H
#define ONNXC_ML_COMMON_H

#include <cmath>
#include <limits>

#include "onnxc/base.h"

namespace onnxc {

enum : int { kPostNone, kPostSoftmax, kPostLogistic, kPostSoftmaxZero };

template <typename T>
inline void ml_post_transform(int transform, T* y, index_t n) {
  if (transform == kPostLogistic) {
    for (index_t j = 0; j < n; ++j) y[j] = T(1) / (T(1) + std::exp(-y[j]));
    return;
  }
  if (transform != kPostSoftmax && transform != kPostSoftmaxZero) return;
  const bool skip_zero = transform == kPostSoftmaxZero;
  T top = -std::numeric_limits<T>::infinity();
  for (index_t j = 0; j < n; ++j)
    if (!(skip_zero && y[j] == T(0)) && y[j] > top) top = y[j];
  T sum = 0;
  for (index_t j = 0; j < n; ++j) {
    if (skip_zero && y[j] == T(0)) continue;
    y[j] = std::exp(y[j] - top);
    sum += y[j];
  }
  for (index_t j = 0; j < n; ++j)
    if (!(skip_zero && y[j] == T(0))) y[j] /= sum;
}

}  // namespace onnxc

#endif  // ONNXC_ML_COMMON_H
