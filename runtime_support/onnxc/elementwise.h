// Elementwise kernels: a unary map, an n-d broadcasting binary kernel and Where, each taking a
// functor, plus Clip, Dropout and the functors of the ONNX elementwise ops. Shapes are
// compile-time constants in generated code, so the broadcast loops see fixed trip counts.
// float16 and bfloat16 elements are computed in float and rounded once per op (as numpy does for
// them, since float keeps more than twice their precision).
#ifndef ONNXC_ELEMENTWISE_H
#define ONNXC_ELEMENTWISE_H

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "onnxc/base.h"
#include "onnxc/convert.h"

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

template <typename TX, typename TY, typename F>
inline void unary_ref(const TX* x, TY* y, index_t n, F f) {
  for (index_t i = 0; i < n; ++i) y[i] = ElemStore<TY>::to(f(elem_load(x[i])));
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
    for (index_t i = 0; i < p.numel; ++i)
      y[i] = ElemStore<TY>::to(f(elem_load(a[i]), elem_load(b[i])));
    return;
  }
  if (p.kind == 2) {
    const auto s = elem_load(b[0]);
    for (index_t i = 0; i < p.numel; ++i) y[i] = ElemStore<TY>::to(f(elem_load(a[i]), s));
    return;
  }
  if (p.kind == 3) {
    const auto s = elem_load(a[0]);
    for (index_t i = 0; i < p.numel; ++i) y[i] = ElemStore<TY>::to(f(s, elem_load(b[i])));
    return;
  }
  // General case: the innermost axis in a loop, the outer ones by an odometer.
  index_t idx[kMaxRank] = {};
  const int last = p.rank - 1;
  const index_t inner = p.rank ? p.dims[last] : 1;
  const index_t sa = p.rank ? p.a_strides[last] : 0, sb = p.rank ? p.b_strides[last] : 0;
  index_t ao = 0, bo = 0;
  for (index_t base = 0; base < p.numel; base += inner) {
    for (index_t i = 0; i < inner; ++i)
      y[base + i] = ElemStore<TY>::to(f(elem_load(a[ao + i * sa]), elem_load(b[bo + i * sb])));
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

// MT19937 seeded like numpy's legacy RandomState(seed), so that a seeded training-mode Dropout
// draws the mask the ONNX reference draws.
class Mt19937 {
 public:
  explicit Mt19937(uint32_t seed) {
    state_[0] = seed;
    for (uint32_t i = 1; i < kN; ++i)
      state_[i] = 1812433253u * (state_[i - 1] ^ (state_[i - 1] >> 30)) + i;
  }
  uint32_t next() {
    if (pos_ == kN) twist();
    uint32_t y = state_[pos_++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
  }
  // A double in [0, 1) from 53 random bits, as numpy's random_sample.
  double uniform() {
    const uint32_t hi = next() >> 5, lo = next() >> 6;
    return (hi * 67108864.0 + lo) / 9007199254740992.0;
  }

 private:
  static constexpr uint32_t kN = 624, kM = 397;
  void twist() {
    for (uint32_t i = 0; i < kN; ++i) {
      const uint32_t y = (state_[i] & 0x80000000u) | (state_[(i + 1) % kN] & 0x7fffffffu);
      state_[i] = state_[(i + kM) % kN] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    }
    pos_ = 0;
  }
  uint32_t state_[kN];
  uint32_t pos_ = kN;
};

// Dropout. Inference (training null or false, or a zero ratio): y = x and the mask is all true.
// Training: element i is kept when the i-th uniform draw is >= ratio (default 0.5) and scaled by
// 1 / (1 - ratio). mask may be null; its type is bool from opset 10, the data type before.
template <typename T, typename R, typename M>
inline void dropout_ref(const T* x, T* y, M* mask, index_t n, const R* ratio, const bool* training,
                        uint32_t seed) {
  const double r = ratio ? static_cast<double>(elem_load(*ratio)) : 0.5;
  if (!(training && *training) || r == 0) {
    for (index_t i = 0; i < n; ++i) y[i] = x[i];
    if (mask)
      for (index_t i = 0; i < n; ++i) mask[i] = ElemStore<M>::to(1);
    return;
  }
  Mt19937 rng(seed);
  const double scale = 1.0 / (1.0 - r);
  for (index_t i = 0; i < n; ++i) {
    const bool keep = rng.uniform() >= r;
    y[i] = ElemStore<T>::to(keep ? static_cast<double>(elem_load(x[i])) * scale : 0.0);
    if (mask) mask[i] = ElemStore<M>::to(keep ? 1 : 0);
  }
}

// ---- functors: unary ----------------------------------------------------------------------
// Each receives the element in its compute type (float for half types) and the op's two float
// attributes (unused ones are 0).

// log(1 + e^x) without overflow for large x.
template <typename T>
inline T softplus(T x) {
  return x > T(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

#define ONNXC_UNARY_FUNCTOR(Name, expr) \
  struct Name {                         \
    float alpha, beta;                  \
    template <typename T>               \
    T operator()(T x) const {           \
      (void)alpha;                      \
      (void)beta;                       \
      return static_cast<T>(expr);      \
    }                                   \
  };

ONNXC_UNARY_FUNCTOR(Relu, x > T(0) ? x : T(0))
ONNXC_UNARY_FUNCTOR(LeakyRelu, x >= T(0) ? x : static_cast<T>(x * static_cast<T>(alpha)))
ONNXC_UNARY_FUNCTOR(Sigmoid,
                    x >= T(0) ? T(1) / (T(1) + std::exp(-x)) : std::exp(x) / (T(1) + std::exp(x)))
ONNXC_UNARY_FUNCTOR(HardSigmoid, std::fmax(T(0), std::fmin(T(1), static_cast<T>(alpha) * x +
                                                                     static_cast<T>(beta))))
ONNXC_UNARY_FUNCTOR(HardSwish, std::fmax(T(0), std::fmin(T(1), x / T(6) + T(0.5))) * x)
ONNXC_UNARY_FUNCTOR(Tanh, std::tanh(x))
ONNXC_UNARY_FUNCTOR(Erf, std::erf(x))
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
ONNXC_UNARY_FUNCTOR(GeluErf, T(0.5) * x * (T(1) + std::erf(x / std::sqrt(T(2)))))
ONNXC_UNARY_FUNCTOR(GeluTanh, T(0.5) * x *
                                  (T(1) + std::tanh(std::sqrt(T(2) / T(3.14159265358979323846)) *
                                                    (x + T(0.044715) * x * x * x))))
ONNXC_UNARY_FUNCTOR(Scale, static_cast<T>(alpha) * x)
#undef ONNXC_UNARY_FUNCTOR

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
                          T operator()(T x) const {
                            return negate(x);
                          }
                        };
                        // Abs and Sign also take unsigned types, where "x < 0" is a tautology
                        // compilers warn about.
                        struct Abs {
                          float alpha, beta;
                          template <typename T>
                          T operator()(T x) const {
                            if constexpr (std::is_unsigned_v<T>)
                              return x;
                            else
                              return x < T(0) ? negate(x) : x;
                          }
                        };
                        struct Sign {
                          float alpha, beta;
                          template <typename T>
                          T operator()(T x) const {
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
                            return std::isinf(x) &&
                                   ((x > 0 && alpha != 0.0f) || (x < 0 && beta != 0.0f));
                          }
                        };

                        // ---- functors: binary
                        // ---------------------------------------------------------------------

#define ONNXC_BINARY_FUNCTOR(Name, expr) \
  struct Name {                          \
    template <typename A, typename B>    \
    auto operator()(A a, B b) const {    \
      return expr;                       \
    }                                    \
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
    A operator()(A a, A b) const {                                     \
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
                          A operator()(A a, A b) const {
                            if constexpr (std::is_floating_point_v<A>) {
                              if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? a : b;
                            }
                            return a > b ? a : b;
                          }
                        };
                        struct MinNaN {
                          template <typename A>
                          A operator()(A a, A b) const {
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
                          A operator()(A a, A b) const {
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
                        // base is 1 or -1).
                        struct Pow {
                          template <typename A, typename B>
                          A operator()(A a, B b) const {
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
                              return static_cast<A>(
                                  std::pow(static_cast<double>(a), static_cast<double>(b)));
                            }
                          }
                        };

                        // Mod: kFmod=0 takes the divisor's sign (numpy.mod, integers only), kFmod=1
                        // the dividend's (C fmod). x mod 0 gives 0 for integers, as numpy.
                        template <int kFmod>
                        struct Mod {
                          template <typename A>
                          A operator()(A a, A b) const {
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
                          A operator()(A a, A b) const {
                            if (b >= sizeof(A) * 8) return A(0);
                            const wrap_t<A> w = static_cast<wrap_t<A>>(a);
                            return static_cast<A>(kLeft ? (w << b) : (w >> b));
                          }
                        };

                        struct PRelu {
                          template <typename A>
                          A operator()(A x, A slope) const {
                            if constexpr (std::is_unsigned_v<A>)
                              return x;
                            else
                              return x < A(0) ? Mul{}(x, slope) : x;
                          }
                        };

                        }  // namespace onnxc

#endif  // ONNXC_ELEMENTWISE_H
