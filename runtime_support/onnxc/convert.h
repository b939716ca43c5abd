// Element conversions between every tensor element type: the IEEE-like small floats (float16,
// bfloat16, the four float8 flavours, float4e2m1), float8e8m0, the packed sub-byte integers and the
// plain C++ types. Rules follow the ONNX Cast operator:
//   - to a small float: round to nearest even; out-of-range values give infinity (float16,
//     bfloat16), the largest finite value (float8 with `saturate`, float4e2m1) or infinity/NaN
//     (float8 without `saturate`); the FNUZ formats have no negative zero;
//   - to an integer: truncate toward zero, then keep the low bits (two's complement wrap-around,
//     so float 200 -> int8 -56 and float -9 -> int4 7); NaN gives 0;
//   - to bool: nonzero (NaN included) is true;
//   - float8e8m0 (a bare power-of-two exponent) rounds `up`, `down` or to `nearest`.
// Sub-byte types are packed little-end first: element i of an int4 tensor is the low nibble of
// byte i / 2 when i is even. Their unpacked value types are int8_t (int4, int2), uint8_t (uint4,
// uint2) and onnxc::float4e2m1 (one code in the low bits of a byte).
#ifndef ONNXC_CONVERT_H
#define ONNXC_CONVERT_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>  // generated fills of NaN or infinity spell std::numeric_limits
#include <type_traits>

#include "onnxc/base.h"

namespace onnxc {

// One unpacked float4e2m1 element (the code in the low 4 bits); tensors store float4e2m1x2.
struct float4e2m1 {
  uint8_t bits;
};

inline uint32_t float_bits(float x) {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}
inline float float_from_bits(uint32_t b) {
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}
inline uint64_t double_bits(double x) {
  uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// ---- Small IEEE-like float formats ----------------------------------------------------------

// How a format spells infinity and NaN.
enum class FloatSpecials : uint8_t {
  kIeee,  // all-ones exponent: infinity (zero mantissa) or NaN (float16, bfloat16, float8e5m2)
  kFn,    // no infinity; only the all-ones magnitude is NaN (float8e4m3fn)
  kFnuz,  // no infinity, no negative zero: the negative-zero code is the only NaN
  kNone,  // no infinity, no NaN (float4e2m1)
};

struct MiniFloatFormat {
  int exp_bits;
  int man_bits;
  int bias;
  FloatSpecials specials;
  bool saturable;     // Cast's `saturate` attribute applies (the float8 formats)
  uint32_t max_code;  // magnitude code of the largest finite value
};

constexpr MiniFloatFormat kFloat16Format = {5, 10, 15, FloatSpecials::kIeee, false, 0x7BFF};
constexpr MiniFloatFormat kBFloat16Format = {8, 7, 127, FloatSpecials::kIeee, false, 0x7F7F};
constexpr MiniFloatFormat kFloat8E4M3FNFormat = {4, 3, 7, FloatSpecials::kFn, true, 0x7E};
constexpr MiniFloatFormat kFloat8E4M3FNUZFormat = {4, 3, 8, FloatSpecials::kFnuz, true, 0x7F};
constexpr MiniFloatFormat kFloat8E5M2Format = {5, 2, 15, FloatSpecials::kIeee, true, 0x7B};
constexpr MiniFloatFormat kFloat8E5M2FNUZFormat = {5, 2, 16, FloatSpecials::kFnuz, true, 0x7F};
constexpr MiniFloatFormat kFloat4E2M1Format = {2, 1, 1, FloatSpecials::kNone, false, 0x7};

// Every code of these formats is exactly a float (NaNs keep their sign and top payload bits; the
// FNUZ NaN reads as negative NaN, as numpy's ml_dtypes does).
inline float minifloat_to_float(uint32_t code, const MiniFloatFormat& f) {
  const uint32_t sign_bit = 1u << (f.exp_bits + f.man_bits);
  const uint32_t magnitude = code & (sign_bit - 1);
  const uint32_t sign32 = (code & sign_bit) ? 0x80000000u : 0u;
  const uint32_t exponent = magnitude >> f.man_bits;
  const uint32_t mantissa = magnitude & ((1u << f.man_bits) - 1);
  switch (f.specials) {
    case FloatSpecials::kIeee:
      if (exponent == (1u << f.exp_bits) - 1)  // infinity when mantissa is 0
        return float_from_bits(sign32 | 0x7F800000u | (mantissa << (23 - f.man_bits)));
      break;
    case FloatSpecials::kFn:
      if (magnitude == sign_bit - 1) return float_from_bits(sign32 | 0x7FC00000u);
      break;
    case FloatSpecials::kFnuz:
      if ((code & (2 * sign_bit - 1)) == sign_bit) return float_from_bits(0xFFC00000u);
      break;
    case FloatSpecials::kNone:
      break;
  }
  const float value = exponent == 0
                          ? std::ldexp(static_cast<float>(mantissa), 1 - f.bias - f.man_bits)
                          : std::ldexp(static_cast<float>(mantissa | (1u << f.man_bits)),
                                       static_cast<int>(exponent) - f.bias - f.man_bits);
  return sign32 ? -value : value;
}

// The code a value too large for the format (or infinite) becomes.
inline uint32_t minifloat_overflow_code(const MiniFloatFormat& f, uint32_t sign, bool saturate) {
  const uint32_t sign_bit = 1u << (f.exp_bits + f.man_bits);
  if (f.specials == FloatSpecials::kNone || (f.saturable && saturate)) return sign | f.max_code;
  switch (f.specials) {
    case FloatSpecials::kIeee:
      return sign | (((1u << f.exp_bits) - 1) << f.man_bits);  // infinity
    case FloatSpecials::kFn:
      return sign | (sign_bit - 1);  // NaN
    default:
      return sign_bit;  // NaN
  }
}

// Rounds x to the nearest code (ties to even) with the overflow rules of minifloat_overflow_code.
// Works on the bits of the double, so a float or double input is rounded once.
inline uint32_t float_to_minifloat(double x, const MiniFloatFormat& f, bool saturate) {
  const uint64_t b = double_bits(x);
  const uint32_t sign_bit = 1u << (f.exp_bits + f.man_bits);
  const uint32_t sign = (b >> 63) ? sign_bit : 0u;
  const int biased = static_cast<int>((b >> 52) & 0x7FF);
  const uint64_t fraction = b & ((uint64_t{1} << 52) - 1);
  if (biased == 0x7FF) {
    if (fraction == 0) return minifloat_overflow_code(f, sign, saturate);
    switch (f.specials) {
      case FloatSpecials::kIeee:  // quiet NaN keeping the top payload bits
        return sign | (((1u << f.exp_bits) - 1) << f.man_bits) | (1u << (f.man_bits - 1)) |
               static_cast<uint32_t>(fraction >> (52 - f.man_bits));
      case FloatSpecials::kFn:
        return sign | (sign_bit - 1);
      default:
        return sign_bit;  // FNUZ NaN; float4e2m1 has none and uses the same code
    }
  }
  const uint32_t zero = f.specials == FloatSpecials::kFnuz ? 0u : sign;
  if (biased == 0 && fraction == 0) return zero;
  const uint64_t significand = biased ? (fraction | (uint64_t{1} << 52)) : fraction;
  const int exponent = (biased ? biased : 1) - 1023;  // weight of significand bit 52
  const int min_exponent = 1 - f.bias;                // smallest normal exponent of the format
  const int step_exponent = exponent > min_exponent ? exponent : min_exponent;
  // The value in units of the format's step at this exponent is significand >> shift.
  const int shift = 52 - f.man_bits + (step_exponent - exponent);
  uint64_t steps = 0;
  if (shift < 64) {  // otherwise below half the smallest step: rounds to zero
    steps = significand >> shift;
    const uint64_t rest = significand & ((uint64_t{1} << shift) - 1);
    const uint64_t half = uint64_t{1} << (shift - 1);
    if (rest > half || (rest == half && (steps & 1))) ++steps;
  }
  // Exponent field and mantissa in one: a carry out of the mantissa bumps the exponent.
  const uint64_t magnitude =
      (static_cast<uint64_t>(step_exponent - min_exponent) << f.man_bits) + steps;
  if (magnitude > f.max_code) return minifloat_overflow_code(f, sign, saturate);
  if (magnitude == 0) return zero;
  return sign | static_cast<uint32_t>(magnitude);
}

// double -> float with IEEE rounding; out-of-range values become infinity without relying on
// the (formally undefined) out-of-range conversion.
inline float narrow_to_float(double x) {
  constexpr double kOverflow = 3.4028235677973366e38;  // FLT_MAX + half an ulp: ties go to infinity
  if (x >= kOverflow) return HUGE_VALF;
  if (x <= -kOverflow) return -HUGE_VALF;
  return static_cast<float>(x);
}

// ---- float8e8m0: an unsigned power of two, 2^(code - 127); 0xFF is NaN ------------------------

enum class E8M0Rounding : uint8_t {
  kUp,       // to the next power of two away from zero
  kDown,     // to the power of two below
  kNearest,  // to the nearest power of two, ties up
};

// Computed from the float32 bits of x (its exponent field is the e8m0 code), as the ONNX reference
// does. The sign is ignored (negative inputs are unspecified). Zero and infinity follow the
// Operators.md table: saturate gives the smallest/largest code, otherwise NaN.
inline uint8_t float_to_e8m0_code(double x, bool saturate, E8M0Rounding rounding) {
  const uint32_t b = float_bits(narrow_to_float(x)) & 0x7FFFFFFFu;
  uint32_t exponent = b >> 23;
  const uint32_t mantissa = b & 0x7FFFFFu;
  if (exponent == 0xFF) return mantissa != 0 || !saturate ? 0xFF : 0xFE;
  if (b == 0) return saturate ? 0x00 : 0xFF;
  bool round_up = false;
  switch (rounding) {
    case E8M0Rounding::kUp:
      round_up = mantissa != 0;
      break;
    case E8M0Rounding::kDown:
      break;
    case E8M0Rounding::kNearest: {
      const bool guard = (mantissa & 0x400000u) != 0, round = (mantissa & 0x200000u) != 0;
      const bool sticky = (mantissa & 0x1FFFFFu) != 0;
      round_up = guard && (round || sticky || exponent > 0);
      break;
    }
  }
  if (round_up && !(saturate && exponent == 0xFE)) ++exponent;  // 0xFE + 1 is NaN
  return static_cast<uint8_t>(exponent);
}

inline float e8m0_code_to_float(uint8_t code) {
  if (code == 0xFF) return float_from_bits(0x7FC00000u);
  if (code == 0) return float_from_bits(0x00400000u);  // 2^-127 is a float subnormal
  return float_from_bits(static_cast<uint32_t>(code) << 23);
}

// ---- Typed scalar conversions (also what the test runner compares through) --------------------

inline float to_float(float16 v) {
  return minifloat_to_float(v.bits, kFloat16Format);
}
inline float to_float(bfloat16 v) {
  return float_from_bits(static_cast<uint32_t>(v.bits) << 16);
}
inline float to_float(float8e4m3fn v) {
  return minifloat_to_float(v.bits, kFloat8E4M3FNFormat);
}
inline float to_float(float8e4m3fnuz v) {
  return minifloat_to_float(v.bits, kFloat8E4M3FNUZFormat);
}
inline float to_float(float8e5m2 v) {
  return minifloat_to_float(v.bits, kFloat8E5M2Format);
}
inline float to_float(float8e5m2fnuz v) {
  return minifloat_to_float(v.bits, kFloat8E5M2FNUZFormat);
}
inline float to_float(float8e8m0 v) {
  return e8m0_code_to_float(v.bits);
}
inline float to_float(float4e2m1 v) {
  return minifloat_to_float(v.bits & 0xFu, kFloat4E2M1Format);
}

inline float16 to_float16(double x) {
  return {static_cast<uint16_t>(float_to_minifloat(x, kFloat16Format, false))};
}
inline bfloat16 to_bfloat16(double x) {
  return {static_cast<uint16_t>(float_to_minifloat(x, kBFloat16Format, false))};
}
inline float8e4m3fn to_float8e4m3fn(double x, bool saturate = true) {
  return {static_cast<uint8_t>(float_to_minifloat(x, kFloat8E4M3FNFormat, saturate))};
}
inline float8e4m3fnuz to_float8e4m3fnuz(double x, bool saturate = true) {
  return {static_cast<uint8_t>(float_to_minifloat(x, kFloat8E4M3FNUZFormat, saturate))};
}
inline float8e5m2 to_float8e5m2(double x, bool saturate = true) {
  return {static_cast<uint8_t>(float_to_minifloat(x, kFloat8E5M2Format, saturate))};
}
inline float8e5m2fnuz to_float8e5m2fnuz(double x, bool saturate = true) {
  return {static_cast<uint8_t>(float_to_minifloat(x, kFloat8E5M2FNUZFormat, saturate))};
}
inline float8e8m0 to_float8e8m0(double x, bool saturate = true,
                                E8M0Rounding rounding = E8M0Rounding::kUp) {
  return {float_to_e8m0_code(x, saturate, rounding)};
}
inline float4e2m1 to_float4e2m1(double x) {
  return {static_cast<uint8_t>(float_to_minifloat(x, kFloat4E2M1Format, false))};
}

// ---- Packed sub-byte types ---------------------------------------------------------------------

template <typename P>
struct PackedTraits {
  static constexpr bool kPacked = false;
};
template <>
struct PackedTraits<int4x2> {
  static constexpr bool kPacked = true;
  static constexpr int kBits = 4;
  using value_type = int8_t;
  static value_type from_code(unsigned c) {
    return static_cast<int8_t>(static_cast<int>(c ^ 0x8u) - 8);
  }
  static unsigned to_code(value_type v) { return static_cast<uint8_t>(v) & 0xFu; }
};
template <>
struct PackedTraits<uint4x2> {
  static constexpr bool kPacked = true;
  static constexpr int kBits = 4;
  using value_type = uint8_t;
  static value_type from_code(unsigned c) { return static_cast<uint8_t>(c); }
  static unsigned to_code(value_type v) { return v & 0xFu; }
};
template <>
struct PackedTraits<int2x4> {
  static constexpr bool kPacked = true;
  static constexpr int kBits = 2;
  using value_type = int8_t;
  static value_type from_code(unsigned c) {
    return static_cast<int8_t>(static_cast<int>(c ^ 0x2u) - 2);
  }
  static unsigned to_code(value_type v) { return static_cast<uint8_t>(v) & 0x3u; }
};
template <>
struct PackedTraits<uint2x4> {
  static constexpr bool kPacked = true;
  static constexpr int kBits = 2;
  using value_type = uint8_t;
  static value_type from_code(unsigned c) { return static_cast<uint8_t>(c); }
  static unsigned to_code(value_type v) { return v & 0x3u; }
};
template <>
struct PackedTraits<float4e2m1x2> {
  static constexpr bool kPacked = true;
  static constexpr int kBits = 4;
  using value_type = float4e2m1;
  static value_type from_code(unsigned c) { return {static_cast<uint8_t>(c)}; }
  static unsigned to_code(value_type v) { return v.bits & 0xFu; }
};

template <typename P>
inline constexpr bool kIsPacked = PackedTraits<P>::kPacked;

// The value type of one element: T itself, or the unpacked type of a packed T.
template <typename T, bool = kIsPacked<T>>
struct ElementValue {
  using type = T;
};
template <typename T>
struct ElementValue<T, true> {
  using type = typename PackedTraits<T>::value_type;
};
template <typename T>
using element_value_t = typename ElementValue<T>::type;

// The raw code of element i of a packed array.
template <typename P>
inline unsigned packed_code_at(const P* p, index_t i) {
  constexpr int kBits = PackedTraits<P>::kBits, kPerByte = 8 / kBits;
  return (p[i / kPerByte].bits >> ((i % kPerByte) * kBits)) & ((1u << kBits) - 1);
}

// Element i of an array of T (plain or packed), as its value type.
template <typename T>
inline element_value_t<T> element_at(const T* p, index_t i) {
  if constexpr (kIsPacked<T>)
    return PackedTraits<T>::from_code(packed_code_at(p, i));
  else
    return p[i];
}

// Fills n elements with one value (ConstantOfShape); T is any unpacked storage type.
template <typename T>
inline void fill_value_ref(T* y, index_t n, T value) {
  for (index_t i = 0; i < n; ++i) y[i] = value;
}

// Fills n packed elements with one code; the unused bits of the last byte are zero, as ONNX
// writes them.
template <typename P>
inline void fill_packed_ref(P* y, index_t n, unsigned code) {
  constexpr int kBits = PackedTraits<P>::kBits, kPerByte = 8 / kBits;
  unsigned full = 0;
  for (int k = 0; k < kPerByte; ++k) full |= code << (k * kBits);
  for (index_t b = 0; b < n / kPerByte; ++b) y[b].bits = static_cast<uint8_t>(full);
  if (const index_t rest = n % kPerByte)
    y[n / kPerByte].bits = static_cast<uint8_t>(full & ((1u << (rest * kBits)) - 1));
}

// ---- Generic value conversion -----------------------------------------------------------------

template <typename T>
inline constexpr bool kIsSmallFloat =
    std::is_same_v<T, float16> || std::is_same_v<T, bfloat16> || std::is_same_v<T, float8e4m3fn> ||
    std::is_same_v<T, float8e4m3fnuz> || std::is_same_v<T, float8e5m2> ||
    std::is_same_v<T, float8e5m2fnuz> || std::is_same_v<T, float8e8m0> ||
    std::is_same_v<T, float4e2m1>;

// Cast's attributes that shape float8 results.
struct CastParams {
  bool saturate;            // float8 targets: clamp out-of-range values (default true)
  E8M0Rounding round_mode;  // float8e8m0 targets
};

// The low 64 bits of trunc(x) in two's complement (NaN -> 0, beyond +-2^63 / 2^64 saturated), so
// narrowing to any integer type wraps like a C cast through int64 does on common hardware.
inline uint64_t truncate_to_bits(double x) {
  if (!(x == x)) return 0;
  if (x >= 18446744073709551616.0) return ~uint64_t{0};
  if (x >= 9223372036854775808.0) return static_cast<uint64_t>(x);
  if (x < -9223372036854775808.0) return uint64_t{1} << 63;
  return static_cast<uint64_t>(static_cast<int64_t>(x));
}

// Keeps the low bits of v (two's complement) as To.
template <typename To>
inline To wrap_integer(uint64_t v) {
  using U = std::make_unsigned_t<To>;
  return static_cast<To>(static_cast<U>(v));
}

template <typename To>
inline To convert_from_double(double x, const CastParams& p) {
  (void)p;  // only the float8 branches read it
  if constexpr (std::is_same_v<To, bool>)
    return x != 0;  // NaN is true
  else if constexpr (std::is_integral_v<To>)
    return wrap_integer<To>(truncate_to_bits(x));
  else if constexpr (std::is_same_v<To, float>)
    return narrow_to_float(x);
  else if constexpr (std::is_same_v<To, double>)
    return x;
  else if constexpr (std::is_same_v<To, float16>)
    return to_float16(x);
  else if constexpr (std::is_same_v<To, bfloat16>)
    return to_bfloat16(x);
  else if constexpr (std::is_same_v<To, float8e4m3fn>)
    return to_float8e4m3fn(x, p.saturate);
  else if constexpr (std::is_same_v<To, float8e4m3fnuz>)
    return to_float8e4m3fnuz(x, p.saturate);
  else if constexpr (std::is_same_v<To, float8e5m2>)
    return to_float8e5m2(x, p.saturate);
  else if constexpr (std::is_same_v<To, float8e5m2fnuz>)
    return to_float8e5m2fnuz(x, p.saturate);
  else if constexpr (std::is_same_v<To, float8e8m0>)
    return to_float8e8m0(x, p.saturate, p.round_mode);
  else if constexpr (std::is_same_v<To, float4e2m1>)
    return to_float4e2m1(x);
  else
    static_assert(sizeof(To) == 0, "no conversion to this type");
}

// From an integer: `negative` tells whether the two's complement bits `v` hold a negative value.
template <typename To>
inline To convert_from_integer(uint64_t v, bool negative, const CastParams& p) {
  (void)p;
  (void)negative;
  if constexpr (std::is_same_v<To, bool>)
    return v != 0;
  else if constexpr (std::is_integral_v<To>)
    return wrap_integer<To>(v);
  else if constexpr (std::is_same_v<To, float>)
    return negative ? static_cast<float>(static_cast<int64_t>(v)) : static_cast<float>(v);
  else if constexpr (std::is_same_v<To, double>)
    return negative ? static_cast<double>(static_cast<int64_t>(v)) : static_cast<double>(v);
  else  // small floats: exact below 2^53, where every format has long overflowed or saturated
    return convert_from_double<To>(
        negative ? static_cast<double>(static_cast<int64_t>(v)) : static_cast<double>(v), p);
}

// A value of any element value type as double (exact for every type but 64-bit integers).
template <typename From>
inline double value_as_double(From v) {
  if constexpr (kIsSmallFloat<From>)
    return static_cast<double>(to_float(v));
  else
    return static_cast<double>(v);
}

// Converts one element value, by the rules at the top of this file.
template <typename To, typename From>
inline To convert_value(From v, const CastParams& p) {
  if constexpr (std::is_same_v<To, From>) {
    (void)p;
    return v;
  } else if constexpr (std::is_same_v<From, bool>) {
    return convert_from_integer<To>(v ? 1u : 0u, false, p);
  } else if constexpr (std::is_signed_v<From> && std::is_integral_v<From>) {
    return convert_from_integer<To>(static_cast<uint64_t>(v), v < 0, p);
  } else if constexpr (std::is_integral_v<From>) {
    return convert_from_integer<To>(static_cast<uint64_t>(v), false, p);
  } else {
    return convert_from_double<To>(value_as_double(v), p);
  }
}

// Element i of any tensor element array as double; what `onnxc test` compares small floats by.
template <typename T>
inline double element_as_double(const T* p, index_t i) {
  return value_as_double(element_at(p, i));
}

}  // namespace onnxc

#endif  // ONNXC_CONVERT_H
