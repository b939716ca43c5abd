// Element storage types of the generated API for formats C++ has no type for. Each is a plain
// struct of its raw bits, so the API stays ABI-stable; conversions live in onnxc/convert.h.
// Sub-byte formats are packed: one byte holds two 4-bit or four 2-bit elements, low bits first.
#ifndef ONNXC_TYPES_H
#define ONNXC_TYPES_H

#include <cstddef>
#include <cstdint>

namespace onnxc {

struct float16 {
  uint16_t bits;
};
struct bfloat16 {
  uint16_t bits;
};
struct float8e4m3fn {
  uint8_t bits;
};
struct float8e4m3fnuz {
  uint8_t bits;
};
struct float8e5m2 {
  uint8_t bits;
};
struct float8e5m2fnuz {
  uint8_t bits;
};
struct float8e8m0 {
  uint8_t bits;
};
struct uint4x2 {
  uint8_t bits;
};
struct int4x2 {
  uint8_t bits;
};
struct float4e2m1x2 {
  uint8_t bits;
};
struct uint2x4 {
  uint8_t bits;
};
struct int2x4 {
  uint8_t bits;
};
struct complex64 {
  float re, im;
};
struct complex128 {
  double re, im;
};

}  // namespace onnxc

#endif  // ONNXC_TYPES_H
