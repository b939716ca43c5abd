// Resize / Upsample. Every mode of the op (nearest, linear, cubic, antialiased filters, each
// coordinate transformation, tf_crop_and_resize extrapolation) is separable: an output element
// is the sum over the tensor product of per-axis taps,
//   y[o] = sum over (t_0, ..., t_r-1) of prod_d w_d[o_d][t_d] * x[sum_d off_d[o_d][t_d]]
// where off_d already holds the input index times the input stride of axis d. The compiler
// builds these per-axis tables (taps[d] entries per output position) from the shapes and
// attributes, so the kernels only walk them:
//   resize_nearest_ref   one tap per position (weights unused): a gather, any element type
//   resize_ref           weighted taps, float or double (half tensors run it on float copies)
// An offset of -1 in a position's first tap marks a tf_crop_and_resize coordinate outside the
// input: every output that uses it is the extrapolation value.
#ifndef ONNXC_RESIZE_H
#define ONNXC_RESIZE_H

#include <type_traits>

#include "onnxc/base.h"

namespace onnxc {

struct ResizeParams {
  int rank;
  index_t out_dims[kMaxRank];
  index_t taps[kMaxRank];      // taps per output position along axis d
  index_t table[kMaxRank];     // where axis d's entries start in the offset/weight tables
  double extrapolation_value;  // for positions marked -1
};

namespace resize_detail {

// Advances the odometer o over dims [0, n); false after the last position.
inline bool next(index_t* o, const index_t* dims, int n) {
  for (int d = n - 1; d >= 0; --d) {
    if (++o[d] < dims[d]) return true;
    o[d] = 0;
  }
  return false;
}

// The extrapolation value as a T (0 for the 16-bit float types, which are plain bit patterns).
template <typename T>
inline T fill_value(double v) {
  if constexpr (std::is_arithmetic_v<T>)
    return static_cast<T>(v);
  else
    return T{};
}

}  // namespace resize_detail

// y[o] = x[sum_d off[table_d + o_d]] (taps must all be 1).
template <typename T>
inline void resize_nearest_ref(const ResizeParams& p, const index_t* off, const T* x, T* y) {
  index_t total = 1;
  for (int d = 0; d < p.rank; ++d) total *= p.out_dims[d];
  if (total == 0) return;
  const T fill = resize_detail::fill_value<T>(p.extrapolation_value);
  const int last = p.rank - 1;
  const index_t inner = p.out_dims[last];
  const index_t* off_last = off + p.table[last];
  index_t o[kMaxRank] = {0};
  do {
    index_t base = 0;
    bool outside = false;
    for (int d = 0; d < last; ++d) {
      const index_t v = off[p.table[d] + o[d]];
      outside = outside || v < 0;
      base += v;
    }
    for (index_t j = 0; j < inner; ++j)
      *y++ = outside || off_last[j] < 0 ? fill : x[base + off_last[j]];
  } while (resize_detail::next(o, p.out_dims, last));
}

// The weighted sum over the taps of every axis, accumulated in T (float or double). Rows along the
// innermost axis are built one tap combination of the outer axes at a time, so the inner loop is a
// plain weighted gather.
template <typename T>
inline void resize_ref(const ResizeParams& p, const index_t* off, const T* w, const T* x, T* y) {
  index_t total = 1;
  for (int d = 0; d < p.rank; ++d) total *= p.out_dims[d];
  if (total == 0) return;
  const T fill = resize_detail::fill_value<T>(p.extrapolation_value);
  const int last = p.rank - 1;
  const index_t inner = p.out_dims[last], kl = p.taps[last];
  const index_t* off_last = off + p.table[last];
  const T* w_last = w + p.table[last];
  index_t o[kMaxRank] = {0};
  do {
    bool outside = false;  // an outer axis's position lies outside a tf_crop_and_resize roi
    for (int d = 0; d < last; ++d) outside = outside || off[p.table[d] + o[d] * p.taps[d]] < 0;
    if (outside) {
      for (index_t j = 0; j < inner; ++j) y[j] = fill;
      y += inner;
      continue;
    }
    T* row = y;
    for (index_t j = 0; j < inner; ++j) row[j] = T(0);
    index_t t[kMaxRank] = {0};
    do {
      index_t base = 0;
      T weight = T(1);
      for (int d = 0; d < last; ++d) {
        const index_t e = p.table[d] + o[d] * p.taps[d] + t[d];
        base += off[e];
        weight *= w[e];
      }
      const T* xb = x + base;
      for (index_t j = 0; j < inner; ++j) {
        const index_t* oj = off_last + j * kl;
        if (oj[0] < 0) continue;
        const T* wj = w_last + j * kl;
        T acc = T(0);
        for (index_t k = 0; k < kl; ++k) acc += wj[k] * xb[oj[k]];
        row[j] += weight * acc;
      }
    } while (resize_detail::next(t, p.taps, last));
    for (index_t j = 0; j < inner; ++j)
      if (off_last[j * kl] < 0) row[j] = fill;
    y += inner;
  } while (resize_detail::next(o, p.out_dims, last));
}

}  // namespace onnxc

#endif  // ONNXC_RESIZE_H
