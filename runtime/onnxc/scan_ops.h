// Scans, selections and sorts along an axis of an [outer, n, inner] view of a tensor:
//   cumsum_ref / cumprod_ref   running sum / product (exclusive, reverse)
//   topk_ref                   the k largest or smallest elements and their indices
//   compress_ref               the slices at given positions (Compress with a known condition)
//   nonzero_count / nonzero_ref, unique_ref
//                              data-dependent output sizes: the compiler runs these on constant
//                              inputs only (onnxc folds NonZero and Unique at compile time).
// Parameters are computed by the compiler; kernels never validate them.
#ifndef ONNXC_SCAN_OPS_H
#define ONNXC_SCAN_OPS_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "onnxc/base.h"

namespace onnxc {

namespace scan_detail {

// Integer accumulation wraps (as numpy) instead of overflowing a signed type.
template <typename T, bool = std::is_integral_v<T> && !std::is_same_v<T, bool>>
struct Acc {
  using type = T;
};
template <typename T>
struct Acc<T, true> {
  using type = std::make_unsigned_t<T>;
};
template <typename T>
using acc_t = typename Acc<T>::type;

template <bool kProd, typename T>
inline void cumulative(const T* x, T* y, index_t outer, index_t n, index_t inner, bool exclusive,
                       bool reverse) {
  using A = acc_t<T>;
  for (index_t o = 0; o < outer; ++o)
    for (index_t i = 0; i < inner; ++i) {
      const T* xs = x + o * n * inner + i;
      T* ys = y + o * n * inner + i;
      A acc = kProd ? A(1) : A(0);
      for (index_t j = 0; j < n; ++j) {
        const index_t at = (reverse ? n - 1 - j : j) * inner;
        const A v = static_cast<A>(xs[at]);
        if (!exclusive) acc = kProd ? static_cast<A>(acc * v) : static_cast<A>(acc + v);
        ys[at] = static_cast<T>(acc);
        if (exclusive) acc = kProd ? static_cast<A>(acc * v) : static_cast<A>(acc + v);
      }
    }
}

// a before b in descending order: NaN above every number, as numpy's sort puts it last.
template <typename T>
inline bool greater(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return !std::isnan(b);
    if (std::isnan(b)) return false;
  }
  return a > b;
}

}  // namespace scan_detail

// y[o, j, i] = sum of x[o, j', i] for j' <= j (j' < j: exclusive; j' >= j / > j: reverse).
template <typename T>
inline void cumsum_ref(const T* x, T* y, index_t outer, index_t n, index_t inner, bool exclusive,
                       bool reverse) {
  scan_detail::cumulative<false>(x, y, outer, n, inner, exclusive, reverse);
}

// The same with products.
template <typename T>
inline void cumprod_ref(const T* x, T* y, index_t outer, index_t n, index_t inner, bool exclusive,
                        bool reverse) {
  scan_detail::cumulative<true>(x, y, outer, n, inner, exclusive, reverse);
}

// ---- TopK ---------------------------------------------------------------------------------------
struct TopKParams {
  index_t outer, n, inner;  // the input viewed as [outer, n, inner], n along the axis
  index_t k;
  int largest;  // 1: the k largest, in descending order; 0: the k smallest, ascending
};

// values / indices: [outer, k, inner]. Equal values keep their input order (the lower index
// first). order: scratch of n index_t.
template <typename T>
inline void topk_ref(const TopKParams& p, const T* x, T* values, std::int64_t* indices,
                     index_t* order) {
  for (index_t o = 0; o < p.outer; ++o)
    for (index_t i = 0; i < p.inner; ++i) {
      const T* xs = x + o * p.n * p.inner + i;
      for (index_t j = 0; j < p.n; ++j) order[j] = j;
      auto before = [&](index_t a, index_t b) {
        const T va = xs[a * p.inner], vb = xs[b * p.inner];
        if (p.largest ? scan_detail::greater(va, vb) : scan_detail::greater(vb, va)) return true;
        if (p.largest ? scan_detail::greater(vb, va) : scan_detail::greater(va, vb)) return false;
        return a < b;
      };
      std::partial_sort(order, order + p.k, order + p.n, before);
      for (index_t j = 0; j < p.k; ++j) {
        values[(o * p.k + j) * p.inner + i] = xs[order[j] * p.inner];
        indices[(o * p.k + j) * p.inner + i] = static_cast<std::int64_t>(order[j]);
      }
    }
}

// ---- Compress -----------------------------------------------------------------------------------
// y[o, j, i] = x[o, selected[j], i] for the `count` selected positions along the axis.
template <typename T>
inline void compress_ref(const T* x, T* y, index_t outer, index_t n, index_t inner,
                         const std::int64_t* selected, index_t count) {
  for (index_t o = 0; o < outer; ++o)
    for (index_t j = 0; j < count; ++j) {
      const T* src = x + (o * n + static_cast<index_t>(selected[j])) * inner;
      T* dst = y + (o * count + j) * inner;
      for (index_t i = 0; i < inner; ++i) dst[i] = src[i];
    }
}

// ---- NonZero ------------------------------------------------------------------------------------
template <typename T>
inline index_t nonzero_count(const T* x, index_t numel) {
  index_t c = 0;
  for (index_t i = 0; i < numel; ++i) c += x[i] != T(0);
  return c;
}

// y: [rank, count] the coordinates of the non-zero elements in row-major order.
template <typename T>
inline void nonzero_ref(const T* x, const index_t* dims, int rank, index_t numel, index_t count,
                        std::int64_t* y) {
  index_t idx[kMaxRank] = {};
  index_t c = 0;
  for (index_t i = 0; i < numel; ++i) {
    if (x[i] != T(0)) {
      for (int d = 0; d < rank; ++d) y[d * count + c] = idx[d];
      ++c;
    }
    for (int d = rank - 1; d >= 0; --d) {
      if (++idx[d] < dims[d]) break;
      idx[d] = 0;
    }
  }
}

// ---- Unique -------------------------------------------------------------------------------------
// The distinct slices x[:, j, :] of the [outer, n, inner] view (n = all elements and outer =
// inner = 1 without an axis), compared elementwise in row-major order. Returns their number u and
// fills: first[u] the index of each one's first occurrence, inverse[n] the unique slot of every
// j, counts[u] the occurrences. sorted: the slots are in ascending lexicographic order, else in
// order of first occurrence. first, counts: room for n entries.
template <typename T>
inline index_t unique_ref(const T* x, index_t outer, index_t n, index_t inner, bool sorted,
                          std::int64_t* first, std::int64_t* inverse, std::int64_t* counts) {
  auto at = [&](index_t j, index_t e) { return x[((e / inner) * n + j) * inner + e % inner]; };
  const index_t slice = outer * inner;
  auto compare = [&](index_t a, index_t b) {  // -1, 0, 1 as slice a <, ==, > slice b
    for (index_t e = 0; e < slice; ++e) {
      const T va = at(a, e), vb = at(b, e);
      if (va < vb) return -1;
      if (vb < va) return 1;
    }
    return 0;
  };
  index_t u = 0;
  for (index_t j = 0; j < n; ++j) {
    index_t s = 0;
    while (s < u && compare(static_cast<index_t>(first[s]), j) != 0) ++s;
    if (s == u) {
      first[u] = j;
      counts[u++] = 0;
    }
    ++counts[s];
    inverse[j] = s;
  }
  if (!sorted) return u;
  // Insertion sort of the slots by their slices; inverse follows through the permutation.
  for (index_t s = 1; s < u; ++s)
    for (index_t t = s;
         t > 0 && compare(static_cast<index_t>(first[t]), static_cast<index_t>(first[t - 1])) < 0;
         --t) {
      std::swap(first[t], first[t - 1]);
      std::swap(counts[t], counts[t - 1]);
      for (index_t j = 0; j < n; ++j) {
        if (inverse[j] == t)
          inverse[j] = t - 1;
        else if (inverse[j] == t - 1)
          inverse[j] = t;
      }
    }
  return u;
}

}  // namespace onnxc

#endif  // ONNXC_SCAN_OPS_H
