// Feature preprocessing of ai.onnx.ml over numeric tensors, each row of C features (the last axis):
//   array_feature_extractor_ref   y[..., k] = x[..., idx[k]]; an index outside [0, C) (only
//                                 possible at run time) reads feature 0, so no memory outside x
//                                 is touched
//   binarizer_ref                 y = x > threshold ? 1 : 0
//   scaler_ref                    y = (x - offset[c]) * scale[c]   (float output)
//   normalizer_ref                per row: x / max(x) (MAX), x / sum|x| (L1), x / sqrt(sum x^2)
//                                 (L2); a zero divisor leaves the row as it is
//   imputer_ref                   y = x, or imputed[c] where x equals the replaced value (NaN
//                                 matches NaN)
// Per-feature parameter lists hold 1 entry (used for every feature) or C. Parameters are computed
// by the compiler; kernels never validate them.
#ifndef ONNXC_ML_PREPROCESS_H
#define ONNXC_ML_PREPROCESS_H

#include <cmath>
#include <cstdint>

#include "onnxc/base.h"

namespace onnxc {

template <typename T>
inline void array_feature_extractor_ref(index_t rows, index_t cols, const T* x, const int64_t* idx,
                                        index_t n_idx, T* y) {
  for (index_t r = 0; r < rows; ++r)
    for (index_t k = 0; k < n_idx; ++k) {
      const int64_t c = idx[k] >= 0 && idx[k] < cols ? idx[k] : 0;
      y[r * n_idx + k] = x[r * cols + c];
    }
}

template <typename T>
inline void binarizer_ref(index_t n, const T* x, T threshold, T* y) {
  for (index_t i = 0; i < n; ++i) y[i] = x[i] > threshold ? T(1) : T(0);
}

template <typename T>
inline void scaler_ref(index_t rows, index_t cols, const T* x, const float* offset,
                       index_t n_offset, const float* scale, index_t n_scale, float* y) {
  for (index_t r = 0; r < rows; ++r)
    for (index_t c = 0; c < cols; ++c) {
      const float o = offset[n_offset == 1 ? 0 : c], s = scale[n_scale == 1 ? 0 : c];
      y[r * cols + c] = (static_cast<float>(x[r * cols + c]) - o) * s;
    }
}

enum : int { kNormMax, kNormL1, kNormL2 };

template <typename T>
inline void normalizer_ref(index_t rows, index_t cols, int norm, const T* x, float* y) {
  for (index_t r = 0; r < rows; ++r) {
    const T* in = x + r * cols;
    float* out = y + r * cols;
    float d = 0;
    if (norm == kNormMax) {
      d = static_cast<float>(in[0]);
      for (index_t c = 1; c < cols; ++c)
        if (static_cast<float>(in[c]) > d) d = static_cast<float>(in[c]);
    } else {
      for (index_t c = 0; c < cols; ++c) {
        const float v = static_cast<float>(in[c]);
        d += norm == kNormL1 ? std::fabs(v) : v * v;
      }
      if (norm == kNormL2) d = std::sqrt(d);
    }
    for (index_t c = 0; c < cols; ++c)
      out[c] = d != 0.0f ? static_cast<float>(in[c]) / d : static_cast<float>(in[c]);
  }
}

template <typename T>
inline void imputer_ref(index_t rows, index_t cols, const T* x, T replaced, const T* imputed,
                        index_t n_imputed, T* y) {
  for (index_t r = 0; r < rows; ++r)
    for (index_t c = 0; c < cols; ++c) {
      const T v = x[r * cols + c];
      const bool hit = v == replaced || (v != v && replaced != replaced);  // NaN matches NaN
      y[r * cols + c] = hit ? imputed[n_imputed == 1 ? 0 : c] : v;
    }
}

}  // namespace onnxc

#endif  // ONNXC_ML_PREPROCESS_H
