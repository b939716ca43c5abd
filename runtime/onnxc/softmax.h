// Softmax, LogSoftmax and Hardmax along the middle axis of an [outer, axis, inner] view of the
// tensor (opsets before 13 flatten to 2-D, which is inner = 1). Softmax and LogSoftmax subtract
// the maximum first, so large inputs do not overflow exp.
//
//   softmax_ref / log_softmax_ref       any float type, std::exp
//   f32_softmax_any__scalar / f32_logsoftmax_any__scalar
//                                       float; a polynomial exp (max relative error 3e-7) that
//                                       g++ and clang++ vectorize, about 10x std::exp
//   f32_softmax_rows__scalar / f32_logsoftmax_rows__scalar
//                                       the same for inner = 1 (the softmax axis is the last):
//                                       `outer` contiguous rows of `axis` values
// and the losses built on log-softmax: nll_loss_ref, softmax_cross_entropy_ref.
#ifndef ONNXC_SOFTMAX_H
#define ONNXC_SOFTMAX_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "onnxc/accum.h"
#include "onnxc/base.h"
#include "onnxc/vmath.h"

namespace onnxc {

namespace softmax_detail {

constexpr index_t kChunk = 64;  // inner positions processed together when inner > 1

// One softmax (kLog: log-softmax) over n elements x[i * stride], written to y[i * stride].
template <bool kLog, typename T>
inline void softmax_row(const T* x, T* y, index_t n, index_t stride) {
  if (n == 0) return;
  T mx = x[0];
  for (index_t i = 1; i < n; ++i) mx = x[i * stride] > mx ? x[i * stride] : mx;
  T sum = T(0);
  if (kLog) {
    for (index_t i = 0; i < n; ++i) sum += std::exp(x[i * stride] - mx);
    const T log_sum = std::log(sum);  // (x - max) - log_sum: exact where x is near max
    for (index_t i = 0; i < n; ++i) y[i * stride] = (x[i * stride] - mx) - log_sum;
  } else {
    for (index_t i = 0; i < n; ++i) {
      const T e = std::exp(x[i * stride] - mx);
      y[i * stride] = e;
      sum += e;
    }
    const T inv = T(1) / sum;
    for (index_t i = 0; i < n; ++i) y[i * stride] *= inv;
  }
}

// The same over `cols` adjacent columns at once (x and y point at column 0 of the block).
template <bool kLog, typename T>
inline void softmax_columns(const T* x, T* y, index_t n, index_t stride, index_t cols) {
  if (n == 0) return;
  T mx[kChunk], sum[kChunk];
  for (index_t c = 0; c < cols; ++c) {
    mx[c] = x[c];
    sum[c] = T(0);
  }
  for (index_t i = 1; i < n; ++i)
    for (index_t c = 0; c < cols; ++c)
      mx[c] = x[i * stride + c] > mx[c] ? x[i * stride + c] : mx[c];
  for (index_t i = 0; i < n; ++i)
    for (index_t c = 0; c < cols; ++c) {
      const T e = std::exp(x[i * stride + c] - mx[c]);
      if (!kLog) y[i * stride + c] = e;
      sum[c] += e;
    }
  for (index_t c = 0; c < cols; ++c) sum[c] = kLog ? std::log(sum[c]) : T(1) / sum[c];
  for (index_t i = 0; i < n; ++i)
    for (index_t c = 0; c < cols; ++c) {
      if (kLog)
        y[i * stride + c] = (x[i * stride + c] - mx[c]) - sum[c];
      else
        y[i * stride + c] *= sum[c];
    }
}

template <bool kLog, typename T>
inline void softmax_any(const T* x, T* y, index_t outer, index_t axis, index_t inner) {
  for (index_t o = 0; o < outer; ++o) {
    const T* xo = x + o * axis * inner;
    T* yo = y + o * axis * inner;
    if (inner == 1) {
      softmax_row<kLog>(xo, yo, axis, 1);
      continue;
    }
    for (index_t c0 = 0; c0 < inner; c0 += kChunk)
      softmax_columns<kLog>(xo + c0, yo + c0, axis, inner,
                            inner - c0 < kChunk ? inner - c0 : kChunk);
  }
}

}  // namespace softmax_detail

// y = exp(x - max) / sum(exp(x - max)) along the axis.
template <typename T>
inline void softmax_ref(const T* x, T* y, index_t outer, index_t axis, index_t inner) {
  softmax_detail::softmax_any<false>(x, y, outer, axis, inner);
}

// y = x - max - log(sum(exp(x - max))) along the axis.
template <typename T>
inline void log_softmax_ref(const T* x, T* y, index_t outer, index_t axis, index_t inner) {
  softmax_detail::softmax_any<true>(x, y, outer, axis, inner);
}

// y = 1 at the first maximum along the axis, 0 elsewhere.
template <typename T>
inline void hardmax_ref(const T* x, T* y, index_t outer, index_t axis, index_t inner) {
  for (index_t o = 0; o < outer; ++o)
    for (index_t in = 0; in < inner; ++in) {
      const T* xs = x + o * axis * inner + in;
      T* ys = y + o * axis * inner + in;
      index_t best = 0;
      for (index_t i = 0; i < axis; ++i) {
        if (xs[i * inner] > xs[best * inner]) best = i;
        ys[i * inner] = T(0);
      }
      if (axis > 0) ys[best * inner] = T(1);
    }
}

// ---- float variants with a vectorizable exp ---------------------------------------------------

namespace softmax_detail {

constexpr index_t kLanes = 16;  // independent partial results, so reductions vectorize

template <bool kLog>
inline void f32_softmax_row_poly(const float* x, float* y, index_t n) {
  if (n == 0) return;
  const index_t nv = n - n % kLanes;
  float lanes[kLanes];
  for (index_t l = 0; l < kLanes; ++l) lanes[l] = x[0];
  for (index_t i = 0; i < nv; i += kLanes)
    for (index_t l = 0; l < kLanes; ++l) lanes[l] = x[i + l] > lanes[l] ? x[i + l] : lanes[l];
  float mx = x[0];
  for (index_t l = 0; l < kLanes; ++l) mx = lanes[l] > mx ? lanes[l] : mx;
  for (index_t i = nv; i < n; ++i) mx = x[i] > mx ? x[i] : mx;
  for (index_t l = 0; l < kLanes; ++l) lanes[l] = 0.0f;
  for (index_t i = 0; i < nv; i += kLanes)
    for (index_t l = 0; l < kLanes; ++l) {
      const float e = exp_poly(x[i + l] - mx);
      if (!kLog) y[i + l] = e;
      lanes[l] += e;
    }
  float sum = 0.0f;
  for (index_t l = 0; l < kLanes; ++l) sum += lanes[l];
  for (index_t i = nv; i < n; ++i) {
    const float e = exp_poly(x[i] - mx);
    if (!kLog) y[i] = e;
    sum += e;
  }
  if (kLog) {
    const float log_sum = std::log(sum);
    for (index_t i = 0; i < n; ++i) y[i] = (x[i] - mx) - log_sum;
  } else {
    const float inv = 1.0f / sum;
    for (index_t i = 0; i < n; ++i) y[i] *= inv;
  }
}

template <bool kLog>
inline void f32_softmax_columns_poly(const float* x, float* y, index_t n, index_t stride,
                                     index_t cols) {
  if (n == 0) return;
  float mx[kChunk], sum[kChunk];
  for (index_t c = 0; c < cols; ++c) {
    mx[c] = x[c];
    sum[c] = 0.0f;
  }
  for (index_t i = 1; i < n; ++i)
    for (index_t c = 0; c < cols; ++c)
      mx[c] = x[i * stride + c] > mx[c] ? x[i * stride + c] : mx[c];
  for (index_t i = 0; i < n; ++i)
    for (index_t c = 0; c < cols; ++c) {
      const float e = exp_poly(x[i * stride + c] - mx[c]);
      if (!kLog) y[i * stride + c] = e;
      sum[c] += e;
    }
  for (index_t c = 0; c < cols; ++c) sum[c] = kLog ? std::log(sum[c]) : 1.0f / sum[c];
  for (index_t i = 0; i < n; ++i)
    for (index_t c = 0; c < cols; ++c) {
      if (kLog)
        y[i * stride + c] = (x[i * stride + c] - mx[c]) - sum[c];
      else
        y[i * stride + c] *= sum[c];
    }
}

template <bool kLog>
inline void f32_softmax_poly(const float* x, float* y, index_t outer, index_t axis, index_t inner) {
  for (index_t o = 0; o < outer; ++o) {
    const float* xo = x + o * axis * inner;
    float* yo = y + o * axis * inner;
    if (inner == 1) {
      f32_softmax_row_poly<kLog>(xo, yo, axis);
      continue;
    }
    for (index_t c0 = 0; c0 < inner; c0 += kChunk)
      f32_softmax_columns_poly<kLog>(xo + c0, yo + c0, axis, inner,
                                     inner - c0 < kChunk ? inner - c0 : kChunk);
  }
}

}  // namespace softmax_detail

inline void f32_softmax_rows__scalar(const float* x, float* y, index_t outer, index_t axis) {
  for (index_t o = 0; o < outer; ++o)
    softmax_detail::f32_softmax_row_poly<false>(x + o * axis, y + o * axis, axis);
}

inline void f32_logsoftmax_rows__scalar(const float* x, float* y, index_t outer, index_t axis) {
  for (index_t o = 0; o < outer; ++o)
    softmax_detail::f32_softmax_row_poly<true>(x + o * axis, y + o * axis, axis);
}

inline void f32_softmax_any__scalar(const float* x, float* y, index_t outer, index_t axis,
                                    index_t inner) {
  softmax_detail::f32_softmax_poly<false>(x, y, outer, axis, inner);
}

inline void f32_logsoftmax_any__scalar(const float* x, float* y, index_t outer, index_t axis,
                                       index_t inner) {
  softmax_detail::f32_softmax_poly<true>(x, y, outer, axis, inner);
}

// ---- NegativeLogLikelihoodLoss / SoftmaxCrossEntropyLoss ---------------------------------------

struct NllParams {
  index_t batch, classes, spatial;  // log-probabilities viewed as [batch, classes, spatial]
  int reduction;                    // 0: none, 1: sum, 2: mean (weighted)
  int has_ignore;
  std::int64_t ignore_index;  // targets equal to it contribute nothing (weight 0)
};

// loss[n, d] = -logp[n, t, d] * w[t] with t = target[n, d] and w the weights (1 when null);
// reduced to their sum, or their sum divided by the sum of the weights used ("mean"). Ignored
// targets, and targets outside [0, classes), count with weight 0. Sums in accum_t<T, A>
// (onnxc/accum.h).
template <typename T, typename I, typename A = double>
inline void nll_loss_ref(const NllParams& p, const T* logp, const I* target, const T* weight, T* y,
                         Accum<A> = {}) {
  using C = accum_t<T, A>;
  Sum<C> sum, weight_sum;
  for (index_t n = 0; n < p.batch; ++n)
    for (index_t d = 0; d < p.spatial; ++d) {
      const std::int64_t t = static_cast<std::int64_t>(target[n * p.spatial + d]);
      C loss = 0, w = 0;
      if (!(p.has_ignore && t == p.ignore_index) && t >= 0 && t < p.classes) {
        w = weight ? static_cast<C>(weight[t]) : C(1);
        loss = -static_cast<C>(logp[(n * p.classes + t) * p.spatial + d]) * w;
      }
      if (p.reduction == 0) y[n * p.spatial + d] = static_cast<T>(loss);
      sum.add(loss);
      weight_sum.add(w);
    }
  if (p.reduction == 1) y[0] = static_cast<T>(sum.value());
  if (p.reduction == 2) y[0] = static_cast<T>(sum.value() / weight_sum.value());
}

// NLL of log_softmax(scores) along the classes; log_prob (batch x classes x spatial) receives
// the log-probabilities (the op's optional output, or scratch memory).
template <typename T, typename I, typename A = double>
inline void softmax_cross_entropy_ref(const NllParams& p, const T* scores, const I* labels,
                                      const T* weight, T* y, T* log_prob, Accum<A> accum = {}) {
  if constexpr (std::is_same_v<T, float>)
    f32_logsoftmax_any__scalar(scores, log_prob, p.batch, p.classes, p.spatial);
  else
    log_softmax_ref(scores, log_prob, p.batch, p.classes, p.spatial);
  nll_loss_ref(p, log_prob, labels, weight, y, accum);
}

}  // namespace onnxc

#endif  // ONNXC_SOFTMAX_H
