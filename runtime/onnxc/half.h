// float16 and bfloat16 <-> float/double, and the machinery every small IEEE-like float format
// shares: a format description, decoding any code exactly to float, and encoding a double with one
// round-to-nearest-even (overflow rules per format). float8 and float4 formats are in
// onnxc/float8.h; the Cast rules for every type pair are in onnxc/convert.h.
#ifndef ONNXC_HALF_H
#define ONNXC_HALF_H

#include <cmath>
#include <cstdint>
#include <cstring>

#include "onnxc/base.h"

namespace onnxc {

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

// ---- Typed scalar conversions -------------------------------------------------------------------

inline float to_float(float16 v) {
  return minifloat_to_float(v.bits, kFloat16Format);
}
inline float to_float(bfloat16 v) {
  return float_from_bits(static_cast<uint32_t>(v.bits) << 16);
}

inline float16 to_float16(double x) {
  return {static_cast<uint16_t>(float_to_minifloat(x, kFloat16Format, false))};
}
inline bfloat16 to_bfloat16(double x) {
  return {static_cast<uint16_t>(float_to_minifloat(x, kBFloat16Format, false))};
}

}  // namespace onnxc

#endif  // ONNXC_HALF_H
