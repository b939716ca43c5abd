// Element types of tensors, numbered as TensorProto.DataType so the importer can map them 1:1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace onnxc {

enum class DataType : int {
  kUndefined = 0,
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUint32 = 12,
  kUint64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUint4 = 21,
  kInt4 = 22,
  kFloat4E2M1 = 23,
  kFloat8E8M0 = 24,
  kUint2 = 25,
  kInt2 = 26,
};
constexpr int kMaxDataType = 26;

struct DataTypeInfo {
  const char* name;      // ONNX spelling: "float", "int64", "float8e4m3fn"
  const char* cpp_type;  // storage type in generated code and runtime_support
  int bits;              // bits per element; sub-byte types are packed, low nibble first
  bool is_float;         // floating point (including the 8- and 4-bit formats)
  bool is_signed;        // signed integer (floats are also reported signed)
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

}  // namespace onnxc
