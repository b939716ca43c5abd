#include "ir/dtype.h"

#include <limits>
#include <optional>

#include "support/checked_math.h"

namespace onnxc {
namespace {

// Indexed by the DataType value.
constexpr DataTypeInfo kInfo[] = {
    {"undefined", "void", 0, false, false},
    {"float", "float", 32, true, true},
    {"uint8", "uint8_t", 8, false, false},
    {"int8", "int8_t", 8, false, true},
    {"uint16", "uint16_t", 16, false, false},
    {"int16", "int16_t", 16, false, true},
    {"int32", "int32_t", 32, false, true},
    {"int64", "int64_t", 64, false, true},
    {"string", "const char*", 0, false, false},
    {"bool", "bool", 8, false, false},
    {"float16", "onnxc::float16", 16, true, true},
    {"double", "double", 64, true, true},
    {"uint32", "uint32_t", 32, false, false},
    {"uint64", "uint64_t", 64, false, false},
    {"complex64", "onnxc::complex64", 64, true, true},
    {"complex128", "onnxc::complex128", 128, true, true},
    {"bfloat16", "onnxc::bfloat16", 16, true, true},
    {"float8e4m3fn", "onnxc::float8e4m3fn", 8, true, true},
    {"float8e4m3fnuz", "onnxc::float8e4m3fnuz", 8, true, true},
    {"float8e5m2", "onnxc::float8e5m2", 8, true, true},
    {"float8e5m2fnuz", "onnxc::float8e5m2fnuz", 8, true, true},
    {"uint4", "onnxc::uint4x2", 4, false, false},
    {"int4", "onnxc::int4x2", 4, false, true},
    {"float4e2m1", "onnxc::float4e2m1x2", 4, true, true},
    {"float8e8m0", "onnxc::float8e8m0", 8, true, false},
    {"uint2", "onnxc::uint2x4", 2, false, false},
    {"int2", "onnxc::int2x4", 2, false, true},
};
static_assert(sizeof(kInfo) / sizeof(kInfo[0]) == kMaxDataType + 1);

}  // namespace

bool is_valid_dtype(int raw) {
  return raw > 0 && raw <= kMaxDataType;
}

const DataTypeInfo& dtype_info(DataType t) {
  int i = static_cast<int>(t);
  return kInfo[(i >= 0 && i <= kMaxDataType) ? i : 0];
}

size_t dtype_bytes(DataType t, int64_t count) {
  // Saturates instead of wrapping on a negative or overflowing count (see checked_math.h).
  int64_t bits = t == DataType::kString ? int64_t{8 * sizeof(const char*)} : dtype_info(t).bits;
  std::optional<int64_t> bytes = checked_bytes(count, bits);
  return bytes ? static_cast<size_t>(*bytes) : std::numeric_limits<size_t>::max();
}

}  // namespace onnxc
