// Unary elementwise kernels: the element load/store every elementwise kernel shares (float16 and
// bfloat16 are computed in float and rounded once per op, as numpy does), a unary map taking a
// functor, Clip, and the functors of the ONNX unary ops. Binary ops are in onnxc/binary.h,
// Dropout in onnxc/dropout.h.
#ifndef ONNXC_UNARY_H
#define ONNXC_UNARY_H

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "onnxc/activation.h"
#include "onnxc/base.h"
#include "onnxc/half.h"
#include "onnxc/vmath.h"

namespace onnxc {

// ---- element load/store: half types in float ------------------------------------------------

template <typename T>
inline T elem_load(T v) {
  return v;
}
inline float elem_load(float16 v) {
  return to_float(v);
}
inline float elem_load(bfloat16 v) {
  return to_float(v);
}

template <typename T>
struct ElemStore {
  template <typename V>
  static T to(V v) {
    return static_cast<T>(v);
  }
};
template <>
struct ElemStore<float16> {
  template <typename V>
  static float16 to(V v) {
    return to_float16(static_cast<double>(v));
  }
};
template <>
struct ElemStore<bfloat16> {
  template <typename V>
  static bfloat16 to(V v) {
    return to_bfloat16(static_cast<double>(v));
  }
};

// The type an element is computed in.
template <typename T>
using compute_t = decltype(elem_load(T{}));

// Integer add/sub/mul/shift wrap around as numpy's do; computing in an unsigned type at least as
// wide as `unsigned` avoids signed overflow and the promotion of small types to int.
template <typename T>
using wrap_t =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <typename T>
constexpr bool kIsInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// ---- kernels ------------------------------------------------------------------------------

namespace unary_detail {
template <typename TX, typename TY, typename F>
ONNXC_ALWAYS_INLINE void run(const TX* x, TY* y, index_t n, F f) {
  for (index_t i = 0; i < n; ++i) y[i] = ElemStore<TY>::to(f(elem_load(x[i])));
}
}  // namespace unary_detail

// Float outputs in the CPU's ISA copy (in_isa_copy: at the baseline and -O2 the loop stayed
// scalar, bert_encoder's Erf at 0.1x native on Zen 3).
template <typename TX, typename TY, typename F>
inline void unary_ref(const TX* x, TY* y, index_t n, F f) {
  if constexpr (std::is_same_v<TY, float>)
    ONNXC_IN_ISA_COPY(unary_detail::run(x, y, n, f));
  else
    unary_detail::run(x, y, n, f);
}

// Clip with optional bounds (null: unbounded on that side). min(max(x, lo), hi): when lo > hi
// every element becomes hi, as numpy.clip gives; NaN stays NaN.
template <typename T>
inline void clip_ref(const T* x, T* y, index_t n, const T* lo, const T* hi) {
  using C = compute_t<T>;
  const bool has_lo = lo != nullptr, has_hi = hi != nullptr;
  const C l = has_lo ? elem_load(*lo) : C(0), h = has_hi ? elem_load(*hi) : C(0);
  for (index_t i = 0; i < n; ++i) {
    C v = elem_load(x[i]);
    if (has_lo && v < l) v = l;
    if (has_hi && v > h) v = h;
    y[i] = ElemStore<T>::to(v);
  }
}

// ---- functors: unary ----------------------------------------------------------------------
// As the activations' (onnxc/activation.h, which has Relu, Sigmoid, Tanh, Gelu and the rest of
// the ones a Conv or GEMM epilogue can fuse): each receives the element in its compute type
// (float for half types) and the op's two float attributes (unused ones are 0).

// log(1 + e^x) without overflow for large x.
template <typename T>
inline T softplus(T x) {
  return x > T(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

ONNXC_UNARY_FUNCTOR(Erf, erf_of(x))
ONNXC_UNARY_FUNCTOR(Exp, std::exp(x))
ONNXC_UNARY_FUNCTOR(Log, std::log(x))
ONNXC_UNARY_FUNCTOR(Sqrt, std::sqrt(x))
ONNXC_UNARY_FUNCTOR(Reciprocal, T(1) / x)
ONNXC_UNARY_FUNCTOR(Floor, std::floor(x))
ONNXC_UNARY_FUNCTOR(Ceil, std::ceil(x))
// The default rounding mode rounds halves to even, as numpy.round.
ONNXC_UNARY_FUNCTOR(Round, std::nearbyint(x))
ONNXC_UNARY_FUNCTOR(Elu, x >= T(0) ? x : static_cast<T>(alpha) * (std::exp(x) - T(1)))
// alpha: alpha, beta: gamma.
ONNXC_UNARY_FUNCTOR(Selu, static_cast<T>(beta) *
                              (x > T(0) ? x : static_cast<T>(alpha) * (std::exp(x) - T(1))))
ONNXC_UNARY_FUNCTOR(Celu, std::fmax(T(0), x) +
                              std::fmin(T(0), static_cast<T>(alpha) *
                                                  (std::exp(x / static_cast<T>(alpha)) - T(1))))
ONNXC_UNARY_FUNCTOR(ThresholdedRelu, x > static_cast<T>(alpha) ? x : T(0))
ONNXC_UNARY_FUNCTOR(Softplus, softplus(x))
ONNXC_UNARY_FUNCTOR(Softsign, x / (T(1) + std::fabs(x)))
ONNXC_UNARY_FUNCTOR(Mish, std::tanh(softplus(x)) * x)
ONNXC_UNARY_FUNCTOR(Sin, std::sin(x))
ONNXC_UNARY_FUNCTOR(Cos, std::cos(x))
ONNXC_UNARY_FUNCTOR(Tan, std::tan(x))
ONNXC_UNARY_FUNCTOR(Asin, std::asin(x))
ONNXC_UNARY_FUNCTOR(Acos, std::acos(x))
ONNXC_UNARY_FUNCTOR(Atan, std::atan(x))
ONNXC_UNARY_FUNCTOR(Sinh, std::sinh(x))
ONNXC_UNARY_FUNCTOR(Cosh, std::cosh(x))
ONNXC_UNARY_FUNCTOR(Asinh, std::asinh(x))
ONNXC_UNARY_FUNCTOR(Acosh, std::acosh(x))
ONNXC_UNARY_FUNCTOR(Atanh, std::atanh(x))
ONNXC_UNARY_FUNCTOR(Scale, static_cast<T>(alpha) * x)

// Integer negation wraps (-MIN is MIN), as numpy's.
template <typename T>
inline T negate(T x) {
  if constexpr (kIsInt<T>)
    return static_cast<T>(wrap_t<T>(0) - static_cast<wrap_t<T>>(x));
  else
    return -x;
}
struct Neg {
  float alpha, beta;
  template <typename T>
  ONNXC_ALWAYS_INLINE T operator()(T x) const {
    return negate(x);
  }
};
// Abs and Sign also take unsigned types, where "x < 0" is a tautology
// compilers warn about.
struct Abs {
  float alpha, beta;
  template <typename T>
  ONNXC_ALWAYS_INLINE T operator()(T x) const {
    if constexpr (std::is_unsigned_v<T>)
      return x;
    else
      return x < T(0) ? negate(x) : x;
  }
};
struct Sign {
  float alpha, beta;
  template <typename T>
  ONNXC_ALWAYS_INLINE T operator()(T x) const {
    if constexpr (std::is_unsigned_v<T>)
      return static_cast<T>(x != 0);
    else
      return static_cast<T>((x > T(0)) - (x < T(0)));
  }
};
struct Not {
  float alpha, beta;
  bool operator()(bool x) const { return !x; }
};
struct IsNaN {
  float alpha, beta;
  template <typename T>
  bool operator()(T x) const {
    return std::isnan(x);
  }
};
// alpha: detect_positive, beta: detect_negative.
struct IsInf {
  float alpha, beta;
  template <typename T>
  bool operator()(T x) const {
    return std::isinf(x) && ((x > 0 && alpha != 0.0f) || (x < 0 && beta != 0.0f));
  }
};

}  // namespace onnxc

#endif  // ONNXC_UNARY_H
