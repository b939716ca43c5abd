// Packed sub-byte types (int4, uint4, int2, uint2, float4e2m1): one byte holds two 4-bit or four
// 2-bit elements, low bits first, so element i of an int4 tensor is the low nibble of byte i / 2
// when i is even. Their unpacked value types are int8_t (int4, int2), uint8_t (uint4, uint2) and
// onnxc::float4e2m1 (one code in the low bits of a byte).
#ifndef ONNXC_PACKED_H
#define ONNXC_PACKED_H

#include <cstdint>

#include "onnxc/base.h"
#include "onnxc/float8.h"

namespace onnxc {

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

}  // namespace onnxc

#endif  // ONNXC_PACKED_H
