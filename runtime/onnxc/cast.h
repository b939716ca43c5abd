// Cast kernels: convert every element of x to the element type of y by the rules of
// onnxc/convert.h (round to nearest even, float8 saturation, integer wrap-around, packing).
#ifndef ONNXC_CAST_H
#define ONNXC_CAST_H

#include <cstdint>

#include "onnxc/base.h"
#include "onnxc/convert.h"

namespace onnxc {

// Any pair of element types; n counts elements (not bytes) for packed types too.
template <typename From, typename To>
inline void cast_ref(const From* x, To* y, index_t n, const CastParams& p) {
  using Value = element_value_t<To>;
  if constexpr (!kIsPacked<To>) {
    for (index_t i = 0; i < n; ++i) y[i] = convert_value<Value>(element_at(x, i), p);
  } else {
    // Whole output bytes at a time, so the padding bits of the last byte come out zero.
    using Traits = PackedTraits<To>;
    constexpr int kPerByte = 8 / Traits::kBits;
    for (index_t b = 0; b * kPerByte < n; ++b) {
      unsigned byte = 0;
      for (int k = 0; k < kPerByte && b * kPerByte + k < n; ++k)
        byte |= Traits::to_code(convert_value<Value>(element_at(x, b * kPerByte + k), p))
                << (k * Traits::kBits);
      y[b].bits = static_cast<uint8_t>(byte);
    }
  }
}

// float -> float16 on the float bits: round to nearest even, overflow to infinity, NaN kept quiet
// with its top payload bits. Same results as cast_ref<float, float16>.
inline void f32_f16_cast__scalar(const float* x, float16* y, index_t n, const CastParams& /*p*/) {
  for (index_t i = 0; i < n; ++i) {
    const uint32_t b = float_bits(x[i]);
    const uint32_t sign = (b >> 16) & 0x8000u;
    const uint32_t magnitude = b & 0x7FFFFFFFu;
    uint32_t h;
    if (magnitude > 0x7F800000u) {
      h = 0x7E00u | ((magnitude >> 13) & 0x3FFu);  // NaN
    } else if (magnitude >= 0x477FF000u) {
      h = 0x7C00u;  // rounds past 65504 (or is infinite)
    } else if (magnitude >= 0x38800000u) {
      // Normal half: rebias the exponent (127 -> 15) and round the 13 dropped bits.
      const uint32_t rebased = magnitude - 0x38000000u;
      h = (rebased + 0xFFFu + ((rebased >> 13) & 1u)) >> 13;
    } else if (magnitude > 0x33000000u) {
      // Subnormal half: shift the significand (implicit bit included) into units of 2^-24.
      const uint32_t exponent = magnitude >> 23;
      const uint32_t significand = (magnitude & 0x7FFFFFu) | 0x800000u;
      const uint32_t shift = 126u - exponent;  // 14..24
      const uint32_t rest = significand & ((1u << shift) - 1), half = 1u << (shift - 1);
      h = significand >> shift;
      if (rest > half || (rest == half && (h & 1u))) ++h;
    } else {
      h = 0;  // at most half of 2^-24 (ties to the even zero)
    }
    y[i].bits = static_cast<uint16_t>(sign | h);
  }
}

// float16 -> float on the bits (exact). Same results as cast_ref<float16, float>.
inline void f16_f32_cast__scalar(const float16* x, float* y, index_t n, const CastParams& /*p*/) {
  for (index_t i = 0; i < n; ++i) {
    const uint32_t h = x[i].bits;
    const uint32_t sign = (h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1Fu, mantissa = h & 0x3FFu;
    uint32_t b;
    if (exponent == 0x1F) {
      b = 0x7F800000u | (mantissa << 13);
    } else if (exponent != 0) {
      b = ((exponent + 112u) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
      b = 0;
    } else {
      // Subnormal: normalize the mantissa into a float exponent.
      uint32_t m = mantissa;
      uint32_t e = 113;
      while ((m & 0x400u) == 0) {
        m <<= 1;
        --e;
      }
      b = (e << 23) | ((m & 0x3FFu) << 13);
    }
    y[i] = float_from_bits(sign | b);
  }
}

// float -> bfloat16: round the low 16 bits to nearest even; NaN stays a quiet NaN.
inline void f32_bf16_cast__scalar(const float* x, bfloat16* y, index_t n, const CastParams& /*p*/) {
  for (index_t i = 0; i < n; ++i) {
    const uint32_t b = float_bits(x[i]);
    if ((b & 0x7FFFFFFFu) > 0x7F800000u)
      y[i].bits = static_cast<uint16_t>((b >> 16) | 0x40u);
    else
      y[i].bits = static_cast<uint16_t>((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16);
  }
}

// bfloat16 -> float: the bits are the top half of the float.
inline void bf16_f32_cast__scalar(const bfloat16* x, float* y, index_t n, const CastParams& /*p*/) {
  for (index_t i = 0; i < n; ++i) y[i] = float_from_bits(static_cast<uint32_t>(x[i].bits) << 16);
}

}  // namespace onnxc

#endif  // ONNXC_CAST_H
