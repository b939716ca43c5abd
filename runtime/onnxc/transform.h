// Data-movement kernels, generic over the element type T (any trivially copyable storage type,
// including onnxc::float16 and the other structs of onnxc/types.h):
//   strided copies (Transpose, Slice, Expand, Tile, DepthToSpace, SpaceToDepth are all one view),
//   block copies (Concat, Split), Gather, GatherElements, Pad, Trilu, OneHot, Range.
// Parameters are computed by the compiler; kernels never validate them.
#ifndef ONNXC_TRANSFORM_H
#define ONNXC_TRANSFORM_H

#include <cstring>

#include "onnxc/base.h"
#include "onnxc/convert.h"

namespace onnxc {

// ---- Strided copy -------------------------------------------------------------------------------
// y[i] = x[offset + sum_d idx_d(i) * in_strides[d]] where idx(i) is the row-major coordinate of i
// in `dims`. Strides may be negative (Slice with negative steps) or zero (Expand, Tile).
// A Slice whose start is computed at run time adds it to `offset` before the copy; run() returns
// kErrorRunTimeExtent (onnxc/base.h) when the start and end select another extent than the
// compiled one.
struct StridedCopyParams {
  int rank;
  index_t dims[kMaxRank];        // output dims
  index_t in_strides[kMaxRank];  // input element strides per output axis
  index_t offset;                // input element offset of output element 0
  index_t numel;
};

template <typename T>
inline void strided_copy_ref(const StridedCopyParams& p, const T* x, T* y) {
  index_t idx[kMaxRank] = {};
  index_t at = p.offset;
  for (index_t i = 0; i < p.numel; ++i) {
    y[i] = x[at];
    for (int d = p.rank - 1; d >= 0; --d) {  // odometer: bump the last axis, carry leftwards
      at += p.in_strides[d];
      if (++idx[d] < p.dims[d]) break;
      at -= p.in_strides[d] * p.dims[d];
      idx[d] = 0;
    }
  }
}

// dst[0..n) = src[0..n) by memmove: g++ -O2 left an element loop scalar (shufflenet's channel
// shuffles at 0.1x their -O3 speed).
template <typename T>
inline void copy_run(const T* src, T* dst, index_t n) {
  if (n > 0 && dst != src) std::memmove(dst, src, static_cast<std::size_t>(n) * sizeof(T));
}

// Walks the outer axes (all but the last `inner_axes`) of `p` in row-major order, calling
// f(input offset of the row, output offset of the row).
template <typename F>
inline void for_each_outer_row(const StridedCopyParams& p, int inner_axes, index_t row_elems,
                               F&& f) {
  const int outer_rank = p.rank - inner_axes;
  index_t rows = 1;
  for (int d = 0; d < outer_rank; ++d) rows *= p.dims[d];
  index_t idx[kMaxRank] = {};
  index_t at = p.offset;
  for (index_t r = 0; r < rows; ++r) {
    f(at, r * row_elems);
    for (int d = outer_rank - 1; d >= 0; --d) {
      at += p.in_strides[d];
      if (++idx[d] < p.dims[d]) break;
      at -= p.in_strides[d] * p.dims[d];
      idx[d] = 0;
    }
  }
}

// Row at a time: the last axis becomes a tight loop (a plain copy when its stride is 1).
// Requires rank >= 1.
template <typename T>
inline void strided_copy__rows(const StridedCopyParams& p, const T* x, T* y) {
  const index_t n = p.dims[p.rank - 1], s = p.in_strides[p.rank - 1];
  if (p.numel == 0) return;
  for_each_outer_row(p, 1, n, [&](index_t in, index_t out) {
    const T* src = x + in;
    T* dst = y + out;
    if (s == 1) {
      copy_run(src, dst, n);
    } else {
      for (index_t i = 0; i < n; ++i) dst[i] = src[i * s];
    }
  });
}

// Batched 2-D transpose in square tiles, so both the reads and the writes stay within a few cache
// lines. Requires rank >= 2, in_strides[rank-2] == 1 and in_strides[rank-1] == dims[rank-2], i.e.
// y[..][i][j] = x[..][j][i] with the input rows contiguous.
template <typename T>
inline void strided_copy__transpose_tiled(const StridedCopyParams& p, const T* x, T* y) {
  constexpr index_t kTile = 16;
  const index_t rows = p.dims[p.rank - 2], cols = p.dims[p.rank - 1];
  if (p.numel == 0) return;
  for_each_outer_row(p, 2, rows * cols, [&](index_t in, index_t out) {
    const T* src = x + in;  // src[j * rows + i]
    T* dst = y + out;       // dst[i * cols + j]
    for (index_t i0 = 0; i0 < rows; i0 += kTile)
      for (index_t j0 = 0; j0 < cols; j0 += kTile) {
        const index_t i1 = i0 + kTile < rows ? i0 + kTile : rows;
        const index_t j1 = j0 + kTile < cols ? j0 + kTile : cols;
        for (index_t i = i0; i < i1; ++i)
          for (index_t j = j0; j < j1; ++j) dst[i * cols + j] = src[j * rows + i];
      }
  });
}

// ---- Block copy (Concat, Split) -----------------------------------------------------------------
// Copies `outer` blocks of `block` elements from x (block stride x_stride) to y (stride y_stride).
template <typename T>
inline void block_copy_ref(const T* x, T* y, index_t outer, index_t block, index_t x_stride,
                           index_t y_stride) {
  for (index_t o = 0; o < outer; ++o) copy_run(x + o * x_stride, y + o * y_stride, block);
}

// ---- Gather -------------------------------------------------------------------------------------
// y[o, j, i] = x[o, indices[j], i] on [outer, axis_dim, inner] views; negative indices count from
// the end. An index still out of range (only possible when indices are run-time data) reads row 0
// instead of memory outside x.
template <typename T, typename I>
inline void gather_ref(const T* x, const I* indices, T* y, index_t outer, index_t axis_dim,
                       index_t inner, index_t num_indices) {
  for (index_t o = 0; o < outer; ++o)
    for (index_t j = 0; j < num_indices; ++j) {
      index_t k = static_cast<index_t>(indices[j]);
      if (k < 0) k += axis_dim;
      if (k < 0 || k >= axis_dim) k = 0;
      const T* src = x + (o * axis_dim + k) * inner;
      T* dst = y + (o * num_indices + j) * inner;
      for (index_t i = 0; i < inner; ++i) dst[i] = src[i];
    }
}

// y[idx] = x[idx with idx[axis] replaced by indices[idx]] over the indices' shape `dims`.
struct GatherElementsParams {
  int rank;
  int axis;
  index_t dims[kMaxRank];       // indices (and output) dims
  index_t x_strides[kMaxRank];  // data element strides
  index_t axis_dim;             // data dim along axis
  index_t numel;
};

template <typename T, typename I>
inline void gather_elements_ref(const GatherElementsParams& p, const T* x, const I* indices, T* y) {
  index_t idx[kMaxRank] = {};
  index_t base = 0;  // data offset of idx with idx[axis] = 0
  for (index_t i = 0; i < p.numel; ++i) {
    index_t k = static_cast<index_t>(indices[i]);
    if (k < 0) k += p.axis_dim;
    if (k < 0 || k >= p.axis_dim) k = 0;  // see gather_ref
    y[i] = x[base + k * p.x_strides[p.axis]];
    for (int d = p.rank - 1; d >= 0; --d) {
      const index_t step = d == p.axis ? 0 : p.x_strides[d];
      base += step;
      if (++idx[d] < p.dims[d]) break;
      base -= step * p.dims[d];
      idx[d] = 0;
    }
  }
}

// ---- Pad ----------------------------------------------------------------------------------------
enum PadMode : int { kPadConstant = 0, kPadReflect = 1, kPadEdge = 2, kPadWrap = 3 };

struct PadParams {
  int rank;
  int mode;  // PadMode
  index_t out_dims[kMaxRank];
  index_t in_dims[kMaxRank];
  index_t begin[kMaxRank];  // elements added before each axis (negative: cropped)
  index_t numel;            // of the output
};

// The input coordinate that output coordinate `o` reads on an axis of n elements, or -1 when it
// takes the constant value. reflect/edge/wrap need n >= 1.
inline index_t pad_source_index(index_t o, index_t begin, index_t n, int mode) {
  index_t i = o - begin;
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case kPadEdge:
      return i < 0 ? 0 : n - 1;
    case kPadWrap:
      return ((i % n) + n) % n;
    case kPadReflect: {
      if (n == 1) return 0;
      const index_t period = 2 * (n - 1);  // x0 x1 .. x(n-1) x(n-2) .. x1 repeats
      i = ((i % period) + period) % period;
      return i < n ? i : period - i;
    }
    default:
      return -1;
  }
}

template <typename T>
inline void pad_ref(const PadParams& p, const T* x, T* y, T value) {
  if (p.numel == 0) return;
  if (p.rank == 0) {
    y[0] = x[0];
    return;
  }
  const int last = p.rank - 1;
  const index_t cols = p.out_dims[last];
  index_t rows = 1, in_strides[kMaxRank];
  for (int d = 0; d < last; ++d) rows *= p.out_dims[d];
  in_strides[last] = 1;
  for (int d = last; d > 0; --d) in_strides[d - 1] = in_strides[d] * p.in_dims[d];
  index_t idx[kMaxRank] = {};
  for (index_t r = 0; r < rows; ++r) {
    T* dst = y + r * cols;
    index_t src = 0;
    bool constant_row = false;
    for (int d = 0; d < last; ++d) {
      const index_t i = pad_source_index(idx[d], p.begin[d], p.in_dims[d], p.mode);
      if (i < 0) constant_row = true;
      src += i * in_strides[d];
    }
    for (index_t c = 0; c < cols; ++c) {
      const index_t i =
          constant_row ? -1 : pad_source_index(c, p.begin[last], p.in_dims[last], p.mode);
      dst[c] = i < 0 ? value : x[src + i];
    }
    for (int d = last - 1; d >= 0; --d) {
      if (++idx[d] < p.out_dims[d]) break;
      idx[d] = 0;
    }
  }
}

// ---- Trilu --------------------------------------------------------------------------------------
// Keeps the upper (j - i >= k) or lower (j - i <= k) triangle of each [rows, cols] matrix and
// zeroes (T{}) the rest.
template <typename T>
inline void trilu_ref(const T* x, T* y, index_t batch, index_t rows, index_t cols, index_t k,
                      bool upper) {
  for (index_t b = 0; b < batch; ++b)
    for (index_t i = 0; i < rows; ++i) {
      const index_t at = (b * rows + i) * cols;
      for (index_t j = 0; j < cols; ++j) {
        const bool keep = upper ? j - i >= k : j - i <= k;
        y[at + j] = keep ? x[at + j] : T{};
      }
    }
}

// ---- OneHot -------------------------------------------------------------------------------------
// y[o, d, i] = values[1] if indices[o, i] (negative counts from depth) == d else values[0], on an
// [outer, depth, inner] output view. Non-integer indices are truncated first.
template <typename T, typename I>
inline void one_hot_ref(const I* indices, const T* values, T* y, index_t outer, index_t depth,
                        index_t inner) {
  for (index_t o = 0; o < outer; ++o)
    for (index_t i = 0; i < inner; ++i) {
      index_t k = static_cast<index_t>(indices[o * inner + i]);
      if (k < 0) k += depth;
      for (index_t d = 0; d < depth; ++d) y[(o * depth + d) * inner + i] = values[d == k ? 1 : 0];
    }
}

// ---- Range --------------------------------------------------------------------------------------
// y[i] = start + i * delta.
template <typename T>
inline void range_ref(T start, T delta, T* y, index_t n) {
  for (index_t i = 0; i < n; ++i) y[i] = static_cast<T>(start + static_cast<T>(i) * delta);
}

// Range of float16/bfloat16: each value computed in S (float or double, Range's stash_type), then
// rounded to T.
template <typename T, typename S>
inline void range_stashed_ref(S start, S delta, T* y, index_t n) {
  for (index_t i = 0; i < n; ++i)
    y[i] = convert_from_double<T>(start + static_cast<S>(i) * delta, CastParams{});
}

}  // namespace onnxc

#endif  // ONNXC_TRANSFORM_H
