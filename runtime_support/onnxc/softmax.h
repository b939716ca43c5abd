// Softmax, LogSoftmax and Hardmax along the middle axis of an [outer, axis, inner] view of the
// tensor (opsets before 13 flatten to 2-D, which is inner = 1). Softmax and LogSoftmax subtract
// the maximum first, so large inputs do not overflow exp.
#ifndef ONNXC_SOFTMAX_H
#define ONNXC_SOFTMAX_H

#include <cmath>

#include "onnxc/base.h"

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
    const T shift = mx + std::log(sum);
    for (index_t i = 0; i < n; ++i) y[i * stride] = x[i * stride] - shift;
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
    for (index_t c = 0; c < cols; ++c) mx[c] = x[i * stride + c] > mx[c] ? x[i * stride + c] : mx[c];
  for (index_t i = 0; i < n; ++i)
    for (index_t c = 0; c < cols; ++c) {
      const T e = std::exp(x[i * stride + c] - mx[c]);
      if (!kLog) y[i * stride + c] = e;
      sum[c] += e;
    }
  for (index_t c = 0; c < cols; ++c) sum[c] = kLog ? mx[c] + std::log(sum[c]) : T(1) / sum[c];
  for (index_t i = 0; i < n; ++i)
    for (index_t c = 0; c < cols; ++c) {
      if (kLog) y[i * stride + c] = x[i * stride + c] - sum[c];
      else y[i * stride + c] *= sum[c];
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
      softmax_columns<kLog>(xo + c0, yo + c0, axis, inner, inner - c0 < kChunk ? inner - c0 : kChunk);
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

}  // namespace onnxc

#endif  // ONNXC_SOFTMAX_H
