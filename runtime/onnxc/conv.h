// Convolution kernels, NCHW layout, over 1 to 3 spatial dims: 1-D and 2-D run as 3-D with
// leading unit dims (in, out, kernel, stride and dilation 1, pad 0).
//
//   Conv:          y[n, oc, o] = b[oc] + sum over the ic of oc's group and kernel taps k of
//                                x[n, ic, o * stride + k * dilation - pad] * w[oc, ic, k]
//   ConvTranspose: y[n, oc, i * stride + k * dilation - pad] gets x[n, ic, i] * w[ic, oc', k]
//                  from every input channel ic of oc's group (oc' = oc within the group), + b[oc]
//
// Taps in the padding read zero. Every variant has the signature
//   (const ConvParams& p, const T* x, const T* w, const T* b, T* y, void* scratch)
// where b may be null and scratch is the node's workspace, of the variant's *_scratch_bytes(p)
// (variants that need none ignore it). The compiler picks a variant per node from the shape:
//   conv_ref<T>                  any float type (float16 and bfloat16 are computed in float)
//   f32_dwconv_any__scalar       one input channel per group (depthwise, any multiplier): direct,
//                                on the padded plane in register blocks   [conv_dw_scratch_bytes]
//   f32_conv_8x32__scalar, f32_conv_6x16__scalar, f32_conv_4x8__scalar
//                                (the tile for the target's registers: 8 x 32 beats 12 x 32 and
//                                14 x 32 on AVX-512 (g++ 12, ResNet, MobileNet and SqueezeNet
//                                layers), 4 x 8 suits microcontrollers): anything, as a GEMM over
//                                the input (pointwise) or its patch matrix, packed block by block;
//                                8x32 is plain C++ tuned for AVX-512's registers
//                                [conv_gemm_scratch_bytes]
//   conv_transpose_ref<T>        ConvTranspose, any float type
//   f32_convtranspose_gemm__scalar<Tile>
//                                ConvTranspose: a GEMM (gemm<Tile>, see onnxc/gemm.h) per tile of
//                                input positions, then col2im      [conv_transpose_scratch_bytes]
// No heap; every buffer of a variant is in its scratch (the stack holds register tiles only).
//
// The float Conv variants (f32_conv_*, f32_dwconv_any__scalar) also have
// an overload (..., scratch, const Epilogue<Act>& e, const float* residual) that finishes each
// output element as activation(conv + bias [+ residual]) (see onnxc/gemm.h) while its tile is in
// cache; residual has Y's layout.
#ifndef ONNXC_CONV_H
#define ONNXC_CONV_H

#include <cstring>
#include <type_traits>

#include "onnxc/base.h"
#include "onnxc/conv_tiles.h"
#include "onnxc/gemm.h"
#include "onnxc/half.h"

namespace onnxc {

struct ConvParams {
  index_t batch, c_in, c_out, group;
  index_t in[3], out[3], kernel[3], stride[3], dilation[3], pad[3];  // pad: leading padding
  // The GEMM variants' tile: output positions per patch-matrix tile (Conv) or input positions
  // per column tile (ConvTranspose). conv_scratch_bytes() gives the workspace it needs.
  index_t tile;
  // The GEMM variants' depth block: patch-matrix rows packed per slice (0: kConvDepthBlock).
  // With tile, it sizes the workspace to the target's memory.
  index_t depth_block = 0;
};

namespace conv_detail {

// float16 and bfloat16 are loaded to float, computed in float and rounded once when stored.
template <typename T>
using compute_t =
    std::conditional_t<std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>, float, T>;

template <typename T>
inline compute_t<T> load(T v) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>)
    return to_float(v);
  else
    return v;
}

template <typename T>
inline T store(compute_t<T> v) {
  if constexpr (std::is_same_v<T, float16>)
    return to_float16(static_cast<double>(v));
  else if constexpr (std::is_same_v<T, bfloat16>)
    return to_bfloat16(static_cast<double>(v));
  else
    return v;
}

inline index_t volume(const index_t* d) {
  return d[0] * d[1] * d[2];
}

// A tap of the kernel: input channel (within the group) and offsets along the three dims.
struct Tap {
  index_t ic, kd, kh, kw;
  void next(const ConvParams& p) {  // the next patch-matrix row, in (ic, kd, kh, kw) order
    if (++kw < p.kernel[2]) return;
    kw = 0;
    if (++kh < p.kernel[1]) return;
    kh = 0;
    if (++kd < p.kernel[0]) return;
    kd = 0, ++ic;
  }
};

inline Tap tap_of_row(const ConvParams& p, index_t r) {
  return {r / (p.kernel[0] * p.kernel[1] * p.kernel[2]),
          r / (p.kernel[1] * p.kernel[2]) % p.kernel[0], r / p.kernel[2] % p.kernel[1],
          r % p.kernel[2]};
}

// Short copies and fills in whole vectors, then a fixed-length masked tail: compilers turn
// plain copy loops into memmove / memset calls, which cost more than these runs of a few dozen.
inline void copy_floats(float* dst, const float* src, index_t n) {
  for (; n >= kLanes; n -= kLanes, dst += kLanes, src += kLanes) {
    vfloat t;
    std::memcpy(&t, src, sizeof t);
    std::memcpy(dst, &t, sizeof t);
  }
  for (index_t i = 0; i < kLanes; ++i)
    if (i < n) dst[i] = src[i];
}
inline void zero_floats(float* dst, index_t n) {
  const vfloat zero = {};
  for (; n >= kLanes; n -= kLanes, dst += kLanes) std::memcpy(dst, &zero, sizeof zero);
  for (index_t i = 0; i < kLanes; ++i)
    if (i < n) dst[i] = 0.0f;
}

// Row `t` of the patch matrix of one group's input xg at output positions [p0, p0 + nc), the
// first at (od, oh, ow): dst[j] = tap t of position p0 + j (0 in the padding). Positions are
// walked in runs along the last output dim, where the taps are a contiguous or strided row.
inline void im2col_row(const ConvParams& p, const float* xg, const Tap& t, index_t od, index_t oh,
                       index_t ow, index_t nc, float* dst) {
  const float* xc = xg + t.ic * volume(p.in);
  const index_t off = t.kw * p.dilation[2] - p.pad[2];
  index_t w_lo, w_hi;  // outputs whose tap is inside the row
  if (p.stride[2] == 1) {
    w_lo = off < 0 ? -off : 0, w_hi = p.in[2] - off;
    if (w_hi > p.out[2]) w_hi = p.out[2];
  } else {
    steps_in_range(p.out[2], p.stride[2], off, p.in[2], &w_lo, &w_hi);
  }
  for (index_t j = 0; j < nc;) {
    const index_t run = nc - j < p.out[2] - ow ? nc - j : p.out[2] - ow, end = ow + run;
    const index_t id = od * p.stride[0] - p.pad[0] + t.kd * p.dilation[0];
    const index_t ih = oh * p.stride[1] - p.pad[1] + t.kh * p.dilation[1];
    float* d = dst + j - ow;  // d[o] for o in [ow, end)
    if (id < 0 || id >= p.in[0] || ih < 0 || ih >= p.in[1]) {
      zero_floats(d + ow, run);
    } else {
      const float* xrow = xc + (id * p.in[1] + ih) * p.in[2];
      const index_t a = w_lo < ow ? ow : w_lo > end ? end : w_lo;
      const index_t e = w_hi < a ? a : w_hi > end ? end : w_hi;
      zero_floats(d + ow, a - ow);
      if (p.stride[2] == 1) {
        copy_floats(d + a, xrow + a + off, e - a);
      } else if (p.stride[2] == 2) {  // a constant stride, so the gather vectorizes
        ONNXC_NO_GATHER_LOOP
        for (index_t o = a; o < e; ++o) d[o] = xrow[o * 2 + off];
      } else {
        for (index_t o = a; o < e; ++o) d[o] = xrow[o * p.stride[2] + off];
      }
      zero_floats(d + e, end - e);
    }
    j += run;
    ow = 0;
    if (++oh == p.out[1]) oh = 0, ++od;
  }
}

// ---- the convolution GEMM ----------------------------------------------------------------------
// Per image and group, Y[cout_g x positions] = b + W[cout_g x depth] B[depth x positions], where
// B is the input itself (pointwise convolutions) or its patch matrix. Positions go in blocks of
// p.tile; for each block and kKc-deep slice, B is packed into panels of NR positions (straight
// from the input: the patch matrix is never stored whole), then MR x NR register tiles of Y
// accumulate W rows (read in place) times a panel. The first slice starts from the bias, so Y is
// written once when the depth fits one slice.
// Default depth per slice: Y tiles are read and rewritten once per slice, so deep slices pay
// (measured best of 256 to 4608 on ResNet-18/50 and SqueezeNet, AVX-512: 7-8% faster than 256).
constexpr index_t kKc = 1152;
constexpr index_t kMc = 192;  // W rows per block
constexpr index_t kMaxNr = 32;
constexpr index_t kMaxTile = 2048;  // positions per block at most (ConvParams::tile)

// Copies nc values of src into the panels' row kk (panels[jp][kk][0..NR), kc rows per panel),
// zero past nc. Whole panels copy NR floats: a fixed size, so no library call.
template <index_t NR>
inline void to_panels(const float* src, index_t nc, index_t kk, index_t kc, float* panels) {
  index_t j = 0;
  for (; j + NR <= nc; j += NR)
    std::memcpy(panels + (j / NR * kc + kk) * NR, src + j, NR * sizeof(float));
  if (j < nc) {
    float* dst = panels + (j / NR * kc + kk) * NR;
    copy_floats(dst, src + j, nc - j);
    zero_floats(dst + (nc - j), NR - (nc - j));
  }
}

inline index_t depth_block(const ConvParams& p) {
  return p.depth_block > 0 ? p.depth_block : kKc;
}

// A pointwise convolution of one output position (squeeze-and-excitation's 1x1 convolutions on a
// 1x1 plane) is a matrix-vector product: rows [row0, row1) of W dotted with the input column, in
// vectors (the register tiles would be 1 / NR full); with AVX-512 by f32_dot_rows_avx512.
template <class Act>
inline void conv_gemv(const float* x, const float* w, const float* b, float* y, index_t depth,
                      index_t row0, index_t row1, const Epilogue<Act>& e, const float* res) {
#if defined(__AVX512F__)
  // Y preset to the bias, then gemm.h's dot products of 8 rows at a time.
  for (index_t i = row0; i < row1; ++i) y[i] = b ? b[i] : 0.0f;
  const GemmParams dots = {1,     row1 - row0, depth, 0,    1, depth,
                           depth, row1 - row0, 1.0f,  0.0f, 0, 0};
  gemm_detail::f32_dot_rows_avx512(dots, x, w + row0 * depth, y + row0, 1.0f);
  if (has_epilogue(e)) apply_epilogue(e, y + row0, res ? res + row0 : res, row1 - row0);
#else
  constexpr index_t kAccs = 4;
  for (index_t i = row0; i < row1; ++i) {
    const float* wi = w + i * depth;
    vfloat acc[kAccs] = {};
    index_t k = 0;
    for (; k + kAccs * kLanes <= depth; k += kAccs * kLanes)
      for (index_t a = 0; a < kAccs; ++a) {
        vfloat wv, xv;
        std::memcpy(&wv, wi + k + a * kLanes, sizeof wv);
        std::memcpy(&xv, x + k + a * kLanes, sizeof xv);
        acc[a] += wv * xv;
      }
    float sum = 0.0f;
    for (index_t a = 0; a < kAccs; ++a)
      for (index_t l = 0; l < kLanes; ++l) sum += acc[a][l];
    for (; k < depth; ++k) sum += wi[k] * x[k];
    y[i] = sum + (b ? b[i] : 0.0f);
    if (has_epilogue(e)) apply_epilogue(e, y + i, res ? res + i : res, 1);
  }
#endif
}

// One image and group: Y (cout_g x out positions) of the group. panels holds
// depth_block(p) x round_up(p.tile, NR) floats, buf p.tile floats.
// kParted: only positions [part->pos0, part->pos1) and channels [part->row0, part->row1) (one
// task's part, onnxc/kernels_parallel.h). Positions go in equal blocks of at most p.tile.
struct GroupPart {
  index_t pos0, pos1, row0, row1;
};

template <index_t MR, index_t NR, auto kTile, bool kParted = false, class Act>
inline void conv_gemm_group(const ConvParams& p, const float* xg, const float* w, const float* b,
                            float* y, float* panels, float* buf, const Epilogue<Act>& e,
                            const float* res, const GroupPart* part = nullptr) {
  const index_t m = p.c_out / p.group, cin_g = p.c_in / p.group;
  const index_t depth = cin_g * volume(p.kernel), positions = volume(p.out);
  const index_t plane = p.out[1] * p.out[2];
  const bool pointwise =
      depth == cin_g && volume(p.stride) == 1 && p.pad[0] + p.pad[1] + p.pad[2] == 0;
  const index_t p_begin = kParted ? part->pos0 : 0, p_end = kParted ? part->pos1 : positions;
  const index_t row0 = kParted ? part->row0 : 0, row1 = kParted ? part->row1 : m;
  if (pointwise && positions == 1) return conv_gemv(xg, w, b, y, depth, row0, row1, e, res);
  const index_t blocks = kParted ? (p_end - p_begin + p.tile - 1) / p.tile : 1;
  const index_t part_block = kParted && blocks ? (p_end - p_begin + blocks - 1) / blocks : 0;
  for (index_t p0 = p_begin; p0 < p_end; p0 += kParted ? part_block : p.tile) {
    const index_t block = kParted ? part_block : p.tile;
    const index_t nc = p_end - p0 < block ? p_end - p0 : block;
    const index_t n_panels = (nc + NR - 1) / NR;
    const index_t od = p0 / plane, oh = p0 / p.out[2] % p.out[1], ow = p0 % p.out[2];
    const index_t kc_max = depth_block(p);
    for (index_t k0 = 0; k0 < depth; k0 += kc_max) {
      const index_t kc = depth - k0 < kc_max ? depth - k0 : kc_max;
      Tap t = tap_of_row(p, k0);
      for (index_t kk = 0; kk < kc; ++kk, t.next(p)) {
        if (pointwise) {
          to_panels<NR>(xg + (k0 + kk) * positions + p0, nc, kk, kc, panels);
        } else {
          im2col_row(p, xg, t, od, oh, ow, nc, buf);
          to_panels<NR>(buf, nc, kk, kc, panels);
        }
      }
      for (index_t i0 = row0; i0 < row1; i0 += kMc) {
        const index_t i1 = row1 - i0 < kMc ? row1 : i0 + kMc;
        for (index_t jp = 0; jp < n_panels; ++jp)
          for (index_t i = i0; i < i1; i += MR) {
            const index_t mr = i1 - i < MR ? i1 - i : MR,
                          nr = nc - jp * NR < NR ? nc - jp * NR : NR;
            const index_t at = i * positions + p0 + jp * NR;
            if (jp + 1 < n_panels)  // the next panel's output lines of these rows
              for (index_t r = 0; r < mr; ++r) ONNXC_PREFETCH_WRITE(y + at + r * positions + NR);
            kTile(w + i * depth + k0, depth, panels + jp * kc * NR, kc, y + at, positions, mr, nr,
                  b ? b + i : nullptr, k0 > 0);
            if (has_epilogue(e) && k0 + kc == depth)  // the tile is final: finish it in L1
              for (index_t r = 0; r < mr; ++r)
                apply_epilogue(e, y + at + r * positions, res ? res + at + r * positions : res, nr);
          }
      }
    }
  }
}

// Floats of the packed panels of one slice, for any panel width up to kMaxNr.
constexpr index_t panel_floats(const ConvParams& p) {
  const index_t depth = p.c_in / p.group * p.kernel[0] * p.kernel[1] * p.kernel[2];
  const index_t block = p.depth_block > 0 ? p.depth_block : kKc;
  return (depth < block ? depth : block) * ((p.tile + kMaxNr - 1) / kMaxNr * kMaxNr);
}

// The GEMM panels of a ConvTranspose (see gemm_workspace_bytes): floats, rounded to 64 bytes.
constexpr index_t transpose_panel_floats(const ConvParams& p) {
  const index_t depth = p.c_in / p.group;
  const index_t block = p.depth_block > 0 ? p.depth_block : kKc;
  return (depth < block ? depth : block) * kMaxNr;
}

template <index_t MR, index_t NR, auto kTile, bool kParted = false, class Act>
inline void conv_gemm_all(const ConvParams& p, const float* x, const float* w, const float* b,
                          float* y, void* scratch, const Epilogue<Act>& e, const float* res,
                          const GroupPart* part = nullptr) {
  const index_t cin_g = p.c_in / p.group, cout_g = p.c_out / p.group;
  const index_t depth = cin_g * volume(p.kernel);
  float* const panels = static_cast<float*>(scratch);
  float* const buf = panels + panel_floats(p);  // one patch-matrix row of a position block
  for (index_t n = 0; n < p.batch; ++n)
    for (index_t g = 0; g < p.group; ++g)
      conv_gemm_group<MR, NR, kTile, kParted>(
          p, x + (n * p.c_in + g * cin_g) * volume(p.in), w + g * cout_g * depth,
          b ? b + g * cout_g : nullptr, y + (n * p.c_out + g * cout_g) * volume(p.out), panels, buf,
          e, res ? res + (n * p.c_out + g * cout_g) * volume(p.out) : res, part);
}

// The GEMM rows' convolution: in a baseline build (ONNXC_X86_ISA_DISPATCH) all of it (packing and
// epilogues too) in the CPU's copy, calls inlined but the tile's; AVX-512 takes native's 8 x 32
// tile. Every tile shape sums each output in the same order, and parts (kParted) of any shape run
// their edges as partial tiles: each copy computes what the row does with that ISA's arithmetic.
#if defined(ONNXC_X86_ISA_DISPATCH)
template <bool kParted, class Act>
__attribute__((target("avx512f,avx2,fma"), flatten, noinline, ONNXC_VECTORIZE_COPY)) void
conv_gemm_avx512f(const ConvParams& p, const float* x, const float* w, const float* b, float* y,
                  void* scratch, const Epilogue<Act>& e, const float* res, const GroupPart* part) {
  conv_gemm_all<8, 32, gemm_tile_avx512f<8, 32>, kParted>(p, x, w, b, y, scratch, e, res, part);
}
template <index_t MR, index_t NR, bool kParted, class Act>
__attribute__((target("avx2,fma"), flatten, noinline, ONNXC_VECTORIZE_COPY)) void
conv_gemm_avx2_fma(const ConvParams& p, const float* x, const float* w, const float* b, float* y,
                   void* scratch, const Epilogue<Act>& e, const float* res, const GroupPart* part) {
  conv_gemm_all<MR, NR, gemm_tile_avx2_fma<MR, NR>, kParted>(p, x, w, b, y, scratch, e, res, part);
}
#endif

template <index_t MR, index_t NR, bool kParted = false, class Act>
inline void conv_gemm_rows(const ConvParams& p, const float* x, const float* w, const float* b,
                           float* y, void* scratch, const Epilogue<Act>& e, const float* res,
                           const GroupPart* part = nullptr) {
#if defined(ONNXC_X86_ISA_DISPATCH)
  if (ONNXC_CPU_HAS_AVX512F())
    return conv_gemm_avx512f<kParted>(p, x, w, b, y, scratch, e, res, part);
  if (ONNXC_CPU_HAS_AVX2_FMA())
    return conv_gemm_avx2_fma<MR, NR, kParted>(p, x, w, b, y, scratch, e, res, part);
#endif
  conv_gemm_all<MR, NR, gemm_tile<MR, NR>, kParted>(p, x, w, b, y, scratch, e, res, part);
}

}  // namespace conv_detail

// Workspace bytes of the Conv GEMM variants for p (p.tile set, at most kMaxConvTile): one
// depth_block-deep slice of B panels for a block of positions, for any panel width up to 32,
// and one patch-matrix row of the block.
inline constexpr index_t kMaxConvTile = conv_detail::kMaxTile;
inline constexpr index_t kConvDepthBlock = conv_detail::kKc;
constexpr index_t conv_gemm_scratch_bytes(const ConvParams& p) {
  return (conv_detail::panel_floats(p) + p.tile) * static_cast<index_t>(sizeof(float));
}
// The column tile, then the GEMM's B panels (p.depth_block deep, 0: kConvDepthBlock).
constexpr index_t conv_transpose_scratch_bytes(const ConvParams& p) {
  const index_t cols = (p.c_out / p.group * p.kernel[0] * p.kernel[1] * p.kernel[2] * p.tile + 15) /
                       16 * 16;  // whole 64-byte lines, so the panels stay aligned
  return (cols + conv_detail::transpose_panel_floats(p)) * static_cast<index_t>(sizeof(float));
}

// ---- Conv --------------------------------------------------------------------------------------

template <typename T>
inline void conv_ref(const ConvParams& p, const T* x, const T* w, const T* b, T* y,
                     void* /*scratch*/) {
  using C = conv_detail::compute_t<T>;
  using conv_detail::load;
  const index_t cin_g = p.c_in / p.group, cout_g = p.c_out / p.group;
  const index_t in_size = conv_detail::volume(p.in), out_size = conv_detail::volume(p.out);
  const index_t k_size = conv_detail::volume(p.kernel);
  for (index_t n = 0; n < p.batch; ++n)
    for (index_t oc = 0; oc < p.c_out; ++oc) {
      const index_t g = oc / cout_g;
      T* yc = y + (n * p.c_out + oc) * out_size;
      for (index_t od = 0; od < p.out[0]; ++od)
        for (index_t oh = 0; oh < p.out[1]; ++oh)
          for (index_t ow = 0; ow < p.out[2]; ++ow) {
            C acc = b ? load(b[oc]) : C(0);
            for (index_t ic = 0; ic < cin_g; ++ic) {
              const T* xc = x + (n * p.c_in + g * cin_g + ic) * in_size;
              const T* wk = w + (oc * cin_g + ic) * k_size;
              for (index_t kd = 0; kd < p.kernel[0]; ++kd) {
                const index_t id = od * p.stride[0] - p.pad[0] + kd * p.dilation[0];
                if (id < 0 || id >= p.in[0]) continue;
                for (index_t kh = 0; kh < p.kernel[1]; ++kh) {
                  const index_t ih = oh * p.stride[1] - p.pad[1] + kh * p.dilation[1];
                  if (ih < 0 || ih >= p.in[1]) continue;
                  const T* xrow = xc + (id * p.in[1] + ih) * p.in[2];
                  const T* wrow = wk + (kd * p.kernel[1] + kh) * p.kernel[2];
                  for (index_t kw = 0; kw < p.kernel[2]; ++kw) {
                    const index_t iw = ow * p.stride[2] - p.pad[2] + kw * p.dilation[2];
                    if (iw < 0 || iw >= p.in[2]) continue;
                    acc += load(xrow[iw]) * load(wrow[kw]);
                  }
                }
              }
            }
            yc[(od * p.out[1] + oh) * p.out[2] + ow] = conv_detail::store<T>(acc);
          }
    }
}

// The convolution GEMM (see conv_detail::conv_gemm_group) with MR x NR register tiles: any
// group count, kernel, stride, dilation and padding; pointwise convolutions read the input in
// place. 8 x 32: 16 accumulators of AVX-512's 32 registers, and 8 divides the usual channel
// counts; 6 x 16: 12 of AVX2's 16.
template <class Act>
inline void f32_conv_8x32__scalar(const ConvParams& p, const float* x, const float* w,
                                  const float* b, float* y, void* scratch, const Epilogue<Act>& e,
                                  const float* residual) {
  conv_detail::conv_gemm_rows<8, 32>(p, x, w, b, y, scratch, e, residual);
}
inline void f32_conv_8x32__scalar(const ConvParams& p, const float* x, const float* w,
                                  const float* b, float* y, void* scratch) {
  f32_conv_8x32__scalar(p, x, w, b, y, scratch, Epilogue<>{}, nullptr);
}
template <class Act>
inline void f32_conv_6x16__scalar(const ConvParams& p, const float* x, const float* w,
                                  const float* b, float* y, void* scratch, const Epilogue<Act>& e,
                                  const float* residual) {
  conv_detail::conv_gemm_rows<6, 16>(p, x, w, b, y, scratch, e, residual);
}
inline void f32_conv_6x16__scalar(const ConvParams& p, const float* x, const float* w,
                                  const float* b, float* y, void* scratch) {
  f32_conv_6x16__scalar(p, x, w, b, y, scratch, Epilogue<>{}, nullptr);
}
// 4 x 8: 32 scalar accumulators, for microcontrollers (no vector unit, 256 bytes of kernel stack;
// measured under QEMU -icount, 4 x 8 runs the CI models in 12-16% fewer instructions than 4 x 4
// on the Cortex-M4F and 2% fewer on the M0+; 6 x 4 and the 6 x 16 vector tile are slower or
// overflow the stack limit).
template <class Act>
inline void f32_conv_4x8__scalar(const ConvParams& p, const float* x, const float* w,
                                 const float* b, float* y, void* scratch, const Epilogue<Act>& e,
                                 const float* residual) {
  conv_detail::conv_gemm_all<4, 8, conv_detail::scalar_gemm_tile<4, 8>>(p, x, w, b, y, scratch, e,
                                                                        residual);
}
inline void f32_conv_4x8__scalar(const ConvParams& p, const float* x, const float* w,
                                 const float* b, float* y, void* scratch) {
  f32_conv_4x8__scalar(p, x, w, b, y, scratch, Epilogue<>{}, nullptr);
}
// Depthwise (c_in == group, any multiplier): each output channel filters one input plane.
// The plane is first copied to scratch with its padding made explicit and split into
// stride phases (phase (a, b, c) holds the padded positions congruent to it modulo the strides),
// so each tap reads one phase at unit stride and no tap needs a bounds check. Outputs are then
// computed on the flat phase layout ("wide" rows as long as a phase's rows, the extra columns
// dropped when copied out), in register blocks of kDwVectors vectors over all taps.
namespace conv_detail {

constexpr index_t kDwVectors = 4;
// The slack past the phases and the wide outputs: the block of the widest vectors (16 floats),
// because the compiler sizes the scratch without the target's vector width (its kLanes is its
// own build's) and the kernel's blocks may be wider.
constexpr index_t kDwSlack = kDwVectors * 16;
// The widest block this build runs (what the last block may read past the phases).
#if defined(ONNXC_X86_ISA_DISPATCH)
constexpr index_t kDwWidestBlock = kDwVectors * 16;
#else
constexpr index_t kDwWidestBlock = kDwVectors * kLanes;
#endif

// Padded input extent the outputs read along dim d, and its length in one stride phase.
constexpr index_t dw_extent(const ConvParams& p, int d) {
  return (p.out[d] - 1) * p.stride[d] + (p.kernel[d] - 1) * p.dilation[d] + 1;
}
constexpr index_t dw_phase_extent(const ConvParams& p, int d) {
  return (dw_extent(p, d) + p.stride[d] - 1) / p.stride[d];
}
constexpr index_t dw_phase_floats(const ConvParams& p) {
  return dw_phase_extent(p, 0) * dw_phase_extent(p, 1) * dw_phase_extent(p, 2);
}

// Scratch layout: tap offsets (index_t), phases + kDwSlack slack (the last block reads past
// the end), then the wide outputs + kDwSlack (the last block is stored whole).
constexpr index_t dw_offsets_bytes(const ConvParams& p) {
  return (p.kernel[0] * p.kernel[1] * p.kernel[2] * static_cast<index_t>(sizeof(index_t)) + 63) /
         64 * 64;
}
constexpr index_t dw_phases_floats(const ConvParams& p) {
  return p.stride[0] * p.stride[1] * p.stride[2] * dw_phase_floats(p) + kDwSlack;
}

// Writes every phase of plane xc (padding and positions past the extent read as 0), and zeroes
// the slack, so the blocks only ever see initialized values.
inline void dw_split_phases(const ConvParams& p, const float* xc, float* xp) {
  const index_t dq = dw_phase_extent(p, 0), hq = dw_phase_extent(p, 1), wq = dw_phase_extent(p, 2);
  for (index_t a = 0; a < p.stride[0]; ++a)
    for (index_t b = 0; b < p.stride[1]; ++b)
      for (index_t c = 0; c < p.stride[2]; ++c) {
        index_t q_lo, q_hi;  // phase columns inside the input
        steps_in_range(wq, p.stride[2], c - p.pad[2], p.in[2], &q_lo, &q_hi);
        for (index_t qd = 0; qd < dq; ++qd)
          for (index_t qh = 0; qh < hq; ++qh, xp += wq) {
            const index_t id = qd * p.stride[0] + a - p.pad[0];
            const index_t ih = qh * p.stride[1] + b - p.pad[1];
            if (id < 0 || id >= p.in[0] || ih < 0 || ih >= p.in[1]) {
              for (index_t q = 0; q < wq; ++q) xp[q] = 0.0f;
              continue;
            }
            const float* src = xc + (id * p.in[1] + ih) * p.in[2] + c;  // src[q * s - pad]
            for (index_t q = 0; q < q_lo; ++q) xp[q] = 0.0f;
            if (p.stride[2] == 1) {  // common strides as constants, so the copies vectorize
              for (index_t q = q_lo; q < q_hi; ++q) xp[q] = src[q - p.pad[2]];
            } else if (p.stride[2] == 2) {
              for (index_t q = q_lo; q < q_hi; ++q) xp[q] = src[q * 2 - p.pad[2]];
            } else {
              for (index_t q = q_lo; q < q_hi; ++q) xp[q] = src[q * p.stride[2] - p.pad[2]];
            }
            for (index_t q = q_hi; q < wq; ++q) xp[q] = 0.0f;
          }
      }
  for (index_t q = 0; q < kDwWidestBlock; ++q) xp[q] = 0.0f;
}

// Offset in the phase layout of each tap, relative to the output's own position.
inline void dw_tap_offsets(const ConvParams& p, index_t* offsets) {
  const index_t hq = dw_phase_extent(p, 1), wq = dw_phase_extent(p, 2);
  for (index_t kd = 0; kd < p.kernel[0]; ++kd)
    for (index_t kh = 0; kh < p.kernel[1]; ++kh)
      for (index_t kw = 0; kw < p.kernel[2]; ++kw) {
        const index_t d = kd * p.dilation[0], h = kh * p.dilation[1], w = kw * p.dilation[2];
        const index_t phase =
            ((d % p.stride[0]) * p.stride[1] + h % p.stride[1]) * p.stride[2] + w % p.stride[2];
        *offsets++ = phase * dw_phase_floats(p) + ((d / p.stride[0]) * hq + h / p.stride[1]) * wq +
                     w / p.stride[2];
      }
}

// out[v] = bias + sum over taps t of wk[t] * src[offsets[t] + v], for v < n, in blocks of
// kDwVectors vectors of kLanes floats (the last block past n: into the slack).
template <index_t kLanes>
ONNXC_ALWAYS_INLINE void dw_blocks_lanes(const float* src, const index_t* offsets, index_t taps,
                                         const float* wk, float bias, float* out, index_t n) {
  ONNXC_CONTRACT
  typedef float vfloat __attribute__((vector_size(kLanes * sizeof(float))));
  for (index_t j = 0; j < n; j += kDwVectors * kLanes) {
    vfloat acc[kDwVectors];
    for (index_t r = 0; r < kDwVectors; ++r) acc[r] = bias - vfloat{};
    for (index_t t = 0; t < taps; ++t) {
      const float wv = wk[t];
      const float* s = src + j + offsets[t];
      for (index_t r = 0; r < kDwVectors; ++r) {
        vfloat v;
        std::memcpy(&v, s + r * kLanes, sizeof v);
        acc[r] += wv * v;
      }
    }
    std::memcpy(out + j, acc, sizeof acc);
  }
}

// The run-time ISA dispatch (ONNXC_X86_ISA_DISPATCH, see onnxc/base.h) of the blocks, at most
// kDwSlack floats each.
#if defined(ONNXC_X86_ISA_DISPATCH)
__attribute__((target("avx512f"), noinline)) ONNXC_CONTRACT_COPY_FN inline void dw_blocks_avx512f(
    const float* src, const index_t* offsets, index_t taps, const float* wk, float bias, float* out,
    index_t n) {
  dw_blocks_lanes<16>(src, offsets, taps, wk, bias, out, n);
}
__attribute__((target("avx2,fma"), noinline)) ONNXC_CONTRACT_COPY_FN inline void dw_blocks_avx2_fma(
    const float* src, const index_t* offsets, index_t taps, const float* wk, float bias, float* out,
    index_t n) {
  dw_blocks_lanes<8>(src, offsets, taps, wk, bias, out, n);
}
#endif
__attribute__((noinline)) ONNXC_CONTRACT_FN inline void dw_blocks(const float* src,
                                                                  const index_t* offsets,
                                                                  index_t taps, const float* wk,
                                                                  float bias, float* out,
                                                                  index_t n) {
#if defined(ONNXC_X86_ISA_DISPATCH)
  if (ONNXC_CPU_HAS_AVX512F()) return dw_blocks_avx512f(src, offsets, taps, wk, bias, out, n);
  if (ONNXC_CPU_HAS_AVX2_FMA()) return dw_blocks_avx2_fma(src, offsets, taps, wk, bias, out, n);
#endif
  dw_blocks_lanes<kLanes>(src, offsets, taps, wk, bias, out, n);
}

}  // namespace conv_detail

constexpr index_t conv_dw_scratch_bytes(const ConvParams& p) {
  return conv_detail::dw_offsets_bytes(p) +
         (conv_detail::dw_phases_floats(p) + conv_detail::dw_phase_floats(p) +
          conv_detail::kDwSlack) *
             static_cast<index_t>(sizeof(float));
}

template <class Act>
inline void f32_dwconv_any__scalar(const ConvParams& p, const float* x, const float* w,
                                   const float* b, float* y, void* scratch, const Epilogue<Act>& e,
                                   const float* residual) {
  const index_t multiplier = p.c_out / p.group;  // output channels per input channel
  const index_t in_size = conv_detail::volume(p.in), out_size = conv_detail::volume(p.out);
  const index_t k_size = conv_detail::volume(p.kernel);
  const index_t hq = conv_detail::dw_phase_extent(p, 1), wq = conv_detail::dw_phase_extent(p, 2);
  index_t* offsets = static_cast<index_t*>(scratch);
  float* xp = static_cast<float*>(
      static_cast<void*>(static_cast<unsigned char*>(scratch) + conv_detail::dw_offsets_bytes(p)));
  float* wide = xp + conv_detail::dw_phases_floats(p);
  conv_detail::dw_tap_offsets(p, offsets);
  // Output (od, oh, ow) is wide[(od * hq + oh) * wq + ow].
  const index_t wide_size = ((p.out[0] - 1) * hq + p.out[1] - 1) * wq + p.out[2];
  for (index_t n = 0; n < p.batch; ++n)
    for (index_t oc = 0; oc < p.c_out; ++oc) {
      if (oc % multiplier == 0)
        conv_detail::dw_split_phases(p, x + (n * p.c_in + oc / multiplier) * in_size, xp);
      const float* wk = w + oc * k_size;
      const float bias = b ? b[oc] : 0.0f;
      conv_detail::dw_blocks(xp, offsets, k_size, wk, bias, wide, wide_size);
      float* yc = y + (n * p.c_out + oc) * out_size;
      const float* rc = residual ? residual + (n * p.c_out + oc) * out_size : residual;
      for (index_t od = 0; od < p.out[0]; ++od)
        for (index_t oh = 0; oh < p.out[1]; ++oh) {
          const float* src = wide + (od * hq + oh) * wq;
          const index_t row = (od * p.out[1] + oh) * p.out[2];
          float* dst = yc + row;
          for (index_t ow = 0; ow < p.out[2]; ++ow) dst[ow] = src[ow];
          if (has_epilogue(e)) apply_epilogue(e, dst, rc ? rc + row : rc, p.out[2]);
        }
    }
}
inline void f32_dwconv_any__scalar(const ConvParams& p, const float* x, const float* w,
                                   const float* b, float* y, void* scratch) {
  f32_dwconv_any__scalar(p, x, w, b, y, scratch, Epilogue<>{}, nullptr);
}

// ---- ConvTranspose -----------------------------------------------------------------------------

// Gathers, per output position, the taps k whose input position (o + pad - k * dilation) /
// stride is whole and inside the input. w is [c_in, c_out / group, kernel...].
template <typename T>
inline void conv_transpose_ref(const ConvParams& p, const T* x, const T* w, const T* b, T* y,
                               void* /*scratch*/) {
  using C = conv_detail::compute_t<T>;
  using conv_detail::load;
  const index_t cin_g = p.c_in / p.group, cout_g = p.c_out / p.group;
  const index_t in_size = conv_detail::volume(p.in), out_size = conv_detail::volume(p.out);
  const index_t k_size = conv_detail::volume(p.kernel);
  index_t o[3], k[3], i[3];
  for (index_t n = 0; n < p.batch; ++n)
    for (index_t oc = 0; oc < p.c_out; ++oc) {
      const index_t g = oc / cout_g, m = oc % cout_g;
      for (index_t pos = 0; pos < out_size; ++pos) {
        o[0] = pos / (p.out[1] * p.out[2]), o[1] = pos / p.out[2] % p.out[1], o[2] = pos % p.out[2];
        C acc = b ? load(b[oc]) : C(0);
        for (index_t tap = 0; tap < k_size; ++tap) {
          k[0] = tap / (p.kernel[1] * p.kernel[2]), k[1] = tap / p.kernel[2] % p.kernel[1];
          k[2] = tap % p.kernel[2];
          bool inside = true;
          for (int d = 0; d < 3 && inside; ++d) {
            const index_t t = o[d] + p.pad[d] - k[d] * p.dilation[d];
            i[d] = t / p.stride[d];
            inside = t >= 0 && t % p.stride[d] == 0 && i[d] < p.in[d];
          }
          if (!inside) continue;
          const index_t at = (i[0] * p.in[1] + i[1]) * p.in[2] + i[2];
          for (index_t ic = 0; ic < cin_g; ++ic) {
            const index_t c = g * cin_g + ic;
            acc +=
                load(x[(n * p.c_in + c) * in_size + at]) * load(w[(c * cout_g + m) * k_size + tap]);
          }
        }
        y[(n * p.c_out + oc) * out_size + pos] = conv_detail::store<T>(acc);
      }
    }
}

// Per image, group and tile of p.tile input positions: cols[(m, k) x positions] =
// W_g^T X_g (a GEMM with W read transposed in place), then each column is scattered into the
// output (col2im). Y starts at the bias.
template <class Tile>
inline void f32_convtranspose_gemm__scalar(const ConvParams& p, const float* x, const float* w,
                                           const float* b, float* y, void* scratch) {
  float* cols = static_cast<float*>(scratch);
  const index_t cin_g = p.c_in / p.group, cout_g = p.c_out / p.group;
  const index_t in_size = conv_detail::volume(p.in), out_size = conv_detail::volume(p.out);
  const index_t k_size = conv_detail::volume(p.kernel), rows = cout_g * k_size;
  const index_t cols_floats = (rows * p.tile + 15) / 16 * 16;
  const Workspace ws = {cols + cols_floats, conv_detail::transpose_panel_floats(p) *
                                                static_cast<index_t>(sizeof(float))};
  for (index_t n = 0; n < p.batch; ++n) {
    for (index_t oc = 0; oc < p.c_out; ++oc) {
      float* yc = y + (n * p.c_out + oc) * out_size;
      const float bias = b ? b[oc] : 0.0f;
      for (index_t j = 0; j < out_size; ++j) yc[j] = bias;
    }
    for (index_t g = 0; g < p.group; ++g) {
      const float* xg = x + (n * p.c_in + g * cin_g) * in_size;
      for (index_t p0 = 0; p0 < in_size; p0 += p.tile) {
        const index_t nc = in_size - p0 < p.tile ? in_size - p0 : p.tile;
        const GemmParams gp = {rows, nc, cin_g, 1, 0, rows, in_size, nc, 1.0f, 0.0f, 0, 0};
        gemm<Tile>(gp, w + g * cin_g * rows, xg + p0, static_cast<const float*>(nullptr), cols, ws);
        for (index_t r = 0; r < rows; ++r) {
          const index_t m = r / k_size, tap = r % k_size;
          const index_t kd = tap / (p.kernel[1] * p.kernel[2]),
                        kh = tap / p.kernel[2] % p.kernel[1];
          const index_t kw = tap % p.kernel[2];
          float* yc = y + (n * p.c_out + g * cout_g + m) * out_size;
          const float* src = cols + r * nc;
          index_t id = p0 / (p.in[1] * p.in[2]), ih = p0 / p.in[2] % p.in[1], iw = p0 % p.in[2];
          for (index_t j = 0; j < nc;) {  // runs along the last input dim
            const index_t run = nc - j < p.in[2] - iw ? nc - j : p.in[2] - iw;
            const index_t od = id * p.stride[0] + kd * p.dilation[0] - p.pad[0];
            const index_t oh = ih * p.stride[1] + kh * p.dilation[1] - p.pad[1];
            if (od >= 0 && od < p.out[0] && oh >= 0 && oh < p.out[1]) {
              float* yrow = yc + (od * p.out[1] + oh) * p.out[2];
              const index_t off = kw * p.dilation[2] - p.pad[2];
              index_t lo, hi;  // input positions in the run landing inside the output row
              steps_in_range(p.in[2], p.stride[2], off, p.out[2], &lo, &hi);
              if (lo < iw) lo = iw;
              if (hi > iw + run) hi = iw + run;
              const float* s = src + j - iw;
              for (index_t t = lo; t < hi; ++t) yrow[t * p.stride[2] + off] += s[t];
            }
            j += run;
            iw = 0;
            if (++ih == p.in[1]) ih = 0, ++id;
          }
        }
      }
    }
  }
}

}  // namespace onnxc

#endif  // ONNXC_CONV_H
