// Element conversions between every tensor element type: the IEEE-like small floats (float16,
// bfloat16, the four float8 flavours, float4e2m1), float8e8m0, the packed sub-byte integers and the
// plain C++ types. Rules follow the ONNX Cast operator:
//   - to a small float: round to nearest even; out-of-range values give infinity (float16,
//     bfloat16), the largest finite value (float8 with `saturate`, float4e2m1) or infinity/NaN
//     (float8 without `saturate`); the FNUZ formats have no negative zero;
//   - to an integer: truncate toward zero, then keep the low bits (two's complement wrap-around,
//     so float 200 -> int8 -56 and float -9 -> int4 7); NaN gives 0;
//   - to bool: nonzero (NaN included) is true;
//   - float8e8m0 (a bare power-of-two exponent) rounds `up`, `down` or to `nearest`.
// Sub-byte types are packed little-end first: element i of an int4 tensor is the low nibble of
// byte i / 2 when i is even. Their unpacked value types are int8_t (int4, int2), uint8_t (uint4,
// uint2) and onnxc::float4e2m1 (one code in the low bits of a byte).
#ifndef ONNXC_CONVERT_H
#define ONNXC_CONVERT_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>  // generated fills of NaN or infinity spell std::numeric_limits
#include <type_traits>

#include "onnxc/base.h"
#include "onnxc/float8.h"
#include "onnxc/half.h"
#include "onnxc/packed.h"

namespace onnxc {

// Fills n elements with one value (ConstantOfShape); T is any unpacked storage type.
template <typename T>
inline void fill_value_ref(T* y, index_t n, T value) {
  for (index_t i = 0; i < n; ++i) y[i] = value;
}

// The dense tensor of n elements with values[k] at linear index indices[k] (ascending, < n) and
// zeros elsewhere: a sparse constant kept in COO form (onnxc --keep-sparse).
template <typename T, typename I>
inline void sparse_to_dense_ref(T* y, index_t n, const T* values, const I* indices, index_t nnz) {
  for (index_t i = 0; i < n; ++i) y[i] = T{};
  for (index_t k = 0; k < nnz; ++k) y[static_cast<index_t>(indices[k])] = values[k];
}

// ---- Generic value conversion -----------------------------------------------------------------

template <typename T>
inline constexpr bool kIsSmallFloat =
    std::is_same_v<T, float16> || std::is_same_v<T, bfloat16> || std::is_same_v<T, float8e4m3fn> ||
    std::is_same_v<T, float8e4m3fnuz> || std::is_same_v<T, float8e5m2> ||
    std::is_same_v<T, float8e5m2fnuz> || std::is_same_v<T, float8e8m0> ||
    std::is_same_v<T, float4e2m1>;

// Cast's attributes that shape float8 results.
struct CastParams {
  bool saturate;            // float8 targets: clamp out-of-range values (default true)
  E8M0Rounding round_mode;  // float8e8m0 targets
};

// The low 64 bits of trunc(x) in two's complement (NaN -> 0, beyond +-2^63 / 2^64 saturated), so
// narrowing to any integer type wraps like a C cast through int64 does on common hardware.
inline uint64_t truncate_to_bits(double x) {
  if (!(x == x)) return 0;
  if (x >= 18446744073709551616.0) return ~uint64_t{0};
  if (x >= 9223372036854775808.0) return static_cast<uint64_t>(x);
  if (x < -9223372036854775808.0) return uint64_t{1} << 63;
  return static_cast<uint64_t>(static_cast<int64_t>(x));
}

// Keeps the low bits of v (two's complement) as To.
template <typename To>
inline To wrap_integer(uint64_t v) {
  using U = std::make_unsigned_t<To>;
  return static_cast<To>(static_cast<U>(v));
}

template <typename To>
inline To convert_from_double(double x, const CastParams& p) {
  (void)p;  // only the float8 branches read it
  if constexpr (std::is_same_v<To, bool>)
    return x != 0;  // NaN is true
  else if constexpr (std::is_integral_v<To>)
    return wrap_integer<To>(truncate_to_bits(x));
  else if constexpr (std::is_same_v<To, float>)
    return narrow_to_float(x);
  else if constexpr (std::is_same_v<To, double>)
    return x;
  else if constexpr (std::is_same_v<To, float16>)
    return to_float16(x);
  else if constexpr (std::is_same_v<To, bfloat16>)
    return to_bfloat16(x);
  else if constexpr (std::is_same_v<To, float8e4m3fn>)
    return to_float8e4m3fn(x, p.saturate);
  else if constexpr (std::is_same_v<To, float8e4m3fnuz>)
    return to_float8e4m3fnuz(x, p.saturate);
  else if constexpr (std::is_same_v<To, float8e5m2>)
    return to_float8e5m2(x, p.saturate);
  else if constexpr (std::is_same_v<To, float8e5m2fnuz>)
    return to_float8e5m2fnuz(x, p.saturate);
  else if constexpr (std::is_same_v<To, float8e8m0>)
    return to_float8e8m0(x, p.saturate, p.round_mode);
  else if constexpr (std::is_same_v<To, float4e2m1>)
    return to_float4e2m1(x);
  else
    static_assert(sizeof(To) == 0, "no conversion to this type");
}

// From an integer: `negative` tells whether the two's complement bits `v` hold a negative value.
template <typename To>
inline To convert_from_integer(uint64_t v, bool negative, const CastParams& p) {
  (void)p;
  (void)negative;
  if constexpr (std::is_same_v<To, bool>)
    return v != 0;
  else if constexpr (std::is_integral_v<To>)
    return wrap_integer<To>(v);
  else if constexpr (std::is_same_v<To, float>)
    return negative ? static_cast<float>(static_cast<int64_t>(v)) : static_cast<float>(v);
  else if constexpr (std::is_same_v<To, double>)
    return negative ? static_cast<double>(static_cast<int64_t>(v)) : static_cast<double>(v);
  else  // small floats: exact below 2^53, where every format has long overflowed or saturated
    return convert_from_double<To>(
        negative ? static_cast<double>(static_cast<int64_t>(v)) : static_cast<double>(v), p);
}

// A value of any element value type as double (exact for every type but 64-bit integers).
template <typename From>
inline double value_as_double(From v) {
  if constexpr (kIsSmallFloat<From>)
    return static_cast<double>(to_float(v));
  else
    return static_cast<double>(v);
}

// Converts one element value, by the rules at the top of this file.
template <typename To, typename From>
inline To convert_value(From v, const CastParams& p) {
  if constexpr (std::is_same_v<To, From>) {
    (void)p;
    return v;
  } else if constexpr (std::is_same_v<From, bool>) {
    return convert_from_integer<To>(v ? 1u : 0u, false, p);
  } else if constexpr (std::is_signed_v<From> && std::is_integral_v<From>) {
    return convert_from_integer<To>(static_cast<uint64_t>(v), v < 0, p);
  } else if constexpr (std::is_integral_v<From>) {
    return convert_from_integer<To>(static_cast<uint64_t>(v), false, p);
  } else {
    return convert_from_double<To>(value_as_double(v), p);
  }
}

// Element i of any tensor element array as double; what `onnxc test` compares small floats by.
template <typename T>
inline double element_as_double(const T* p, index_t i) {
  return value_as_double(element_at(p, i));
}

}  // namespace onnxc

#endif  // ONNXC_CONVERT_H
