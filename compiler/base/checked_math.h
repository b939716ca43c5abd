// Overflow-checked size arithmetic. Every element count, byte size, stride and arena offset the
// compiler derives from a model goes through these, since a hostile model picks its dims freely:
// 2^31 x 2^31 x 2^31 wraps an int64 product, 2^62 x 4 wraps it to 0. Each function returns false
// (or an empty optional) on overflow or on a negative operand where sizes must be non-negative,
// and leaves `out` unspecified then. It does NOT decide what is too large: see kMaxTensorBytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace onnxc {

// The largest tensor (in bytes) the compiler accepts for any value, constant or not: 1 TiB. A
// larger tensor cannot be allocated by the generated code on any machine it targets, and its
// offsets would come close to overflowing the arithmetic of strides and arena offsets.
constexpr int64_t kMaxTensorBytes = int64_t{1} << 40;

inline bool checked_mul(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}
inline bool checked_add(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}
inline bool checked_sub(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_sub_overflow(a, b, out);
}
inline bool checked_mul(size_t a, size_t b, size_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}
inline bool checked_add(size_t a, size_t b, size_t* out) {
  return !__builtin_add_overflow(a, b, out);
}

inline std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (!checked_mul(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (!checked_add(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<size_t> checked_mul(size_t a, size_t b) {
  size_t r;
  if (!checked_mul(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<size_t> checked_add(size_t a, size_t b) {
  size_t r;
  if (!checked_add(a, b, &r)) return std::nullopt;
  return r;
}

// Product of non-negative dims; nullopt if a dim is negative or the product overflows int64.
// A zero dim makes the product 0 even when the other dims together would overflow.
inline std::optional<int64_t> checked_numel(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  bool zero = false;
  for (int64_t d : dims) {
    if (d < 0) return std::nullopt;
    if (d == 0) zero = true;
  }
  if (zero) return 0;
  for (int64_t d : dims)
    if (!checked_mul(n, d, &n)) return std::nullopt;
  return n;
}

// Bytes of `count` elements of `bits` bits each, rounded up to whole bytes (sub-byte types are
// packed); nullopt if count is negative or the result overflows int64.
inline std::optional<int64_t> checked_bytes(int64_t count, int64_t bits) {
  int64_t b;
  if (count < 0 || bits < 0 || !checked_mul(count, bits, &b) || !checked_add(b, int64_t{7}, &b))
    return std::nullopt;
  return b / 8;
}

// Row-major strides of `dims` (in elements); false if any partial product overflows int64.
inline bool checked_strides(const std::vector<int64_t>& dims, std::vector<int64_t>* strides) {
  strides->assign(dims.size(), 1);
  int64_t s = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    (*strides)[i] = s;
    if (dims[i] < 0 || !checked_mul(s, dims[i], &s)) return false;
  }
  return true;
}

}  // namespace onnxc
