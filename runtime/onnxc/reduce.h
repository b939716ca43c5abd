// Reductions over any set of axes (ReduceSum, ReduceMean, ... ReduceLogSumExp) and ArgMax/ArgMin.
//
// make_reduce_params() canonicalizes (shape, reduced axes): unit dims are dropped and adjacent
// dims of the same kind merged, so the input becomes
//   [outer kept dims..., reduced dims interleaved with them..., inner]
// where `inner` is the trailing kept dim (contiguous in input and output; 1 when the last dim is
// reduced). reduce_ref then walks each output with one odometer over the outer kept dims and one
// over the reduced dims, `inner` outputs at a time so that both reads and writes are contiguous.
// Reducing over no axes (noop_with_empty_axes) reduces each element alone: ReduceSumSquare
// squares, ReduceLogSum takes the log, ReduceSum copies.
#ifndef ONNXC_REDUCE_H
#define ONNXC_REDUCE_H

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "onnxc/base.h"

namespace onnxc {

struct ReduceParams {
  int outer_rank;  // kept dims other than `inner`, outermost first
  index_t outer_dims[kMaxRank], outer_strides[kMaxRank];
  int red_rank;  // reduced dims, outermost first; at least one (a unit dim when none)
  index_t red_dims[kMaxRank], red_strides[kMaxRank];
  index_t outer_count;  // product of outer_dims
  index_t inner;        // trailing kept dim, contiguous; 1 if the last dim is reduced
  index_t red_count;    // elements reduced into each output (product of red_dims)
};

// Params for an input of `rank` dims; reduced[d] says whether dim d is reduced.
inline ReduceParams make_reduce_params(int rank, const index_t* dims, const bool* reduced) {
  ReduceParams p{};
  index_t mdims[kMaxRank] = {}, mstrides[kMaxRank] = {};
  bool mred[kMaxRank] = {};
  int mrank = 0;
  index_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {  // innermost first, merging runs of one kind
    if (dims[d] != 1) {
      if (mrank > 0 && mred[mrank - 1] == reduced[d]) {
        mdims[mrank - 1] *= dims[d];
      } else {
        mdims[mrank] = dims[d];
        mstrides[mrank] = stride;
        mred[mrank] = reduced[d];
        ++mrank;
      }
    }
    stride *= dims[d];
  }
  p.inner = 1;
  int first = 0;  // merged dims are innermost first
  if (mrank > 0 && !mred[0]) {
    p.inner = mdims[0];
    first = 1;
  }
  p.outer_count = 1;
  p.red_count = 1;
  for (int i = mrank - 1; i >= first; --i) {
    if (mred[i]) {
      p.red_dims[p.red_rank] = mdims[i];
      p.red_strides[p.red_rank++] = mstrides[i];
      p.red_count *= mdims[i];
    } else {
      p.outer_dims[p.outer_rank] = mdims[i];
      p.outer_strides[p.outer_rank++] = mstrides[i];
      p.outer_count *= mdims[i];
    }
  }
  if (p.red_rank == 0) {
    p.red_dims[0] = 1;
    p.red_strides[0] = 0;
    p.red_rank = 1;
  }
  return p;
}

namespace reduce_detail {

// Calls f(offset) for the start of every run of the innermost reduced dim, relative to an
// output's base offset.
template <typename F>
inline void for_each_reduced_run(const ReduceParams& p, F f) {
  const int last = p.red_rank - 1;
  if (last == 0) return f(index_t{0});
  index_t idx[kMaxRank] = {};
  const index_t runs = p.red_dims[last] ? p.red_count / p.red_dims[last] : 0;
  index_t off = 0;
  for (index_t r = 0; r < runs; ++r) {
    f(off);
    for (int d = last - 1; d >= 0; --d) {
      off += p.red_strides[d];
      if (++idx[d] < p.red_dims[d]) break;
      off -= idx[d] * p.red_strides[d];
      idx[d] = 0;
    }
  }
}

// Input offset of outer output row o's first element, advanced by an odometer.
struct OuterCursor {
  index_t idx[kMaxRank] = {};
  index_t offset = 0;
  void next(const ReduceParams& p) {
    for (int d = p.outer_rank - 1; d >= 0; --d) {
      offset += p.outer_strides[d];
      if (++idx[d] < p.outer_dims[d]) return;
      offset -= idx[d] * p.outer_strides[d];
      idx[d] = 0;
    }
  }
};

// Sums of floats accumulate in their own type; integer sums and products in uint64_t, so they
// wrap like numpy instead of overflowing (UB).
template <typename T>
using SumAcc = std::conditional_t<std::is_floating_point_v<T>, T, std::uint64_t>;

template <typename T>
inline T from_double(double v) {
  if constexpr (std::is_integral_v<T>) {
    if (std::isnan(v) || std::isinf(v)) return T(0);  // log(0), an empty mean: no integer value
  }
  return static_cast<T>(v);
}

}  // namespace reduce_detail

// ---- reduction functors: init, step (one element), merge (two partial results), finish ------

template <typename T>
struct ReduceSumOp {
  using Acc = reduce_detail::SumAcc<T>;
  static Acc init() { return Acc(0); }
  static Acc step(Acc a, T x) { return a + static_cast<Acc>(x); }
  static Acc merge(Acc a, Acc b) { return a + b; }
  static T finish(Acc a, index_t) { return static_cast<T>(a); }
};

template <typename T>
struct ReduceMeanOp {  // integers average in double (as numpy does) and truncate
  using Acc = std::conditional_t<std::is_floating_point_v<T>, T, double>;
  static Acc init() { return Acc(0); }
  static Acc step(Acc a, T x) { return a + static_cast<Acc>(x); }
  static Acc merge(Acc a, Acc b) { return a + b; }
  static T finish(Acc a, index_t n) {
    return reduce_detail::from_double<T>(a / static_cast<Acc>(n));
  }
};

template <typename T>
struct ReduceProdOp {
  using Acc = reduce_detail::SumAcc<T>;
  static Acc init() { return Acc(1); }
  static Acc step(Acc a, T x) { return a * static_cast<Acc>(x); }
  static Acc merge(Acc a, Acc b) { return a * b; }
  static T finish(Acc a, index_t) { return static_cast<T>(a); }
};

template <typename T>
struct ReduceMaxOp {  // NaN propagates; bool reduces as "any"
  using Acc = T;
  static Acc init() {
    if constexpr (std::is_floating_point_v<T>) return -std::numeric_limits<T>::infinity();
    return std::numeric_limits<T>::lowest();
  }
  static Acc step(Acc a, T x) {
    if constexpr (std::is_floating_point_v<T>) return (x > a || std::isnan(x)) ? x : a;
    return x > a ? x : a;
  }
  static Acc merge(Acc a, Acc b) { return step(a, b); }
  static T finish(Acc a, index_t) { return a; }
};

template <typename T>
struct ReduceMinOp {  // NaN propagates; bool reduces as "all"
  using Acc = T;
  static Acc init() {
    if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::infinity();
    return std::numeric_limits<T>::max();
  }
  static Acc step(Acc a, T x) {
    if constexpr (std::is_floating_point_v<T>) return (x < a || std::isnan(x)) ? x : a;
    return x < a ? x : a;
  }
  static Acc merge(Acc a, Acc b) { return step(a, b); }
  static T finish(Acc a, index_t) { return a; }
};

template <typename T>
struct ReduceL1Op {
  using Acc = reduce_detail::SumAcc<T>;
  static Acc init() { return Acc(0); }
  static Acc step(Acc a, T x) {
    if constexpr (std::is_floating_point_v<T>) return a + std::fabs(x);
    if constexpr (std::is_signed_v<T>) {
      if (x < 0) return a - static_cast<Acc>(x);  // unsigned negation: no overflow on min()
    }
    return a + static_cast<Acc>(x);
  }
  static Acc merge(Acc a, Acc b) { return a + b; }
  static T finish(Acc a, index_t) { return static_cast<T>(a); }
};

template <typename T>
struct ReduceSumSquareOp {
  using Acc = reduce_detail::SumAcc<T>;
  static Acc init() { return Acc(0); }
  static Acc step(Acc a, T x) { return a + static_cast<Acc>(x) * static_cast<Acc>(x); }
  static Acc merge(Acc a, Acc b) { return a + b; }
  static T finish(Acc a, index_t) { return static_cast<T>(a); }
};

template <typename T>
struct ReduceL2Op : ReduceSumSquareOp<T> {
  using Acc = typename ReduceSumSquareOp<T>::Acc;
  static T finish(Acc a, index_t) {
    return reduce_detail::from_double<T>(std::sqrt(static_cast<double>(static_cast<T>(a))));
  }
};

template <typename T>
struct ReduceLogSumOp : ReduceSumOp<T> {
  using Acc = typename ReduceSumOp<T>::Acc;
  static T finish(Acc a, index_t) {
    return reduce_detail::from_double<T>(std::log(static_cast<double>(static_cast<T>(a))));
  }
};

// log(sum(exp(x))), stable: a running maximum m and sum s of exp(x - m), rescaled when m grows.
struct LogSumExpAcc {
  double m, s;
};

template <typename T>
struct ReduceLogSumExpOp {
  using Acc = LogSumExpAcc;
  static Acc init() { return {-std::numeric_limits<double>::infinity(), 0.0}; }
  static Acc merge(Acc a, Acc b) {
    if (b.s == 0.0) return a;  // b saw nothing but -inf
    if (a.s == 0.0) return b;
    if (std::isinf(a.m) || std::isinf(b.m))  // +inf dominates; the exp terms would be NaN
      return a.m >= b.m ? a : b;
    return a.m >= b.m ? Acc{a.m, a.s + b.s * std::exp(b.m - a.m)}
                      : Acc{b.m, b.s + a.s * std::exp(a.m - b.m)};
  }
  static Acc step(Acc a, T x) {
    const double v = static_cast<double>(x);
    if (v == -std::numeric_limits<double>::infinity()) return a;
    return merge(a, Acc{v, 1.0});
  }
  static T finish(Acc a, index_t) {
    return reduce_detail::from_double<T>(a.s == 0.0 ? a.m : a.m + std::log(a.s));
  }
};

// ---- the kernel ------------------------------------------------------------------------------

namespace reduce_detail {

constexpr index_t kChunk = 64;  // inner outputs accumulated together
constexpr index_t kLanes = 16;  // independent partial results along a contiguous run

// lanes_io[0..kLanes) folds in x[0], x[stride], ... x[(n-1) * stride]. The lanes are copied to
// a local array so that the compiler keeps them in registers and vectorizes the stride-1 loop.
template <typename R, typename T>
inline void fold_run(const T* x, index_t n, index_t stride, typename R::Acc* lanes_io) {
  typename R::Acc lanes[kLanes];
  for (index_t l = 0; l < kLanes; ++l) lanes[l] = lanes_io[l];
  if (stride == 1) {
    const index_t nv = n - n % kLanes;
    for (index_t i = 0; i < nv; i += kLanes)
      for (index_t l = 0; l < kLanes; ++l) lanes[l] = R::step(lanes[l], x[i + l]);
    for (index_t i = nv; i < n; ++i) lanes[i - nv] = R::step(lanes[i - nv], x[i]);
  } else {
    for (index_t i = 0; i < n; ++i) lanes[0] = R::step(lanes[0], x[i * stride]);
  }
  for (index_t l = 0; l < kLanes; ++l) lanes_io[l] = lanes[l];
}

// acc_io[0..cols) folds in n rows x[r * stride + 0..cols), one accumulator per column.
template <typename R, typename T>
inline void fold_columns(const T* x, index_t n, index_t stride, index_t cols,
                         typename R::Acc* acc_io) {
  typename R::Acc acc[kChunk];
  for (index_t i = 0; i < cols; ++i) acc[i] = acc_io[i];
  if (cols == kChunk) {  // a compile-time width: the accumulators stay in registers
    for (index_t r = 0; r < n; ++r)
      for (index_t i = 0; i < kChunk; ++i) acc[i] = R::step(acc[i], x[r * stride + i]);
  } else {
    for (index_t r = 0; r < n; ++r)
      for (index_t i = 0; i < cols; ++i) acc[i] = R::step(acc[i], x[r * stride + i]);
  }
  for (index_t i = 0; i < cols; ++i) acc_io[i] = acc[i];
}

}  // namespace reduce_detail

template <template <typename> class Op, typename T>
inline void reduce_ref(const ReduceParams& p, const T* x, T* y) {
  using R = Op<T>;
  using Acc = typename R::Acc;
  using reduce_detail::kChunk;
  using reduce_detail::kLanes;
  const int last = p.red_rank - 1;
  const index_t run = p.red_dims[last], run_stride = p.red_strides[last];
  if (p.red_count == 0) {  // reads nothing (and an empty input may come as a null pointer)
    for (index_t i = 0; i < p.outer_count * p.inner; ++i) y[i] = R::finish(R::init(), 0);
    return;
  }
  reduce_detail::OuterCursor outer;
  for (index_t o = 0; o < p.outer_count; ++o, outer.next(p)) {
    const T* xo = x + outer.offset;
    T* yo = y + o * p.inner;
    if (p.inner == 1) {
      Acc lanes[kLanes];
      for (index_t l = 0; l < kLanes; ++l) lanes[l] = R::init();
      reduce_detail::for_each_reduced_run(
          p, [&](index_t off) { reduce_detail::fold_run<R>(xo + off, run, run_stride, lanes); });
      Acc acc = lanes[0];
      for (index_t l = 1; l < kLanes; ++l) acc = R::merge(acc, lanes[l]);
      yo[0] = R::finish(acc, p.red_count);
      continue;
    }
    for (index_t i0 = 0; i0 < p.inner; i0 += kChunk) {
      const index_t n = p.inner - i0 < kChunk ? p.inner - i0 : kChunk;
      Acc acc[kChunk];
      for (index_t i = 0; i < n; ++i) acc[i] = R::init();
      reduce_detail::for_each_reduced_run(p, [&](index_t off) {
        reduce_detail::fold_columns<R>(xo + off + i0, run, run_stride, n, acc);
      });
      for (index_t i = 0; i < n; ++i) yo[i0 + i] = R::finish(acc[i], p.red_count);
    }
  }
}

// ---- ArgMax / ArgMin ---------------------------------------------------------------------------

// y[o, i] = index along `axis` of the largest (kMax) or smallest element of x[o, :, i]; ties go
// to the first index, or the last with select_last. NaN counts as the extreme (as in numpy).
template <bool kMax, typename T>
inline void arg_reduce_ref(const T* x, std::int64_t* y, index_t outer, index_t axis, index_t inner,
                           bool select_last) {
  constexpr index_t kChunk = 64;
  auto better = [](T v, T best) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(best)) return false;
      if (std::isnan(v)) return true;
    }
    return kMax ? v > best : v < best;
  };
  for (index_t o = 0; o < outer; ++o)
    for (index_t i0 = 0; i0 < inner; i0 += kChunk) {
      const index_t n = inner - i0 < kChunk ? inner - i0 : kChunk;
      const T* xo = x + o * axis * inner + i0;
      std::int64_t* yo = y + o * inner + i0;
      T best[kChunk];
      for (index_t i = 0; i < n; ++i) {
        best[i] = xo[i];
        yo[i] = 0;
      }
      for (index_t a = 1; a < axis; ++a)
        for (index_t i = 0; i < n; ++i) {
          const T v = xo[a * inner + i];
          if (better(v, best[i]) || (select_last && !better(best[i], v))) {
            best[i] = v;
            yo[i] = a;
          }
        }
    }
}

}  // namespace onnxc

#endif  // ONNXC_REDUCE_H
