// Element types of tensors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace onnxc {

// The element types, one row each, numbered as TensorProto.DataType so the importer maps them 1:1.
// Every per-type table in the compiler (names, C++ spellings, sizes, type sets, visitors, the
// opset a type first appears in) is generated from this one list.
//   X(Enum, id, name, cpp_spelling, CppType, bits, is_float, is_signed, since)
//   cpp_spelling: the storage type in generated code and runtime (onnxc/types.h)
//   CppType:      the same type as a token, for visitors compiled against runtime
//   bits:         bits per element; sub-byte types are packed, low bits first
//   since:        the first ai.onnx opset whose standard type lists include the type (ops with a
//                 later first version for a type say so themselves)
#define ONNXC_DTYPES(X)                                                                           \
  X(Float, 1, "float", "float", float, 32, true, true, 1)                                         \
  X(Uint8, 2, "uint8", "uint8_t", uint8_t, 8, false, false, 1)                                    \
  X(Int8, 3, "int8", "int8_t", int8_t, 8, false, true, 1)                                         \
  X(Uint16, 4, "uint16", "uint16_t", uint16_t, 16, false, false, 1)                               \
  X(Int16, 5, "int16", "int16_t", int16_t, 16, false, true, 1)                                    \
  X(Int32, 6, "int32", "int32_t", int32_t, 32, false, true, 1)                                    \
  X(Int64, 7, "int64", "int64_t", int64_t, 64, false, true, 1)                                    \
  X(String, 8, "string", "char", cstring, 0, false, false, 1)                                     \
  X(Bool, 9, "bool", "bool", bool, 8, false, false, 1)                                            \
  X(Float16, 10, "float16", "onnxc::float16", float16, 16, true, true, 1)                         \
  X(Double, 11, "double", "double", double, 64, true, true, 1)                                    \
  X(Uint32, 12, "uint32", "uint32_t", uint32_t, 32, false, false, 1)                              \
  X(Uint64, 13, "uint64", "uint64_t", uint64_t, 64, false, false, 1)                              \
  X(Complex64, 14, "complex64", "onnxc::complex64", complex64, 64, true, true, 1)                 \
  X(Complex128, 15, "complex128", "onnxc::complex128", complex128, 128, true, true, 1)            \
  X(BFloat16, 16, "bfloat16", "onnxc::bfloat16", bfloat16, 16, true, true, 13)                    \
  X(Float8E4M3FN, 17, "float8e4m3fn", "onnxc::float8e4m3fn", float8e4m3fn, 8, true, true, 19)     \
  X(Float8E4M3FNUZ, 18, "float8e4m3fnuz", "onnxc::float8e4m3fnuz", float8e4m3fnuz, 8, true, true, \
    19)                                                                                           \
  X(Float8E5M2, 19, "float8e5m2", "onnxc::float8e5m2", float8e5m2, 8, true, true, 19)             \
  X(Float8E5M2FNUZ, 20, "float8e5m2fnuz", "onnxc::float8e5m2fnuz", float8e5m2fnuz, 8, true, true, \
    19)                                                                                           \
  X(Uint4, 21, "uint4", "onnxc::uint4x2", uint4x2, 4, false, false, 21)                           \
  X(Int4, 22, "int4", "onnxc::int4x2", int4x2, 4, false, true, 21)                                \
  X(Float4E2M1, 23, "float4e2m1", "onnxc::float4e2m1x2", float4e2m1x2, 4, true, true, 23)         \
  X(Float8E8M0, 24, "float8e8m0", "onnxc::float8e8m0", float8e8m0, 8, true, false, 24)            \
  X(Uint2, 25, "uint2", "onnxc::uint2x4", uint2x4, 2, false, false, 25)                           \
  X(Int2, 26, "int2", "onnxc::int2x4", int2x4, 2, false, true, 25)

enum class DataType : int {
  kUndefined = 0,
#define ONNXC_DTYPE_ENUM(E, id, ...) k##E = id,
  ONNXC_DTYPES(ONNXC_DTYPE_ENUM)
#undef ONNXC_DTYPE_ENUM
};
constexpr int kMaxDataType = 26;

struct DataTypeInfo {
  const char* name;      // ONNX spelling: "float", "int64", "float8e4m3fn"
  const char* cpp_type;  // storage type in generated code and runtime
  int bits;              // bits per element; sub-byte types are packed, low nibble first
  bool is_float;         // floating point (including the 8- and 4-bit formats)
  bool is_signed;        // signed integer (floats are also reported signed)
  int since;             // first ai.onnx opset whose standard type lists include it
};

bool is_valid_dtype(int raw);
const DataTypeInfo& dtype_info(DataType t);
inline const char* dtype_name(DataType t) {
  return dtype_info(t).name;
}
inline const char* dtype_cpp(DataType t) {
  return dtype_info(t).cpp_type;
}
inline bool is_float(DataType t) {
  return dtype_info(t).is_float;
}
inline bool is_integer(DataType t) {
  return !is_float(t) && t != DataType::kBool && t != DataType::kString &&
         t != DataType::kUndefined;
}
// Bytes needed to store `count` elements (sub-byte types round up).
size_t dtype_bytes(DataType t, int64_t count);
// Bytes of `count` string slots of `slot` bytes each (saturates like dtype_bytes).
size_t string_bytes(int64_t count, int64_t slot);

}  // namespace onnxc
