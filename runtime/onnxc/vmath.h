// Float math in plain arithmetic that g++ and clang++ vectorize: no libm call, no branch, so a
// loop over these functions runs 4-16 lanes at a time where std::exp runs one element per call.
//
//   exp_poly(x)      e^x for x <= 88; below -87 it gives e^-87 (~1.6e-38) in place of a denormal
//                    or 0; max relative error 3e-7. For ops whose results reach neither end
//                    (Softmax after subtracting the max, Sigmoid), never for the Exp op itself.
//   sigmoid_poly(x)  1 / (1 + e^-x) through exp_poly(-|x|), so it never overflows; NaN stays NaN.
//   erf_poly(x)      erf(x) within 2 ulp, in selects (vectorizes); erf_of(x) is the erf every
//                    kernel uses (erf_poly for float, std::erf for double).
//   tanh_poly(x)     tanh(x) within 2 ulp, likewise; tanh_of(x) as erf_of.
//   sigmoid_of(x)    the sigmoid every kernel uses: sigmoid_poly for float, std::exp in the
//                    overflow-free form for double (so fused and unfused Sigmoids agree).
#ifndef ONNXC_VMATH_H
#define ONNXC_VMATH_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "onnxc/base.h"

namespace onnxc {

// 2^n * e^r with n = round(x / ln 2), |r| <= ln(2) / 2, e^r by its degree-6 Taylor polynomial
// (truncation error r^7 / 7! < 1.2e-7), 2^n built in the exponent bits; for x already in
// [-87, 88] (exp_poly clamps).
ONNXC_ALWAYS_INLINE float exp_poly_in_range(float x) {
  const float t = x * 1.44269504088896341f;
  const float n = (t + 12582912.0f) - 12582912.0f;  // round to nearest via 1.5 * 2^23
  const float r = (x - n * 0.693145751953125f) - n * 1.428606765330187e-06f;  // ln 2 in 2 parts
  float e = 1.0f / 720;
  e = e * r + 1.0f / 120;
  e = e * r + 1.0f / 24;
  e = e * r + 1.0f / 6;
  e = e * r + 0.5f;
  e = e * r + 1.0f;
  e = e * r + 1.0f;
  const std::uint32_t bits = static_cast<std::uint32_t>(static_cast<std::int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return e * scale;
}

ONNXC_ALWAYS_INLINE float exp_poly(float x) {
  x = pick(x > -87.0f, x, -87.0f);  // also maps NaN, keeping the int conversion below defined
  x = pick(x < 88.0f, x, 88.0f);
  return exp_poly_in_range(x);
}

ONNXC_ALWAYS_INLINE float sigmoid_poly(float x) {
  // e^-|x| in (0, 1], -|x| clamped at -87 in the bits: the magnitude's bit pattern capped at 87's
  // (NaN's lie above it, so NaN maps to -87 as in exp_poly, and is returned below), the sign set.
  // Float compares and selects here make g++ predicate the whole polynomial on mask registers:
  // 0.76 cycles per element in a loop, against 1.20 through exp_poly (sigmoid is compute-bound).
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  bits &= 0x7fffffffu;
  bits = (bits < 0x42ae0000u ? bits : 0x42ae0000u) | 0x80000000u;  // 0x42ae0000 is 87.0f
  float a;
  std::memcpy(&a, &bits, sizeof a);
  const float e = exp_poly_in_range(a);
  const float r = 1.0f / (1.0f + e);
  const float y = pick(x >= 0.0f, r, e * r);
  return pick(x == x, y, x);
}

namespace vmath_detail {

// |x| (in the bits: no compare), and x's sign bit in *sign.
ONNXC_ALWAYS_INLINE float magnitude(float x, std::uint32_t* sign) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  *sign = bits & 0x80000000u;
  bits &= 0x7fffffffu;
  float ax;
  std::memcpy(&ax, &bits, sizeof ax);
  return ax;
}

// An odd function's value at x from y = f(|x|) >= 0: y with x's sign; NaN x is returned as is.
ONNXC_ALWAYS_INLINE float odd_result(float x, float y, std::uint32_t sign) {
  std::uint32_t bits;
  std::memcpy(&bits, &y, sizeof bits);
  bits |= sign;
  float r;
  std::memcpy(&r, &bits, sizeof r);
  return pick(x == x, r, x);
}

}  // namespace vmath_detail

// erf(x), both branches computed and one selected, so a loop vectorizes: |x| < 1 as x * P(x^2),
// 1 <= |x| < 3.92 as 1 - e^(-x^2) Q(1 / |x|) (erfc(x) e^(x^2) is smooth there), beyond as +-1
// (erf(3.92) rounds to 1 in float). P and Q are least-squares fits in double made for onnxc
// (relative errors 4e-8 and 7e-8); in float the result is within 2 ulp of erf rounded to float
// (checked over all 2^32 inputs; about 2.4e-7 relative above the denormals).
ONNXC_ALWAYS_INLINE float erf_poly(float x) {
  std::uint32_t sign;
  const float ax = vmath_detail::magnitude(x, &sign);
  const float t = ax * ax;  // NaN stays NaN here and below
  float p = -5.637654217e-04f;
  p = p * t + 4.919036601e-03f;
  p = p * t - 2.671254320e-02f;
  p = p * t + 1.128022154e-01f;
  p = p * t - 3.761233102e-01f;
  p = p * t + 1.128379123e+00f;
  const float near = ax * p;
  const float az = pick(ax < 1.0f, 1.0f, pick(ax < 3.92f, ax, 3.92f));  // the tail's domain
  const float u = 1.0f / az;
  float q = -1.048653414e-02f;
  q = q * u + 3.345936218e-02f;
  q = q * u + 1.393914078e-02f;
  q = q * u - 2.311178305e-01f;
  q = q * u + 4.898417345e-01f;
  q = q * u - 4.687541602e-01f;
  q = q * u + 4.129646080e-02f;
  q = q * u + 5.591408900e-01f;
  q = q * u + 2.644850520e-04f;
  const float far = 1.0f - exp_poly_in_range(-(az * az)) * q;
  const float y = pick(ax < 1.0f, near, pick(ax < 3.92f, far, 1.0f));
  return vmath_detail::odd_result(x, y, sign);
}

// tanh(x) in the same style: |x| < 0.625 as x * P(x^2) (a least-squares fit made for onnxc,
// relative error 4e-9), up to 9 as 1 - 2 / (e^(2|x|) + 1), beyond as +-1 (tanh(9) rounds to 1).
ONNXC_ALWAYS_INLINE float tanh_poly(float x) {
  std::uint32_t sign;
  const float ax = vmath_detail::magnitude(x, &sign);
  const float t = ax * ax;
  float p = -5.666512817e-03f;
  p = p * t + 2.059699720e-02f;
  p = p * t - 5.372298859e-02f;
  p = p * t + 1.333115231e-01f;
  p = p * t - 3.333326163e-01f;
  p = p * t + 9.999999962e-01f;
  const float near = ax * p;
  const float az = pick(ax < 0.625f, 0.625f, pick(ax < 9.0f, ax, 9.0f));  // the far branch's domain
  const float far = 1.0f - 2.0f / (exp_poly_in_range(2.0f * az) + 1.0f);
  const float y = pick(ax < 0.625f, near, pick(ax < 9.0f, far, 1.0f));
  return vmath_detail::odd_result(x, y, sign);
}

// The functions every kernel uses: the polynomial for float, libm in double precision otherwise
// (so fused and unfused ops agree).
template <typename T>
ONNXC_ALWAYS_INLINE T tanh_of(T x) {
  if constexpr (std::is_same_v<T, float>)
    return tanh_poly(x);
  else
    return std::tanh(x);
}
template <typename T>
ONNXC_ALWAYS_INLINE T erf_of(T x) {
  if constexpr (std::is_same_v<T, float>)
    return erf_poly(x);
  else
    return std::erf(x);
}
template <typename T>
ONNXC_ALWAYS_INLINE T sigmoid_of(T x) {  // without overflow: e^x / (1 + e^x) below 0
  if constexpr (std::is_same_v<T, float>)
    return sigmoid_poly(x);
  else
    return x >= T(0) ? T(1) / (T(1) + std::exp(-x)) : std::exp(x) / (T(1) + std::exp(x));
}

}  // namespace onnxc

#endif  // ONNXC_VMATH_H
