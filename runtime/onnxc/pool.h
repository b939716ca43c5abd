// Pooling kernels, NCHW layout, over 1 to 3 spatial dims (1-D and 2-D run as 3-D with leading
// unit dims): max (with optional argmax indices), average, Lp, and their global forms.
//
// A window's taps are o * stride - pad + k * dilation; taps outside the input are skipped. An
// average's divisor counts, with count_include_pad, the taps inside the input or the declared
// padding (never the extra positions ceil_mode adds), else the taps inside the input. A window
// with no tap inside the input yields 0 (and index -1), as the ONNX reference.
//
// Variants (same signature as their reference):
//   maxpool_ref<T>            float types, int8, uint8; indices may be null
//   f32_maxpool_rows__scalar      float without indices: vectorized along output rows
//   f32_globalavgpool_lanes__scalar  float: vectorized partial sums
//   avgpool_ref<T>, lppool_ref<T>, global_avgpool_ref<T>, global_maxpool_ref<T>,
//   global_lppool_ref<T>      float types (float16 and bfloat16 computed in float)
// Sums are in double, or with a last argument Accum<float>{} (onnxc/accum.h, targets without
// double-precision hardware) in compensated float.
#ifndef ONNXC_POOL_H
#define ONNXC_POOL_H

#include <cmath>
#include <limits>
#include <type_traits>

#include "onnxc/accum.h"
#include "onnxc/base.h"
#include "onnxc/half.h"

namespace onnxc {

struct PoolParams {
  index_t channels;  // batch * channels
  index_t in[3], out[3], kernel[3], stride[3], dilation[3], pad[3], pad_end[3];
  int count_include_pad;  // AveragePool: the declared padding counts in the divisor
  int storage_order;      // MaxPool indices: 0 row-major, 1 column-major over the spatial dims
  float p;                // LpPool's norm (an int attribute, or a float one before opset 2)
};

namespace pool_detail {

template <typename T>
constexpr bool kHalf = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

// float16 and bfloat16 are computed in float and rounded once when stored.
template <typename T>
using compute_t = std::conditional_t<kHalf<T>, float, T>;

template <typename T>
inline compute_t<T> load(T v) {
  if constexpr (kHalf<T>)
    return to_float(v);
  else
    return v;
}

// V: the type the value was computed in (float, double or, for max, T's compute type).
template <typename T, typename V>
inline T store(V v) {
  if constexpr (std::is_same_v<T, float16>)
    return to_float16(static_cast<double>(v));
  else if constexpr (std::is_same_v<T, bfloat16>)
    return to_bfloat16(static_cast<double>(v));
  else
    return static_cast<T>(v);
}

// Taps k in [*k0, *k1) of the window at output o along one dim whose position
// o * stride - pad + k * dilation lies in [lo, hi).
inline void tap_range(const PoolParams& p, int d, index_t o, index_t lo, index_t hi, index_t* k0,
                      index_t* k1) {
  steps_in_range(p.kernel[d], p.dilation[d], o * p.stride[d] - p.pad[d] - lo, hi - lo, k0, k1);
}

// The input taps of one window: [k0[d], k1[d]) per dim, and how many declared-padding taps
// the window also covers (for count_include_pad).
struct Window {
  index_t k0[3], k1[3];
  index_t count, padded_count;
};

inline Window window_at(const PoolParams& p, index_t od, index_t oh, index_t ow) {
  Window w;
  const index_t o[3] = {od, oh, ow};
  w.count = w.padded_count = 1;
  for (int d = 0; d < 3; ++d) {
    index_t a, e;
    tap_range(p, d, o[d], -p.pad[d], p.in[d] + p.pad_end[d], &a, &e);
    w.padded_count *= e - a;
    tap_range(p, d, o[d], 0, p.in[d], &w.k0[d], &w.k1[d]);
    w.count *= w.k1[d] - w.k0[d];
  }
  return w;
}

// Calls f(offset of the tap in the channel's plane) for every input tap of window w at o.
template <typename F>
inline void for_each_tap(const PoolParams& p, const Window& w, index_t od, index_t oh, index_t ow,
                         F&& f) {
  for (index_t kd = w.k0[0]; kd < w.k1[0]; ++kd) {
    const index_t id = od * p.stride[0] - p.pad[0] + kd * p.dilation[0];
    for (index_t kh = w.k0[1]; kh < w.k1[1]; ++kh) {
      const index_t ih = oh * p.stride[1] - p.pad[1] + kh * p.dilation[1];
      const index_t row = (id * p.in[1] + ih) * p.in[2];
      for (index_t kw = w.k0[2]; kw < w.k1[2]; ++kw)
        f(row + ow * p.stride[2] - p.pad[2] + kw * p.dilation[2]);
    }
  }
}

// Runs reduce(channel plane, window, od, oh, ow) -> value for every output of every channel.
template <typename T, typename Reduce>
inline void pool_each(const PoolParams& p, const T* x, T* y, Reduce&& reduce) {
  const index_t in_size = p.in[0] * p.in[1] * p.in[2];
  for (index_t c = 0; c < p.channels; ++c) {
    const T* xc = x + c * in_size;
    for (index_t od = 0; od < p.out[0]; ++od)
      for (index_t oh = 0; oh < p.out[1]; ++oh)
        for (index_t ow = 0; ow < p.out[2]; ++ow)
          *y++ = reduce(c, xc, window_at(p, od, oh, ow), od, oh, ow);
  }
}

}  // namespace pool_detail

// Max over each window; indices (if not null) get the flat index of the first maximum in the
// whole input tensor, spatial dims ordered row- or column-major by p.storage_order.
template <typename T>
inline void maxpool_ref(const PoolParams& p, const T* x, T* y, int64_t* indices) {
  using pool_detail::load;
  const index_t in_size = p.in[0] * p.in[1] * p.in[2];
  pool_detail::pool_each(p, x, y,
                         [&](index_t c, const T* xc, const pool_detail::Window& w, index_t od,
                             index_t oh, index_t ow) {
                           pool_detail::compute_t<T> best = 0;
                           index_t best_at = -1;
                           pool_detail::for_each_tap(p, w, od, oh, ow, [&](index_t at) {
                             const auto v = load(xc[at]);
                             if (best_at < 0 || v > best) best = v, best_at = at;
                           });
                           if (indices) {
                             index_t at = best_at;
                             if (at >= 0 && p.storage_order == 1) {
                               const index_t d = at / (p.in[1] * p.in[2]),
                                             h = at / p.in[2] % p.in[1], wi = at % p.in[2];
                               at = (wi * p.in[1] + h) * p.in[0] + d;
                             }
                             *indices++ = at < 0 ? -1 : c * in_size + at;
                           }
                           return pool_detail::store<T>(best);
                         });
}

template <typename T, typename A = double>
inline void avgpool_ref(const PoolParams& p, const T* x, T* y, Accum<A> = {}) {
  using C = accum_t<pool_detail::compute_t<T>, A>;
  pool_detail::pool_each(
      p, x, y,
      [&](index_t, const T* xc, const pool_detail::Window& w, index_t od, index_t oh, index_t ow) {
        Sum<C> sum;
        pool_detail::for_each_tap(p, w, od, oh, ow, [&](index_t at) {
          sum.add(static_cast<C>(pool_detail::load(xc[at])));
        });
        const index_t div = p.count_include_pad ? w.padded_count : w.count;
        return pool_detail::store<T>(div ? sum.value() / static_cast<C>(div) : C(0));
      });
}

// (sum over the window of |x|^p)^(1/p); padding adds zeros.
template <typename T, typename A = double>
inline void lppool_ref(const PoolParams& p, const T* x, T* y, Accum<A> = {}) {
  using C = accum_t<pool_detail::compute_t<T>, A>;
  const C norm = static_cast<C>(p.p);
  pool_detail::pool_each(
      p, x, y,
      [&](index_t, const T* xc, const pool_detail::Window& w, index_t od, index_t oh, index_t ow) {
        Sum<C> sum;
        pool_detail::for_each_tap(p, w, od, oh, ow, [&](index_t at) {
          sum.add(std::pow(std::fabs(static_cast<C>(pool_detail::load(xc[at]))), norm));
        });
        return pool_detail::store<T>(std::pow(sum.value(), C(1) / norm));
      });
}

namespace pool_detail {

// yrow[ow] = max(yrow[ow], the taps of row xrow in window ow). Outputs whose taps are all
// inside the row take them in one pass; the few at the borders check each tap. kStride and
// kKernel > 0 fix the width stride and kernel width at compile time (the common 3x3 / 2x2
// pools, undilated), so the interior loop is straight-line and vectorizes; 0 reads them and the
// dilation from p. (A dilation read from p left clang with a loop of unknown stride, which it
// does not vectorize: squeezenet1_1's pools ran 3x slower than g++'s code.)
template <index_t kStride, index_t kKernel>
inline void max_row(const PoolParams& p, const float* __restrict xrow, float* __restrict yrow) {
  const index_t sw = kStride ? kStride : p.stride[2], kw_n = kKernel ? kKernel : p.kernel[2];
  const index_t dw = kKernel ? 1 : p.dilation[2], pad = p.pad[2], in = p.in[2], out = p.out[2];
  index_t lo, hi;  // windows whose first tap, at ow * sw - pad, leaves room for the others
  steps_in_range(out, sw, -pad, in - (kw_n - 1) * dw, &lo, &hi);
  auto border = [&](index_t ow) {
    for (index_t kw = 0; kw < kw_n; ++kw) {
      const index_t iw = ow * sw + kw * dw - pad;
      if (iw >= 0 && iw < in && xrow[iw] > yrow[ow]) yrow[ow] = xrow[iw];
    }
  };
  for (index_t ow = 0; ow < lo; ++ow) border(ow);
  for (index_t ow = lo; ow < hi; ++ow) {
    const float* xw = xrow + ow * sw - pad;
    float m = yrow[ow];
    for (index_t kw = 0; kw < kw_n; ++kw) m = xw[kw * dw] > m ? xw[kw * dw] : m;
    yrow[ow] = m;
  }
  for (index_t ow = hi; ow < out; ++ow) border(ow);
}

// Max pooling without indices, float: each output row starts at -inf and takes the max with
// each input row its windows cover (max_row).
// Always inlined, also on the M profile: f32_maxpool_rows__scalar then holds the loops itself, so a
// call with a node's constant PoolParams keeps only its own row kernel (2.4 KB less flash there).
inline __attribute__((always_inline)) void maxpool_rows(const PoolParams& p, const float* x,
                                                        float* y) {
  const index_t in_size = p.in[0] * p.in[1] * p.in[2];
  // Windows are monotonic along the width: those with a tap inside the input form [w_lo, w_hi).
  index_t w_lo = p.out[2], w_hi = 0;
  for (index_t ow = 0; ow < p.out[2]; ++ow) {
    index_t a, e;
    pool_detail::tap_range(p, 2, ow, 0, p.in[2], &a, &e);
    if (a < e) w_lo = w_lo < ow ? w_lo : ow, w_hi = ow + 1;
  }
  for (index_t c = 0; c < p.channels; ++c) {
    const float* xc = x + c * in_size;
    for (index_t od = 0; od < p.out[0]; ++od)
      for (index_t oh = 0; oh < p.out[1]; ++oh, y += p.out[2]) {
        index_t k0[2], k1[2];
        pool_detail::tap_range(p, 0, od, 0, p.in[0], &k0[0], &k1[0]);
        pool_detail::tap_range(p, 1, oh, 0, p.in[1], &k0[1], &k1[1]);
        for (index_t ow = 0; ow < p.out[2]; ++ow) y[ow] = -std::numeric_limits<float>::infinity();
        for (index_t kd = k0[0]; kd < k1[0]; ++kd)
          for (index_t kh = k0[1]; kh < k1[1]; ++kh) {
            const index_t id = od * p.stride[0] - p.pad[0] + kd * p.dilation[0];
            const index_t ih = oh * p.stride[1] - p.pad[1] + kh * p.dilation[1];
            const float* xrow = xc + (id * p.in[1] + ih) * p.in[2];
            if (p.dilation[2] == 1 && p.stride[2] == 2 && p.kernel[2] == 3)
              pool_detail::max_row<2, 3>(p, xrow, y);
            else if (p.dilation[2] == 1 && p.stride[2] == 1 && p.kernel[2] == 3)
              pool_detail::max_row<1, 3>(p, xrow, y);
            else if (p.dilation[2] == 1 && p.stride[2] == 2 && p.kernel[2] == 2)
              pool_detail::max_row<2, 2>(p, xrow, y);
            else
              pool_detail::max_row<0, 0>(p, xrow, y);
          }
        // Empty windows (entirely in the padding) yield 0.
        const bool rows_empty = k0[0] == k1[0] || k0[1] == k1[1];
        for (index_t ow = 0; ow < p.out[2]; ++ow)
          if (rows_empty || ow < w_lo || ow >= w_hi) y[ow] = 0.0f;
      }
  }
}

}  // namespace pool_detail

// (in_isa_copy: at the baseline and -O2 the windows stayed scalar, 0.12x native on Zen 3.)
inline void f32_maxpool_rows__scalar(const PoolParams& p, const float* x, float* y,
                                     int64_t* /*indices: must be null*/) {
  ONNXC_IN_ISA_COPY(pool_detail::maxpool_rows(p, x, y));
}

// ---- global pools: one value per (batch, channel) over `spatial` elements --------------------

template <typename T, typename A = double>
inline void global_avgpool_ref(const T* x, T* y, index_t channels, index_t spatial, Accum<A> = {}) {
  using C = accum_t<pool_detail::compute_t<T>, A>;
  for (index_t c = 0; c < channels; ++c, x += spatial) {
    Sum<C> sum;
    for (index_t i = 0; i < spatial; ++i) sum.add(static_cast<C>(pool_detail::load(x[i])));
    y[c] = pool_detail::store<T>(sum.value() / static_cast<C>(spatial));
  }
}

template <typename T>
inline void global_maxpool_ref(const T* x, T* y, index_t channels, index_t spatial) {
  for (index_t c = 0; c < channels; ++c, x += spatial) {
    auto best = pool_detail::load(x[0]);
    for (index_t i = 1; i < spatial; ++i) {
      const auto v = pool_detail::load(x[i]);
      if (v > best) best = v;
    }
    y[c] = pool_detail::store<T>(best);
  }
}

// Float average with 16 float partial sums per channel (vectorizes; the reference's sum is
// sequential), combined in double. Targets without a double FPU (and no float SIMD to vectorize
// for either) use global_avgpool_ref<float> with Accum<float>{}, a compensated float sum.
inline void f32_globalavgpool_lanes__scalar(const float* x, float* y, index_t channels,
                                            index_t spatial) {
  constexpr index_t kParts = 16;
  const index_t whole = spatial / kParts;
  for (index_t c = 0; c < channels; ++c, x += spatial) {
    float part[kParts] = {};
    for (index_t i = 0; i < whole; ++i)
      for (index_t l = 0; l < kParts; ++l) part[l] += x[i * kParts + l];
    double sum = 0.0;
    for (index_t l = 0; l < spatial % kParts; ++l)
      sum += static_cast<double>(x[whole * kParts + l]);
    for (index_t l = 0; l < kParts; ++l) sum += static_cast<double>(part[l]);
    y[c] = static_cast<float>(sum / static_cast<double>(spatial));
  }
}

template <typename T, typename A = double>
inline void global_lppool_ref(const T* x, T* y, index_t channels, index_t spatial, float p,
                              Accum<A> = {}) {
  using C = accum_t<pool_detail::compute_t<T>, A>;
  const C norm = static_cast<C>(p);
  for (index_t c = 0; c < channels; ++c, x += spatial) {
    Sum<C> sum;
    for (index_t i = 0; i < spatial; ++i)
      sum.add(std::pow(std::fabs(static_cast<C>(pool_detail::load(x[i]))), norm));
    y[c] = pool_detail::store<T>(std::pow(sum.value(), C(1) / norm));
  }
}

}  // namespace onnxc

#endif  // ONNXC_POOL_H
