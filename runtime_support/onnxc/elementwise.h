// Elementwise kernels: a unary map, an n-d broadcasting binary kernel and Where, each taking a
// functor, plus the functors of the ONNX elementwise ops. Shapes are compile-time constants in
// generated code, so the broadcast loops see fixed trip counts.
#ifndef ONNXC_ELEMENTWISE_H
#define ONNXC_ELEMENTWISE_H

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "onnxc/base.h"

namespace onnxc {

// ---- kernels ------------------------------------------------------------------------------

template <typename TX, typename TY, typename F>
inline void unary_ref(const TX* x, TY* y, index_t n, F f) {
  for (index_t i = 0; i < n; ++i) y[i] = static_cast<TY>(f(x[i]));
}

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

template <typename TA, typename TB, typename TY, typename F>
inline void binary_ref(const BroadcastParams& p, const TA* a, const TB* b, TY* y, F f) {
  if (p.kind == 1) {
    for (index_t i = 0; i < p.numel; ++i) y[i] = static_cast<TY>(f(a[i], b[i]));
    return;
  }
  if (p.kind == 2) {
    const TB s = b[0];
    for (index_t i = 0; i < p.numel; ++i) y[i] = static_cast<TY>(f(a[i], s));
    return;
  }
  if (p.kind == 3) {
    const TA s = a[0];
    for (index_t i = 0; i < p.numel; ++i) y[i] = static_cast<TY>(f(s, b[i]));
    return;
  }
  // General case: the innermost axis in a loop, the outer ones by an odometer.
  index_t idx[kMaxRank] = {};
  const int last = p.rank - 1;
  const index_t inner = p.rank ? p.dims[last] : 1;
  const index_t sa = p.rank ? p.a_strides[last] : 0, sb = p.rank ? p.b_strides[last] : 0;
  index_t ao = 0, bo = 0;
  for (index_t base = 0; base < p.numel; base += inner) {
    for (index_t i = 0; i < inner; ++i) y[base + i] = static_cast<TY>(f(a[ao + i * sa], b[bo + i * sb]));
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

// Clip with optional runtime bounds (null: unbounded on that side).
template <typename T>
inline void clip_ref(const T* x, T* y, index_t n, const T* lo, const T* hi) {
  const T l = lo ? *lo : std::numeric_limits<T>::lowest();
  const T h = hi ? *hi : std::numeric_limits<T>::max();
  // min(max(x, lo), hi): when lo > hi every element becomes hi, as the spec says.
  for (index_t i = 0; i < n; ++i) {
    const T v = x[i] < l ? l : x[i];
    y[i] = v > h ? h : v;
  }
}

// ---- functors: unary ----------------------------------------------------------------------

#define ONNXC_UNARY(Name, expr)                      \
  struct Name {                                      \
    float alpha, beta;                               \
    template <typename T>                            \
    T operator()(T x) const {                        \
      (void)alpha;                                   \
      (void)beta;                                    \
      return static_cast<T>(expr);                   \
    }                                                \
  };

ONNXC_UNARY(Relu, x > T(0) ? x : T(0))
ONNXC_UNARY(LeakyRelu, x >= T(0) ? x : static_cast<T>(x * static_cast<T>(alpha)))
ONNXC_UNARY(Sigmoid, x >= T(0) ? T(1) / (T(1) + std::exp(-x)) : std::exp(x) / (T(1) + std::exp(x)))
ONNXC_UNARY(HardSigmoid, std::fmax(T(0), std::fmin(T(1), static_cast<T>(alpha) * x + static_cast<T>(beta))))
ONNXC_UNARY(HardSwish, x * std::fmax(T(0), std::fmin(T(1), x / T(6) + T(0.5))))
ONNXC_UNARY(Tanh, std::tanh(x))
ONNXC_UNARY(Erf, std::erf(x))
ONNXC_UNARY(Exp, std::exp(x))
ONNXC_UNARY(Log, std::log(x))
ONNXC_UNARY(Sqrt, std::sqrt(x))
ONNXC_UNARY(Neg, -x)
ONNXC_UNARY(Abs, x < T(0) ? -x : x)
ONNXC_UNARY(Reciprocal, T(1) / x)
ONNXC_UNARY(Floor, std::floor(x))
ONNXC_UNARY(Ceil, std::ceil(x))
ONNXC_UNARY(Round, std::nearbyint(x))
ONNXC_UNARY(Sign, (x > T(0)) - (x < T(0)))
ONNXC_UNARY(Elu, x >= T(0) ? x : static_cast<T>(alpha) * (std::exp(x) - T(1)))
ONNXC_UNARY(Selu, static_cast<T>(beta) * (x > T(0) ? x : static_cast<T>(alpha) * (std::exp(x) - T(1))))
ONNXC_UNARY(Celu, std::fmax(T(0), x) + std::fmin(T(0), static_cast<T>(alpha) * (std::exp(x / static_cast<T>(alpha)) - T(1))))
ONNXC_UNARY(ThresholdedRelu, x > static_cast<T>(alpha) ? x : T(0))
ONNXC_UNARY(Softplus, x > T(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)))
ONNXC_UNARY(Softsign, x / (T(1) + std::fabs(x)))
ONNXC_UNARY(Mish, x * std::tanh(x > T(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x))))
ONNXC_UNARY(Sin, std::sin(x))
ONNXC_UNARY(Cos, std::cos(x))
ONNXC_UNARY(Tan, std::tan(x))
ONNXC_UNARY(Asin, std::asin(x))
ONNXC_UNARY(Acos, std::acos(x))
ONNXC_UNARY(Atan, std::atan(x))
ONNXC_UNARY(Sinh, std::sinh(x))
ONNXC_UNARY(Cosh, std::cosh(x))
ONNXC_UNARY(Asinh, std::asinh(x))
ONNXC_UNARY(Acosh, std::acosh(x))
ONNXC_UNARY(Atanh, std::atanh(x))
ONNXC_UNARY(GeluErf, T(0.5) * x * (T(1) + std::erf(x / std::sqrt(T(2)))))
ONNXC_UNARY(GeluTanh, T(0.5) * x * (T(1) + std::tanh(std::sqrt(T(2) / T(3.14159265358979323846)) * (x + T(0.044715) * x * x * x))))
ONNXC_UNARY(Identity, x)
ONNXC_UNARY(Scale, x * static_cast<T>(alpha))
#undef ONNXC_UNARY

struct Not {
  float alpha, beta;
  bool operator()(bool x) const { return !x; }
};
struct IsNaN {
  float alpha, beta;
  template <typename T>
  bool operator()(T x) const { return std::isnan(x); }
};
// alpha: detect_positive, beta: detect_negative.
struct IsInf {
  float alpha, beta;
  template <typename T>
  bool operator()(T x) const { return std::isinf(x) && ((x > 0 && alpha != 0.0f) || (x < 0 && beta != 0.0f)); }
};

// ---- functors: binary ---------------------------------------------------------------------

#define ONNXC_BINARY(Name, expr)         \
  struct Name {                          \
    template <typename A, typename B>    \
    auto operator()(A a, B b) const {    \
      return expr;                       \
    }                                    \
  };

ONNXC_BINARY(Add, a + b)
ONNXC_BINARY(Sub, a - b)
ONNXC_BINARY(Mul, a * b)
ONNXC_BINARY(Max, a > b ? a : b)
ONNXC_BINARY(Min, a < b ? a : b)
ONNXC_BINARY(Equal, a == b)
ONNXC_BINARY(Less, a < b)
ONNXC_BINARY(LessOrEqual, a <= b)
ONNXC_BINARY(Greater, a > b)
ONNXC_BINARY(GreaterOrEqual, a >= b)
ONNXC_BINARY(And, a && b)
ONNXC_BINARY(Or, a || b)
ONNXC_BINARY(Xor, a != b)
ONNXC_BINARY(First, ((void)b, a))
ONNXC_BINARY(BitShiftLeft, static_cast<A>(a << b))
ONNXC_BINARY(BitShiftRight, static_cast<A>(a >> b))
#undef ONNXC_BINARY

// Max/Min propagate NaN as ONNX's reference does.
struct MaxNaN {
  template <typename A>
  A operator()(A a, A b) const { return (a != a || b != b) ? (a != a ? a : b) : (a > b ? a : b); }
};
struct MinNaN {
  template <typename A>
  A operator()(A a, A b) const { return (a != a || b != b) ? (a != a ? a : b) : (a < b ? a : b); }
};

struct Div {
  template <typename A>
  A operator()(A a, A b) const {
    if constexpr (std::is_integral_v<A>) {
      return b == 0 ? A(0) : static_cast<A>(a / b);  // integer division truncates, as numpy's int cast
    } else {
      return a / b;
    }
  }
};

struct Pow {
  template <typename A, typename B>
  A operator()(A a, B b) const {
    if constexpr (std::is_integral_v<A> && std::is_integral_v<B>) {
      A r = 1;
      for (B i = 0; i < b; ++i) r = static_cast<A>(r * a);
      return r;
    } else {
      return static_cast<A>(std::pow(static_cast<double>(a), static_cast<double>(b)));
    }
  }
};

// Mod: fmod=0 takes the divisor's sign (Python %), fmod=1 the dividend's (C fmod).
template <int kFmod>
struct Mod {
  template <typename A>
  A operator()(A a, A b) const {
    if constexpr (std::is_integral_v<A>) {
      if (b == 0) return 0;
      A r = static_cast<A>(a % b);
      if (kFmod == 0 && r != 0 && ((r < 0) != (b < 0))) r = static_cast<A>(r + b);
      return r;
    } else {
      A r = static_cast<A>(std::fmod(a, b));
      if (kFmod == 0 && r != 0 && ((r < 0) != (b < 0))) r += b;
      return r;
    }
  }
};

struct PRelu {
  template <typename A>
  A operator()(A x, A slope) const { return x < A(0) ? static_cast<A>(x * slope) : x; }
};

}  // namespace onnxc

#endif  // ONNXC_ELEMENTWISE_H
