// int8 convolution variants of the table in onnxc/variants.h (families "qconv" and "qdwconv"):
// QLinearConv with int8 x, w and y, weights symmetric (zero point 0), x and y quantized per
// tensor, and every requantization constant known at compile time. Their outputs equal
// qlinear_conv_ref's (onnxc/quantize.h) bit for bit.
//
// What the compiler prepares (the same functions, run by pack-weights and by the tester):
//   qconv_channels()      one row of QConvChannelWord per output channel: the bias with the
//                         input zero point's share folded in (bias - x_zp * sum(w), so the inner
//                         loops multiply raw int8 values; padding reads x_zp), and the multiplier
//                         x_scale * w_scale / y_scale as mantissa * 2^-shift
//   pack_qconv_weights()  the weights as [M rounded up to 2][K rounded up to 4] int8, rows in
//                         pairs interleaved per group of 4, each group stored as (w0, w2, w1,
//                         w3): one 32-bit load and two SXTB16 give the int16 pairs (w0, w1) and
//                         (w2, w3) that SMLAD multiplies
//
//   s8_qconv_2x2__scalar, s8_qconv_2x2__dsp
//       any group-1 2-D convolution as the product of the packed weights [M, K] (K = C*KH*KW)
//       by columns of the input gathered two output positions at a time into int16 (padding
//       taps read x_zero_point, which the folded bias cancels); 2 output channels x 2 positions
//       per step, 4 int32 accumulators. __dsp (Arm DSP extension: Cortex-M4, M7, M33) does two
//       multiply-adds per SMLAD. Scratch: qconv_scratch_bytes(p), the two columns interleaved.
//   s8_qdwconv_3x3__dsp, s8_qdwconv_3x3__scalar, s8_qdwconv_any__scalar
//       depthwise (group = C = M, at most kQDwMaxWindowRows window rows), natural weight layout;
//       each channel's input is copied, padded with x_zero_point, into the whole padded plane or
//       (p.dw_rows: the compiler's choice) a ring of the rows one output row's windows span
//       (scratch: qdwconv_scratch_bytes(p)), so every window is read without bounds checks (3x3:
//       unrolled, the 9 weights in registers). __dsp keeps the rows in int16 and does each
//       window row as one SMLAD (taps 0, 1) and one multiply-add.
// The Helium (__mve) rows are in onnxc/qconv_variants_mve.h; their layouts are prepared here.
// No heap; stack below 256 bytes.
#ifndef ONNXC_QCONV_VARIANTS_H
#define ONNXC_QCONV_VARIANTS_H

#include <cstdint>
#include <cstring>

#include "onnxc/base.h"
#include "onnxc/conv.h"  // ConvParams
#include "onnxc/quantize.h"

#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>
#endif
#if defined(__ARM_FEATURE_MVE)
#include <arm_mve.h>  // (the plane and row copies of the int8 rows)
#endif

namespace onnxc {

// The fixed part of an int8 convolution: geometry (2-D as 3-D with a unit leading dim) and the
// per-tensor zero points.
struct QConvS8Params {
  ConvParams conv;
  index_t k;             // the products per output: c_in / group * KH * KW
  index_t k_padded;      // k rounded up to 4: a packed weight row
  int32_t x_zero_point;  // what padding taps read
  int32_t y_zero_point;
  int32_t y_min;  // -128, or y_zero_point under a fused Relu
  // Depthwise: the padded input rows the scratch holds, chosen by the compiler: the whole padded
  // plane (qdw_plane_rows), or a ring of the rows one output row's windows span (qdw_ring_rows).
  index_t dw_rows;
  // Whether some output can be an exact half step (qconv_ties_possible): only then do the
  // kernels check for ties, which round to even. The variants take it (and, depthwise, whether
  // dw_rows is the whole plane) as template arguments as well, so that only one form is built.
  bool ties;
};

// One output channel's constants, kQConvChannelWords int32: the accumulator starts at the folded
// bias, and acc * multiplier * 2^-shift, rounded half to even, plus y_zero_point, saturated, is
// the output. The multiplier is normalized to [2^30, 2^31) and the shift lies in [33, 62], so the
// product is one 32x32->64-bit multiply whose high word, shifted by shift - 32, is the result;
// half a step, 2^(shift-1), is 2^(shift-33) in that high word (the low word is 0).
enum QConvChannelWord : int { kFoldedBias, kMultiplier, kHighShift, kHalfHigh };
constexpr index_t kQConvChannelWords = 4;

// ---- Compile-time preparation -----------------------------------------------------------------

namespace qconv_detail {

// The reference's multiplier (quant_detail::fixed_multiplier: a 24-bit mantissa in [2^23, 2^24)
// times 2^-shift) with the mantissa moved to [2^30, 2^31): the same value.
constexpr int kMantissaShift = 7;
inline quant_detail::FixedMultiplier channel_multiplier(float x_scale, float w_scale,
                                                        float y_scale) {
  quant_detail::FixedMultiplier f =
      quant_detail::fixed_multiplier(quant_detail::multiplier<float>(x_scale, w_scale, y_scale));
  f.mantissa <<= kMantissaShift;
  f.shift += kMantissaShift;
  return f;
}

}  // namespace qconv_detail

// Whether the multiplier x_scale * w_scale / y_scale is one the variants compute exactly:
// positive, finite, below 1/4 and above 2^-55 (others take qlinear_conv_ref).
inline bool qconv_multiplier_fits(float x_scale, float w_scale, float y_scale) {
  const quant_detail::FixedMultiplier f =
      qconv_detail::channel_multiplier(x_scale, w_scale, y_scale);
  return f.finite && !f.big && f.mantissa > 0 && f.shift >= 33 && f.shift <= 62;
}

// A channel row's requantization words from its multiplier (qconv_multiplier_fits: shift in
// [33, 62]).
inline void set_channel_multiplier(int32_t* row, const quant_detail::FixedMultiplier& f) {
  row[kMultiplier] = static_cast<int32_t>(f.mantissa);
  row[kHighShift] = f.shift - 32;
  row[kHalfHigh] = static_cast<int32_t>(uint32_t{1} << (f.shift - 33));
}

// Rows of QConvChannelWord (kQConvChannelWords int32 each) for channels 0..m_padded-1 (those past
// c_out are zero). bias may be null; w_scale has 1 or c_out values.
inline void qconv_channels(const QConvS8Params& p, const int8_t* w, const int32_t* bias,
                           float x_scale, const float* w_scale, bool w_scale_per_channel,
                           float y_scale, index_t m_padded, int32_t* out) {
  for (index_t m = 0; m < m_padded; ++m) {
    int32_t* row = out + m * kQConvChannelWords;
    row[0] = row[1] = row[2] = row[3] = 0;
    if (m >= p.conv.c_out) continue;
    uint32_t sum = 0;
    for (index_t j = 0; j < p.k; ++j) sum += static_cast<uint32_t>(int32_t{w[m * p.k + j]});
    const uint32_t b = bias ? static_cast<uint32_t>(bias[m]) : 0u;
    const quant_detail::FixedMultiplier f =
        qconv_detail::channel_multiplier(x_scale, w_scale[w_scale_per_channel ? m : 0], y_scale);
    row[kFoldedBias] = static_cast<int32_t>(b - static_cast<uint32_t>(p.x_zero_point) * sum);
    set_channel_multiplier(row, f);
  }
}

// Whether some output of the convolution can be an exact half step before rounding. The sum
// acc * multiplier + 2^(shift-1) ends in `shift` zero bits only when acc * multiplier has exactly
// shift - 1 trailing zeros, that is when acc has shift - 1 - ctz(multiplier) of them: impossible
// for a non-zero |acc| below 2^that. |acc| <= |folded bias| + k * 128 * 128 (raw int8 products).
inline bool qconv_ties_possible(const QConvS8Params& p, const int32_t* channels,
                                index_t channel_count) {
  for (index_t m = 0; m < channel_count; ++m) {
    const int32_t* row = channels + m * kQConvChannelWords;
    const int64_t bias = row[kFoldedBias];
    const int64_t bound = (bias < 0 ? -bias : bias) + int64_t{p.k} * 128 * 128;
    uint32_t multiplier = static_cast<uint32_t>(row[kMultiplier]);
    int zeros = 0;
    for (; multiplier && !(multiplier & 1u); multiplier >>= 1) ++zeros;
    const int tie_zeros = row[kHighShift] + 32 - 1 - zeros;  // acc's trailing zeros at a tie
    if (bound >= (int64_t{1} << 31) || tie_zeros < 0 || tie_zeros > 62 ||
        bound >= (int64_t{1} << tie_zeros))
      return true;
  }
  return false;
}

// Packed weights: rows in pairs (m_padded even); per pair, per group of 4 reduction steps, the 4
// bytes of the first row then the 4 of the second, each group as (w0, w2, w1, w3); zero padding
// past c_out and k. One pointer walks a pair's row (8 bytes per group: one LDRD).
inline void pack_qconv_weights(const QConvS8Params& p, const int8_t* w, index_t m_padded,
                               int8_t* out) {
  static constexpr int kOrder[4] = {0, 2, 1, 3};  // packed slot -> weight within the group
  for (index_t m = 0; m < m_padded; ++m)
    for (index_t j = 0; j < p.k_padded; ++j) {
      const index_t from = j - j % 4 + kOrder[j % 4];
      const index_t at = (m / 2 * p.k_padded + j - j % 4) * 2 + m % 2 * 4 + j % 4;
      out[at] = m < p.conv.c_out && from < p.k ? w[m * p.k + from] : int8_t{0};
    }
}

inline index_t qconv_padded_channels(const QConvS8Params& p) {
  return (p.conv.c_out + 1) / 2 * 2;
}

// Scratch of s8_qconv_2x2: two int16 columns of k_padded.
inline index_t qconv_scratch_bytes(const QConvS8Params& p) {
  return 2 * p.k_padded * static_cast<index_t>(sizeof(int16_t));
}

// The width of the depthwise variants' padded rows: leading padding, the input, and as much
// trailing padding as the last window reaches.
inline index_t qdw_plane_width(const QConvS8Params& p) {
  const ConvParams& c = p.conv;
  const index_t reach = (c.out[2] - 1) * c.stride[2] + (c.kernel[2] - 1) * c.dilation[2] + 1;
  return reach > c.pad[2] + c.in[2] ? reach : c.pad[2] + c.in[2];
}
// The depthwise variants take windows of at most this many rows (describe_kernel_query's limit).
constexpr index_t kQDwMaxWindowRows = 16;
// The rows of the whole padded plane: leading padding, the input, and as many trailing rows as
// the last window reaches.
inline index_t qdw_plane_rows(const QConvS8Params& p) {
  const ConvParams& c = p.conv;
  const index_t reach = (c.out[1] - 1) * c.stride[1] + (c.kernel[1] - 1) * c.dilation[1] + 1;
  return reach > c.pad[1] + c.in[1] ? reach : c.pad[1] + c.in[1];
}
// The padded rows one output row's windows span: the ring the depthwise variants keep when the
// scratch does not hold the whole plane.
inline index_t qdw_ring_rows(const QConvS8Params& p) {
  return (p.conv.kernel[1] - 1) * p.conv.dilation[1] + 1;
}
// Scratch of s8_qdwconv_*: dw_rows padded rows of `element_bytes` each (2: the dsp rows keep
// int16 rows for SMLAD; 1: the scalar rows).
inline index_t qdwconv_scratch_bytes(const QConvS8Params& p, index_t element_bytes) {
  return (p.dw_rows * qdw_plane_width(p) * element_bytes + 3) / 4 * 4;
}

// ---- The Helium (MVE) rows' layouts -----------------------------------------------------------
// s8_qconv_4x2__mve: k_padded is k rounded up to 16 (qconv_k_padded_mve), the channels M rounded
// up to 4 (the channel table too: qconv_channels with that many rows).
inline index_t qconv_k_padded_mve(index_t k) {
  return (k + 15) / 16 * 16;
}
inline index_t qconv_padded_channels_mve(const QConvS8Params& p) {
  return (p.conv.c_out + 3) / 4 * 4;
}
// The weights as [m_padded / 4][k_padded / 16][4][16]: per group of 4 rows and 16 reduction
// steps, each row's 16 bytes in turn (one pointer walks a group: 64 bytes per step); zero padding
// past c_out and k.
inline void pack_qconv_weights_mve(const QConvS8Params& p, const int8_t* w, index_t m_padded,
                                   int8_t* out) {
  for (index_t m = 0; m < m_padded; ++m)
    for (index_t j = 0; j < p.k_padded; ++j) {
      const index_t at = (m / 4 * p.k_padded + j - j % 16) * 4 + m % 4 * 16 + j % 16;
      out[at] = m < p.conv.c_out && j < p.k ? w[m * p.k + j] : int8_t{0};
    }
}
// Scratch of s8_qconv_4x2__mve: two int8 columns of k_padded, and 16 bytes the gather's last
// vector store may write past them.
inline index_t qconv_scratch_bytes_mve(const QConvS8Params& p) {
  return 2 * p.k_padded + 16;
}
// Scratch of s8_qdwconv_3x3__mve: int8 rows, and slack for the reads of a row's last vector past
// its last window (3 more outputs' windows).
// With the whole plane, the outputs of every padded column (qdwconv_flat_mve) follow: out_h rows
// of the plane's width, and a vector's overrun.
inline index_t qdwconv_scratch_bytes_mve(const QConvS8Params& p) {
  const index_t rows = qdwconv_scratch_bytes(p, 1) + (3 * p.conv.stride[2] + 3) / 4 * 4 + 4;
  if (p.dw_rows != qdw_plane_rows(p)) return rows;
  return rows + (p.conv.out[1] * qdw_plane_width(p) + 4 + 3) / 4 * 4;
}

namespace qconv_detail {

// round_half_even(acc * multiplier * 2^-shift) + y_zero_point, clamped to [y_min, 127]: the
// value quant_detail::requantize<int8_t> computes (then a fused Relu's clamp). The product plus
// half a step is one multiply-accumulate (SMLAL on Arm) and its high word shifted by r = shift -
// 32 (1..30) rounds half up; a tie (the sum's low `shift` bits all zero) rounds to the even
// neighbour instead, by clearing bit 0 of the half-up result. About ten 32-bit instructions.
// A channel's constants are read once into a Requant (the int8 stores of the loops that use it
// may alias the channel table, so reading it per output would reload it).
struct Requant {
  int32_t multiplier;
  int r;         // shift - 32
  int64_t half;  // 2^(shift-1)
  int32_t y_zero_point, y_min;
};

ONNXC_ALWAYS_INLINE Requant requant_of(const int32_t* channel, int32_t y_zero_point,
                                       int32_t y_min) {
  const uint64_t half = uint64_t{static_cast<uint32_t>(channel[kHalfHigh])} << 32;
  return {channel[kMultiplier], channel[kHighShift], static_cast<int64_t>(half), y_zero_point,
          y_min};
}

// kTies false: the compiler proved no output is an exact half (params.ties), so half up is
// half to even and the check is left out.
template <bool kTies>
ONNXC_ALWAYS_INLINE int8_t requantize(int32_t acc, const Requant& q) {
  const int64_t sum = static_cast<int64_t>(acc) * q.multiplier + q.half;
  const uint32_t hi = static_cast<uint32_t>(static_cast<uint64_t>(sum) >> 32);
  int32_t v = static_cast<int32_t>(hi) >> q.r;
  if constexpr (kTies) {
    const uint32_t lo = static_cast<uint32_t>(sum);
    if (lo == 0 && (hi << (32 - q.r)) == 0) v &= ~1;  // a tie: half up -> half to even
  }
  v += q.y_zero_point;
  return static_cast<int8_t>(v < q.y_min ? q.y_min : v > 127 ? 127 : v);
}

// The int16 columns of output positions o0 and o1 (row-major over the output plane), interleaved
// per group of 4 reduction steps: cols[8g + 4c + i] is step 4g + i of column c. Steps are ordered
// as the weights (channel, kh, kw); padding taps read x_zero_point; steps past k are zero.
inline index_t interleaved(index_t j, int column) {
  return (j - j % 4) * 2 + column * 4 + j % 4;
}

inline void gather_column(const QConvS8Params& p, const int8_t* x, index_t o, int column,
                          int16_t* cols) {
  const ConvParams& c = p.conv;
  const index_t oh = o / c.out[2], ow = o % c.out[2];
  const index_t ih0 = oh * c.stride[1] - c.pad[1], iw0 = ow * c.stride[2] - c.pad[2];
  const index_t plane = c.in[1] * c.in[2];
  index_t j = 0;
  for (index_t ch = 0; ch < c.c_in; ++ch)
    for (index_t kh = 0; kh < c.kernel[1]; ++kh) {
      const index_t ih = ih0 + kh * c.dilation[1];
      const bool row_in = ih >= 0 && ih < c.in[1];
      const int8_t* src = x + ch * plane + ih * c.in[2];
      for (index_t kw = 0; kw < c.kernel[2]; ++kw, ++j) {
        const index_t iw = iw0 + kw * c.dilation[2];
        cols[interleaved(j, column)] =
            row_in && iw >= 0 && iw < c.in[2] ? src[iw] : static_cast<int16_t>(p.x_zero_point);
      }
    }
  for (; j < p.k_padded; ++j) cols[interleaved(j, column)] = 0;
}

// Both columns. A pointwise convolution without padding or stride reads position o at x + o of
// each channel plane: one strided walk fills both.
inline void gather_columns(const QConvS8Params& p, const int8_t* x, index_t o0, index_t o1,
                           int16_t* cols) {
  const ConvParams& c = p.conv;
  const bool direct = c.kernel[1] == 1 && c.kernel[2] == 1 && c.stride[1] == 1 &&
                      c.stride[2] == 1 && c.pad[1] == 0 && c.pad[2] == 0 && c.out[1] == c.in[1] &&
                      c.out[2] == c.in[2];
  if (!direct) {
    gather_column(p, x, o0, 0, cols);
    gather_column(p, x, o1, 1, cols);
    return;
  }
  const index_t plane = c.in[1] * c.in[2], gap = o1 - o0;
  const int8_t* src = x + o0;
  index_t j = 0;
  for (; j < c.c_in; ++j, src += plane) {
    int16_t* at = cols + interleaved(j, 0);
    at[0] = src[0];
    at[4] = src[gap];
  }
  for (; j < p.k_padded; ++j) cols[interleaved(j, 0)] = cols[interleaved(j, 1)] = 0;
}

// acc[2 * r + c] += row r . column c over k_padded steps, from a packed row pair (8 bytes per
// group) and the interleaved columns (8 int16 per group).
struct Tile2x2Scalar {
  ONNXC_ALWAYS_INLINE static void run(const int8_t* w, const int16_t* cols, index_t k_padded,
                                      uint32_t* acc) {
    uint32_t a00 = acc[0], a01 = acc[1], a10 = acc[2], a11 = acc[3];
    for (index_t g = 0; g < k_padded; g += 4, w += 8, cols += 8) {
      // packed (w0, w2, w1, w3) -> natural order
      const int32_t u0 = w[0], u1 = w[2], u2 = w[1], u3 = w[3];
      const int32_t v0 = w[4], v1 = w[6], v2 = w[5], v3 = w[7];
      const int32_t x0 = cols[0], x1 = cols[1], x2 = cols[2], x3 = cols[3];
      const int32_t y0 = cols[4], y1 = cols[5], y2 = cols[6], y3 = cols[7];
      a00 += static_cast<uint32_t>(u0 * x0 + u1 * x1 + u2 * x2 + u3 * x3);
      a01 += static_cast<uint32_t>(u0 * y0 + u1 * y1 + u2 * y2 + u3 * y3);
      a10 += static_cast<uint32_t>(v0 * x0 + v1 * x1 + v2 * x2 + v3 * x3);
      a11 += static_cast<uint32_t>(v0 * y0 + v1 * y1 + v2 * y2 + v3 * y3);
    }
    acc[0] = a00, acc[1] = a01, acc[2] = a10, acc[3] = a11;
  }
};

#if defined(__ARM_FEATURE_DSP)
// The same with SMLAD: per group, two words of weights (one per row) each give two int16 pairs by
// SXTB16 (even bytes) and SXTB16 ROR 8 (odd bytes); two words per column; 8 SMLAD do the 16
// multiply-adds. The accumulators wrap as the reference's do.
struct Tile2x2Dsp {
  static uint32_t load32(const void* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  // SXTB16 of the word rotated by 8: the odd bytes (GCC 12's arm_acle.h has no __sxtb16 with a
  // rotation, and does not fold a separate rotate into it).
  ONNXC_ALWAYS_INLINE static int16x2_t sxtb16_ror8(uint32_t v) {
    int16x2_t r;
    __asm("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(v));
    return r;
  }
  ONNXC_ALWAYS_INLINE static void run(const int8_t* w, const int16_t* cols, index_t k_padded,
                                      uint32_t* acc) {
    int32_t a00 = static_cast<int32_t>(acc[0]), a01 = static_cast<int32_t>(acc[1]);
    int32_t a10 = static_cast<int32_t>(acc[2]), a11 = static_cast<int32_t>(acc[3]);
    const int8_t* const end = w + 2 * k_padded;
    for (; w != end; w += 8, cols += 8) {
      const uint32_t u = load32(w), v = load32(w + 4);
      const int16x2_t u_lo = __sxtb16(u), u_hi = sxtb16_ror8(u);
      const int16x2_t v_lo = __sxtb16(v), v_hi = sxtb16_ror8(v);
      const int16x2_t x_lo = load32(cols), x_hi = load32(cols + 2);
      a00 = __smlad(u_lo, x_lo, a00);
      a10 = __smlad(v_lo, x_lo, a10);
      a00 = __smlad(u_hi, x_hi, a00);
      a10 = __smlad(v_hi, x_hi, a10);
      const int16x2_t y_lo = load32(cols + 4), y_hi = load32(cols + 6);
      a01 = __smlad(u_lo, y_lo, a01);
      a11 = __smlad(v_lo, y_lo, a11);
      a01 = __smlad(u_hi, y_hi, a01);
      a11 = __smlad(v_hi, y_hi, a11);
    }
    acc[0] = static_cast<uint32_t>(a00), acc[1] = static_cast<uint32_t>(a01);
    acc[2] = static_cast<uint32_t>(a10), acc[3] = static_cast<uint32_t>(a11);
  }
};
#endif

// One tile: rows x columns (each 1 or 2) of the 2 channels x 2 positions it computes are real
// and stored (y0: channel 0, position 0; the next channel is `positions` further). The full
// tile passes constants, so its stores have no conditions.
template <typename Tile, bool kTies>
ONNXC_ALWAYS_INLINE void qconv_tile(const int8_t* w, const int16_t* cols, index_t k_padded,
                                    const int32_t* ch0, int8_t* y0, index_t positions,
                                    int32_t y_zero_point, int32_t y_min, int rows, int columns) {
  const int32_t* ch1 = ch0 + kQConvChannelWords;
  const uint32_t bias0 = static_cast<uint32_t>(ch0[kFoldedBias]);
  const uint32_t bias1 = static_cast<uint32_t>(ch1[kFoldedBias]);
  uint32_t acc[4] = {bias0, bias0, bias1, bias1};
  Tile::run(w, cols, k_padded, acc);
  const Requant q0 = requant_of(ch0, y_zero_point, y_min);
  y0[0] = requantize<kTies>(static_cast<int32_t>(acc[0]), q0);
  if (columns == 2) y0[1] = requantize<kTies>(static_cast<int32_t>(acc[1]), q0);
  if (rows == 2) {  // (the pad row past an odd c_out has no multiplier)
    const Requant q1 = requant_of(ch1, y_zero_point, y_min);
    y0[positions] = requantize<kTies>(static_cast<int32_t>(acc[2]), q1);
    if (columns == 2) y0[positions + 1] = requantize<kTies>(static_cast<int32_t>(acc[3]), q1);
  }
}

// The convolution as packed weights x gathered columns, 2 channels x 2 positions per tile. An odd
// last position gathers its column twice; an odd last channel computes the zero pad row; only
// real outputs are stored.
template <typename Tile, bool kTies>
inline void qconv_2x2_tiles(const QConvS8Params& params, const int8_t* x, const int8_t* w,
                            const int32_t* channels, int8_t* y, void* scratch) {
  // Locals, not reads of params: the int8 stores below may alias anything (and a copy of the
  // whole struct would cost a microcontroller kernel's stack).
  const ConvParams& c = params.conv;
  const index_t positions = c.out[1] * c.out[2], plane = c.in[1] * c.in[2];
  const index_t batch = c.batch, c_in = c.c_in, c_out = c.c_out, k_padded = params.k_padded;
  const index_t full_pairs = c_out / 2, pair_step = 2 * kQConvChannelWords;
  const int32_t y_zero_point = params.y_zero_point, y_min = params.y_min;
  int16_t* cols = static_cast<int16_t*>(scratch);
  for (index_t n = 0; n < batch; ++n) {
    const int8_t* xn = x + n * c_in * plane;
    int8_t* yn = y + n * c_out * positions;
    for (index_t o = 0; o < positions; o += 2) {
      const int columns = o + 1 < positions ? 2 : 1;
      gather_columns(params, xn, o, o + columns - 1, cols);
      const int8_t* wp = w;
      const int32_t* ch = channels;
      int8_t* yp = yn + o;
      if (columns == 2) {
        for (index_t i = 0; i < full_pairs; ++i) {
          qconv_tile<Tile, kTies>(wp, cols, k_padded, ch, yp, positions, y_zero_point, y_min, 2, 2);
          wp += 2 * k_padded, ch += pair_step, yp += 2 * positions;
        }
      } else {
        for (index_t i = 0; i < full_pairs; ++i) {
          qconv_tile<Tile, kTies>(wp, cols, k_padded, ch, yp, positions, y_zero_point, y_min, 2, 1);
          wp += 2 * k_padded, ch += pair_step, yp += 2 * positions;
        }
      }
      if (c_out % 2)
        qconv_tile<Tile, kTies>(wp, cols, k_padded, ch, yp, positions, y_zero_point, y_min, 1,
                                columns);
    }
  }
}

// Loads row `r` of a depthwise channel's padded plane (the input plane with its padding filled
// with x_zero_point, so every window reads it unchecked and the folded bias cancels the padding)
// into `dst`. T: int8_t, or int16_t for windows that multiply int16 pairs. Its geometry is read
// from the params once per call of the kernel.
template <typename T>
struct PlaneRows {
  index_t width, left, in_w, in_h, top;
  T zero_point;

  explicit PlaneRows(const QConvS8Params& p)
      : width(qdw_plane_width(p)),
        left(p.conv.pad[2]),
        in_w(p.conv.in[2]),
        in_h(p.conv.in[1]),
        top(p.conv.pad[1]),
        zero_point(static_cast<T>(p.x_zero_point)) {}

  ONNXC_ALWAYS_INLINE void load(const int8_t* xc, index_t r, T* dst) const {
    const index_t ih = r - top;
#if defined(__ARM_FEATURE_MVE)
    if constexpr (sizeof(T) == 1) {  // (the mve rows) 16 bytes per predicated vector store
      const bool inside = ih >= 0 && ih < in_h;
      const int8x16_t fill = vdupq_n_s8(zero_point);
      for (index_t j = 0; j < width; j += 16)  // padding first; the input row over it
        vstrbq_p_s8(dst + j, fill, vctp8q(static_cast<uint32_t>(width - j)));
      if (!inside) return;
      const int8_t* src = xc + ih * in_w;
      for (index_t j = 0; j < in_w; j += 16) {
        const mve_pred16_t bytes = vctp8q(static_cast<uint32_t>(in_w - j));
        vstrbq_p_s8(dst + left + j, vldrbq_z_s8(src + j, bytes), bytes);
      }
      return;
    }
#endif
    if (ih < 0 || ih >= in_h) {
      for (index_t j = 0; j < width; ++j) dst[j] = zero_point;
      return;
    }
    const int8_t* src = xc + ih * in_w;
    for (index_t j = 0; j < left; ++j) dst[j] = zero_point;
    for (index_t j = 0; j < in_w; ++j) dst[left + j] = static_cast<T>(src[j]);
    for (index_t j = left + in_w; j < width; ++j) dst[j] = zero_point;
  }
};

// The window sum of a KxK depthwise channel in plain C++ (KH, KW > 0: unrolled, the weights in
// registers; 0: the params' sizes). rows[kh] is the padded row of window row kh, `col` the
// window's first column.
template <int KH, int KW>
struct DwWindowScalar {
  using Elem = int8_t;
  static constexpr int kRows = KH;  // 0: the params' height
  int32_t taps[KH > 0 ? KH* KW : 1];
  const int8_t* weights;
  index_t kh_n, kw_n, col_step;

  DwWindowScalar(const QConvS8Params& p, const int8_t* wc)
      : weights(wc),
        kh_n(KH > 0 ? KH : p.conv.kernel[1]),
        kw_n(KW > 0 ? KW : p.conv.kernel[2]),
        col_step(p.conv.dilation[2]) {
    if constexpr (KH > 0)
#pragma GCC unroll 64
      for (int t = 0; t < KH * KW; ++t) taps[t] = wc[t];
  }
  ONNXC_ALWAYS_INLINE uint32_t sum(const int8_t* const* rows, index_t col, uint32_t acc) const {
    // A fixed window's trip counts are constants: it unrolls fully and its taps stay in
    // registers (clang, not seeing the members' values, unrolled it by 8 with remainders).
    const index_t kh_end = KH > 0 ? KH : kh_n, kw_end = KW > 0 ? KW : kw_n;
#pragma GCC unroll 8
    for (index_t kh = 0; kh < kh_end; ++kh) {
      const int8_t* src = rows[kh] + col;
#pragma GCC unroll 8
      for (index_t kw = 0; kw < kw_end; ++kw) {
        const int32_t w = KH > 0 ? taps[kh * KW + kw] : int32_t{weights[kh * kw_n + kw]};
        acc += static_cast<uint32_t>(int32_t{src[kw * col_step]} * w);
      }
    }
    return acc;
  }
};

#if defined(__ARM_FEATURE_DSP)
// A 3x3 window with SMLAD: per row, the int16 pair (x0, x1) of the padded int16 row times the
// weight pair (w0, w1) in one SMLAD, then x2 * w2. Dilation 1 along the row (pairs are adjacent).
struct DwWindow3x3Dsp {
  using Elem = int16_t;
  static constexpr int kRows = 3;
  int16x2_t pairs[3];
  int32_t lasts[3];

  DwWindow3x3Dsp(const QConvS8Params&, const int8_t* wc) {
    for (int r = 0; r < 3; ++r) {
      pairs[r] = static_cast<int16x2_t>((static_cast<uint32_t>(wc[3 * r]) & 0xFFFFu) |
                                        (static_cast<uint32_t>(wc[3 * r + 1]) << 16));
      lasts[r] = wc[3 * r + 2];
    }
  }
  ONNXC_ALWAYS_INLINE uint32_t sum(const int16_t* const* rows, index_t col, uint32_t acc) const {
    int32_t a = static_cast<int32_t>(acc);
#pragma GCC unroll 3
    for (int r = 0; r < 3; ++r) {
      const int16_t* src = rows[r] + col;
      int16x2_t x;
      std::memcpy(&x, src, 4);  // unaligned where the window starts at an odd column: allowed
      a = __smlad(pairs[r], x, a);
      a += lasts[r] * src[2];
    }
    return static_cast<uint32_t>(a);
  }
};
#endif

// One output row of a depthwise channel: each output the Window's sum from the folded bias,
// requantized. Returns the next row's first output.
template <bool kTies, typename Window>
ONNXC_ALWAYS_INLINE int8_t* dw_output_row(const Window& window,
                                          const typename Window::Elem* const* rows, index_t out_w,
                                          index_t col_stride, uint32_t bias, const Requant& q,
                                          int8_t* yc) {
  for (index_t ow = 0; ow < out_w; ++ow, ++yc)
    *yc = requantize<kTies>(static_cast<int32_t>(window.sum(rows, ow * col_stride, bias)), q);
  return yc;
}

// Every depthwise channel: per output row, the padded rows its windows read are loaded into a
// ring of qdw_ring_rows rows (each plane row once: a stride-1 step loads one row), then per
// output the Window's sum from the folded bias, requantized.
template <typename Window, bool kTies>
inline void qdwconv_ring(const QConvS8Params& params, const int8_t* x, const int8_t* w,
                         const int32_t* channels, int8_t* y, void* scratch) {
  using Elem = typename Window::Elem;
  // Locals, not reads of params: the int8 stores below may alias anything.
  const ConvParams& c = params.conv;
  const index_t in_plane = c.in[1] * c.in[2], out_h = c.out[1], out_w = c.out[2];
  const index_t taps = c.kernel[1] * c.kernel[2];
  const PlaneRows<Elem> plane(params);
  const index_t width = plane.width;
  const index_t window_rows = c.kernel[1], row_dilation = c.dilation[1];
  const index_t ring_rows = params.dw_rows, row_stride = c.stride[1];
  const index_t col_stride = c.stride[2], channel_count = c.batch * c.c_out;
  const int32_t y_zero_point = params.y_zero_point, y_min = params.y_min;
  Elem* ring = static_cast<Elem*>(scratch);
  const Elem* rows[kQDwMaxWindowRows];
  for (index_t nc = 0; nc < channel_count; ++nc) {  // batch x channels (C = M: same planes)
    const index_t ch = nc % c.c_out;
    const int8_t* xc = x + nc * in_plane;
    const Window window(params, w + ch * taps);
    const int32_t* channel = channels + ch * kQConvChannelWords;
    const uint32_t bias = static_cast<uint32_t>(channel[kFoldedBias]);
    const Requant q = requant_of(channel, y_zero_point, y_min);
    int8_t* yc = y + nc * out_h * out_w;
    // Plane row r lives in ring slot r % ring_rows; the slots advance by wrapping additions.
    index_t next_row = 0, next_slot = 0;  // the next plane row to load, and its slot
    index_t first_slot = 0;               // the slot of the output row's first window row
    for (index_t oh = 0; oh < out_h; ++oh) {
      const index_t first = oh * row_stride, last = first + (window_rows - 1) * row_dilation;
      for (; next_row < first; ++next_row)  // rows a stride skips: not loaded, slots kept
        next_slot = next_slot + 1 == ring_rows ? 0 : next_slot + 1;
      for (; next_row <= last; ++next_row) {
        plane.load(xc, next_row, ring + next_slot * width);
        next_slot = next_slot + 1 == ring_rows ? 0 : next_slot + 1;
      }
      for (index_t kh = 0, slot = first_slot; kh < window_rows; ++kh) {
        rows[kh] = ring + slot * width;
        slot += row_dilation;
        if (slot >= ring_rows) slot -= ring_rows;
      }
      for (first_slot += row_stride; first_slot >= ring_rows;) first_slot -= ring_rows;
      yc = dw_output_row<kTies>(window, rows, out_w, col_stride, bias, q, yc);
    }
  }
}

// Every depthwise channel with the whole padded plane in scratch: its padding written once per
// call, each channel's input copied inside it, then per output the Window's sum over rows a
// fixed stride apart (no per-row bookkeeping: the faster form, for planes small enough).
template <typename Window, bool kTies>
inline void qdwconv_plane(const QConvS8Params& params, const int8_t* x, const int8_t* w,
                          const int32_t* channels, int8_t* y, void* scratch) {
  using Elem = typename Window::Elem;
  // Locals, not reads of params: the int8 stores below may alias anything.
  const ConvParams& c = params.conv;
  const index_t in_plane = c.in[1] * c.in[2], out_h = c.out[1], out_w = c.out[2];
  const index_t taps = c.kernel[1] * c.kernel[2], width = qdw_plane_width(params);
  const index_t plane_size = qdw_plane_rows(params) * width, in_h = c.in[1], in_w = c.in[2];
  const index_t window_rows = c.kernel[1], row_step = c.dilation[1] * width;
  const index_t row_stride = c.stride[1] * width, col_stride = c.stride[2];
  const index_t channel_count = c.batch * c.c_out;
  const int32_t y_zero_point = params.y_zero_point, y_min = params.y_min;
  Elem* plane = static_cast<Elem*>(scratch);
  Elem* inside = plane + c.pad[1] * width + c.pad[2];
  for (index_t i = 0; i < plane_size; ++i) plane[i] = static_cast<Elem>(params.x_zero_point);
  const Elem* rows[kQDwMaxWindowRows];
  for (index_t nc = 0; nc < channel_count; ++nc) {  // batch x channels (C = M: same planes)
    const index_t ch = nc % c.c_out;
    const int8_t* xc = x + nc * in_plane;
#if defined(__ARM_FEATURE_MVE)
    if constexpr (sizeof(Elem) == 1) {  // (the mve rows) 16 bytes per predicated vector copy
      for (index_t r = 0; r < in_h; ++r)
        for (index_t j = 0; j < in_w; j += 16) {
          const mve_pred16_t bytes = vctp8q(static_cast<uint32_t>(in_w - j));
          vstrbq_p_s8(reinterpret_cast<int8_t*>(inside) + r * width + j,
                      vldrbq_z_s8(xc + r * in_w + j, bytes), bytes);
        }
    } else
#endif
      for (index_t r = 0; r < in_h; ++r)
        for (index_t j = 0; j < in_w; ++j)
          inside[r * width + j] = static_cast<Elem>(xc[r * in_w + j]);
    const Window window(params, w + ch * taps);
    const int32_t* channel = channels + ch * kQConvChannelWords;
    const uint32_t bias = static_cast<uint32_t>(channel[kFoldedBias]);
    const Requant q = requant_of(channel, y_zero_point, y_min);
    int8_t* yc = y + nc * out_h * out_w;
    for (index_t kh = 0; kh < window_rows; ++kh) rows[kh] = plane + kh * row_step;
    for (index_t oh = 0; oh < out_h; ++oh) {
      yc = dw_output_row<kTies>(window, rows, out_w, col_stride, bias, q, yc);
      for (index_t kh = 0; kh < window_rows; ++kh) rows[kh] += row_stride;
    }
  }
}

// The compiler's choices (QLinearConv's use_kernel) as template arguments, so that only the form
// a model uses is compiled into it: the whole padded plane or the ring (params.dw_rows), the tie
// check or none (params.ties).
template <typename Window, bool kTies, bool kWholePlane>
inline void qdwconv(const QConvS8Params& params, const int8_t* x, const int8_t* w,
                    const int32_t* channels, int8_t* y, void* scratch) {
  if constexpr (kWholePlane)
    qdwconv_plane<Window, kTies>(params, x, w, channels, y, scratch);
  else
    qdwconv_ring<Window, kTies>(params, x, w, channels, y, scratch);
}

}  // namespace qconv_detail

// ---- The variants -------------------------------------------------------------------------------
// Template arguments: kTies = params.ties; kWholePlane = (params.dw_rows == qdw_plane_rows).

template <bool kTies>
inline void s8_qconv_2x2__scalar(const QConvS8Params& p, const int8_t* x, const int8_t* w,
                                 const int32_t* channels, int8_t* y, void* scratch) {
  qconv_detail::qconv_2x2_tiles<qconv_detail::Tile2x2Scalar, kTies>(p, x, w, channels, y, scratch);
}

#if defined(__ARM_FEATURE_DSP)
template <bool kTies>
inline void s8_qconv_2x2__dsp(const QConvS8Params& p, const int8_t* x, const int8_t* w,
                              const int32_t* channels, int8_t* y, void* scratch) {
  qconv_detail::qconv_2x2_tiles<qconv_detail::Tile2x2Dsp, kTies>(p, x, w, channels, y, scratch);
}

template <bool kTies, bool kWholePlane>
inline void s8_qdwconv_3x3__dsp(const QConvS8Params& p, const int8_t* x, const int8_t* w,
                                const int32_t* channels, int8_t* y, void* scratch) {
  using namespace qconv_detail;
  if (p.conv.dilation[2] == 1)
    qdwconv<DwWindow3x3Dsp, kTies, kWholePlane>(p, x, w, channels, y, scratch);
  else  // the row's taps are not adjacent pairs
    qdwconv<DwWindowScalar<3, 3>, kTies, kWholePlane>(p, x, w, channels, y, scratch);
}
#endif

template <bool kTies, bool kWholePlane>
inline void s8_qdwconv_3x3__scalar(const QConvS8Params& p, const int8_t* x, const int8_t* w,
                                   const int32_t* channels, int8_t* y, void* scratch) {
  qconv_detail::qdwconv<qconv_detail::DwWindowScalar<3, 3>, kTies, kWholePlane>(p, x, w, channels,
                                                                                y, scratch);
}

template <bool kTies, bool kWholePlane>
inline void s8_qdwconv_any__scalar(const QConvS8Params& p, const int8_t* x, const int8_t* w,
                                   const int32_t* channels, int8_t* y, void* scratch) {
  qconv_detail::qdwconv<qconv_detail::DwWindowScalar<0, 0>, kTies, kWholePlane>(p, x, w, channels,
                                                                                y, scratch);
}

}  // namespace onnxc

#endif  // ONNXC_QCONV_VARIANTS_H
