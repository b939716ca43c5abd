// Data-movement kernels: transpose, concat/split (as strided block copies), slice, gather,
// expand and constant fill. All are templated on the element type.
#ifndef ONNXC_TRANSFORM_H
#define ONNXC_TRANSFORM_H

#include "onnxc/base.h"

namespace onnxc {

// y[out index] = x[sum idx[d] * in_strides[d] + offset] over the output shape: covers transpose
// (permuted strides), slice (offset + step-scaled strides, negative included) and expand
// (zero strides on broadcast axes).
struct StridedCopyParams {
  int rank;
  index_t dims[kMaxRank];        // output dims
  index_t in_strides[kMaxRank];  // input element strides per output axis
  index_t offset;                // input element offset of output index 0
  index_t numel;
};

template <typename T>
inline void strided_copy_ref(const StridedCopyParams& p, const T* x, T* y) {
  index_t idx[kMaxRank] = {};
  index_t at = p.offset;
  for (index_t i = 0; i < p.numel; ++i) {
    y[i] = x[at];
    for (int d = p.rank - 1; d >= 0; --d) {
      at += p.in_strides[d];
      if (++idx[d] < p.dims[d]) break;
      at -= p.in_strides[d] * p.dims[d];
      idx[d] = 0;
    }
  }
}

// Copies `outer` blocks of `block` elements from x (row stride x_stride) into y (row stride
// y_stride): the step of concat (one call per input) and split (one per output).
template <typename T>
inline void block_copy_ref(const T* x, T* y, index_t outer, index_t block, index_t x_stride, index_t y_stride) {
  for (index_t o = 0; o < outer; ++o)
    for (index_t i = 0; i < block; ++i) y[o * y_stride + i] = x[o * x_stride + i];
}

// Gather along an axis of an [outer, axis_dim, inner] view; negative indices count from the end.
template <typename T, typename I>
inline void gather_ref(const T* x, const I* indices, T* y, index_t outer, index_t axis_dim, index_t inner,
                       index_t num_indices) {
  for (index_t o = 0; o < outer; ++o)
    for (index_t j = 0; j < num_indices; ++j) {
      index_t k = static_cast<index_t>(indices[j]);
      if (k < 0) k += axis_dim;
      if (k < 0 || k >= axis_dim) k = 0;  // out of range: infer() rejects constant indices
      const T* src = x + (o * axis_dim + k) * inner;
      T* dst = y + (o * num_indices + j) * inner;
      for (index_t i = 0; i < inner; ++i) dst[i] = src[i];
    }
}

template <typename T>
inline void fill_ref(T* y, index_t n, T value) {
  for (index_t i = 0; i < n; ++i) y[i] = value;
}

}  // namespace onnxc

#endif  // ONNXC_TRANSFORM_H
