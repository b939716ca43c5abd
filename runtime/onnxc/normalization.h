// Normalization kernels: BatchNormalization (inference and training forms), LayerNormalization,
// GroupNormalization / InstanceNormalization, LpNormalization, MeanVarianceNormalization, LRN.
// Statistics accumulate in double and use two passes (mean, then squared deviations), so
// inputs with a large mean keep their precision. On targets without double-precision hardware
// the compiler passes Accum<float>{} (onnxc/accum.h): float tensors then compute in float, with
// compensated sums.
#ifndef ONNXC_NORMALIZATION_H
#define ONNXC_NORMALIZATION_H

#include <cmath>

#include "onnxc/accum.h"
#include "onnxc/base.h"
#include "onnxc/reduce.h"

namespace onnxc {

namespace norm_detail {

// Mean and population variance of n elements x[0..n), in C over independent lanes (so the
// double loops vectorize).
template <typename C, typename T>
inline void mean_var(const T* x, index_t n, C& mean, C& var) {
  constexpr index_t kLanes = 8;
  const index_t nv = n - n % kLanes;
  Sum<C> lanes[kLanes] = {};
  for (index_t i = 0; i < nv; i += kLanes)
    for (index_t l = 0; l < kLanes; ++l) lanes[l].add(static_cast<C>(x[i + l]));
  Sum<C> sum;
  for (index_t i = nv; i < n; ++i) sum.add(static_cast<C>(x[i]));
  for (index_t l = 0; l < kLanes; ++l) sum.add(lanes[l].value());
  mean = n ? sum.value() / static_cast<C>(n) : C(0);
  for (index_t l = 0; l < kLanes; ++l) lanes[l] = Sum<C>{};
  for (index_t i = 0; i < nv; i += kLanes)
    for (index_t l = 0; l < kLanes; ++l) {
      const C d = static_cast<C>(x[i + l]) - mean;
      lanes[l].add(d * d);
    }
  Sum<C> sq;
  for (index_t i = nv; i < n; ++i) {
    const C d = static_cast<C>(x[i]) - mean;
    sq.add(d * d);
  }
  for (index_t l = 0; l < kLanes; ++l) sq.add(lanes[l].value());
  var = n ? sq.value() / static_cast<C>(n) : C(0);
}

}  // namespace norm_detail

// ---- BatchNormalization ------------------------------------------------------------------------

struct BatchNormParams {
  index_t batch, channels, spatial;  // x viewed as [batch, channels, spatial]
  int per_element;                   // legacy spatial=0: parameters are [channels, spatial]
  float epsilon, momentum;           // float attributes; momentum: training form only
};

// Inference: y = (x - mean) / sqrt(var + epsilon) * scale + bias, folded per channel into
// y = x * a + b. T: x and y; TP: scale and bias; TS: mean and var; a and b computed in
// accum_t<T, A>.
template <typename T, typename TP, typename TS, typename A = double>
inline void batch_norm_ref(const BatchNormParams& p, const T* x, const TP* scale, const TP* bias,
                           const TS* mean, const TS* var, T* y, Accum<A> = {}) {
  using C = accum_t<T, A>;
  const index_t per = p.per_element ? p.spatial : 1;  // parameters per channel
  for (index_t c = 0; c < p.channels; ++c)
    for (index_t j = 0; j < per; ++j) {
      const index_t k = c * per + j;
      const C inv = C(1) / std::sqrt(static_cast<C>(var[k]) + static_cast<C>(p.epsilon));
      const C a = static_cast<C>(scale[k]) * inv;
      const T ta = static_cast<T>(a);
      const T tb = static_cast<T>(static_cast<C>(bias[k]) - static_cast<C>(mean[k]) * a);
      const index_t len = p.per_element ? 1 : p.spatial;
      for (index_t n = 0; n < p.batch; ++n) {
        const index_t base = (n * p.channels + c) * p.spatial + j;
        for (index_t i = 0; i < len; ++i) y[base + i] = x[base + i] * ta + tb;
      }
    }
}

// Training (training_mode=1): normalizes with the batch statistics of each channel (population
// variance) and, when the outputs are non-null, updates the running statistics:
//   running = input * momentum + current * (1 - momentum).
template <typename T, typename TP, typename TS, typename A = double>
inline void batch_norm_training_ref(const BatchNormParams& p, const T* x, const TP* scale,
                                    const TP* bias, const TS* mean, const TS* var, T* y,
                                    TS* running_mean, TS* running_var, Accum<A> = {}) {
  using C = accum_t<T, A>;
  const C count = static_cast<C>(p.batch * p.spatial);
  const C momentum = static_cast<C>(p.momentum);
  for (index_t c = 0; c < p.channels; ++c) {
    Sum<C> sum, sq;
    for (index_t n = 0; n < p.batch; ++n) {
      const T* xc = x + (n * p.channels + c) * p.spatial;
      for (index_t i = 0; i < p.spatial; ++i) sum.add(static_cast<C>(xc[i]));
    }
    const C m = count > 0 ? sum.value() / count : C(0);
    for (index_t n = 0; n < p.batch; ++n) {
      const T* xc = x + (n * p.channels + c) * p.spatial;
      for (index_t i = 0; i < p.spatial; ++i) {
        const C d = static_cast<C>(xc[i]) - m;
        sq.add(d * d);
      }
    }
    const C v = count > 0 ? sq.value() / count : C(0);
    const C a = static_cast<C>(scale[c]) / std::sqrt(v + static_cast<C>(p.epsilon));
    const C b = static_cast<C>(bias[c]) - m * a;
    for (index_t n = 0; n < p.batch; ++n) {
      const index_t base = (n * p.channels + c) * p.spatial;
      for (index_t i = 0; i < p.spatial; ++i)
        y[base + i] = static_cast<T>(static_cast<C>(x[base + i]) * a + b);
    }
    if (running_mean)
      running_mean[c] = static_cast<TS>(static_cast<C>(mean[c]) * momentum + m * (C(1) - momentum));
    if (running_var)
      running_var[c] = static_cast<TS>(static_cast<C>(var[c]) * momentum + v * (C(1) - momentum));
  }
}

// ---- LayerNormalization ------------------------------------------------------------------------

struct LayerNormParams {
  index_t rows, size;  // x viewed as [rows, size]; each row is normalized
  float epsilon;       // a float attribute
  // Scale and B broadcast over a row's dims (the normalized ones) through these strides; the
  // *_contiguous flags say a parameter is a full row, indexed directly.
  int norm_rank;
  index_t norm_dims[kMaxRank], scale_strides[kMaxRank], bias_strides[kMaxRank];
  int scale_contiguous, bias_contiguous;
};

namespace norm_detail {

// yr[i] = (xr[i] - mean) * inv * scale + bias over one row, scale and bias (may be null)
// broadcast through p's strides; computed in C.
template <typename T, typename C>
inline void normalize_row(const LayerNormParams& p, const T* xr, T* yr, C mean, C inv,
                          const T* scale, const T* bias) {
  if (p.scale_contiguous && (!bias || p.bias_contiguous)) {
    for (index_t i = 0; i < p.size; ++i) {
      C v = (static_cast<C>(xr[i]) - mean) * inv * static_cast<C>(scale[i]);
      if (bias) v += static_cast<C>(bias[i]);
      yr[i] = static_cast<T>(v);
    }
    return;
  }
  index_t idx[kMaxRank] = {}, so = 0, bo = 0;
  for (index_t i = 0; i < p.size; ++i) {
    C v = (static_cast<C>(xr[i]) - mean) * inv * static_cast<C>(scale[so]);
    if (bias) v += static_cast<C>(bias[bo]);
    yr[i] = static_cast<T>(v);
    for (int d = p.norm_rank - 1; d >= 0; --d) {  // odometer over the row's dims
      so += p.scale_strides[d];
      bo += p.bias_strides[d];
      if (++idx[d] < p.norm_dims[d]) break;
      so -= idx[d] * p.scale_strides[d];
      bo -= idx[d] * p.bias_strides[d];
      idx[d] = 0;
    }
  }
}

}  // namespace norm_detail

// y = (x - mean) / sqrt(var + epsilon) * scale + bias per row; mean_out and inv_std_out (one per
// row, may be null) receive the statistics in U, the stash type.
template <typename T, typename U, typename A = double>
inline void layer_norm_ref(const LayerNormParams& p, const T* x, const T* scale, const T* bias,
                           T* y, U* mean_out, U* inv_std_out, Accum<A> = {}) {
  using C = accum_t<T, A>;
  for (index_t r = 0; r < p.rows; ++r) {
    C mean, var;
    norm_detail::mean_var(x + r * p.size, p.size, mean, var);
    const C inv = C(1) / std::sqrt(var + static_cast<C>(p.epsilon));
    if (mean_out) mean_out[r] = static_cast<U>(mean);
    if (inv_std_out) inv_std_out[r] = static_cast<U>(inv);
    norm_detail::normalize_row(p, x + r * p.size, y + r * p.size, mean, inv, scale, bias);
  }
}

// RMSNormalization: y = x / sqrt(mean(x^2) + epsilon) * scale per row (p's bias fields unused).
template <typename T, typename A = double>
inline void rms_norm_ref(const LayerNormParams& p, const T* x, const T* scale, T* y,
                         Accum<A> = {}) {
  using C = accum_t<T, A>;
  for (index_t r = 0; r < p.rows; ++r) {
    const T* xr = x + r * p.size;
    Sum<C> sq;
    for (index_t i = 0; i < p.size; ++i) sq.add(static_cast<C>(xr[i]) * static_cast<C>(xr[i]));
    const C ms = p.size ? sq.value() / static_cast<C>(p.size) : C(0);
    const C inv = C(1) / std::sqrt(ms + static_cast<C>(p.epsilon));
    norm_detail::normalize_row(p, xr, y + r * p.size, C(0), inv, scale,
                               static_cast<const T*>(nullptr));
  }
}

// The float variant of rms_norm_ref: the mean square in float over 16 lanes, so it vectorizes.
// Scale must be a full row (scale_contiguous); other layouts take the reference.
template <typename A = double>
inline void f32_rmsnorm_lanes__scalar(const LayerNormParams& p, const float* x, const float* scale,
                                      float* y, Accum<A> accum = {}) {
  if (!p.scale_contiguous || p.size == 0) return rms_norm_ref(p, x, scale, y, accum);
  constexpr index_t kLanes = 16;
  const index_t nv = p.size - p.size % kLanes;
  for (index_t r = 0; r < p.rows; ++r) {
    const float* xr = x + r * p.size;
    float* yr = y + r * p.size;
    float lanes[kLanes] = {};
    for (index_t i = 0; i < nv; i += kLanes)
      for (index_t l = 0; l < kLanes; ++l) lanes[l] += xr[i + l] * xr[i + l];
    float sq = 0.0f;
    for (index_t i = nv; i < p.size; ++i) sq += xr[i] * xr[i];
    for (index_t l = 0; l < kLanes; ++l) sq += lanes[l];
    const float inv = 1.0f / std::sqrt(sq / static_cast<float>(p.size) + p.epsilon);
    for (index_t i = 0; i < p.size; ++i) yr[i] = xr[i] * inv * scale[i];
  }
}

// The float variant of layer_norm_ref: statistics in float over 16 independent lanes, so every
// pass vectorizes. Scale and B must be full rows (scale_contiguous, bias_contiguous); other
// layouts take the reference.
template <typename A = double>
inline void f32_layernorm_lanes__scalar(const LayerNormParams& p, const float* x,
                                        const float* scale, const float* bias, float* y,
                                        float* mean_out, float* inv_std_out, Accum<A> accum = {}) {
  if (!p.scale_contiguous || (bias && !p.bias_contiguous) || p.size == 0)
    return layer_norm_ref(p, x, scale, bias, y, mean_out, inv_std_out, accum);
  constexpr index_t kLanes = 16;
  const index_t nv = p.size - p.size % kLanes;
  const float inv_n = 1.0f / static_cast<float>(p.size);
  for (index_t r = 0; r < p.rows; ++r) {
    const float* xr = x + r * p.size;
    float* yr = y + r * p.size;
    float lanes[kLanes] = {};
    for (index_t i = 0; i < nv; i += kLanes)
      for (index_t l = 0; l < kLanes; ++l) lanes[l] += xr[i + l];
    float sum = 0.0f;
    for (index_t i = nv; i < p.size; ++i) sum += xr[i];
    for (index_t l = 0; l < kLanes; ++l) sum += lanes[l];
    const float mean = sum * inv_n;
    for (index_t l = 0; l < kLanes; ++l) lanes[l] = 0.0f;
    for (index_t i = 0; i < nv; i += kLanes)
      for (index_t l = 0; l < kLanes; ++l) lanes[l] += (xr[i + l] - mean) * (xr[i + l] - mean);
    float sq = 0.0f;
    for (index_t i = nv; i < p.size; ++i) sq += (xr[i] - mean) * (xr[i] - mean);
    for (index_t l = 0; l < kLanes; ++l) sq += lanes[l];
    const float inv = 1.0f / std::sqrt(sq * inv_n + p.epsilon);
    if (mean_out) mean_out[r] = mean;
    if (inv_std_out) inv_std_out[r] = inv;
    if (bias) {
      for (index_t i = 0; i < p.size; ++i) yr[i] = (xr[i] - mean) * inv * scale[i] + bias[i];
    } else {
      for (index_t i = 0; i < p.size; ++i) yr[i] = (xr[i] - mean) * inv * scale[i];
    }
  }
}

// ---- GroupNormalization / InstanceNormalization ------------------------------------------------

struct GroupNormParams {
  index_t batch, channels, groups, spatial;  // x viewed as [batch, channels, spatial]
  int affine_per_group;  // GroupNormalization-18: scale and bias hold one value per group
  float epsilon;         // a float attribute
};

// Normalizes each (batch, group of channels / groups channels) block by its own mean and
// variance, then applies scale and bias per channel (or per group). InstanceNormalization is
// groups == channels.
template <typename T, typename A = double>
inline void group_norm_ref(const GroupNormParams& p, const T* x, const T* scale, const T* bias,
                           T* y, Accum<A> = {}) {
  using C = accum_t<T, A>;
  const index_t per_group = p.groups ? p.channels / p.groups : 0;
  const index_t block = per_group * p.spatial;
  for (index_t n = 0; n < p.batch; ++n)
    for (index_t g = 0; g < p.groups; ++g) {
      const index_t base = (n * p.channels + g * per_group) * p.spatial;
      C mean, var;
      norm_detail::mean_var(x + base, block, mean, var);
      const C inv = C(1) / std::sqrt(var + static_cast<C>(p.epsilon));
      for (index_t cg = 0; cg < per_group; ++cg) {
        const index_t k = p.affine_per_group ? g : g * per_group + cg;
        const C a = static_cast<C>(scale[k]) * inv;
        const C b = static_cast<C>(bias[k]) - mean * a;
        const index_t off = base + cg * p.spatial;
        for (index_t i = 0; i < p.spatial; ++i)
          y[off + i] = static_cast<T>(static_cast<C>(x[off + i]) * a + b);
      }
    }
}

// ---- LpNormalization ---------------------------------------------------------------------------

// y = x / ||x||_p along the middle axis of [outer, axis, inner], p = 1 or 2; a zero norm gives 0.
template <typename T, typename A = double>
inline void lp_norm_ref(const T* x, T* y, index_t outer, index_t axis, index_t inner, int p,
                        Accum<A> = {}) {
  using C = accum_t<T, A>;
  for (index_t o = 0; o < outer; ++o)
    for (index_t in = 0; in < inner; ++in) {
      const T* xs = x + o * axis * inner + in;
      T* ys = y + o * axis * inner + in;
      Sum<C> sum;
      for (index_t i = 0; i < axis; ++i) {
        const C v = static_cast<C>(xs[i * inner]);
        sum.add(p == 1 ? std::fabs(v) : v * v);
      }
      const C norm = p == 1 ? sum.value() : std::sqrt(sum.value());
      for (index_t i = 0; i < axis; ++i)
        ys[i * inner] = norm == C(0) ? T(0) : static_cast<T>(static_cast<C>(xs[i * inner]) / norm);
    }
}

// ---- MeanVarianceNormalization -----------------------------------------------------------------

// y = (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9), the expectations over the reduced axes of p
// (the ONNX function body's formula, epsilon included).
template <typename T, typename A = double>
inline void mean_variance_norm_ref(const ReduceParams& p, const T* x, T* y, Accum<A> = {}) {
  using C = accum_t<T, A>;
  constexpr index_t kChunk = 64;
  const int last = p.red_rank - 1;
  const index_t run = p.red_dims[last], run_stride = p.red_strides[last];
  const C count = static_cast<C>(p.red_count);
  reduce_detail::OuterCursor outer;
  for (index_t o = 0; o < p.outer_count; ++o, outer.next(p))
    for (index_t i0 = 0; i0 < p.inner; i0 += kChunk) {
      const index_t n = p.inner - i0 < kChunk ? p.inner - i0 : kChunk;
      Sum<C> sum[kChunk] = {}, sq[kChunk] = {};
      reduce_detail::for_each_reduced_run(p, [&](index_t off) {
        for (index_t r = 0; r < run; ++r) {
          const T* xr = x + outer.offset + off + r * run_stride + i0;
          for (index_t i = 0; i < n; ++i) {
            const C v = static_cast<C>(xr[i]);
            sum[i].add(v);
            sq[i].add(v * v);
          }
        }
      });
      C mean[kChunk], inv[kChunk];
      for (index_t i = 0; i < n; ++i) {
        const C m = sum[i].value() / count, var = sq[i].value() / count - m * m;
        mean[i] = m;
        inv[i] = C(1) / (std::sqrt(var > C(0) ? var : C(0)) + static_cast<C>(1e-9));
      }
      reduce_detail::for_each_reduced_run(p, [&](index_t off) {
        for (index_t r = 0; r < run; ++r) {
          const index_t base = outer.offset + off + r * run_stride + i0;
          for (index_t i = 0; i < n; ++i)
            y[base + i] = static_cast<T>((static_cast<C>(x[base + i]) - mean[i]) * inv[i]);
        }
      });
    }
}

// ---- LRN ---------------------------------------------------------------------------------------

struct LrnParams {
  index_t batch, channels, spatial;  // x viewed as [batch, channels, spatial]
  index_t size;                      // channels in a window
  float alpha, beta, bias;           // float attributes
};

// y = x / (bias + alpha / size * sum of x^2 over the channel window) ^ beta, the window of
// channel c being [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)] clipped to the tensor.
template <typename T, typename A = double>
inline void lrn_ref(const LrnParams& p, const T* x, T* y, Accum<A> = {}) {
  using C = accum_t<T, A>;
  constexpr index_t kChunk = 64;  // spatial positions handled together
  const index_t before = (p.size - 1) / 2, after = p.size - 1 - before;
  const C scale = static_cast<C>(p.alpha) / static_cast<C>(p.size);
  const C bias = static_cast<C>(p.bias), beta = static_cast<C>(p.beta);
  for (index_t n = 0; n < p.batch; ++n)
    for (index_t s0 = 0; s0 < p.spatial; s0 += kChunk) {
      const index_t cols = p.spatial - s0 < kChunk ? p.spatial - s0 : kChunk;
      for (index_t c = 0; c < p.channels; ++c) {
        const index_t lo = c - before < 0 ? 0 : c - before;
        const index_t hi = c + after > p.channels - 1 ? p.channels - 1 : c + after;
        C sum[kChunk] = {};
        for (index_t i = lo; i <= hi; ++i) {
          const T* xi = x + (n * p.channels + i) * p.spatial + s0;
          for (index_t j = 0; j < cols; ++j)
            sum[j] += static_cast<C>(xi[j]) * static_cast<C>(xi[j]);
        }
        const index_t base = (n * p.channels + c) * p.spatial + s0;
        for (index_t j = 0; j < cols; ++j)
          y[base + j] =
              static_cast<T>(static_cast<C>(x[base + j]) / std::pow(bias + scale * sum[j], beta));
      }
    }
}

}  // namespace onnxc

#endif  // ONNXC_NORMALIZATION_H
