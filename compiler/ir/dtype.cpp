#include "ir/dtype.h"

#include <limits>
#include <optional>

#include "base/checked_math.h"

namespace onnxc {
namespace {

// Indexed by the DataType value; ids are dense, so row i of ONNXC_DTYPES is type i + 1.
constexpr DataTypeInfo kInfo[] = {{"undefined", "void", 0, false, false, 1},
#define ONNXC_DTYPE_INFO(E, id, name, cpp, T, bits, is_float, is_signed, since) \
  {name, cpp, bits, is_float, is_signed, since},
                                  ONNXC_DTYPES(ONNXC_DTYPE_INFO)
#undef ONNXC_DTYPE_INFO
};
constexpr int kIds[] = {
#define ONNXC_DTYPE_ID(E, id, ...) id,
    ONNXC_DTYPES(ONNXC_DTYPE_ID)
#undef ONNXC_DTYPE_ID
};
constexpr bool rows_in_id_order() {
  for (size_t i = 0; i < sizeof(kIds) / sizeof(kIds[0]); ++i)
    if (kIds[i] != static_cast<int>(i) + 1) return false;
  return true;
}
static_assert(rows_in_id_order(), "ONNXC_DTYPES rows must be listed in id order");
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

size_t string_bytes(int64_t count, int64_t slot) {
  std::optional<int64_t> numel = checked_mul(count, slot);
  std::optional<int64_t> bytes = numel ? checked_bytes(*numel, 8) : numel;
  return bytes ? static_cast<size_t>(*bytes) : std::numeric_limits<size_t>::max();
}

}  // namespace onnxc
