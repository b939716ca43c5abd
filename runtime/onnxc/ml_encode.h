// Encoders of ai.onnx.ml over numeric tensors:
//   label_encoder_ref<K, V>      y = values[k] for the last k with keys[k] == x (a NaN key matches
//   a
//                                NaN x), else the default value
//   one_hot_encoder_ref<T>       y[i, k] = 1 if int64(x[i]) == cats[k] else 0  (float output)
//   feature_vectorizer_copy<T>   writes one input's [rows, cols] block into columns
//                                [offset, offset + width) of y [rows, out_cols]: its first
//                                min(cols, width) columns, then zeros
// Parameters are computed by the compiler; kernels never validate them.
#ifndef ONNXC_ML_ENCODE_H
#define ONNXC_ML_ENCODE_H

#include <cstdint>

#include "onnxc/base.h"

namespace onnxc {

template <typename K, typename V>
inline void label_encoder_ref(index_t n, const K* x, const K* keys, const V* values, index_t n_keys,
                              V fallback, V* y) {
  for (index_t i = 0; i < n; ++i) {
    const K v = x[i];
    V out = fallback;
    for (index_t k = n_keys; k-- > 0;)
      if (keys[k] == v || (keys[k] != keys[k] && v != v)) {  // NaN matches NaN
        out = values[k];
        break;
      }
    y[i] = out;
  }
}

template <typename T>
inline void one_hot_encoder_ref(index_t n, const T* x, const int64_t* cats, index_t n_cats,
                                float* y) {
  for (index_t i = 0; i < n; ++i) {
    const int64_t v = static_cast<int64_t>(x[i]);
    for (index_t k = 0; k < n_cats; ++k) y[i * n_cats + k] = v == cats[k] ? 1.0f : 0.0f;
  }
}

template <typename T>
inline void feature_vectorizer_copy(index_t rows, index_t cols, index_t width, index_t offset,
                                    index_t out_cols, const T* x, float* y) {
  for (index_t r = 0; r < rows; ++r)
    for (index_t c = 0; c < width; ++c)
      y[r * out_cols + offset + c] = c < cols ? static_cast<float>(x[r * cols + c]) : 0.0f;
}

}  // namespace onnxc

#endif  // ONNXC_ML_ENCODE_H
