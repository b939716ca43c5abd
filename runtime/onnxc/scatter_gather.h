// Indexed reads and writes: ScatterND, ScatterElements (and the older Scatter), GatherND.
// Generic over the element type T (any trivially copyable storage type) and the index type I
// (int32 or int64). Scatter reductions other than "none" need an arithmetic T (bool: add is or,
// mul is and). Negative indices count from the end of their axis; an index still out of range
// (only possible for run-time indices) is clamped to 0 so no memory outside the tensors is touched.
// Parameters are computed by the compiler; kernels never validate them.
#ifndef ONNXC_SCATTER_GATHER_H
#define ONNXC_SCATTER_GATHER_H

#include <type_traits>

#include "onnxc/base.h"

namespace onnxc {

enum ScatterReduction : int {
  kScatterNone = 0,
  kScatterAdd = 1,
  kScatterMul = 2,
  kScatterMax = 3,
  kScatterMin = 4
};

namespace scatter_detail {

inline index_t wrap_index(index_t k, index_t dim) {
  if (k < 0) k += dim;
  return (k < 0 || k >= dim) ? 0 : k;
}

// dst = dst (op) v; `reduction` is a ScatterReduction.
template <typename T>
inline void combine(T& dst, const T& v, int reduction) {
  if constexpr (std::is_arithmetic_v<T>) {
    if constexpr (std::is_same_v<T, bool>) {
      if (reduction == kScatterAdd || reduction == kScatterMax)
        dst = dst || v;
      else if (reduction == kScatterMul || reduction == kScatterMin)
        dst = dst && v;
      else
        dst = v;
    } else {
      switch (reduction) {
        case kScatterAdd:
          dst = static_cast<T>(dst + v);
          break;
        case kScatterMul:
          dst = static_cast<T>(dst * v);
          break;
        case kScatterMax:
          dst = v > dst ? v : dst;
          break;
        case kScatterMin:
          dst = v < dst ? v : dst;
          break;
        default:
          dst = v;
          break;
      }
    }
  } else {
    (void)reduction;
    dst = v;  // storage-only types: only "none" is compiled for them
  }
}

}  // namespace scatter_detail

// ---- ScatterND ----------------------------------------------------------------------------------
// y = x; then for each of the num_updates index tuples (k indices each, into the first k dims of
// x), the slice of `slice` elements there is combined with the next slice of updates.
struct ScatterNDParams {
  index_t numel;              // elements of x (and y)
  int k;                      // indices.shape[-1]
  index_t dims[kMaxRank];     // x dims 0..k-1
  index_t strides[kMaxRank];  // x element strides of dims 0..k-1
  index_t num_updates;        // index tuples
  index_t slice;              // elements per tuple: product of x dims k..
  int reduction;              // ScatterReduction
};

template <typename T, typename I>
inline void scatter_nd_ref(const ScatterNDParams& p, const T* x, const I* indices, const T* updates,
                           T* y) {
  if (y != x)
    for (index_t i = 0; i < p.numel; ++i) y[i] = x[i];
  for (index_t u = 0; u < p.num_updates; ++u) {
    index_t offset = 0;
    for (int d = 0; d < p.k; ++d)
      offset += scatter_detail::wrap_index(static_cast<index_t>(indices[u * p.k + d]), p.dims[d]) *
                p.strides[d];
    const T* src = updates + u * p.slice;
    for (index_t i = 0; i < p.slice; ++i)
      scatter_detail::combine(y[offset + i], src[i], p.reduction);
  }
}

// ---- ScatterElements / Scatter
// ------------------------------------------------------------------- y = x; then y[idx with
// idx[axis] = indices[idx]] (op)= updates[idx] over the indices' shape.
struct ScatterElementsParams {
  int rank;
  int axis;
  index_t dims[kMaxRank];       // indices (and updates) dims
  index_t x_strides[kMaxRank];  // x element strides
  index_t axis_dim;             // x dim along axis
  index_t numel;                // elements of indices
  index_t x_numel;              // elements of x
  int reduction;                // ScatterReduction
};

template <typename T, typename I>
inline void scatter_elements_ref(const ScatterElementsParams& p, const T* x, const I* indices,
                                 const T* updates, T* y) {
  if (y != x)
    for (index_t i = 0; i < p.x_numel; ++i) y[i] = x[i];
  index_t idx[kMaxRank] = {};
  index_t base = 0;  // x offset of idx with idx[axis] = 0
  for (index_t i = 0; i < p.numel; ++i) {
    const index_t k = scatter_detail::wrap_index(static_cast<index_t>(indices[i]), p.axis_dim);
    scatter_detail::combine(y[base + k * p.x_strides[p.axis]], updates[i], p.reduction);
    for (int d = p.rank - 1; d >= 0; --d) {
      const index_t step = d == p.axis ? 0 : p.x_strides[d];
      base += step;
      if (++idx[d] < p.dims[d]) break;
      base -= step * p.dims[d];
      idx[d] = 0;
    }
  }
}

// ---- GatherND -----------------------------------------------------------------------------------
// For each batch b (the first batch_dims dims, shared by x and indices) and each of its per_batch
// index tuples (k indices into x dims batch_dims..batch_dims+k-1), copies the slice there.
struct GatherNDParams {
  index_t batches;            // product of the batch dims
  index_t batch_stride;       // elements of x per batch
  int k;                      // indices.shape[-1]
  index_t dims[kMaxRank];     // x dims batch_dims..batch_dims+k-1
  index_t strides[kMaxRank];  // their element strides in x
  index_t per_batch;          // index tuples per batch
  index_t slice;              // elements per tuple
};

template <typename T, typename I>
inline void gather_nd_ref(const GatherNDParams& p, const T* x, const I* indices, T* y) {
  for (index_t b = 0; b < p.batches; ++b)
    for (index_t t = 0; t < p.per_batch; ++t) {
      const I* tuple = indices + (b * p.per_batch + t) * p.k;
      index_t offset = b * p.batch_stride;
      for (int d = 0; d < p.k; ++d)
        offset +=
            scatter_detail::wrap_index(static_cast<index_t>(tuple[d]), p.dims[d]) * p.strides[d];
      T* dst = y + (b * p.per_batch + t) * p.slice;
      for (index_t i = 0; i < p.slice; ++i) dst[i] = x[offset + i];
    }
}

}  // namespace onnxc

#endif  // ONNXC_SCATTER_GATHER_H
