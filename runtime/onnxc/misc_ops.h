// Assorted kernels: eye_like_ref (EyeLike), reverse_sequence_ref (ReverseSequence) and det_ref
// (Det, by LU decomposition with partial pivoting).
// Parameters are computed by the compiler; kernels never validate them.
#ifndef ONNXC_MISC_OPS_H
#define ONNXC_MISC_OPS_H

#include <cmath>
#include <cstdint>

#include "onnxc/base.h"

namespace onnxc {

// y[r, c] = one where c - r == k, zero (all bits clear) elsewhere.
template <typename T>
inline void eye_like_ref(T* y, index_t rows, index_t cols, index_t k, T one) {
  for (index_t i = 0; i < rows * cols; ++i) y[i] = T{};
  for (index_t r = 0; r < rows; ++r) {
    const index_t c = r + k;
    if (c >= 0 && c < cols) y[r * cols + c] = one;
  }
}

// ---- ReverseSequence ----------------------------------------------------------------------------
// For batch b, the first lens[b] steps along the time axis are reversed; later steps are copied.
struct ReverseSequenceParams {
  int rank;
  int batch_axis, time_axis;
  index_t dims[kMaxRank];     // x (and y) dims
  index_t strides[kMaxRank];  // element strides
  index_t numel;
};

template <typename T, typename I>
inline void reverse_sequence_ref(const ReverseSequenceParams& p, const T* x, const I* lens, T* y) {
  index_t idx[kMaxRank] = {};
  const index_t time_dim = p.dims[p.time_axis], time_stride = p.strides[p.time_axis];
  for (index_t i = 0; i < p.numel; ++i) {
    index_t len = static_cast<index_t>(lens[idx[p.batch_axis]]);
    len = len < 0 ? 0 : (len > time_dim ? time_dim : len);  // run-time lengths are clamped
    const index_t t = idx[p.time_axis];
    y[i] = t < len ? x[i + (len - 1 - 2 * t) * time_stride] : x[i];
    for (int d = p.rank - 1; d >= 0; --d) {
      if (++idx[d] < p.dims[d]) break;
      idx[d] = 0;
    }
  }
}

// ---- Det ----------------------------------------------------------------------------------------
// y[b] = det(x[b]) of `batch` n x n matrices; lu: scratch of n * n elements. Gaussian elimination
// in T with the largest remaining pivot of each column; the determinant is the pivots' product,
// negated per row swap.
template <typename T>
inline void det_ref(const T* x, T* y, index_t batch, index_t n, T* lu) {
  for (index_t b = 0; b < batch; ++b) {
    const T* m = x + b * n * n;
    for (index_t i = 0; i < n * n; ++i) lu[i] = m[i];
    T det = T(1);
    for (index_t c = 0; c < n; ++c) {
      index_t piv = c;
      for (index_t r = c + 1; r < n; ++r)
        if (std::fabs(lu[r * n + c]) > std::fabs(lu[piv * n + c])) piv = r;
      if (lu[piv * n + c] == T(0)) {
        det = T(0);
        break;
      }
      if (piv != c) {
        for (index_t k = 0; k < n; ++k) {
          const T t = lu[c * n + k];
          lu[c * n + k] = lu[piv * n + k];
          lu[piv * n + k] = t;
        }
        det = -det;
      }
      const T d = lu[c * n + c];
      det *= d;
      for (index_t r = c + 1; r < n; ++r) {
        const T f = lu[r * n + c] / d;
        for (index_t k = c + 1; k < n; ++k) lu[r * n + k] -= f * lu[c * n + k];
      }
    }
    y[b] = det;
  }
}

}  // namespace onnxc

#endif  // ONNXC_MISC_OPS_H
