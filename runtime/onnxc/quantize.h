// Linear quantization kernels (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear) and the
// integer products (MatMulInteger, QLinearMatMul, ConvInteger, QLinearConv).
//   quantize_linear_ref<X, S, Y>      y = saturate(round_half_even(x / scale) + zero_point) for
//                                     integer Y (int8..uint16, the packed int4/uint4/int2/uint2);
//                                     y = convert(x / scale + zero_point) for the float8 kinds
//                                     (with `saturate`) and float4e2m1 (always saturating)
//   dequantize_linear_ref<X, S, Y>    y = (x - zero_point) * scale, in float, rounded once to Y
//   dynamic_quantize_linear_ref       uint8 scale/zero point from the range of x (including 0)
//   qlinear_global_avgpool_ref        com.microsoft QLinearGlobalAveragePool, in integers
//   qlinear_add_ref                   com.microsoft QLinearAdd of equal shapes, in int32 only
//   qlinear_mul_ref                   com.microsoft QLinearMul of equal shapes, in integers
//   qlinear_lookup_ref                y = table[x]: a quantized unary op as 256 precomputed values
//   qlinear_concat_ref                com.microsoft QLinearConcat: copies, or requantizes in
//   integers qlinear_avgpool_ref               com.microsoft QLinearAveragePool: int32 window sums,
//   one
//                                     integer requantization per window (multipliers per count)
//   matmul_integer_ref / qlinear_matmul_ref, conv_integer_ref / qlinear_conv_ref
//                                     int32 accumulation of (a - a_zp) * (b - b_zp); the QLinear
//                                     forms requantize as the ONNX reference does: the multiplier
//                                     a_scale * b_scale / y_scale is computed in the scale type,
//                                     then acc * multiplier + y_zp, rounded half to even and
//                                     saturated, is computed exactly in integers (the reference's
//                                     double product agrees wherever it is exact)
// Scale and zero point layouts: per tensor (one value), per axis (one per index of `axis`) or
// blocked (the input shape with the axis divided into blocks of `block` elements).
// Element conversions come from onnxc/convert.h; packed outputs are written low bits first with
// zero padding bits.
#ifndef ONNXC_QUANTIZE_H
#define ONNXC_QUANTIZE_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "onnxc/base.h"
#include "onnxc/conv.h"  // ConvParams
#include "onnxc/convert.h"
#include "onnxc/gemm.h"  // MatMulParams
#include "onnxc/pool.h"  // PoolParams

namespace onnxc {

enum class QuantGranularity : uint8_t { kTensor, kAxis, kBlocked };

// The type the division x / scale is rounded to (QuantizeLinear's `precision`).
enum class QuantPrecision : uint8_t { kFloat, kFloat16, kBFloat16 };

struct QuantizeParams {
  index_t outer, axis, inner;    // the tensor viewed as [outer, axis, inner]
  QuantGranularity granularity;  // how scale and zero point are laid out
  index_t block;                 // kBlocked: axis elements sharing one scale
  bool saturate;                 // float8 outputs: clamp out-of-range values to the largest finite
  QuantPrecision precision;      // QuantizeLinear: the division's precision
};

namespace quant_detail {

// The scale / zero-point index of element (o, a, i) of the [outer, axis, inner] view.
inline index_t param_index(const QuantizeParams& p, index_t o, index_t a, index_t i) {
  switch (p.granularity) {
    case QuantGranularity::kTensor:
      return 0;
    case QuantGranularity::kAxis:
      return a;
    default: {
      const index_t blocks = (p.axis + p.block - 1) / p.block;
      return (o * blocks + a / p.block) * p.inner + i;
    }
  }
}

// Element i of any element array as float (exact for every type of at most 24 bits). Floats and
// small integers convert directly: no double on targets whose FPU has none.
template <typename T>
inline float load(const T* p, index_t i) {
  if constexpr (std::is_same_v<T, float> || (std::is_integral_v<T> && sizeof(T) <= 2))
    return static_cast<float>(p[i]);
  else
    return static_cast<float>(element_as_double(p, i));
}

inline float round_to(float v, QuantPrecision precision) {
  switch (precision) {
    case QuantPrecision::kFloat16:
      return to_float(to_float16(v));
    case QuantPrecision::kBFloat16:
      return to_float(to_bfloat16(v));
    default:
      return v;
  }
}

// The saturation range of an integer quantized type (packed types by their bit width).
template <typename Y>
struct IntRange {
  static constexpr int64_t kMin = static_cast<int64_t>(std::numeric_limits<Y>::min());
  static constexpr int64_t kMax = static_cast<int64_t>(std::numeric_limits<Y>::max());
};
template <typename Y, int kBits = PackedTraits<Y>::kBits,
          bool kSigned = std::is_signed_v<typename PackedTraits<Y>::value_type>>
struct PackedIntRange {
  static constexpr int64_t kMin = kSigned ? -(int64_t{1} << (kBits - 1)) : 0;
  static constexpr int64_t kMax =
      kSigned ? (int64_t{1} << (kBits - 1)) - 1 : (int64_t{1} << kBits) - 1;
};
template <>
struct IntRange<int4x2> : PackedIntRange<int4x2> {};
template <>
struct IntRange<uint4x2> : PackedIntRange<uint4x2> {};
template <>
struct IntRange<int2x4> : PackedIntRange<int2x4> {};
template <>
struct IntRange<uint2x4> : PackedIntRange<uint2x4> {};

template <typename Y>
inline constexpr bool kIntQuant = std::is_integral_v<element_value_t<Y>>;

// round_half_even(v) + zp saturated to [lo, hi]; NaN counts as 0.
inline int64_t saturate_round(double v, double zp, int64_t lo, int64_t hi) {
  double r = v == v ? std::nearbyint(v) + zp : zp;
  if (r < static_cast<double>(lo)) r = static_cast<double>(lo);
  if (r > static_cast<double>(hi)) r = static_cast<double>(hi);
  return static_cast<int64_t>(r);
}

// saturate_round for ranges within 16 bits, with one float addition and integer work otherwise
// (no double, few soft-float calls on CPUs without an FPU): NaN counts as 0; magnitudes of 2^17
// and more saturate, read from the exponent bits; below that, adding 1.5 * 2^23 rounds half to
// even (the default rounding mode) and leaves the rounded value in the low mantissa bits.
inline int32_t saturate_round_narrow(float v, int32_t zp, int32_t lo, int32_t hi) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  const uint32_t exponent = (bits >> 23) & 0xFFu;
  int32_t r;
  if (exponent == 0xFFu && (bits & 0x7FFFFFu) != 0) {
    r = 0;
  } else if (exponent >= 127 + 17) {
    r = bits >> 31 ? -131072 : 131072;
  } else {
    const float shifted = v + 12582912.0f;  // 1.5 * 2^23: [2^23, 2^24) has a spacing of 1
    uint32_t s;
    std::memcpy(&s, &shifted, 4);
    r = static_cast<int32_t>(s & 0x7FFFFFu) - 0x400000;
  }
  r += zp;
  return r < lo ? lo : r > hi ? hi : r;
}

// Whether Y is an integer type of at most 16 bits (saturate_round_narrow rounds it).
template <typename Y>
constexpr bool narrow_range() {
  if constexpr (kIntQuant<Y>)
    return IntRange<Y>::kMin >= -32768 && IntRange<Y>::kMax <= 65535;
  else
    return false;
}

// Writes element i of y; packed arrays must start zeroed (see clear()).
template <typename Y>
inline void store(Y* y, index_t i, element_value_t<Y> v) {
  if constexpr (kIsPacked<Y>) {
    using Traits = PackedTraits<Y>;
    constexpr int kPerByte = 8 / Traits::kBits;
    y[i / kPerByte].bits = static_cast<uint8_t>(
        y[i / kPerByte].bits | (Traits::to_code(v) << ((i % kPerByte) * Traits::kBits)));
  } else {
    y[i] = v;
  }
}

template <typename Y>
inline void clear(Y* y, index_t n) {
  if constexpr (kIsPacked<Y>) {
    constexpr int kPerByte = 8 / PackedTraits<Y>::kBits;
    for (index_t b = 0; b < (n + kPerByte - 1) / kPerByte; ++b) y[b].bits = 0;
  } else {
    (void)y;
    (void)n;
  }
}

}  // namespace quant_detail

// X: float, float16, bfloat16; S: float, float16, bfloat16, float8e8m0; Y: the quantized type
// (zero_point has type Y and may be nullptr: zero).
template <typename X, typename S, typename Y>
inline void quantize_linear_ref(const X* x, const S* scale, const Y* zero_point, Y* y,
                                const QuantizeParams& p) {
  using namespace quant_detail;
  using V = element_value_t<Y>;
  clear(y, p.outer * p.axis * p.inner);
  for (index_t o = 0; o < p.outer; ++o)
    for (index_t a = 0; a < p.axis; ++a)
      for (index_t i = 0; i < p.inner; ++i) {
        const index_t e = (o * p.axis + a) * p.inner + i, k = param_index(p, o, a, i);
        const float s = round_to(load(scale, k), p.precision);
        const float q = round_to(round_to(load(x, e), p.precision) / s, p.precision);
        const float zp = zero_point ? load(zero_point, k) : 0.0f;
        if constexpr (narrow_range<Y>()) {
          store(y, e,
                static_cast<V>(saturate_round_narrow(q, static_cast<int32_t>(zp),
                                                     static_cast<int32_t>(IntRange<Y>::kMin),
                                                     static_cast<int32_t>(IntRange<Y>::kMax))));
        } else if constexpr (kIntQuant<Y>) {
          store(y, e, static_cast<V>(saturate_round(q, zp, IntRange<Y>::kMin, IntRange<Y>::kMax)));
        } else {
          store(y, e, convert_value<V>(q + zp, CastParams{p.saturate, E8M0Rounding::kUp}));
        }
      }
}

// X: any quantized type (or int32); S: float, float16, bfloat16, float8e8m0; Y: float, float16,
// bfloat16. zero_point (type X) may be nullptr.
template <typename X, typename S, typename Y>
inline void dequantize_linear_ref(const X* x, const S* scale, const X* zero_point, Y* y,
                                  const QuantizeParams& p) {
  using namespace quant_detail;
  for (index_t o = 0; o < p.outer; ++o)
    for (index_t a = 0; a < p.axis; ++a)
      for (index_t i = 0; i < p.inner; ++i) {
        const index_t e = (o * p.axis + a) * p.inner + i, k = param_index(p, o, a, i);
        const float zp = zero_point ? load(zero_point, k) : 0.0f;
        const float v = (load(x, e) - zp) * load(scale, k);
        y[e] = convert_value<Y>(v, CastParams{true, E8M0Rounding::kUp});
      }
}

// DynamicQuantizeLinear (uint8): scale = (max(0, max x) - min(0, min x)) / 255 (1 when x is all
// zeros), zero_point = round(clamp(-min / scale, 0, 255)), y = clamp(round(x / scale) + zp).
inline void dynamic_quantize_linear_ref(const float* x, uint8_t* y, float* y_scale,
                                        uint8_t* y_zero_point, index_t n) {
  float hi = 0.0f, lo = 0.0f;
  for (index_t i = 0; i < n; ++i) {
    hi = x[i] > hi ? x[i] : hi;
    lo = x[i] < lo ? x[i] : lo;
  }
  const float scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
  float zp = 0.0f - lo / scale;
  zp = zp < 0.0f ? 0.0f : (zp > 255.0f ? 255.0f : zp);
  zp = std::nearbyint(zp);
  for (index_t i = 0; i < n; ++i) {
    float v = std::nearbyint(x[i] / scale) + zp;
    v = v < 0.0f ? 0.0f : (v > 255.0f ? 255.0f : v);
    y[i] = static_cast<uint8_t>(v);
  }
  *y_scale = scale;
  *y_zero_point = static_cast<uint8_t>(zp);
}

// ---- Integer products --------------------------------------------------------------------------

// Zero point / scale layouts of the quantized products: one value, one per row of A (m), or one
// per column of B (n) / output channel. Per-row / per-column values of a matmul may also differ
// per batch ([D1, D2, M, 1] / [D1, D2, 1, N], broadcast like A and B).
enum class QuantAxis : uint8_t { kTensor, kRow, kColumn };

struct QuantMatMulParams {
  MatMulParams mm;   // batch broadcast and m, n, k
  QuantAxis a_axis;  // layout of a_zero_point (and a_scale)
  QuantAxis b_axis;  // layout of b_zero_point (and b_scale)
  QuantAxis y_axis;  // layout of y_zero_point and y_scale (QLinearMatMul; kTensor)
  index_t
      a_param_strides[kMaxRank];  // per batch dim: elements between a's per-row values (0: shared)
  index_t b_param_strides[kMaxRank];  // the same for b's per-column values
  bool relu = false;  // QLinearMatMul from lower-qdq: outputs clamped below at y_zero_point
};

namespace quant_detail {

// The parameter index of row `row` / column `col`; `batch_offset` selects the batch's values.
inline index_t axis_index(QuantAxis axis, index_t batch_offset, index_t row, index_t col) {
  return axis == QuantAxis::kTensor ? 0 : batch_offset + (axis == QuantAxis::kRow ? row : col);
}

template <typename T>
inline int32_t zero_at(const T* zp, index_t k) {
  return zp ? static_cast<int32_t>(element_at(zp, k)) : 0;
}

// Calls out(batch, row, col, acc, ka, kb) for every output of the int32 product, with wrap-around
// accumulation (the spec allows the 32-bit accumulator to overflow); ka / kb index the zero
// point and scale of a's row and b's column.
template <typename A, typename B, typename Out>
inline void matmul_integer_core(const QuantMatMulParams& p, const A* a, const B* b, const A* a_zp,
                                const B* b_zp, Out out) {
  const MatMulParams& mm = p.mm;
  index_t idx[kMaxRank] = {};
  for (index_t bi = 0; bi < mm.batch_count; ++bi) {
    index_t ao = 0, bo = 0, pa = 0, pb = 0;
    for (int d = 0; d < mm.batch_rank; ++d) {
      ao += idx[d] * mm.a_strides[d];
      bo += idx[d] * mm.b_strides[d];
      pa += idx[d] * p.a_param_strides[d];
      pb += idx[d] * p.b_param_strides[d];
    }
    for (index_t r = 0; r < mm.m; ++r) {
      const index_t ka = axis_index(p.a_axis, pa, r, 0);
      const int32_t za = zero_at(a_zp, ka);
      for (index_t c = 0; c < mm.n; ++c) {
        const index_t kb = axis_index(p.b_axis, pb, 0, c);
        const int32_t zb = zero_at(b_zp, kb);
        uint32_t acc = 0;
        for (index_t t = 0; t < mm.k; ++t) {
          const int32_t av = static_cast<int32_t>(a[ao + r * mm.k + t]) - za;
          const int32_t bv = static_cast<int32_t>(b[bo + t * mm.n + c]) - zb;
          acc += static_cast<uint32_t>(av * bv);
        }
        out(bi, r, c, static_cast<int32_t>(acc), ka, kb);
      }
    }
    for (int d = mm.batch_rank - 1; d >= 0; --d) {
      if (++idx[d] < mm.batch_dims[d]) break;
      idx[d] = 0;
    }
  }
}

// A requantization multiplier in integers. A float is exactly mantissa * 2^-shift with a 24-bit
// mantissa, so acc * multiplier is exactly the int64 product acc * mantissa (|acc| < 2^31: under
// 2^55) shifted right by `shift`, and requantizing needs no float arithmetic per element: no FPU
// on the targets that have none, and the exact value of acc * multiplier everywhere.
struct FixedMultiplier {
  int64_t mantissa;  // |mantissa| < 2^24; 0 for a zero multiplier
  int shift;         // multiplier = mantissa * 2^-shift, 0 <= shift <= 62
  bool big;          // |multiplier| >= 2^24: any nonzero acc saturates (mantissa holds the sign)
  bool finite;       // else (NaN, infinity) the double formula is used, as the reference's
  float value;       // the multiplier itself, for that case
};

inline FixedMultiplier fixed_multiplier(float m) {
  FixedMultiplier f = {0, 0, false, std::isfinite(m), m};
  if (!f.finite || m == 0.0f) return f;
  int e = 0;
  const float frac = std::frexp(m, &e);  // m = frac * 2^e, 0.5 <= |frac| < 1
  f.mantissa = static_cast<int64_t>(std::ldexp(frac, 24));
  f.shift = 24 - e;
  if (f.shift < 0) f.big = true;
  if (f.shift > 62) f.mantissa = 0, f.shift = 0;  // |acc * m| < 2^55 * 2^-63: rounds to 0
  return f;
}

// round_half_even(acc * multiplier) + zp, saturated to Y's range.
template <typename Y>
inline Y requantize(int32_t acc, const FixedMultiplier& f, int32_t zp) {
  constexpr int64_t lo = IntRange<Y>::kMin, hi = IntRange<Y>::kMax;
  if (!f.finite)
    return static_cast<Y>(saturate_round(static_cast<double>(acc) * static_cast<double>(f.value),
                                         static_cast<double>(zp), lo, hi));
  int64_t q = 0;
  if (f.big) {
    q = acc == 0 ? 0 : (acc > 0) == (f.mantissa > 0) ? hi - zp : lo - zp;
  } else {
    const int64_t product = static_cast<int64_t>(acc) * f.mantissa;
    q = product >> f.shift;  // floor
    if (f.shift > 0) {
      const int64_t rest = product - q * (int64_t{1} << f.shift),
                    half = int64_t{1} << (f.shift - 1);
      if (rest > half || (rest == half && (q & 1))) ++q;
    }
  }
  q += zp;
  return static_cast<Y>(q < lo ? lo : q > hi ? hi : q);
}

// The multiplier of a quantized mean over `spatial` elements: x_scale / (y_scale * spatial).
inline FixedMultiplier mean_multiplier(const float* x_scale, const float* y_scale,
                                       index_t spatial) {
  return fixed_multiplier(x_scale[0] / (y_scale[0] * static_cast<float>(spatial)));
}

// a_scale * b_scale / y_scale with each operation rounded to the scale type S.
template <typename S>
inline float multiplier(float a_scale, float b_scale, float y_scale) {
  if constexpr (std::is_same_v<S, float16>) {
    const float ab = to_float(to_float16(a_scale * b_scale));
    return to_float(to_float16(ab / y_scale));
  } else if constexpr (std::is_same_v<S, bfloat16>) {
    const float ab = to_float(to_bfloat16(a_scale * b_scale));
    return to_float(to_bfloat16(ab / y_scale));
  } else {
    return a_scale * b_scale / y_scale;
  }
}

}  // namespace quant_detail

// MatMulInteger: y = (a - a_zp) @ (b - b_zp) in int32. A, B: int8 or uint8; zero points may be
// nullptr.
template <typename A, typename B>
inline void matmul_integer_ref(const QuantMatMulParams& p, const A* a, const B* b, const A* a_zp,
                               const B* b_zp, int32_t* y) {
  const index_t mn = p.mm.m * p.mm.n;
  quant_detail::matmul_integer_core(
      p, a, b, a_zp, b_zp, [&](index_t bi, index_t r, index_t c, int32_t acc, index_t, index_t) {
        y[bi * mn + r * p.mm.n + c] = acc;
      });
}

// QLinearMatMul: S is the scale type (float, float16, bfloat16); Y int8 or uint8. `bias` (int32,
// one per column, may be null; lower-qdq's) is added to the accumulator, in a_scale * b_scale
// units; p.relu clamps the outputs below at y_zp (a fused Relu: round(max(v, 0) / s) + zp is
// max(round(v / s) + zp, zp)).
template <typename A, typename B, typename S, typename Y>
inline void qlinear_matmul_ref(const QuantMatMulParams& p, const A* a, const S* a_scale,
                               const A* a_zp, const B* b, const S* b_scale, const B* b_zp,
                               const S* y_scale, const Y* y_zp, Y* y,
                               const int32_t* bias = nullptr) {
  using namespace quant_detail;
  const index_t mn = p.mm.m * p.mm.n;
  matmul_integer_core(
      p, a, b, a_zp, b_zp,
      [&](index_t bi, index_t r, index_t c, int32_t acc, index_t ka, index_t kb) {
        const index_t ky = axis_index(p.y_axis, 0, r, c);
        const FixedMultiplier m = fixed_multiplier(
            multiplier<S>(load(a_scale, ka), load(b_scale, kb), load(y_scale, ky)));
        if (bias)
          acc = static_cast<int32_t>(static_cast<uint32_t>(acc) + static_cast<uint32_t>(bias[c]));
        const int32_t zp = zero_at(y_zp, ky);
        const Y v = requantize<Y>(acc, m, zp);
        y[bi * mn + r * p.mm.n + c] =
            p.relu && static_cast<int32_t>(v) < zp ? static_cast<Y>(zp) : v;
      });
}

struct QuantConvParams {
  ConvParams conv;           // geometry (1-D and 2-D run as 3-D with leading unit dims)
  bool w_zp_per_channel;     // w_zero_point has one value per output channel
  bool w_scale_per_channel;  // w_scale has one value per output channel (QLinearConv)
  bool relu = false;         // QLinearConv from lower-qdq: outputs clamped below at y_zero_point
};

namespace quant_detail {

// Calls out(n, m, spatial_index, acc) for every output of the integer convolution of
// (x - x_zp) and (w - w_zp[m]) (+ bias[m]); padding contributes zero.
template <typename X, typename W, typename Out>
inline void conv_integer_core(const QuantConvParams& q, const X* x, const W* w, int32_t x_zp,
                              const W* w_zp, const int32_t* bias, Out out) {
  const ConvParams& p = q.conv;
  const index_t cin_g = p.c_in / p.group, cout_g = p.c_out / p.group;
  const index_t in_sp = p.in[0] * p.in[1] * p.in[2];
  const index_t k_sp = p.kernel[0] * p.kernel[1] * p.kernel[2];
  for (index_t n = 0; n < p.batch; ++n)
    for (index_t m = 0; m < p.c_out; ++m) {
      const index_t g = m / cout_g;
      const int32_t zw = w_zp ? static_cast<int32_t>(w_zp[q.w_zp_per_channel ? m : 0]) : 0;
      index_t o = 0;
      for (index_t od = 0; od < p.out[0]; ++od)
        for (index_t oh = 0; oh < p.out[1]; ++oh)
          for (index_t ow = 0; ow < p.out[2]; ++ow, ++o) {
            uint32_t acc = bias ? static_cast<uint32_t>(bias[m]) : 0u;
            for (index_t c = 0; c < cin_g; ++c) {
              const X* xc = x + (n * p.c_in + g * cin_g + c) * in_sp;
              const W* wc = w + (m * cin_g + c) * k_sp;
              for (index_t kd = 0; kd < p.kernel[0]; ++kd) {
                const index_t id = od * p.stride[0] + kd * p.dilation[0] - p.pad[0];
                if (id < 0 || id >= p.in[0]) continue;
                for (index_t kh = 0; kh < p.kernel[1]; ++kh) {
                  const index_t ih = oh * p.stride[1] + kh * p.dilation[1] - p.pad[1];
                  if (ih < 0 || ih >= p.in[1]) continue;
                  for (index_t kw = 0; kw < p.kernel[2]; ++kw) {
                    const index_t iw = ow * p.stride[2] + kw * p.dilation[2] - p.pad[2];
                    if (iw < 0 || iw >= p.in[2]) continue;
                    const int32_t xv =
                        static_cast<int32_t>(xc[(id * p.in[1] + ih) * p.in[2] + iw]) - x_zp;
                    const int32_t wv =
                        static_cast<int32_t>(wc[(kd * p.kernel[1] + kh) * p.kernel[2] + kw]) - zw;
                    acc += static_cast<uint32_t>(xv * wv);
                  }
                }
              }
            }
            out(n, m, o, static_cast<int32_t>(acc));
          }
    }
}

}  // namespace quant_detail

// ConvInteger: X, W int8 or uint8; x_zero_point one value, w_zero_point one value or one per
// output channel (either may be nullptr).
template <typename X, typename W>
inline void conv_integer_ref(const QuantConvParams& q, const X* x, const W* w,
                             const X* x_zero_point, const W* w_zero_point, int32_t* y) {
  const ConvParams& p = q.conv;
  const index_t out_sp = p.out[0] * p.out[1] * p.out[2];
  const int32_t zx = x_zero_point ? static_cast<int32_t>(x_zero_point[0]) : 0;
  quant_detail::conv_integer_core(q, x, w, zx, w_zero_point, nullptr,
                                  [&](index_t n, index_t m, index_t o, int32_t acc) {
                                    y[(n * p.c_out + m) * out_sp + o] = acc;
                                  });
}

// QLinearConv: x_scale, y_scale and the zero points of x and y are single values; w_scale and
// w_zero_point one value or one per output channel; bias (int32, may be nullptr) one per channel.
// q.relu clamps the outputs below at y_zero_point (as qlinear_matmul_ref).
template <typename X, typename W, typename Y>
inline void qlinear_conv_ref(const QuantConvParams& q, const X* x, const float* x_scale,
                             const X* x_zero_point, const W* w, const float* w_scale,
                             const W* w_zero_point, const float* y_scale, const Y* y_zero_point,
                             const int32_t* bias, Y* y) {
  const ConvParams& p = q.conv;
  const index_t out_sp = p.out[0] * p.out[1] * p.out[2];
  const int32_t zx = x_zero_point ? static_cast<int32_t>(x_zero_point[0]) : 0;
  const int32_t zy = y_zero_point ? static_cast<int32_t>(y_zero_point[0]) : 0;
  index_t channel = -1;  // the output channel `mult` belongs to
  quant_detail::FixedMultiplier mult = {};
  quant_detail::conv_integer_core(
      q, x, w, zx, w_zero_point, bias, [&](index_t n, index_t m, index_t o, int32_t acc) {
        if (m != channel)
          channel = m, mult = quant_detail::fixed_multiplier(quant_detail::multiplier<float>(
                           x_scale[0], w_scale[q.w_scale_per_channel ? m : 0], y_scale[0]));
        const Y v = quant_detail::requantize<Y>(acc, mult, zy);
        y[(n * p.c_out + m) * out_sp + o] = q.relu && static_cast<int32_t>(v) < zy ? Y(zy) : v;
      });
}

// QLinearGlobalAveragePool (com.microsoft; what lower-qdq makes of DequantizeLinear ->
// GlobalAveragePool -> QuantizeLinear): per channel, the int32 sum of (x - x_zero_point) times
// x_scale / (spatial * y_scale), rounded half to even once, plus y_zero_point, saturated. x is
// [channels, spatial] (channels: batch * channels), y one value per channel.
template <typename X, typename Y>
inline void qlinear_global_avgpool_ref(const X* x, const float* x_scale, const X* x_zero_point,
                                       const float* y_scale, const Y* y_zero_point, Y* y,
                                       index_t channels, index_t spatial) {
  const int32_t zx = x_zero_point ? static_cast<int32_t>(x_zero_point[0]) : 0;
  const int32_t zy = y_zero_point ? static_cast<int32_t>(y_zero_point[0]) : 0;
  const quant_detail::FixedMultiplier m = quant_detail::mean_multiplier(x_scale, y_scale, spatial);
  for (index_t c = 0; c < channels; ++c, x += spatial) {
    uint32_t sum = 0;  // wraps as the other integer kernels' sums (past 2^24 elements)
    for (index_t i = 0; i < spatial; ++i) sum += static_cast<uint32_t>(int32_t{x[i]} - zx);
    y[c] = quant_detail::requantize<Y>(static_cast<int32_t>(sum), m, zy);
  }
}

// The same pool's last step alone, over sums of (x - x_zero_point) per channel that a row
// pipeline accumulated band by band (onnxc/row_pipeline.h rows_sum): the same sums, the same
// requantization, so the same outputs.
template <typename Y>
inline void qlinear_average_of_sums(const uint32_t* sums, const float* x_scale,
                                    const float* y_scale, const Y* y_zero_point, Y* y,
                                    index_t channels, index_t spatial) {
  const int32_t zy = y_zero_point ? static_cast<int32_t>(y_zero_point[0]) : 0;
  const quant_detail::FixedMultiplier m = quant_detail::mean_multiplier(x_scale, y_scale, spatial);
  for (index_t c = 0; c < channels; ++c)
    y[c] = quant_detail::requantize<Y>(static_cast<int32_t>(sums[c]), m, zy);
}

// QLinearAdd (com.microsoft; what lower-qdq makes of DequantizeLinear(a) + DequantizeLinear(b)
// [-> Relu] -> QuantizeLinear, a quantized residual connection) over n elements of one shape, in
// int32 arithmetic only (no float: the M0+ has no FPU). The compiler turns the scales into
//   a_multiplier = round(a_scale / y_scale * 2^shift), b_multiplier likewise,
// both at most 2^22 (so (a - a_zp) * a_multiplier + (b - b_zp) * b_multiplier, |a - a_zp| <= 255,
// fits int32) with shift in [10, 30]; then
//   y = clamp(y_zero_point + round_half_even(sum / 2^shift), y_min, y_max)
// with y_min the type's minimum, or y_zero_point under a fused Relu. One rounding: the
// multipliers' rounding moves the sum by at most 255 / 2^shift steps (under 1/4), so y is the
// correctly rounded value except that close to a tie, and always within one step of it.
struct QAddParams {
  int32_t a_multiplier, b_multiplier;
  int32_t shift;
  int32_t a_zero_point, b_zero_point, y_zero_point;
  int32_t y_min, y_max;
};

template <typename T>
inline void qlinear_add_ref(const QAddParams& p, const T* a, const T* b, T* y, index_t n) {
  const QAddParams q = p;  // locals: the stores through y may alias everything
  const int32_t half = int32_t{1} << (q.shift - 1);
  const int32_t mask = (int32_t{1} << q.shift) - 1;
  for (index_t i = 0; i < n; ++i) {
    const int32_t sum = (int32_t{a[i]} - q.a_zero_point) * q.a_multiplier +
                        (int32_t{b[i]} - q.b_zero_point) * q.b_multiplier;
    const int32_t rem = sum & mask;  // sum - floor(sum / 2^shift) * 2^shift, in [0, 2^shift)
    int32_t v = (sum >> q.shift) + (rem > half || (rem == half && ((sum >> q.shift) & 1)));
    v += q.y_zero_point;
    y[i] = static_cast<T>(v < q.y_min ? q.y_min : (v > q.y_max ? q.y_max : v));
  }
}

// A positive factor M as multiplier * 2^-shift, multiplier in [2^30, 2^31) and shift in [16, 62]:
// the compiler rounds M * 2^shift to the nearest integer once (ops/quant/qelementwise.h
// qlinear_scale), from M in double. QLinearMul, QLinearConcat and QLinearAveragePool requantize
// with it.
struct QScale {
  int32_t multiplier;
  int32_t shift;
};

namespace quant_detail {

// round(p * M) for the QScale m, in integers (the int64 product |p| * multiplier < 2^62): to
// nearest, and a value within |p| / 2 units of 2^-shift of a half (where the multiplier's own
// rounding, at most 1/2 unit times |p|, could have moved p * M across it) rounds to even. So the
// result is always floor or ceil of the exact p * M, and equals round_half_even(p * M) whenever
// p * M is a float: a float near a half lies at least |p * M| * 2^-24 from it, the window at
// most |p * M| * 2^-30 (the float graph's QuantizeLinear rounds exact halves to even too).
inline int64_t scale_round(int32_t p, QScale m) {
  const int64_t half = int64_t{1} << (m.shift - 1);
  const int64_t mask = (int64_t{1} << m.shift) - 1;
  const int64_t scaled = int64_t{p} * m.multiplier;
  int64_t v = scaled >> m.shift;                     // floor
  const int64_t from_half = (scaled & mask) - half;  // rest - half, in units of 2^-shift
  const int64_t window = p < 0 ? -int64_t{p} : int64_t{p};
  if (2 * (from_half < 0 ? -from_half : from_half) <= window)
    v += v & 1;  // a half: to even
  else if (from_half > 0)
    ++v;
  return v;
}

// v + zero_point saturated to the 8-bit type T.
template <typename T>
inline T saturate8(int64_t v, int32_t zero_point) {
  constexpr int64_t lo = IntRange<T>::kMin, hi = IntRange<T>::kMax;
  v += zero_point;
  return static_cast<T>(v < lo ? lo : v > hi ? hi : v);
}

}  // namespace quant_detail

// QLinearMul (com.microsoft; what lower-qdq makes of DequantizeLinear(a) * DequantizeLinear(b)
// [-> Relu] -> QuantizeLinear) over n elements of one shape, in integers only. With
// p = (a - a_zp) * (b - b_zp) (|p| <= 255 * 255 < 2^16) and M = a_scale * b_scale / y_scale, the
// compiler picks shift in [16, 62] and multiplier = round(M * 2^shift) in [2^30, 2^31), so the
// int64 product p * multiplier (< 2^47) is p * M * 2^shift within |p| / 2. Then
//   y = clamp(y_zero_point + round(p * multiplier / 2^shift), y_min, y_max)
// where the rounding is to nearest, and a value within |p| / 2 units of 2^-shift of a half (where
// the multiplier's own rounding could have moved p * M across it) rounds to even: exact halves of
// p * M round as the float graph's QuantizeLinear does. The result is always floor or ceil of
// p * M (within one step of the float graph), and equals round_half_even(p * M) whenever p * M is
// a float (the float graph's result where its arithmetic is exact): a float near a half lies at
// least |p * M| * 2^-24 from it, the window at most |p * M| * 2^-30. y_min is the type's minimum,
// or y_zero_point under a fused Relu.
struct QMulParams {
  int32_t multiplier;
  int32_t shift;
  int32_t a_zero_point, b_zero_point, y_zero_point;
  int32_t y_min, y_max;
};

template <typename T>
inline void qlinear_mul_ref(const QMulParams& p, const T* a, const T* b, T* y, index_t n) {
  const QMulParams q = p;  // locals: the stores through y may alias everything
  const QScale m = {q.multiplier, q.shift};
  for (index_t i = 0; i < n; ++i) {
    const int32_t product = (int32_t{a[i]} - q.a_zero_point) * (int32_t{b[i]} - q.b_zero_point);
    int64_t v = quant_detail::scale_round(product, m);
    v += q.y_zero_point;
    y[i] = static_cast<T>(v < q.y_min ? q.y_min : (v > q.y_max ? q.y_max : v));
  }
}

// A quantized unary op as a lookup table (what lower-qdq makes of DequantizeLinear -> unary op ->
// QuantizeLinear): table[k] is the output for the 8-bit input whose bytes are k (for int8, k is the
// two's complement byte: table[255] is the output for -1), computed at compile time by the float
// graph's own ops. y may be x (in place).
template <typename X, typename Y>
inline void qlinear_lookup_ref(const X* x, const Y* table, Y* y, index_t n) {
  static_assert(sizeof(X) == 1 && sizeof(Y) == 1, "8-bit tensors only");
  for (index_t i = 0; i < n; ++i) y[i] = table[static_cast<uint8_t>(x[i])];
}

// QLinearConcat (com.microsoft; what lower-qdq makes of DequantizeLinear(x_i) for each input ->
// Concat -> QuantizeLinear where the inputs' scales or zero points differ from the output's):
// the output viewed as [outer, sum of the inputs' extents], input i filling its columns in order.
// An input whose scale and zero point are the output's (`copy`) is copied; another is
// requantized, y = saturate(y_zero_point + round((x - x_zero_point) * M)) with M = x_scale /
// y_scale as a QScale (quant_detail::scale_round: in integers, equal to the float graph wherever
// its arithmetic is exact, always within one step of it). No float at run time.
struct QConcatInput {
  index_t extent;        // the input's axis extent times the inner size: its elements per row
  bool copy;             // scale and zero point equal the output's
  int32_t x_zero_point;  // else: the requantization
  QScale scale;
};

template <typename T>
inline void qlinear_concat_ref(const T* const* x, const QConcatInput* inputs, index_t count,
                               index_t outer, int32_t y_zero_point, T* y) {
  for (index_t o = 0; o < outer; ++o)
    for (index_t k = 0; k < count; ++k) {
      const QConcatInput& in = inputs[k];
      const T* src = x[k] + o * in.extent;
      if (in.copy) {
        for (index_t i = 0; i < in.extent; ++i) y[i] = src[i];
      } else {
        for (index_t i = 0; i < in.extent; ++i)
          y[i] = quant_detail::saturate8<T>(
              quant_detail::scale_round(int32_t{src[i]} - in.x_zero_point, in.scale), y_zero_point);
      }
      y += in.extent;
    }
}

// QLinearAveragePool (com.microsoft; what lower-qdq makes of DequantizeLinear -> AveragePool ->
// QuantizeLinear): per window the int32 sum of (x - x_zero_point) over the taps inside the input
// (padding adds zeros, as the float op's), times x_scale / (y_scale * count) rounded once
// (quant_detail::scale_round), plus y_zero_point, saturated. count is the window's divisor as
// avgpool_ref's (with count_include_pad the taps inside the input or the declared padding, else
// those inside the input); it ranges over [min_count, max_count], and scales[count - min_count]
// is that count's multiplier, computed at compile time: no float or division at run time. A
// window with no tap yields y_zero_point (the float op's 0). The geometry is PoolParams'
// (onnxc/pool.h): 1 to 3 spatial dims, x and y NCHW.
struct QAvgPoolParams {
  PoolParams pool;
  int32_t x_zero_point, y_zero_point;
  index_t min_count, max_count;
};

template <typename T>
inline void qlinear_avgpool_ref(const QAvgPoolParams& p, const QScale* scales, const T* x, T* y) {
  pool_detail::pool_each(
      p.pool, x, y,
      [&](index_t, const T* xc, const pool_detail::Window& w, index_t od, index_t oh, index_t ow) {
        int32_t sum = 0;
        pool_detail::for_each_tap(p.pool, w, od, oh, ow,
                                  [&](index_t at) { sum += int32_t{xc[at]} - p.x_zero_point; });
        const index_t count = p.pool.count_include_pad ? w.padded_count : w.count;
        const int64_t v = count < p.min_count || count > p.max_count
                              ? 0
                              : quant_detail::scale_round(sum, scales[count - p.min_count]);
        return quant_detail::saturate8<T>(v, p.y_zero_point);
      });
}

}  // namespace onnxc

#endif  // ONNXC_QUANTIZE_H
