// Binary elementwise kernels: an n-d broadcasting kernel taking a functor, Where, and the
// functors of the ONNX binary ops. Shapes are compile-time constants in generated code, so the
// broadcast loops see fixed trip counts.
#ifndef ONNXC_BINARY_H
#define ONNXC_BINARY_H

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "onnxc/accum.h"
#include "onnxc/base.h"
#include "onnxc/unary.h"

namespace onnxc {

// Output shape and each operand's element strides over it (0 along broadcast axes).
struct BroadcastParams {
  int rank;
  index_t dims[kMaxRank];
  index_t a_strides[kMaxRank];
  index_t b_strides[kMaxRank];
  index_t c_strides[kMaxRank];  // third operand (Where's condition); unused by binary ops
  index_t numel;
  int kind;  // 0: general, 1: same shape, 2: b is a scalar, 3: a is a scalar
};

namespace binary_detail {

// y[i] = f(a[i * sa], b[i * sb]) for i in [0, n). Unit and zero strides get loops of their own,
// which vectorize: whole same-shape or scalar operands, and rows such as a per-channel scale
// (squeeze-excitation's Mul: a run of a[i] * b[0]).
template <typename TA, typename TB, typename TY, typename F>
inline void row(const TA* a, const TB* b, TY* y, index_t n, index_t sa, index_t sb, F f) {
  if (sa == 1 && sb == 1) {
    for (index_t i = 0; i < n; ++i) y[i] = ElemStore<TY>::to(f(elem_load(a[i]), elem_load(b[i])));
  } else if (sa == 1 && sb == 0) {
    const auto s = elem_load(b[0]);
    for (index_t i = 0; i < n; ++i) y[i] = ElemStore<TY>::to(f(elem_load(a[i]), s));
  } else if (sa == 0 && sb == 1) {
    const auto s = elem_load(a[0]);
    for (index_t i = 0; i < n; ++i) y[i] = ElemStore<TY>::to(f(s, elem_load(b[i])));
  } else {
    for (index_t i = 0; i < n; ++i)
      y[i] = ElemStore<TY>::to(f(elem_load(a[i * sa]), elem_load(b[i * sb])));
  }
}

template <typename TA, typename TB, typename TY, typename F>
inline void run(const BroadcastParams& p, const TA* a, const TB* b, TY* y, F f) {
  if (p.kind != 0)  // same shape, b a scalar, a a scalar: one run over the whole output
    return binary_detail::row(a, b, y, p.numel, p.kind == 3 ? 0 : 1, p.kind == 2 ? 0 : 1, f);
  // General case: the innermost axis as one row, the outer ones by an odometer.
  index_t idx[kMaxRank] = {};
  const int last = p.rank - 1;
  const index_t inner = p.rank ? p.dims[last] : 1;
  const index_t sa = p.rank ? p.a_strides[last] : 0, sb = p.rank ? p.b_strides[last] : 0;
  index_t ao = 0, bo = 0;
  for (index_t base = 0; base < p.numel; base += inner) {
    binary_detail::row(a + ao, b + bo, y + base, inner, sa, sb, f);
    for (int d = last - 1; d >= 0; --d) {
      ao += p.a_strides[d];
      bo += p.b_strides[d];
      if (++idx[d] < p.dims[d]) break;
      ao -= p.a_strides[d] * p.dims[d];
      bo -= p.b_strides[d] * p.dims[d];
      idx[d] = 0;
    }
  }
}

}  // namespace binary_detail

// Float outputs in the CPU's ISA copy (in_isa_copy: at the baseline and -O2 the rows stayed
// scalar, Add, Mul and Div at 0.3x native on Zen 3).
template <typename TA, typename TB, typename TY, typename F>
inline void binary_ref(const BroadcastParams& p, const TA* a, const TB* b, TY* y, F f) {
  if constexpr (std::is_same_v<TY, float>)
    ONNXC_IN_ISA_COPY(binary_detail::run(p, a, b, y, f));
  else
    binary_detail::run(p, a, b, y, f);
}

// y = cond ? a : b with three-way broadcasting (c_strides index the condition).
template <typename T>
inline void where_ref(const BroadcastParams& p, const bool* cond, const T* a, const T* b, T* y) {
  index_t idx[kMaxRank] = {};
  for (index_t i = 0; i < p.numel; ++i) {
    index_t ao = 0, bo = 0, co = 0;
    for (int d = 0; d < p.rank; ++d) {
      ao += idx[d] * p.a_strides[d];
      bo += idx[d] * p.b_strides[d];
      co += idx[d] * p.c_strides[d];
    }
    y[i] = cond[co] ? a[ao] : b[bo];
    for (int d = p.rank - 1; d >= 0; --d) {
      if (++idx[d] < p.dims[d]) break;
      idx[d] = 0;
    }
  }
}
// ---- functors: binary
// ---------------------------------------------------------------------

#define ONNXC_BINARY_FUNCTOR(Name, expr)                  \
  struct Name {                                           \
    template <typename A, typename B>                     \
    ONNXC_ALWAYS_INLINE auto operator()(A a, B b) const { \
      return expr;                                        \
    }                                                     \
  };

ONNXC_BINARY_FUNCTOR(Equal, a == b)
ONNXC_BINARY_FUNCTOR(Less, a < b)
ONNXC_BINARY_FUNCTOR(LessOrEqual, a <= b)
ONNXC_BINARY_FUNCTOR(Greater, a > b)
ONNXC_BINARY_FUNCTOR(GreaterOrEqual, a >= b)
// (clang-format would space `a && b` in a macro argument as a reference.)
// clang-format off
ONNXC_BINARY_FUNCTOR(And, a && b)
// clang-format on
ONNXC_BINARY_FUNCTOR(Or, a || b)
ONNXC_BINARY_FUNCTOR(Xor, a != b)
ONNXC_BINARY_FUNCTOR(First, ((void)b, a))
#undef ONNXC_BINARY_FUNCTOR

#define ONNXC_WRAPPING_FUNCTOR(Name, op)                               \
  struct Name {                                                        \
    template <typename A>                                              \
    ONNXC_ALWAYS_INLINE A operator()(A a, A b) const {                 \
      if constexpr (kIsInt<A>) {                                       \
        using W = wrap_t<A>;                                           \
        return static_cast<A>(static_cast<W>(a) op static_cast<W>(b)); \
      } else {                                                         \
        return static_cast<A>(a op b);                                 \
      }                                                                \
    }                                                                  \
  };
ONNXC_WRAPPING_FUNCTOR(Add, +)
ONNXC_WRAPPING_FUNCTOR(Sub, -)
ONNXC_WRAPPING_FUNCTOR(Mul, *)
#undef ONNXC_WRAPPING_FUNCTOR

// Max/Min propagate NaN as numpy.maximum/minimum do.
struct MaxNaN {
  template <typename A>
  ONNXC_ALWAYS_INLINE A operator()(A a, A b) const {
    if constexpr (std::is_floating_point_v<A>) {
      if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? a : b;
    }
    return a > b ? a : b;
  }
};
struct MinNaN {
  template <typename A>
  ONNXC_ALWAYS_INLINE A operator()(A a, A b) const {
    if constexpr (std::is_floating_point_v<A>) {
      if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? a : b;
    }
    return a < b ? a : b;
  }
};

// Integer division truncates toward zero (the ONNX reference); x / 0 gives
// 0 and MIN / -1 wraps, as numpy gives, instead of trapping.
struct Div {
  template <typename A>
  ONNXC_ALWAYS_INLINE A operator()(A a, A b) const {
    if constexpr (kIsInt<A>) {
      if (b == 0) return A(0);
      if constexpr (std::is_signed_v<A>) {
        if (b == A(-1)) return negate(a);
      }
      return static_cast<A>(a / b);
    } else {
      return a / b;
    }
  }
};

// numpy.power then a cast to the base type. Integer powers wrap around; a
// negative integer exponent gives the truncated real result (0 unless the
// base is 1 or -1). Float powers are computed in accum_t<A, C> (onnxc/accum.h): double, or float
// on targets without double-precision hardware (PowIn<float>).
template <typename C>
struct PowIn {
  template <typename A, typename B>
  ONNXC_ALWAYS_INLINE A operator()(A a, B b) const {
    if constexpr (kIsInt<A> && kIsInt<B>) {
      if constexpr (std::is_signed_v<B>) {
        if (b < 0) {
          if (a == A(1)) return A(1);
          if constexpr (std::is_signed_v<A>) {
            if (a == A(-1)) return (b % 2) ? A(-1) : A(1);
          }
          return A(0);
        }
      }
      wrap_t<A> result = 1, base = static_cast<wrap_t<A>>(a);
      for (uint64_t e = static_cast<uint64_t>(b); e; e >>= 1) {
        if (e & 1u) result = static_cast<wrap_t<A>>(result * base);
        base = static_cast<wrap_t<A>>(base * base);
      }
      return static_cast<A>(result);
    } else {
      using P = accum_t<A, C>;
      return static_cast<A>(std::pow(static_cast<P>(a), static_cast<P>(b)));
    }
  }
};
using Pow = PowIn<double>;

// Mod: kFmod=0 takes the divisor's sign (numpy.mod, integers only), kFmod=1
// the dividend's (C fmod). x mod 0 gives 0 for integers, as numpy.
template <int kFmod>
struct Mod {
  template <typename A>
  ONNXC_ALWAYS_INLINE A operator()(A a, A b) const {
    if constexpr (kIsInt<A>) {
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<A>) {
        if (b == A(-1)) return 0;  // MIN % -1 would trap
      }
      A r = static_cast<A>(a % b);
      if constexpr (kFmod == 0 && std::is_signed_v<A>) {
        if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<A>(r + b);
      }
      return r;
    } else {
      return static_cast<A>(std::fmod(a, b));
    }
  }
};

// BitShift (unsigned types): shifting by the bit width or more gives 0, as
// numpy.
template <bool kLeft>
struct BitShift {
  template <typename A>
  ONNXC_ALWAYS_INLINE A operator()(A a, A b) const {
    if (b >= sizeof(A) * 8) return A(0);
    const wrap_t<A> w = static_cast<wrap_t<A>>(a);
    return static_cast<A>(kLeft ? (w << b) : (w >> b));
  }
};

struct PRelu {
  template <typename A>
  ONNXC_ALWAYS_INLINE A operator()(A x, A slope) const {
    if constexpr (std::is_unsigned_v<A>)
      return x;
    else
      return x < A(0) ? Mul{}(x, slope) : x;
  }
};

}  // namespace onnxc

#endif  // ONNXC_BINARY_H
