// Pooling over 1-3 spatial dims (padded with unit dims to 3-D), NCHW layout: max (with optional
// argmax indices), average (with or without padding in the count), and the global forms.
#ifndef ONNXC_POOL_H
#define ONNXC_POOL_H

#include <cmath>
#include <limits>

#include "onnxc/base.h"

namespace onnxc {

struct PoolParams {
  index_t channels;  // batch * channels
  index_t in[3], out[3], kernel[3], stride[3], dilation[3], pad[3], pad_end[3];
  int count_include_pad;  // average pool: padding counts towards the divisor
  int storage_order;      // max pool indices: 0 row-major, 1 column-major
  int spatial_rank;       // 1..3, for column-major indices
};

template <typename T, bool kMax>
inline void pool_ref(const PoolParams& p, const T* x, T* y, int64_t* indices) {
  const index_t in_size = p.in[0] * p.in[1] * p.in[2];
  const index_t out_size = p.out[0] * p.out[1] * p.out[2];
  for (index_t c = 0; c < p.channels; ++c) {
    const T* xc = x + c * in_size;
    for (index_t od = 0; od < p.out[0]; ++od)
      for (index_t oh = 0; oh < p.out[1]; ++oh)
        for (index_t ow = 0; ow < p.out[2]; ++ow) {
          const index_t o = (od * p.out[1] + oh) * p.out[2] + ow;
          T best = std::numeric_limits<T>::lowest();
          index_t best_at = -1;
          double sum = 0;
          index_t count = 0, padded_count = 0;
          for (index_t kd = 0; kd < p.kernel[0]; ++kd) {
            const index_t id = od * p.stride[0] - p.pad[0] + kd * p.dilation[0];
            for (index_t kh = 0; kh < p.kernel[1]; ++kh) {
              const index_t ih = oh * p.stride[1] - p.pad[1] + kh * p.dilation[1];
              for (index_t kw = 0; kw < p.kernel[2]; ++kw) {
                const index_t iw = ow * p.stride[2] - p.pad[2] + kw * p.dilation[2];
                // Taps inside input + declared padding count when count_include_pad is set.
                if (id >= -p.pad[0] && id < p.in[0] + p.pad_end[0] && ih >= -p.pad[1] &&
                    ih < p.in[1] + p.pad_end[1] && iw >= -p.pad[2] && iw < p.in[2] + p.pad_end[2])
                  ++padded_count;
                if (id < 0 || id >= p.in[0] || ih < 0 || ih >= p.in[1] || iw < 0 || iw >= p.in[2]) continue;
                const index_t at = (id * p.in[1] + ih) * p.in[2] + iw;
                const T v = xc[at];
                ++count;
                sum += static_cast<double>(v);
                if (kMax && (v > best || best_at < 0)) {
                  best = v;
                  best_at = at;
                }
              }
            }
          }
          if (kMax) {
            y[c * out_size + o] = best;
            if (indices) {
              index_t at = best_at;
              if (p.storage_order == 1) {  // column-major over the spatial dims
                const index_t d = at / (p.in[1] * p.in[2]), h = (at / p.in[2]) % p.in[1], w = at % p.in[2];
                at = p.spatial_rank == 1 ? w : p.spatial_rank == 2 ? w * p.in[1] + h : (w * p.in[1] + h) * p.in[0] + d;
              }
              indices[c * out_size + o] = c * in_size + at;
            }
          } else {
            const index_t div = p.count_include_pad ? padded_count : count;
            y[c * out_size + o] = static_cast<T>(div ? sum / static_cast<double>(div) : 0.0);
          }
        }
  }
}

// Global average / max: one value per (batch, channel).
template <typename T, bool kMax>
inline void global_pool_ref(const T* x, T* y, index_t channels, index_t spatial) {
  for (index_t c = 0; c < channels; ++c) {
    const T* xc = x + c * spatial;
    double sum = 0;
    T best = std::numeric_limits<T>::lowest();
    for (index_t i = 0; i < spatial; ++i) {
      sum += static_cast<double>(xc[i]);
      if (xc[i] > best) best = xc[i];
    }
    y[c] = kMax ? best : static_cast<T>(sum / static_cast<double>(spatial));
  }
}

}  // namespace onnxc

#endif  // ONNXC_POOL_H
