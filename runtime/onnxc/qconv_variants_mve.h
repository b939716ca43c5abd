// The Helium (MVE, Cortex-M55) rows of the int8 convolution families of onnxc/variants.h ("qconv",
// "qdwconv"): the same signatures, params and channel constants as qconv_variants.h's rows, and
// outputs equal to qlinear_conv_ref's bit for bit (requantization on 4 lanes: VMULH gives the high
// word that requantize<kTies> shifts, the tie check likewise). Defined only when the C++ compiler
// may use MVE (-mcpu=cortex-m55).
//
//   s8_qconv_4x2__mve
//       s8_qconv_2x2's product (qconv_variants.h) for Helium, from weights packed by
//       pack_qconv_weights_mve ([M rounded up to 4][K rounded up to 16], per group of 4 rows and
//       16 reduction steps the 16 bytes of each row in turn) and int8 columns of two output
//       positions (each K rounded up to 16, gathered with predicated vector copies, a pointwise
//       convolution's by gather loads): 4 channels x 2 positions per step, 8 VMLADAVA (16
//       multiply-adds each) per 16 steps; the 4 channels' outputs of a position requantized as
//       one vector and stored by one scatter. Scratch: qconv_scratch_bytes_mve(p).
//   s8_qdwconv_3x3__mve
//       depthwise 3x3 on int8 padded rows (NCHW: channels are planes apart, so the vector runs
//       along the plane): 4 outputs per step in int32 lanes, 9 vector-by-scalar multiply-adds
//       (VMLA), requantized as one vector. With the whole plane and stride and dilation 1 the
//       plane is read as one long row (qdwconv_flat_mve: no per-row partial vectors, which cost
//       most on the narrow planes of keyword spotting); else row by row, strided taps by gather
//       loads. Scratch: qdwconv_scratch_bytes_mve(p).
// No heap. Stack: the depthwise row's frame is about 450 bytes with the vector registers it saves
// (GCC 12 spills the window's taps and pointers), above the 256 of the other rows; the targets'
// kMaxStackBytes (compiler/ir/stack_bound.h) holds it, as run_qemu.sh checks on the M55.
#ifndef ONNXC_QCONV_VARIANTS_MVE_H
#define ONNXC_QCONV_VARIANTS_MVE_H

#include "onnxc/qconv_variants.h"

#if defined(__ARM_FEATURE_MVE)
#include <arm_mve.h>

#include <cstring>

namespace onnxc {

namespace qconv_detail {

// The ties of requantize_mve: where the product's low word `lo` and the dropped bits are both 0,
// clears bit 0 of `v` (1 where both are 0, else 0; then v - (v & that). Without a predicate:
// GCC 12 crashes on a predicated subtraction here).
ONNXC_ALWAYS_INLINE int32x4_t even_at_ties(int32x4_t v, int32x4_t lo, int32x4_t dropped) {
  const uint32x4_t one = vdupq_n_u32(1);
  const uint32x4_t tie =
      vsubq_u32(one, vminq_u32(vreinterpretq_u32_s32(vorrq_s32(lo, dropped)), one));
  return vsubq_s32(v, vandq_s32(v, vreinterpretq_s32_u32(tie)));
}

// Adds the output zero point, saturates to int8 and applies a fused Relu's floor.
ONNXC_ALWAYS_INLINE int32x4_t zero_point_and_clamp(int32x4_t v, int32_t y_zero_point,
                                                   int32x4_t y_min) {
  v = vaddq_n_s32(v, y_zero_point);
  v = vshrq_n_s32(vqshlq_n_s32(v, 24), 24);  // saturated to [-128, 127]
  return vmaxq_s32(v, y_min);
}

// requantize<kTies> on 4 int32 lanes: VMULH gives the high word of acc * multiplier, and half a
// step (whose low word is 0) adds to the high word only, so the sum's high word is that plus
// kHalfHigh; shifted right by r it rounds half up. A tie (the product's low word 0 and the high
// word's low r bits 0) drops to the even neighbour. Then the zero point and the clamp.
template <bool kTies>
ONNXC_ALWAYS_INLINE int32x4_t requantize_mve(int32x4_t acc, int32x4_t multiplier,
                                             int32x4_t half_high, int32x4_t neg_shift,
                                             int32_t y_zero_point, int32x4_t y_min) {
  const int32x4_t hi = vaddq_s32(vmulhq_s32(acc, multiplier), half_high);
  int32x4_t v = vshlq_s32(hi, neg_shift);  // a negative count shifts right (arithmetic)
  if constexpr (kTies) {
    const int32x4_t lo = vmulq_s32(acc, multiplier);
    const int32x4_t dropped = vshlq_s32(hi, vaddq_n_s32(neg_shift, 32));  // hi << (32 - r)
    v = even_at_ties(v, lo, dropped);
  }
  return zero_point_and_clamp(v, y_zero_point, y_min);
}

// The same with one channel's constants in all lanes, as scalars where MVE takes them.
template <bool kTies>
ONNXC_ALWAYS_INLINE int32x4_t requantize_mve_n(int32x4_t acc, int32x4_t multiplier,
                                               int32_t half_high, int32_t neg_shift,
                                               int32_t y_zero_point, int32x4_t y_min) {
  const int32x4_t hi = vaddq_n_s32(vmulhq_s32(acc, multiplier), half_high);
  int32x4_t v = vshlq_r_s32(hi, neg_shift);
  if constexpr (kTies) {
    const int32x4_t lo = vmulq_s32(acc, multiplier);
    const int32x4_t dropped = vshlq_r_s32(hi, neg_shift + 32);  // hi << (32 - r)
    v = even_at_ties(v, lo, dropped);
  }
  return zero_point_and_clamp(v, y_zero_point, y_min);
}

// Column `col` (k_padded int8) of output position o: the steps in the weights' order (channel,
// kh, kw), padding taps x_zero_point. The bytes from k to k_padded are left as they are (the
// packed weights there are 0), and a window row's vector copy may write up to 16 bytes past its
// taps: the next row's overwrite them, or they land in the next column or the scratch's slack.
inline void gather_column_mve(const QConvS8Params& p, const int8_t* x, index_t o, int8_t* col) {
  const ConvParams& c = p.conv;
  const index_t plane = c.in[1] * c.in[2], c_in = c.c_in;
  const bool direct = c.kernel[1] == 1 && c.kernel[2] == 1 && c.stride[1] == 1 &&
                      c.stride[2] == 1 && c.pad[1] == 0 && c.pad[2] == 0 && c.out[1] == c.in[1] &&
                      c.out[2] == c.in[2] && plane < 65536 / 8;
  if (direct) {  // position o of 8 channel planes per gather load
    const uint16x8_t offsets = vmulq_n_u16(vidupq_n_u16(0, 1), static_cast<uint16_t>(plane));
    const int8_t* src = x + o;
    for (index_t j = 0; j < c_in; j += 8, src += 8 * plane) {
      const mve_pred16_t lanes = vctp16q(static_cast<uint32_t>(c_in - j));
      vstrbq_p_s16(col + j, vldrbq_gather_offset_z_s16(src, offsets, lanes), lanes);
    }
    return;
  }
  const index_t oh = o / c.out[2], ow = o % c.out[2];
  const index_t ih0 = oh * c.stride[1] - c.pad[1], iw0 = ow * c.stride[2] - c.pad[2];
  const index_t kh_n = c.kernel[1], kw_n = c.kernel[2], dh = c.dilation[1], dw = c.dilation[2];
  const index_t in_h = c.in[1], in_w = c.in[2];
  const int8_t zero_point = static_cast<int8_t>(p.x_zero_point);
  // A window row wholly inside the input is one predicated vector copy.
  const bool row_inside = dw == 1 && kw_n <= 16 && iw0 >= 0 && iw0 + kw_n <= in_w;
  if (row_inside && ih0 >= 0 && ih0 + (kh_n - 1) * dh < in_h) {  // the window inside: no checks
    // In assembly: GCC 12 moves the loop-invariant predicate through a core register before
    // every predicated load (three more instructions a row).
    const int8_t* src = x + ih0 * in_w + iw0;
    const index_t row_step = dh * in_w;
    for (index_t ch = 0; ch < c_in; ++ch, src += plane) {
      const int8_t* row = src;
      index_t rows = kh_n;
      __asm volatile(
          "vctp.8 %[n]\n"
          "1:\n"
          "vpst\n"
          "vldrbt.8 q0, [%[row]]\n"
          "add %[row], %[row], %[step]\n"
          "vstrb.8 q0, [%[col]]\n"
          "add %[col], %[col], %[n]\n"
          "subs %[rows], %[rows], #1\n"
          "bne 1b\n"
          : [row] "+&r"(row), [col] "+&r"(col), [rows] "+&r"(rows)
          : [n] "r"(kw_n), [step] "r"(row_step)
          : "d0", "d1", "cc", "memory");  // (and P0: no predicate is live here)
    }
    return;
  }
  const mve_pred16_t taps = vctp8q(static_cast<uint32_t>(kw_n));
  index_t j = 0;
  for (index_t ch = 0; ch < c_in; ++ch)
    for (index_t kh = 0; kh < kh_n; ++kh, j += kw_n) {
      const index_t ih = ih0 + kh * dh;
      const int8_t* src = x + ch * plane + ih * in_w;
      if (ih >= 0 && ih < in_h && row_inside) {
        vstrbq_s8(col + j, vldrbq_z_s8(src + iw0, taps));
        continue;
      }
      const bool row_in = ih >= 0 && ih < in_h;
      for (index_t kw = 0; kw < kw_n; ++kw) {
        const index_t iw = iw0 + kw * dw;
        col[j + kw] = row_in && iw >= 0 && iw < in_w ? src[iw] : zero_point;
      }
    }
}

// One 4x2 tile: channels m..m+3 (a packed group of 4 rows, `w`) x the columns col0 and col1.
// y0: channel m's output at the first position; channel_offsets {0, P, 2P, 3P}. kFull: all 4
// channels are real (else `real` predicates the stores); kTwo: the second column is a position.
template <bool kTies, bool kFull, bool kTwo>
ONNXC_ALWAYS_INLINE void qconv_tile_mve(const int8_t* w, const int8_t* col0, const int8_t* col1,
                                        index_t k_padded, const int32_t* ch, int8_t* y0,
                                        uint32x4_t channel_offsets, mve_pred16_t real,
                                        int32_t y_zero_point, int32x4_t y_min) {
  int32_t a00 = 0, a10 = 0, a20 = 0, a30 = 0, a01 = 0, a11 = 0, a21 = 0, a31 = 0;
  // In assembly: GCC 12 keeps only 7 of the 8 accumulators in registers (VMLADAVA takes even
  // ones: r0, r2, ..., r12, lr) and spills the eighth in the loop. 16 instructions per 16 steps
  // (k_padded is a non-zero multiple of 16).
  const int8_t* const end = col0 + k_padded;
  __asm volatile(
      "1:\n"
      "vldrb.8 q0, [%[c0]], #16\n"
      "vldrb.8 q1, [%[c1]], #16\n"
      "vldrb.8 q2, [%[w], #16]\n"
      "vldrb.8 q3, [%[w]], #64\n"
      "vmladava.s8 %[a00], q3, q0\n"
      "vmladava.s8 %[a01], q3, q1\n"
      "vmladava.s8 %[a10], q2, q0\n"
      "vmladava.s8 %[a11], q2, q1\n"
      "vldrb.8 q2, [%[w], #-32]\n"
      "vldrb.8 q3, [%[w], #-16]\n"
      "vmladava.s8 %[a20], q2, q0\n"
      "vmladava.s8 %[a21], q2, q1\n"
      "vmladava.s8 %[a30], q3, q0\n"
      "vmladava.s8 %[a31], q3, q1\n"
      "cmp %[c0], %[end]\n"
      "bne 1b\n"
      : [a00] "+&Te"(a00), [a10] "+&Te"(a10), [a20] "+&Te"(a20), [a30] "+&Te"(a30),
        [a01] "+&Te"(a01), [a11] "+&Te"(a11), [a21] "+&Te"(a21), [a31] "+&Te"(a31),
        [c0] "+&r"(col0), [c1] "+&r"(col1), [w] "+&r"(w)
      : [end] "r"(end)
      : "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "cc", "memory");
  // The 4 channels' rows of constants, deinterleaved: bias, multiplier, shift, half.
  const int32x4x4_t k = vld4q_s32(ch);
  const int32x4_t neg_shift = vnegq_s32(k.val[kHighShift]);
  int32x4_t acc = vdupq_n_s32(a00);
  acc = vsetq_lane_s32(a10, acc, 1);
  acc = vsetq_lane_s32(a20, acc, 2);
  acc = vsetq_lane_s32(a30, acc, 3);
  int32x4_t v = requantize_mve<kTies>(vaddq_s32(acc, k.val[kFoldedBias]), k.val[kMultiplier],
                                      k.val[kHalfHigh], neg_shift, y_zero_point, y_min);
  if constexpr (kFull)
    vstrbq_scatter_offset_s32(y0, channel_offsets, v);
  else
    vstrbq_scatter_offset_p_s32(y0, channel_offsets, v, real);
  if constexpr (kTwo) {
    acc = vdupq_n_s32(a01);
    acc = vsetq_lane_s32(a11, acc, 1);
    acc = vsetq_lane_s32(a21, acc, 2);
    acc = vsetq_lane_s32(a31, acc, 3);
    v = requantize_mve<kTies>(vaddq_s32(acc, k.val[kFoldedBias]), k.val[kMultiplier],
                              k.val[kHalfHigh], neg_shift, y_zero_point, y_min);
    if constexpr (kFull)
      vstrbq_scatter_offset_s32(y0 + 1, channel_offsets, v);
    else
      vstrbq_scatter_offset_p_s32(y0 + 1, channel_offsets, v, real);
  }
}

// One position pair (kTwo) or the odd last position: every group of 4 channels.
template <bool kTies, bool kTwo>
ONNXC_ALWAYS_INLINE void qconv_positions_mve(const int8_t* w, const int8_t* col0,
                                             const int8_t* col1, index_t k_padded,
                                             const int32_t* ch, int8_t* y, index_t positions,
                                             index_t c_out, int32_t y_zero_point, int32x4_t y_min) {
  const uint32x4_t channel_offsets =
      vmulq_n_u32(vidupq_n_u32(0, 1), static_cast<uint32_t>(positions));
  const index_t full_groups = c_out / 4, group_step = 4 * kQConvChannelWords;
  for (index_t i = 0; i < full_groups; ++i) {
    qconv_tile_mve<kTies, true, kTwo>(w, col0, col1, k_padded, ch, y, channel_offsets, 0,
                                      y_zero_point, y_min);
    w += 4 * k_padded, ch += group_step, y += 4 * positions;
  }
  if (c_out % 4)
    qconv_tile_mve<kTies, false, kTwo>(w, col0, col1, k_padded, ch, y, channel_offsets,
                                       vctp32q(static_cast<uint32_t>(c_out % 4)), y_zero_point,
                                       y_min);
}

// The convolution as MVE-packed weights x int8 columns, 4 channels x 2 positions per tile; an
// odd last position computes its column twice and stores once.
template <bool kTies>
inline void qconv_4x2_tiles_mve(const QConvS8Params& params, const int8_t* x, const int8_t* w,
                                const int32_t* channels, int8_t* y, void* scratch) {
  const ConvParams& c = params.conv;
  const index_t positions = c.out[1] * c.out[2], plane = c.in[1] * c.in[2];
  const index_t batch = c.batch, c_in = c.c_in, c_out = c.c_out, k_padded = params.k_padded;
  const int32_t y_zero_point = params.y_zero_point;
  const int32x4_t y_min = vdupq_n_s32(params.y_min);
  int8_t* col0 = static_cast<int8_t*>(scratch);
  int8_t* col1 = col0 + k_padded;
  for (index_t n = 0; n < batch; ++n) {
    const int8_t* xn = x + n * c_in * plane;
    int8_t* yn = y + n * c_out * positions;
    index_t o = 0;
    for (; o + 1 < positions; o += 2) {
      gather_column_mve(params, xn, o, col0);
      gather_column_mve(params, xn, o + 1, col1);
      qconv_positions_mve<kTies, true>(w, col0, col1, k_padded, channels, yn + o, positions, c_out,
                                       y_zero_point, y_min);
    }
    if (o < positions) {
      gather_column_mve(params, xn, o, col0);
      qconv_positions_mve<kTies, false>(w, col0, col0, k_padded, channels, yn + o, positions, c_out,
                                        y_zero_point, y_min);
    }
  }
}

// A 3x3 depthwise window on int8 rows; its rows are computed 4 outputs at a time
// (dw_output_row below). kContiguous: stride and dilation 1 along the row (one widening load per
// tap), else gather loads.
template <bool kContiguous>
struct DwWindow3x3Mve {
  using Elem = int8_t;
  static constexpr int kRows = 3;
  int32_t taps[9];
  index_t col_step;

  DwWindow3x3Mve(const QConvS8Params& p, const int8_t* wc) : col_step(p.conv.dilation[2]) {
    for (int t = 0; t < 9; ++t) taps[t] = wc[t];
  }
};

// 4 outputs' window sums from `bias`: rows r0, r1, r2 at the first window's column.
template <bool kContiguous>
ONNXC_ALWAYS_INLINE int32x4_t dw_sum_mve(const int8_t* r0, const int8_t* r1, const int8_t* r2,
                                         const int32_t* taps, index_t d, uint32x4_t lanes,
                                         int32x4_t acc) {
  if constexpr (kContiguous) {
    // Dilation 1: immediate offsets (VLDRB.S32 takes r0-r7: "l"). GCC 12 computes and spills an
    // address per tap here; in assembly per tap one widening load, the tap's load and one VMLA.
    int32x4_t x;
    int32_t w;
#define ONNXC_DW_TAP(row, offset, tap)       \
  "vldrb.s32 %q[x], [%[" #row "], #" #offset \
  "]\n"                                      \
  "ldr %[w], [%[taps], #" #tap               \
  "]\n"                                      \
  "vmla.s32 %q[acc], %q[x], %[w]\n"
    __asm volatile(ONNXC_DW_TAP(r0, 0, 0) ONNXC_DW_TAP(r0, 1, 4) ONNXC_DW_TAP(r0, 2, 8)
                       ONNXC_DW_TAP(r1, 0, 12) ONNXC_DW_TAP(r1, 1, 16) ONNXC_DW_TAP(r1, 2, 20)
                           ONNXC_DW_TAP(r2, 0, 24) ONNXC_DW_TAP(r2, 1, 28) ONNXC_DW_TAP(r2, 2, 32)
                   : [acc] "+w"(acc), [x] "=&w"(x), [w] "=&r"(w)
                   : [r0] "l"(r0), [r1] "l"(r1), [r2] "l"(r2), [taps] "r"(taps)
                   : "memory");
#undef ONNXC_DW_TAP
    (void)d, (void)lanes;
  } else {
    // Gather loads: the 4 windows' taps at lanes * stride + kw * d, the three offset vectors made
    // once; in assembly for the same reason.
    const uint32x4_t o1 = vaddq_n_u32(lanes, static_cast<uint32_t>(d));
    const uint32x4_t o2 = vaddq_n_u32(lanes, static_cast<uint32_t>(2 * d));
    int32x4_t x;
    int32_t w;
#define ONNXC_DW_GATHER(row, offsets, tap)      \
  "vldrb.s32 %q[x], [%[" #row "], %q[" #offsets \
  "]]\n"                                        \
  "ldr %[w], [%[taps], #" #tap                  \
  "]\n"                                         \
  "vmla.s32 %q[acc], %q[x], %[w]\n"
    __asm volatile(ONNXC_DW_GATHER(r0, o0, 0) ONNXC_DW_GATHER(r0, o1, 4) ONNXC_DW_GATHER(r0, o2, 8)
                       ONNXC_DW_GATHER(r1, o0, 12) ONNXC_DW_GATHER(r1, o1, 16)
                           ONNXC_DW_GATHER(r1, o2, 20) ONNXC_DW_GATHER(r2, o0, 24)
                               ONNXC_DW_GATHER(r2, o1, 28) ONNXC_DW_GATHER(r2, o2, 32)
                   : [acc] "+w"(acc), [x] "=&w"(x), [w] "=&r"(w)
                   : [r0] "l"(r0), [r1] "l"(r1), [r2] "l"(r2), [taps] "r"(taps), [o0] "w"(lanes),
                     [o1] "w"(o1), [o2] "w"(o2)
                   : "memory");
#undef ONNXC_DW_GATHER
  }
  return acc;
}

// A row 8 outputs per step (two vectors; the row's last step may take one), the last vector's
// stores predicated to the row.
template <bool kTies, bool kContiguous>
ONNXC_ALWAYS_INLINE int8_t* dw_output_row(const DwWindow3x3Mve<kContiguous>& window,
                                          const int8_t* const* rows, index_t out_w,
                                          index_t col_stride, uint32_t bias, const Requant& q,
                                          int8_t* yc) {
  const int32x4_t multiplier = vdupq_n_s32(q.multiplier), y_min = vdupq_n_s32(q.y_min);
  const int32_t half_high = static_cast<int32_t>(static_cast<uint64_t>(q.half) >> 32);
  const int32_t neg_shift = -q.r, y_zero_point = q.y_zero_point;
  const int32x4_t start = vdupq_n_s32(static_cast<int32_t>(bias));
  const uint32x4_t lanes = vmulq_n_u32(vidupq_n_u32(0, 1), static_cast<uint32_t>(col_stride));
  const index_t d = window.col_step, step = 4 * col_stride;
  const int8_t *r0 = rows[0], *r1 = rows[1], *r2 = rows[2];
  int8_t* const row_end = yc + out_w;
  for (index_t left = out_w; left > 0; left -= 8, yc += 8) {
    const int32x4_t a = dw_sum_mve<kContiguous>(r0, r1, r2, window.taps, d, lanes, start);
    const int32x4_t va =
        requantize_mve_n<kTies>(a, multiplier, half_high, neg_shift, y_zero_point, y_min);
    if (left <= 4) {
      vstrbq_p_s32(yc, va, vctp32q(static_cast<uint32_t>(left)));
      break;
    }
    vstrbq_s32(yc, va);
    r0 += step, r1 += step, r2 += step;
    const int32x4_t b = dw_sum_mve<kContiguous>(r0, r1, r2, window.taps, d, lanes, start);
    const int32x4_t vb =
        requantize_mve_n<kTies>(b, multiplier, half_high, neg_shift, y_zero_point, y_min);
    if (left >= 8)
      vstrbq_s32(yc + 4, vb);
    else
      vstrbq_p_s32(yc + 4, vb, vctp32q(static_cast<uint32_t>(left - 4)));
    r0 += step, r1 += step, r2 += step;
  }
  return row_end;
}

// Every depthwise channel with the whole padded plane in scratch, stride and dilation 1: the
// outputs of all padded columns at once, the plane read as one long row (output (oh, ow) reads
// from plane offset oh * width + ow, so 4 consecutive offsets are one vector step whatever rows
// they fall in), requantized into a buffer of out_h rows of the plane's width, whose first out_w
// columns are then copied to the output. The extra columns' work beats a row-by-row walk with a
// partial last vector per row on the narrow planes of keyword-spotting nets.
template <bool kTies>
inline void qdwconv_flat_mve(const QConvS8Params& params, const int8_t* x, const int8_t* w,
                             const int32_t* channels, int8_t* y, void* scratch) {
  const ConvParams& c = params.conv;
  const index_t in_plane = c.in[1] * c.in[2], out_h = c.out[1], out_w = c.out[2];
  const index_t in_h = c.in[1], in_w = c.in[2], width = qdw_plane_width(params);
  const index_t plane_size = qdw_plane_rows(params) * width;
  const index_t flat_n = out_h * width, channel_count = c.batch * c.c_out;
  int8_t* plane = static_cast<int8_t*>(scratch);
  int8_t* flat = plane + qdwconv_scratch_bytes(params, 1) + (3 * c.stride[2] + 3) / 4 * 4 + 4;
  int8_t* inside = plane + c.pad[1] * width + c.pad[2];
  std::memset(plane, params.x_zero_point, static_cast<size_t>(plane_size));
  const int32x4_t y_min = vdupq_n_s32(params.y_min);
  const int32_t y_zero_point = params.y_zero_point;
  const uint32x4_t lanes = vidupq_n_u32(0, 1);
  const mve_pred16_t in_row = vctp8q(static_cast<uint32_t>(in_w));
  const mve_pred16_t out_row = vctp8q(static_cast<uint32_t>(out_w));
  for (index_t nc = 0; nc < channel_count; ++nc) {
    const index_t ch = nc % c.c_out;
    const int8_t* xc = x + nc * in_plane;
    if (in_w <= 16) {  // a row per predicated copy, the predicate kept
      for (index_t r = 0; r < in_h; ++r)
        vstrbq_p_s8(inside + r * width, vldrbq_z_s8(xc + r * in_w, in_row), in_row);
    } else {
      for (index_t r = 0; r < in_h; ++r)
        for (index_t j = 0; j < in_w; j += 16) {
          const mve_pred16_t bytes = vctp8q(static_cast<uint32_t>(in_w - j));
          vstrbq_p_s8(inside + r * width + j, vldrbq_z_s8(xc + r * in_w + j, bytes), bytes);
        }
    }
    int32_t taps[9];
    for (int t = 0; t < 9; ++t) taps[t] = w[ch * 9 + t];
    const int32_t* channel = channels + ch * kQConvChannelWords;
    const int32x4_t start = vdupq_n_s32(channel[kFoldedBias]);
    const int32x4_t multiplier = vdupq_n_s32(channel[kMultiplier]);
    const int32_t half_high = channel[kHalfHigh], neg_shift = -channel[kHighShift];
    const int8_t* r0 = plane;
    int8_t* f = flat;
    for (int8_t* const end = flat + flat_n; f < end; f += 4, r0 += 4) {
      const int32x4_t acc = dw_sum_mve<true>(r0, r0 + width, r0 + 2 * width, taps, 1, lanes, start);
      vstrbq_s32(
          f, requantize_mve_n<kTies>(acc, multiplier, half_high, neg_shift, y_zero_point, y_min));
    }
    int8_t* yc = y + nc * out_h * out_w;
    if (out_w <= 16) {
      for (index_t oh = 0; oh < out_h; ++oh, yc += out_w)
        vstrbq_p_s8(yc, vldrbq_z_s8(flat + oh * width, out_row), out_row);
    } else {
      for (index_t oh = 0; oh < out_h; ++oh, yc += out_w)
        for (index_t j = 0; j < out_w; j += 16) {
          const mve_pred16_t bytes = vctp8q(static_cast<uint32_t>(out_w - j));
          vstrbq_p_s8(yc + j, vldrbq_z_s8(flat + oh * width + j, bytes), bytes);
        }
    }
  }
}

}  // namespace qconv_detail

template <bool kTies>
inline void s8_qconv_4x2__mve(const QConvS8Params& p, const int8_t* x, const int8_t* w,
                              const int32_t* channels, int8_t* y, void* scratch) {
  qconv_detail::qconv_4x2_tiles_mve<kTies>(p, x, w, channels, y, scratch);
}

template <bool kTies, bool kWholePlane>
inline void s8_qdwconv_3x3__mve(const QConvS8Params& p, const int8_t* x, const int8_t* w,
                                const int32_t* channels, int8_t* y, void* scratch) {
  using namespace qconv_detail;
  if (kWholePlane && p.conv.stride[1] == 1 && p.conv.stride[2] == 1 && p.conv.dilation[1] == 1 &&
      p.conv.dilation[2] == 1)
    qdwconv_flat_mve<kTies>(p, x, w, channels, y, scratch);
  else if (p.conv.stride[2] == 1 && p.conv.dilation[2] == 1)
    qdwconv<DwWindow3x3Mve<true>, kTies, kWholePlane>(p, x, w, channels, y, scratch);
  else
    qdwconv<DwWindow3x3Mve<false>, kTies, kWholePlane>(p, x, w, channels, y, scratch);
}

}  // namespace onnxc

#endif  // __ARM_FEATURE_MVE

#endif  // ONNXC_QCONV_VARIANTS_MVE_H
