// Winograd convolution F(4x4, 3x3) (Lavin and Gray, "Fast Algorithms for Convolutional Neural
// Networks", 2015), the kernel variant f32_conv_wino4x4__scalar of onnxc/variants.h:
//
//   Y tile (4 x 4) = A^T [ U (.) V ] A,  U = G g G^T (6 x 6, from the 3 x 3 filter g),
//                                        V = B^T d B (6 x 6, from the input patch d),
// with the interpolation points 0, 1, -1, 2, -2 and infinity. Per output tile and pair of
// channels that is 36 multiplications instead of 144: the 36 products U (.) V summed over the
// input channels are 36 independent GEMMs, M[xi] (tiles x c_out) = V[xi] (tiles x c_in) U[xi]
// (c_in x c_out), run on the convolution GEMM's 8 x 32 register tile.
//
// Applies to 2-D convolutions with a 3 x 3 kernel, stride 1, dilation 1 and one group, any
// padding (f32_conv_winograd_applies). The filters are transformed once, by the compiler
// (pack_winograd_weights): the kernel's W is U, 36 x round_up(c_out, 32) x round_up(c_in, 16)
// floats in 32-column panels (pack layout below). Per image, the output is cut into bands of 4
// rows and the bands into blocks of p.tile bands; per block:
//   1. each band's 6 input rows are copied, channels last, to a staging buffer (zeros in the
//      padding), and every tile's V is computed in vectors of channels;
//   2. the 36 GEMMs, over all tiles of the block;
//   3. every tile's output is transformed back in vectors of output channels, plus the bias, into
//      a staging band, then copied to Y row by row, where the epilogue (residual, activation) runs.
// Accuracy: the transforms scale the terms by at most 1/4 .. 25 (B) and 1 .. 8 (A); on random
// data the error is about 10x that of the direct sum (checked by the conv variants' tester with
// that bound). Scratch: f32_conv_winograd_scratch_bytes(p). No heap; stack: register tiles.
#ifndef ONNXC_CONV_WINOGRAD_H
#define ONNXC_CONV_WINOGRAD_H

#include <cstring>

#include "onnxc/base.h"
#include "onnxc/conv.h"
#include "onnxc/gemm.h"

namespace onnxc {

constexpr bool f32_conv_winograd_applies(const ConvParams& p) {
  return p.group == 1 && p.in[0] == 1 && p.out[0] == 1 && p.kernel[0] == 1 && p.kernel[1] == 3 &&
         p.kernel[2] == 3 && p.stride[0] == 1 && p.stride[1] == 1 && p.stride[2] == 1 &&
         p.dilation[1] == 1 && p.dilation[2] == 1;
}

namespace wino_detail {

constexpr index_t kAlpha = 6;          // the transformed tile is 6 x 6
constexpr index_t kOut = 4;            // outputs per tile side
constexpr index_t kPoints = 36;        // kAlpha * kAlpha: the number of GEMMs
constexpr index_t kChannelBlock = 16;  // c_in is padded to a multiple (the widest vector)
constexpr index_t kNr = 32;            // GEMM panel width over c_out (the 8 x 32 tile)
constexpr index_t kMr = 8;

constexpr index_t round_up(index_t v, index_t m) {
  return (v + m - 1) / m * m;
}
constexpr index_t cin_padded(const ConvParams& p) {
  return round_up(p.c_in, kChannelBlock);
}
constexpr index_t cout_padded(const ConvParams& p) {
  return round_up(p.c_out, kNr);
}
constexpr index_t tiles_w(const ConvParams& p) {
  return (p.out[2] + kOut - 1) / kOut;
}
constexpr index_t bands(const ConvParams& p) {
  return (p.out[1] + kOut - 1) / kOut;
}
constexpr index_t bands_per_block(const ConvParams& p) {
  return p.tile > 0 && p.tile < bands(p) ? p.tile : bands(p);
}
constexpr index_t block_tiles(const ConvParams& p) {
  return bands_per_block(p) * tiles_w(p);
}
// The staged input band: kAlpha rows of 4 * tiles_w + 2 columns, channels last.
constexpr index_t stage_cols(const ConvParams& p) {
  return kOut * tiles_w(p) + 2;
}
// Scratch, in floats: V, M, the input band and the output band, each rounded to 16 floats.
constexpr index_t v_floats(const ConvParams& p) {
  return kPoints * block_tiles(p) * cin_padded(p);
}
constexpr index_t m_floats(const ConvParams& p) {
  return kPoints * block_tiles(p) * cout_padded(p);
}
constexpr index_t in_stage_floats(const ConvParams& p) {
  return kAlpha * stage_cols(p) * cin_padded(p);
}
constexpr index_t out_stage_floats(const ConvParams& p) {
  return kOut * kOut * tiles_w(p) * cout_padded(p);
}

// The transforms run on vectors of L floats: the build's own width (conv_detail::kLanes), or
// in a baseline build's run-time copies (blocks) AVX2's 8 and AVX-512's 16. Every lane count
// computes the same values: the transforms are lane-wise, and channels are padded to 16.
template <index_t L>
struct WinoVector {
  typedef float type __attribute__((vector_size(L * sizeof(float))));
};

// Vectors pass by reference: by value, a generic build's 8-float vectors change the ABI (g++
// -Wpsabi).
template <class V>
ONNXC_ALWAYS_INLINE void load(V& v, const float* p) {
  std::memcpy(&v, p, sizeof v);
}
template <class V>
ONNXC_ALWAYS_INLINE void store(float* p, const V& v) {
  std::memcpy(p, &v, sizeof v);
}

// out = B^T in: one dimension of the input transform.
template <class V>
ONNXC_ALWAYS_INLINE void bt6(const V* in, index_t stride, V* out, index_t out_stride) {
  const V a = in[0], b = in[stride], c = in[2 * stride], d = in[3 * stride], e = in[4 * stride],
          f = in[5 * stride];
  const V t1 = e - 4.0f * c, t2 = d - 4.0f * b;  // shared by rows 1 and 2
  const V t3 = e - c, t4 = 2.0f * (d - b);       // shared by rows 3 and 4
  out[0] = 4.0f * a - 5.0f * c + e;
  out[out_stride] = t1 + t2;
  out[2 * out_stride] = t1 - t2;
  out[3 * out_stride] = t3 + t4;
  out[4 * out_stride] = t3 - t4;
  out[5 * out_stride] = 4.0f * b - 5.0f * d + f;
}

// out = A^T in (6 -> 4): one dimension of the output transform.
template <class V>
ONNXC_ALWAYS_INLINE void at6(const V* in, index_t stride, V* out, index_t out_stride) {
  const V m1 = in[stride], m2 = in[2 * stride], m3 = in[3 * stride], m4 = in[4 * stride];
  const V s12 = m1 + m2, d12 = m1 - m2, s34 = m3 + m4, d34 = m3 - m4;
  out[0] = in[0] + s12 + s34;
  out[out_stride] = d12 + 2.0f * d34;
  out[2 * out_stride] = s12 + 4.0f * s34;
  out[3 * out_stride] = d12 + 8.0f * d34 + in[5 * stride];
}

// Copies input rows [4 * band - pad_top, + 6) of one image, every column the band's tiles read,
// to `stage` with channels last: stage[(r * stage_cols + col) * cin_padded + c]. Zeros in the
// padding and the padded channels.
inline void stage_input(const ConvParams& p, const float* x, index_t band, float* stage) {
  const index_t cp = cin_padded(p), cols = stage_cols(p), in_h = p.in[1], in_w = p.in[2];
  const index_t plane = in_h * in_w;
  for (index_t r = 0; r < kAlpha; ++r) {
    const index_t ih = band * kOut - p.pad[1] + r;
    float* row = stage + r * cols * cp;
    if (ih < 0 || ih >= in_h) {
      for (index_t i = 0; i < cols * cp; ++i) row[i] = 0.0f;
      continue;
    }
    index_t lo, hi;  // staged columns inside the input
    steps_in_range(cols, 1, -p.pad[2], in_w, &lo, &hi);
    for (index_t col = 0; col < lo; ++col)
      for (index_t c = 0; c < cp; ++c) row[col * cp + c] = 0.0f;
    for (index_t col = hi; col < cols; ++col)
      for (index_t c = 0; c < cp; ++c) row[col * cp + c] = 0.0f;
    for (index_t c = 0; c < p.c_in; ++c) {
      const float* src = x + c * plane + ih * in_w - p.pad[2];
      ONNXC_NO_GATHER_LOOP
      for (index_t col = lo; col < hi; ++col) row[col * cp + c] = src[col];
    }
    for (index_t col = lo; col < hi; ++col)
      for (index_t c = p.c_in; c < cp; ++c) row[col * cp + c] = 0.0f;
  }
}

// V[xi][t][c] for the tiles of a staged band (tile j of the band is tile t0 + j of the block).
template <index_t L>
inline void transform_input(const ConvParams& p, const float* stage, index_t t0, float* v) {
  using vfloat = typename WinoVector<L>::type;
  const index_t cp = cin_padded(p), cols = stage_cols(p), tb = block_tiles(p);
  for (index_t j = 0; j < tiles_w(p); ++j)
    for (index_t c = 0; c < cp; c += L) {
      vfloat d[kPoints], t[kPoints];
      for (index_t r = 0; r < kAlpha; ++r)
        for (index_t col = 0; col < kAlpha; ++col)
          load(d[r * kAlpha + col], stage + (r * cols + j * kOut + col) * cp + c);
      for (index_t col = 0; col < kAlpha; ++col) bt6(d + col, kAlpha, t + col, kAlpha);
      for (index_t r = 0; r < kAlpha; ++r) bt6(t + r * kAlpha, 1, d + r * kAlpha, 1);
      for (index_t xi = 0; xi < kPoints; ++xi) store(v + (xi * tb + t0 + j) * cp + c, d[xi]);
    }
}

// The output band of the block's tiles [t0, t0 + tiles_w), channels [k0, k1) (multiples of
// kNr): A^T M A + bias into `stage`, stage[(r * 4 * tiles_w + col) * cout_padded + k].
template <index_t L>
inline void transform_output(const ConvParams& p, const float* m, index_t t0, const float* bias,
                             index_t k0, index_t k1, float* stage) {
  using vfloat = typename WinoVector<L>::type;
  const index_t kp = cout_padded(p), tb = block_tiles(p), cols = kOut * tiles_w(p);
  for (index_t j = 0; j < tiles_w(p); ++j)
    for (index_t k = k0; k < k1; k += L) {
      vfloat s[kPoints], t[kOut * kAlpha], o[kOut * kOut];
      for (index_t xi = 0; xi < kPoints; ++xi) load(s[xi], m + (xi * tb + t0 + j) * kp + k);
      for (index_t col = 0; col < kAlpha; ++col) at6(s + col, kAlpha, t + col, kAlpha);
      for (index_t r = 0; r < kOut; ++r) at6(t + r * kAlpha, 1, o + r * kOut, 1);
      vfloat b = {};
      if (bias)
        for (index_t l = 0; l < L; ++l) b[l] = k + l < p.c_out ? bias[k + l] : 0.0f;
      for (index_t r = 0; r < kOut; ++r)
        for (index_t col = 0; col < kOut; ++col)
          store(stage + (r * cols + j * kOut + col) * kp + k, o[r * kOut + col] += b);
    }
}

// Copies channels [k0, k1) of a staged output band to rows [4 * band, ...) of Y (channels
// first) and runs the epilogue on each row.
template <class Act>
inline void unstage_output(const ConvParams& p, const float* stage, index_t band, index_t k0,
                           index_t k1, float* y, const Epilogue<Act>& e, const float* res) {
  const index_t kp = cout_padded(p), cols = kOut * tiles_w(p), out_w = p.out[2];
  const index_t plane = p.out[1] * out_w;
  for (index_t r = 0; r < kOut && band * kOut + r < p.out[1]; ++r) {
    const index_t at = (band * kOut + r) * out_w;
    for (index_t k = k0; k < k1 && k < p.c_out; ++k) {
      float* dst = y + k * plane + at;
      const float* src = stage + r * cols * kp + k;
      // The epilogue on the way out: a vector pass over the row just stored element by element
      // waits on each store (no store forwarding into a wider load).
      const float* rk = res ? res + k * plane + at : res;
      ONNXC_NO_GATHER_LOOP
      for (index_t ow = 0; ow < out_w; ++ow)
        dst[ow] = epilogue_value(e, src[ow * kp], rk ? rk + ow : rk);
    }
  }
}

// Bands [b0, b1) of one image, as one block, output channel panels [pn0, pn1) (of kNr), on the
// register tile kTile and transforms in vectors of L floats.
template <auto kTile, index_t L, class Act>
inline void block(const ConvParams& p, const float* x, const float* u, const float* bias, float* y,
                  float* scratch, index_t b0, index_t b1, index_t pn0, index_t pn1,
                  const Epilogue<Act>& e, const float* res) {
  const index_t cp = cin_padded(p), kp = cout_padded(p), tb = block_tiles(p), tw = tiles_w(p);
  float* v = scratch;
  float* m = v + v_floats(p);
  float* in_stage = m + m_floats(p);
  float* out_stage = in_stage + in_stage_floats(p);
  for (index_t band = b0; band < b1; ++band) {
    stage_input(p, x, band, in_stage);
    transform_input<L>(p, in_stage, (band - b0) * tw, v);
  }
  const index_t tiles = (b1 - b0) * tw;
  for (index_t xi = 0; xi < kPoints; ++xi)
    for (index_t panel = pn0; panel < pn1; ++panel) {
      const float* u_panel = u + (xi * (kp / kNr) + panel) * cp * kNr;
      for (index_t t = 0; t < tiles; t += kMr)
        kTile(v + (xi * tb + t) * cp, cp, u_panel, cp, m + (xi * tb + t) * kp + panel * kNr, kp,
              tiles - t < kMr ? tiles - t : kMr, kNr, nullptr, false);
    }
  for (index_t band = b0; band < b1; ++band) {
    transform_output<L>(p, m, (band - b0) * tw, bias, pn0 * kNr, pn1 * kNr, out_stage);
    unstage_output(p, out_stage, band, pn0 * kNr, pn1 * kNr, y, e, res);
  }
}

// Blocks [blk0, blk1) of the images' blocks (image-major), output channel panels [pn0, pn1),
// each block in `scratch`.
template <auto kTile, index_t L, class Act>
inline void blocks_on(const ConvParams& p, const float* x, const float* u, const float* b, float* y,
                      void* scratch, const Epilogue<Act>& e, const float* res, index_t blk0,
                      index_t blk1, index_t pn0, index_t pn1) {
  const index_t per_image = (bands(p) + bands_per_block(p) - 1) / bands_per_block(p);
  const index_t in_size = p.c_in * p.in[1] * p.in[2], out_size = p.c_out * p.out[1] * p.out[2];
  for (index_t blk = blk0; blk < blk1; ++blk) {
    const index_t n = blk / per_image, b0 = blk % per_image * bands_per_block(p);
    const index_t b1 = b0 + bands_per_block(p) < bands(p) ? b0 + bands_per_block(p) : bands(p);
    block<kTile, L>(p, x + n * in_size, u, b, y + n * out_size, static_cast<float*>(scratch), b0,
                    b1, pn0, pn1, e, res ? res + n * out_size : res);
  }
}

// The run-time ISA copies (ONNXC_X86_ISA_DISPATCH, onnxc/base.h) of a baseline build: all of the
// blocks (staging, transforms, epilogues) in the CPU's widest vectors, on native's 8 x 32 tile
// (the conv variant checker's generic build runs each copy). Not yet selected for the baseline
// targets (variants.h: vector_fma): with it, resnet18 at --target generic ran at 1.04x native
// instead of 1.40x, but light_vgg19's transformed filters then failed to build (issue 37's note).
#if defined(ONNXC_X86_ISA_DISPATCH)
template <class Act>
__attribute__((target("avx512f,avx2,fma"), flatten, noinline, ONNXC_VECTORIZE_COPY)) void
blocks_avx512f(const ConvParams& p, const float* x, const float* u, const float* b, float* y,
               void* scratch, const Epilogue<Act>& e, const float* res, index_t blk0, index_t blk1,
               index_t pn0, index_t pn1) {
  blocks_on<conv_detail::gemm_tile_avx512f<kMr, kNr>, 16>(p, x, u, b, y, scratch, e, res, blk0,
                                                          blk1, pn0, pn1);
}
template <class Act>
__attribute__((target("avx2,fma"), flatten, noinline, ONNXC_VECTORIZE_COPY)) void blocks_avx2_fma(
    const ConvParams& p, const float* x, const float* u, const float* b, float* y, void* scratch,
    const Epilogue<Act>& e, const float* res, index_t blk0, index_t blk1, index_t pn0,
    index_t pn1) {
  blocks_on<conv_detail::gemm_tile_avx2_fma<kMr, kNr>, 8>(p, x, u, b, y, scratch, e, res, blk0,
                                                          blk1, pn0, pn1);
}
#endif

template <class Act>
inline void blocks(const ConvParams& p, const float* x, const float* u, const float* b, float* y,
                   void* scratch, const Epilogue<Act>& e, const float* res, index_t blk0,
                   index_t blk1, index_t pn0, index_t pn1) {
#if defined(ONNXC_X86_ISA_DISPATCH)
  if (ONNXC_CPU_HAS_AVX512F())
    return blocks_avx512f(p, x, u, b, y, scratch, e, res, blk0, blk1, pn0, pn1);
  if (ONNXC_CPU_HAS_AVX2_FMA())
    return blocks_avx2_fma(p, x, u, b, y, scratch, e, res, blk0, blk1, pn0, pn1);
#endif
  blocks_on<conv_detail::gemm_tile<kMr, kNr>, conv_detail::kLanes>(p, x, u, b, y, scratch, e, res,
                                                                   blk0, blk1, pn0, pn1);
}

}  // namespace wino_detail

// Floats of the transformed filters (see the banner's layout).
constexpr index_t winograd_weight_floats(const ConvParams& p) {
  return wino_detail::kPoints * wino_detail::cout_padded(p) * wino_detail::cin_padded(p);
}

// The blocks of bands (p.tile bands each) over all images: the units the parallel form splits.
constexpr index_t winograd_blocks(const ConvParams& p) {
  return p.batch * ((wino_detail::bands(p) + wino_detail::bands_per_block(p) - 1) /
                    wino_detail::bands_per_block(p));
}

// The parts of the parallel form: a grid of block groups x output-channel groups (panels of
// kNr). Each part transforms the input of its blocks, so a channel split repeats that; a block
// split leaves parts idle on small planes (a 14x14 plane has 4 bands). winograd_grid picks the
// grid of at most `tasks` parts whose largest part costs least: its tiles (whole register
// tiles) x its channels + kWinogradTransformCols (the input transform, in channels of GEMM);
// on ties the fewest block groups. winograd_part_cost is that cost, for the compiler's choice of
// bands per block.
inline constexpr index_t kWinogradTransformCols = 8;

struct WinogradGrid {
  index_t block_groups, panel_groups;
};

constexpr index_t winograd_part_cost(const ConvParams& p, WinogradGrid g) {
  using namespace wino_detail;
  const index_t blocks = winograd_blocks(p), panels = cout_padded(p) / kNr;
  const index_t part_blocks = (blocks + g.block_groups - 1) / g.block_groups;
  const index_t part_cols = (panels + g.panel_groups - 1) / g.panel_groups * kNr;
  return part_blocks * round_up(block_tiles(p), kMr) * (part_cols + kWinogradTransformCols);
}

constexpr WinogradGrid winograd_grid(const ConvParams& p, index_t tasks) {
  const index_t blocks = winograd_blocks(p),
                panels = wino_detail::cout_padded(p) / wino_detail::kNr;
  WinogradGrid best = {1, 1};
  index_t best_cost = winograd_part_cost(p, best);
  for (index_t gb = 1; gb <= tasks && gb <= blocks; ++gb) {
    const WinogradGrid g = {gb, tasks / gb < panels ? tasks / gb : panels};
    const index_t cost = winograd_part_cost(p, g);
    if (cost < best_cost) best = g, best_cost = cost;
  }
  return best;
}

constexpr index_t f32_conv_winograd_scratch_bytes(const ConvParams& p) {
  return (wino_detail::v_floats(p) + wino_detail::m_floats(p) + wino_detail::in_stage_floats(p) +
          wino_detail::out_stage_floats(p)) *
         static_cast<index_t>(sizeof(float));
}

// Transforms w (c_out x c_in x 3 x 3, ONNX's layout) into the kernel's U, in double:
//   u[((xi * cout_padded / 32 + k / 32) * cin_padded + c) * 32 + k % 32] = (G w[k][c] G^T)[xi],
// zero for the padded channels. Run by the compiler (pack-weights) and the tester.
inline void pack_winograd_weights(const ConvParams& p, const float* w, float* u) {
  using namespace wino_detail;
  static const double g[kAlpha][3] = {{1.0 / 4, 0, 0},
                                      {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                      {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                      {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                      {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                      {0, 0, 1}};
  const index_t cp = cin_padded(p), kp = cout_padded(p);
  for (index_t i = 0; i < winograd_weight_floats(p); ++i) u[i] = 0.0f;
  for (index_t k = 0; k < p.c_out; ++k)
    for (index_t c = 0; c < p.c_in; ++c) {
      const float* f = w + (k * p.c_in + c) * 9;
      double gf[kAlpha][3];  // G f
      for (index_t i = 0; i < kAlpha; ++i)
        for (index_t col = 0; col < 3; ++col)
          gf[i][col] = g[i][0] * f[col] + g[i][1] * f[3 + col] + g[i][2] * f[6 + col];
      for (index_t i = 0; i < kAlpha; ++i)
        for (index_t j = 0; j < kAlpha; ++j) {
          const double v = gf[i][0] * g[j][0] + gf[i][1] * g[j][1] + gf[i][2] * g[j][2];
          const index_t xi = i * kAlpha + j;
          u[((xi * (kp / kNr) + k / kNr) * cp + c) * kNr + k % kNr] = static_cast<float>(v);
        }
    }
}

template <class Act>
inline void f32_conv_wino4x4__scalar(const ConvParams& p, const float* x, const float* u,
                                     const float* b, float* y, void* scratch,
                                     const Epilogue<Act>& e, const float* residual) {
  wino_detail::blocks(p, x, u, b, y, scratch, e, e.residual ? residual : nullptr, 0,
                      winograd_blocks(p), 0, wino_detail::cout_padded(p) / wino_detail::kNr);
}
inline void f32_conv_wino4x4__scalar(const ConvParams& p, const float* x, const float* u,
                                     const float* b, float* y, void* scratch) {
  f32_conv_wino4x4__scalar(p, x, u, b, y, scratch, Epilogue<>{}, nullptr);
}

}  // namespace onnxc

#endif  // ONNXC_CONV_WINOGRAD_H
