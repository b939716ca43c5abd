// The float8 formats (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz), float8e8m0 (a bare power-of-two
// exponent) and float4e2m1, to and from float, by the rules of the ONNX Cast operator (see
// onnxc/convert.h): round to nearest even; out-of-range values saturate when `saturate` is set,
// else become infinity or NaN; float8e8m0 rounds `up`, `down` or to `nearest`.
#ifndef ONNXC_FLOAT8_H
#define ONNXC_FLOAT8_H

#include <cstdint>

#include "onnxc/base.h"
#include "onnxc/half.h"

namespace onnxc {

// One unpacked float4e2m1 element (the code in the low 4 bits); tensors store float4e2m1x2.
struct float4e2m1 {
  uint8_t bits;
};

constexpr MiniFloatFormat kFloat8E4M3FNFormat = {4, 3, 7, FloatSpecials::kFn, true, 0x7E};
constexpr MiniFloatFormat kFloat8E4M3FNUZFormat = {4, 3, 8, FloatSpecials::kFnuz, true, 0x7F};
constexpr MiniFloatFormat kFloat8E5M2Format = {5, 2, 15, FloatSpecials::kIeee, true, 0x7B};
constexpr MiniFloatFormat kFloat8E5M2FNUZFormat = {5, 2, 16, FloatSpecials::kFnuz, true, 0x7F};
constexpr MiniFloatFormat kFloat4E2M1Format = {2, 1, 1, FloatSpecials::kNone, false, 0x7};

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
// ---- Typed scalar conversions ------------------------------------------------------------------

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

}  // namespace onnxc

#endif  // ONNXC_FLOAT8_H
