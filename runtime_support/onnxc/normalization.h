// Normalization and softmax kernels over an [outer, axis, inner] view of the tensor.
#ifndef ONNXC_NORMALIZATION_H
#define ONNXC_NORMALIZATION_H

#include <cmath>

#include "onnxc/base.h"

namespace onnxc {

// Inference BatchNormalization: y = (x - mean[c]) / sqrt(var[c] + eps) * scale[c] + bias[c].
template <typename T>
inline void batch_norm_ref(const T* x, const T* scale, const T* bias, const T* mean, const T* var,
                           T* y, index_t batch, index_t channels, index_t spatial, double epsilon) {
  for (index_t c = 0; c < channels; ++c) {
    const double inv = 1.0 / std::sqrt(static_cast<double>(var[c]) + epsilon);
    const T a = static_cast<T>(static_cast<double>(scale[c]) * inv);
    const T b = static_cast<T>(static_cast<double>(bias[c]) - static_cast<double>(mean[c]) * static_cast<double>(scale[c]) * inv);
    for (index_t n = 0; n < batch; ++n) {
      const T* xc = x + (n * channels + c) * spatial;
      T* yc = y + (n * channels + c) * spatial;
      for (index_t i = 0; i < spatial; ++i) yc[i] = xc[i] * a + b;
    }
  }
}

// LayerNormalization over the trailing `size` elements of each of `rows` rows; scale and bias
// broadcast to a row through `scale_period` / `bias_period` (their element counts).
template <typename T>
inline void layer_norm_ref(const T* x, const T* scale, const T* bias, T* y, T* mean_out, T* inv_std_out,
                           index_t rows, index_t size, index_t scale_size, index_t bias_size, double epsilon) {
  for (index_t r = 0; r < rows; ++r) {
    const T* xr = x + r * size;
    T* yr = y + r * size;
    double mean = 0, var = 0;
    for (index_t i = 0; i < size; ++i) mean += static_cast<double>(xr[i]);
    mean /= static_cast<double>(size);
    for (index_t i = 0; i < size; ++i) {
      const double d = static_cast<double>(xr[i]) - mean;
      var += d * d;
    }
    var /= static_cast<double>(size);
    const double inv = 1.0 / std::sqrt(var + epsilon);
    for (index_t i = 0; i < size; ++i) {
      double v = (static_cast<double>(xr[i]) - mean) * inv * static_cast<double>(scale[i % scale_size]);
      if (bias) v += static_cast<double>(bias[i % bias_size]);
      yr[i] = static_cast<T>(v);
    }
    if (mean_out) mean_out[r] = static_cast<T>(mean);
    if (inv_std_out) inv_std_out[r] = static_cast<T>(inv);
  }
}

// Softmax (or log-softmax) along the middle axis of an [outer, axis, inner] view.
template <typename T, bool kLog>
inline void softmax_ref(const T* x, T* y, index_t outer, index_t axis, index_t inner) {
  for (index_t o = 0; o < outer; ++o)
    for (index_t in = 0; in < inner; ++in) {
      const T* xs = x + o * axis * inner + in;
      T* ys = y + o * axis * inner + in;
      T mx = xs[0];
      for (index_t i = 1; i < axis; ++i) mx = xs[i * inner] > mx ? xs[i * inner] : mx;
      double sum = 0;
      for (index_t i = 0; i < axis; ++i) sum += std::exp(static_cast<double>(xs[i * inner] - mx));
      const double log_sum = std::log(sum);
      for (index_t i = 0; i < axis; ++i) {
        const double d = static_cast<double>(xs[i * inner] - mx);
        ys[i * inner] = static_cast<T>(kLog ? d - log_sum : std::exp(d) / sum);
      }
    }
}

}  // namespace onnxc

#endif  // ONNXC_NORMALIZATION_H
