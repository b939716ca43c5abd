// Convolution kernel variants of the table in onnxc/variants.h, named <dtype>_<op>_<tile>__<isa>.
//
// Each has the plain convolution signature of onnxc/conv.h:
//
//   (const ConvParams& p, const float* x, const float* w, const float* b, float* y,
//    void* scratch [, const Epilogue<Act>& e, const float* residual])
//
//   f32_dwconv_3x3__avx512f, __avx2_fma, __neonfma; f32_dwconv_5x5__ the same
//       depthwise 3x3 / 5x5 (c_in == group, any multiplier), 2-D, dilation 1, stride 1 or 2 (the
//       same along H and W), any padding; f32_dwconv_kxk_applies(p, K) says whether p is one.
//       The padding of a plane in scratch is zeroed once per call; per input channel the rows
//       are copied in (for stride 2 with their even and odd columns split, so every tap is a
//       unit-stride load); then blocks of 8 output rows (AVX2, NEON: 4) x one vector accumulate in
//       registers, each loaded input row feeding every output row that uses it, and the
//       epilogue (residual, Relu, Clip) is applied before the one store.
//       Scratch: f32_dwconv_kxk_scratch_bytes(p). Defined only when the compiler may use the ISA.
//   f32_dwconv_3x3__scalar, f32_dwconv_5x5__scalar
//       the same kernel in plain C++ (GCC/Clang vector extensions), for the x86-64 baseline's
//       targets (generic, x86-64-v2): in an x86-64 build without AVX it runs an AVX-512 or
//       AVX2 + FMA copy picked per call by the CPU (ONNXC_X86_ISA_DISPATCH, onnxc/base.h).
// The portable variants of the table are defined in onnxc/conv.h: f32_dwconv_any__scalar (any
// depthwise shape), and the convolution GEMM with its tiles, f32_conv_8x32__scalar (plain C++,
// fastest where AVX-512 is available), f32_conv_6x16__scalar and f32_conv_4x8__scalar
// (microcontrollers).
// The depthwise variants take f32_dwconv_kxk_scratch_bytes(p).
// No heap; stack below 1 KiB.
#ifndef ONNXC_CONV_VARIANTS_H
#define ONNXC_CONV_VARIANTS_H

#include <cstdint>
#include <cstring>
#include <utility>

#include "onnxc/activation.h"
#include "onnxc/base.h"
#include "onnxc/conv.h"
#include "onnxc/gemm.h"

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__)) || \
    (defined(ONNXC_X86_ISA_DISPATCH) && !defined(__clang__))
#include <immintrin.h>
#endif
#if defined(__ARM_NEON) && defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace onnxc {

// ---- depthwise 3x3 and 5x5 ---------------------------------------------------------------------

// Whether the f32_dwconv_KxK variants (K = 3 or 5) compute p.
constexpr bool f32_dwconv_kxk_applies(const ConvParams& p, index_t k) {
  return p.c_in == p.group && p.c_out % p.group == 0 && p.in[0] == 1 && p.out[0] == 1 &&
         p.kernel[0] == 1 && p.kernel[1] == k && p.kernel[2] == k && p.dilation[1] == 1 &&
         p.dilation[2] == 1 && p.stride[0] == 1 && p.stride[1] == p.stride[2] &&
         (p.stride[1] == 1 || p.stride[1] == 2);
}

// The run-time ISA copies of the portable rows (f32_dwconv_KxK__scalar below) instantiate these
// templates with 32- and 64-byte vectors in code built for the x86-64 baseline: g++ and clang
// warn that returning them changes the ABI, but every such call is inlined into a copy built for
// the ISA (flatten), so no call crosses that ABI. g++ reports it at the end of the translation
// unit, past any pop: the warning stays off from here on. (Vector parameters pass by reference:
// g++ notes those whatever the pragmas say.)
#if defined(ONNXC_X86_ISA_DISPATCH)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace dwkxk_detail {

constexpr index_t kMaxLanes = 16;  // the widest vector of any variant: the scratch's slack

constexpr index_t round_up(index_t v, index_t m) {
  return (v + m - 1) / m * m;
}
// Floats per padded row in scratch: stride 1 holds columns [0, out_w + K - 1) and slack; stride 2
// holds the even columns then the odd ones, each [0, out_w + K / 2) at most, with slack: the
// vector loads of a block and the whole vectors copy_row() / split_row() store.
constexpr index_t phase_floats(const ConvParams& p) {
  return round_up(p.out[2] + (p.kernel[2] - 1) + kMaxLanes, kMaxLanes);
}
constexpr index_t row_floats(const ConvParams& p) {
  return p.stride[2] == 1 ? phase_floats(p) : 2 * phase_floats(p);
}
constexpr index_t padded_rows(const ConvParams& p) {
  return (p.out[1] - 1) * p.stride[1] + p.kernel[1];
}

// The plane's geometry, the same for every channel of a call: computed once (recomputed per
// channel and row block, it cost as much as the arithmetic on 7x7 and 14x14 planes).
struct Geometry {
  index_t in_h, in_w, pad_t, pad_l;
  index_t out_h, out_w;
  index_t rows;   // padded rows of the plane in scratch
  index_t ld;     // floats per padded row
  index_t half;   // stride 2: the odd columns' offset in a row (phase_floats)
  index_t width;  // floats of a padded row (stride 2: of a phase) written: every one a block loads
};

template <index_t kLanes>
constexpr Geometry geometry(const ConvParams& p) {
  Geometry g{};
  g.in_h = p.in[1], g.in_w = p.in[2], g.pad_t = p.pad[1], g.pad_l = p.pad[2];
  g.out_h = p.out[1], g.out_w = p.out[2];
  g.rows = padded_rows(p), g.ld = row_floats(p), g.half = phase_floats(p);
  // A block loads columns [ow0 + kw, ow0 + kw + kLanes) with ow0 < out_w, kw < K (stride 1),
  // and [ow0 + kw / 2, ow0 + kw / 2 + kLanes) of each phase (stride 2; split in whole vectors).
  g.width = p.stride[2] == 1 ? g.out_w + p.kernel[2] + kLanes - 2
                             : round_up(g.out_w + p.kernel[2] / 2 + kLanes - 1, kLanes);
  return g;
}

// dst[c] = 0 for c in [from, to), in whole vectors and one masked tail.
template <class I>
inline void zero_run(float* dst, index_t from, index_t to) {
  constexpr index_t L = I::kLanes;
  for (index_t c = from; c < to; c += L)
    I::store_n(dst + c, I::set1(0.0f), to - c < L ? to - c : L);
}

// dst[c] = src[c] for c < in_w, in whole vectors (a masked load last: dst[c] = 0 for c in
// [in_w, round_up(in_w, kLanes)), which in the padded plane is padding). Scalar loops of unknown
// length, as in any model with several depthwise shapes, become library calls or long prologues.
template <class I>
inline void copy_row(const float* src, index_t in_w, float* dst) {
  constexpr index_t L = I::kLanes;
  index_t c = 0;
  for (; c + L <= in_w; c += L) I::store(dst + c, I::load(src + c));
  if (c < in_w) I::store(dst + c, I::load_n(src + c, in_w - c));
}

// Stride 2: the input row's columns into the phases of its padded row (even[q] = padded column
// 2q, odd[q] = padded column 2q + 1), split in registers straight from the input (storing the
// padded row and reloading it split stalled every load on store forwarding). With pad_l = 2a + r,
// src's even columns start at a of the even phase (r = 0) or of the odd one (r = 1), its odd
// columns at a of the odd phase or a + 1 of the even one. Past the row's end the stores write
// zeros (padding), up to kLanes - 1 floats past each phase's last column.
template <class I>
inline void split_row(const float* src, index_t in_w, index_t pad_l, float* even, float* odd) {
  using V = typename I::V;
  constexpr index_t L = I::kLanes;
  const index_t a = pad_l / 2, r = pad_l % 2;
  float* const from_even = r ? odd + a : even + a;
  float* const from_odd = r ? even + a + 1 : odd + a;
  index_t i = 0;  // column pairs of src done
  V e, o;
  for (; 2 * i + 2 * L <= in_w; i += L) {
    I::deinterleave(I::load(src + 2 * i), I::load(src + 2 * i + L), &e, &o);
    I::store(from_even + i, e), I::store(from_odd + i, o);
  }
  if (const index_t rest = in_w - 2 * i; rest > 0) {  // load_n reads past src as 0
    I::deinterleave(I::load_n(src + 2 * i, rest < L ? rest : L),
                    rest > L ? I::load_n(src + 2 * i + L, rest - L) : I::set1(0.0f), &e, &o);
    I::store(from_even + i, e), I::store(from_odd + i, o);
  }
}

// The padding of `plane`: every float a block loads, zeroed once per call. The input rows then
// overwrite only their columns (and zeros), so the padding stays zero from channel to channel.
template <class I, index_t S>
inline void zero_plane(const Geometry& g, float* plane) {
  for (index_t r = 0; r < g.rows; ++r) {
    zero_run<I>(plane + r * g.ld, 0, g.width);
    if (S == 2) zero_run<I>(plane + r * g.ld + g.half, 0, g.width);
  }
}

// Input plane xc into the zero-padded `plane` (zero_plane): its rows at (pad_t, pad_l), for
// stride 2 with the columns split into even and odd phases.
template <class I, index_t S>
inline void pad_plane(const Geometry& g, const float* xc, float* plane) {
  const index_t r0 = g.pad_t, r1 = g.pad_t + g.in_h < g.rows ? g.pad_t + g.in_h : g.rows;
  for (index_t r = r0; r < r1; ++r) {
    float* dst = plane + r * g.ld;
    if (S == 1)
      copy_row<I>(xc + (r - g.pad_t) * g.in_w, g.in_w, dst + g.pad_l);
    else
      split_row<I>(xc + (r - g.pad_t) * g.in_w, g.in_w, g.pad_l, dst, dst + g.half);
  }
}

// How the epilogue is applied in registers: kNone (no activation), kRelu, kClip, or kLater (an
// activation the vector code does not have: apply_epilogue() runs on the channel's stored plane,
// one call per plane, while it is in cache).
enum class InRegisters { kNone, kRelu, kClip, kLater };

template <class Act>
constexpr InRegisters in_registers() {
  if constexpr (std::is_same_v<Act, NoActivation>) return InRegisters::kNone;
  if constexpr (std::is_same_v<Act, Relu>) return InRegisters::kRelu;
  if constexpr (std::is_same_v<Act, Clip>) return InRegisters::kClip;
  return InRegisters::kLater;
}

// A block of R output rows [oh0, oh0 + R) x the columns [ow0, ow0 + I::kLanes) of one channel.
// Input row j of the block (padded row oh0 * S + j) feeds output row (j - kh) / S with weight
// row kh, for every kh where that is a whole row of the block: loaded once, used up to K times.
template <class I, index_t K, index_t S, index_t R, class Act>
inline void block(const float* plane, index_t ld, index_t half, const typename I::V* wv,
                  const typename I::V& bias, index_t oh0, index_t ow0, index_t n, float* y,
                  const float* res, index_t out_w, const Epilogue<Act>& e) {
  using V = typename I::V;
  constexpr InRegisters act = in_registers<Act>();
  V acc[R];
#pragma GCC unroll 8
  for (index_t r = 0; r < R; ++r) acc[r] = bias;
#pragma GCC unroll 32
  for (index_t j = 0; j < (R - 1) * S + K; ++j) {
    const float* row = plane + (oh0 * S + j) * ld;
#pragma GCC unroll 5
    for (index_t kw = 0; kw < K; ++kw) {
      const V v = I::load_once(S == 1 ? row + ow0 + kw : row + (kw % 2 ? half : 0) + ow0 + kw / 2);
#pragma GCC unroll 5
      for (index_t kh = 0; kh < K; ++kh) {
        const index_t d = j - kh;
        if (d < 0 || d % S != 0 || d / S >= R) continue;
        acc[d / S] = I::fma(wv[kh * K + kw], v, acc[d / S]);
      }
    }
  }
#pragma GCC unroll 8
  for (index_t r = 0; r < R; ++r) {
    const index_t at = (oh0 + r) * out_w + ow0;
    V v = acc[r];
    if constexpr (act != InRegisters::kLater) {
      if (res) v = I::add(v, I::load_n(res + at, n));
      if constexpr (act == InRegisters::kRelu) v = I::relu(v);
      if constexpr (act == InRegisters::kClip)
        v = I::clip(v, e.activation.alpha, e.activation.beta);
    }
    I::store_n(y + at, v, n);
  }
}

// Rows [oh0, oh0 + R) of one channel, all columns.
template <class I, index_t K, index_t S, index_t R, class Act>
inline void rows(const Geometry& g, const float* plane, const typename I::V* wv,
                 const typename I::V& bias, index_t oh0, float* y, const float* res,
                 const Epilogue<Act>& e) {
  constexpr index_t L = I::kLanes;
  index_t ow0 = 0;
  for (; ow0 + L <= g.out_w; ow0 += L)
    block<I, K, S, R>(plane, g.ld, g.half, wv, bias, oh0, ow0, L, y, res, g.out_w, e);
  if (ow0 < g.out_w)
    block<I, K, S, R>(plane, g.ld, g.half, wv, bias, oh0, ow0, g.out_w - ow0, y, res, g.out_w, e);
}

// The last out_h - oh0 < R + 1 rows in one block: each input row is loaded once for all of them.
template <class I, index_t K, index_t S, index_t R, class Act>
inline void last_rows(const Geometry& g, const float* plane, const typename I::V* wv,
                      const typename I::V& bias, index_t oh0, float* y, const float* res,
                      const Epilogue<Act>& e) {
  if constexpr (R > 0) {
    if (g.out_h - oh0 == R) return rows<I, K, S, R>(g, plane, wv, bias, oh0, y, res, e);
    last_rows<I, K, S, R - 1>(g, plane, wv, bias, oh0, y, res, e);
  }
}

// One output channel whose input plane is padded in `plane`.
template <class I, index_t K, index_t S, class Act>
inline void channel(const Geometry& g, const float* plane, const float* w, float b, float* yc,
                    const float* rc, const Epilogue<Act>& e) {
  using V = typename I::V;
  V wv[K * K];
  for (index_t t = 0; t < K * K; ++t) wv[t] = I::set1(w[t]);
  const V bias = I::set1(b);
  index_t oh = 0;
  for (; oh + I::kRows <= g.out_h; oh += I::kRows)
    rows<I, K, S, I::kRows>(g, plane, wv, bias, oh, yc, rc, e);
  last_rows<I, K, S, I::kRows - 1>(g, plane, wv, bias, oh, yc, rc, e);
  if constexpr (in_registers<Act>() == InRegisters::kLater)
    apply_epilogue(e, yc, rc, g.out_h * g.out_w);
}

template <class I, index_t K, index_t S, class Act>
inline void channels(const ConvParams& p, const float* x, const float* w, const float* b, float* y,
                     void* scratch, const Epilogue<Act>& e, const float* residual) {
  const Geometry g = geometry<I::kLanes>(p);
  float* plane = static_cast<float*>(scratch);
  zero_plane<I, S>(g, plane);
  const index_t multiplier = p.c_out / p.group;
  const index_t in_size = g.in_h * g.in_w, out_size = g.out_h * g.out_w;
  const float* res_or_null = e.residual ? residual : nullptr;
  for (index_t n = 0; n < p.batch; ++n) {
    const float* xc = x + n * p.c_in * in_size;
    for (index_t oc = 0, m = 0; oc < p.c_out; ++oc) {
      if (m == 0) pad_plane<I, S>(g, xc, plane), xc += in_size;
      if (++m == multiplier) m = 0;
      const index_t at = (n * p.c_out + oc) * out_size;
      channel<I, K, S>(g, plane, w + oc * K * K, b ? b[oc] : 0.0f, y + at,
                       res_or_null ? res_or_null + at : nullptr, e);
    }
  }
}

template <class I, index_t K, class Act>
inline void run(const ConvParams& p, const float* x, const float* w, const float* b, float* y,
                void* scratch, const Epilogue<Act>& e, const float* residual) {
  if (p.stride[2] == 1)
    channels<I, K, 1>(p, x, w, b, y, scratch, e, residual);
  else
    channels<I, K, 2>(p, x, w, b, y, scratch, e, residual);
}

// ISA traits: V (one vector), kLanes, kRows (output rows per register block), set1, load,
// load_once (a load the compiler keeps in a register), store, load_n / store_n (the first n
// lanes, the rest of load_n read as 0), deinterleave (a row's even and odd columns),
// fma(a, b, c) = a * b + c, add, relu and clip with the NaN behaviour of the scalar epilogue
// (Relu(NaN) = 0, Clip(NaN) = NaN).
// In code that g++ builds for the x86-64 baseline (ONNXC_X86_ISA_DISPATCH; ONNXC_DW_ISA_TRAITS)
// Avx512 and Avx2 are compiled for their ISA (the pragmas) and used only inside the run-time
// copies of the portable rows (run_avx512f, run_avx2_fma below). (clang++ rejects their vector
// returns in the generic templates built for the baseline: its copies take Lanes<8> and <16>.)
#if defined(ONNXC_X86_ISA_DISPATCH) && !defined(__clang__)
#define ONNXC_DW_ISA_TRAITS 1
#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma")
#endif
#if defined(__AVX512F__) || defined(ONNXC_DW_ISA_TRAITS)
struct Avx512 {
  using V = __m512;
  static constexpr index_t kLanes = 16;
  static constexpr index_t kRows = 8;  // output rows per block: 8 accumulators hide FMA latency
  static __mmask16 mask(index_t n) { return static_cast<__mmask16>((1u << n) - 1u); }
  static V set1(float f) { return _mm512_set1_ps(f); }
  static V load(const float* p) { return _mm512_loadu_ps(p); }
  // A load kept in a register: else g++ folds it into each FMA using it, loading up to K times.
  static V load_once(const float* p) {
    V v = _mm512_loadu_ps(p);
    asm("" : "+v"(v));
    return v;
  }
  static void store(float* p, V v) { _mm512_storeu_ps(p, v); }
  // Lanes 0, 2, 4, ... and 1, 3, 5, ... of the pair (a, b).
  static void deinterleave(V a, V b, V* even, V* odd) {
    const __m512i i = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    *even = _mm512_permutex2var_ps(a, i, b);
    *odd = _mm512_permutex2var_ps(a, _mm512_add_epi32(i, _mm512_set1_epi32(1)), b);
  }
  static V load_n(const float* p, index_t n) {
    return n == kLanes ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(mask(n), p);
  }
  static void store_n(float* p, V v, index_t n) {
    if (n == kLanes)
      _mm512_storeu_ps(p, v);
    else
      _mm512_mask_storeu_ps(p, mask(n), v);
  }
  static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  // max/min return their second operand when either is NaN. (The masked forms: g++ 12 warns
  // that the plain ones' _mm512_undefined_ps() may be used uninitialized.)
  static V max(V a, V b) { return _mm512_mask_max_ps(a, 0xFFFF, a, b); }
  static V min(V a, V b) { return _mm512_mask_min_ps(a, 0xFFFF, a, b); }
  static V relu(V v) { return max(v, _mm512_setzero_ps()); }
  static V clip(V v, float lo, float hi) {
    return min(_mm512_set1_ps(hi), max(_mm512_set1_ps(lo), v));
  }
};
#endif

#if defined(ONNXC_DW_ISA_TRAITS)
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
#if (defined(__AVX2__) && defined(__FMA__)) || defined(ONNXC_DW_ISA_TRAITS)
struct Avx2 {
  using V = __m256;
  static constexpr index_t kLanes = 8;
  static constexpr index_t kRows = 4;  // 16 registers: the 3x3 weights, 4 accumulators, loads
  static __m256i mask(index_t n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static V set1(float f) { return _mm256_set1_ps(f); }
  static V load(const float* p) { return _mm256_loadu_ps(p); }
  // 16 registers: forcing loads into them (as Avx512::load_once) spills the weights instead.
  static V load_once(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
  // Lanes 0, 2, 4, ... and 1, 3, 5, ... of the pair (a, b): shuffles within the 128-bit
  // halves, then the 64-bit quarters put in order.
  static void deinterleave(V a, V b, V* even, V* odd) {
    const auto order = [](V v) {
      return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v), 0xD8));
    };
    *even = order(_mm256_shuffle_ps(a, b, 0x88));
    *odd = order(_mm256_shuffle_ps(a, b, 0xDD));
  }
  static V load_n(const float* p, index_t n) {
    return n == kLanes ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, mask(n));
  }
  static void store_n(float* p, V v, index_t n) {
    if (n == kLanes)
      _mm256_storeu_ps(p, v);
    else
      _mm256_maskstore_ps(p, mask(n), v);
  }
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V relu(V v) { return _mm256_max_ps(v, _mm256_setzero_ps()); }
  static V clip(V v, float lo, float hi) {
    return _mm256_min_ps(_mm256_set1_ps(hi), _mm256_max_ps(_mm256_set1_ps(lo), v));
  }
};
#endif
#if defined(ONNXC_DW_ISA_TRAITS)
#pragma GCC pop_options
#endif

#if defined(__ARM_NEON) && defined(__aarch64__)
struct NeonFma {
  using V = float32x4_t;
  static constexpr index_t kLanes = 4;
  // 4, not AVX-512's 8: 8-row blocks (with their 1- to 7-row tails) grew the aarch64 kws_cnn
  // by 30 KB of flash (tests/embedded budgets), unmeasured for speed.
  static constexpr index_t kRows = 4;
  static V set1(float f) { return vdupq_n_f32(f); }
  static V load(const float* p) { return vld1q_f32(p); }
  static V load_once(const float* p) { return vld1q_f32(p); }  // FMAs take no memory operand
  static void store(float* p, V v) { vst1q_f32(p, v); }
  // Lanes 0, 2, 4, ... and 1, 3, 5, ... of the pair (a, b).
  static void deinterleave(V a, V b, V* even, V* odd) {
    *even = vuzp1q_f32(a, b);
    *odd = vuzp2q_f32(a, b);
  }
  static V load_n(const float* p, index_t n) {
    if (n == kLanes) return vld1q_f32(p);
    float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (index_t i = 0; i < n; ++i) t[i] = p[i];
    return vld1q_f32(t);
  }
  static void store_n(float* p, V v, index_t n) {
    if (n == kLanes) return vst1q_f32(p, v);
    float t[4];
    vst1q_f32(t, v);
    for (index_t i = 0; i < n; ++i) p[i] = t[i];
  }
  static V fma(V a, V b, V c) { return vfmaq_f32(c, a, b); }
  static V add(V a, V b) { return vaddq_f32(a, b); }
  // vmaxq/vminq propagate NaN; select instead, as the scalar epilogue compares.
  static V relu(V v) { return vbslq_f32(vcgtq_f32(v, vdupq_n_f32(0.0f)), v, vdupq_n_f32(0.0f)); }
  static V clip(V v, float lo, float hi) {
    const V l = vdupq_n_f32(lo), h = vdupq_n_f32(hi);
    const V t = vbslq_f32(vcltq_f32(v, l), l, v);
    return vbslq_f32(vcgtq_f32(t, h), h, t);
  }
};
#endif

// Portable ISA traits on GCC/Clang vector extensions of L floats: the traits of
// f32_dwconv_KxK__scalar in the build's vectors (4 lanes: SSE2, NEON; 8 or 16 where the build has
// AVX). Products are a multiply, then an add (an FMA where the C++ build contracts them); the
// tails go through a stack copy, as Sse2's do.
template <index_t L>
struct Lanes {
  typedef float V __attribute__((vector_size(L * sizeof(float))));
  typedef std::int32_t Mask __attribute__((vector_size(L * sizeof(float))));
  static constexpr index_t kLanes = L;
  static constexpr index_t kRows = L == 16 ? 8 : 4;  // as Avx512 and Avx2 / Sse2
  static ONNXC_ALWAYS_INLINE V set1(float f) { return f - V{}; }
  static ONNXC_ALWAYS_INLINE V load(const float* p) {
    V v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static ONNXC_ALWAYS_INLINE V load_once(const float* p) { return load(p); }
  static ONNXC_ALWAYS_INLINE void store(float* p, const V& v) { std::memcpy(p, &v, sizeof v); }
  // dst[0..n) = src[0..n), n < L, in pieces of 8, 4, 2 and 1 floats (a loop of n became a
  // library call, and narrow planes, all tails, ran at half the any-shape kernel's speed).
  static ONNXC_ALWAYS_INLINE void copy_head(float* dst, const float* src, index_t n) {
    index_t i = 0;
    for (index_t piece = L / 2; piece >= 1; piece /= 2)
      if (n & piece) std::memcpy(dst + i, src + i, piece * sizeof(float)), i += piece;
  }
  static ONNXC_ALWAYS_INLINE V load_n(const float* p, index_t n) {
    if (n == L) return load(p);
    float t[L] = {};
    copy_head(t, p, n);
    return load(t);
  }
  static ONNXC_ALWAYS_INLINE void store_n(float* p, const V& v, index_t n) {
    if (n == L) return store(p, v);
    float t[L];
    store(t, v);
    copy_head(p, t, n);
  }
  // Lanes 0, 2, 4, ... and 1, 3, 5, ... of the pair (a, b): one shuffle each where the compiler
  // has __builtin_shufflevector (clang, g++ 12 on), else through a stack copy.
  template <std::size_t... I>
  static ONNXC_ALWAYS_INLINE void deinterleave_as(const V& a, const V& b, V* even, V* odd,
                                                  std::index_sequence<I...>) {
#if defined(__clang__) || __GNUC__ >= 12
    *even = __builtin_shufflevector(a, b, (2 * I)...);
    *odd = __builtin_shufflevector(a, b, (2 * I + 1)...);
#else
    float t[2 * L], e[L], o[L];
    store(t, a), store(t + L, b);
    for (index_t i = 0; i < L; ++i) e[i] = t[2 * i], o[i] = t[2 * i + 1];
    *even = load(e), *odd = load(o);
#endif
  }
  static ONNXC_ALWAYS_INLINE void deinterleave(const V& a, const V& b, V* even, V* odd) {
    deinterleave_as(a, b, even, odd, std::make_index_sequence<L>{});
  }
  static ONNXC_ALWAYS_INLINE V fma(const V& a, const V& b, const V& c) {
    ONNXC_CONTRACT  // clang's run-time copies: fused where they have FMA (onnxc/base.h)
            return a *
            b +
        c;
  }
  static ONNXC_ALWAYS_INLINE V add(const V& a, const V& b) {
    return a + b;
  }
  // m ? a : b, lane by lane.
  static ONNXC_ALWAYS_INLINE V select(const Mask& m, const V& a, const V& b) {
    return (V)((m & (Mask)a) | (~m & (Mask)b));
  }
  // The NaN behaviour of the scalar epilogue: Relu(NaN) = 0, Clip(NaN) = NaN.
  static ONNXC_ALWAYS_INLINE V relu(const V& v) {
    return select(v > V{}, v, V{});
  }
  static ONNXC_ALWAYS_INLINE V clip(const V& v, float lo, float hi) {
    const V l = set1(lo), h = set1(hi);
    const V t = select(v < l, l, v);
    return select(t > h, h, t);
  }
};

// The portable rows' kernel: in code built for the x86-64 baseline (ONNXC_X86_ISA_DISPATCH,
// onnxc/base.h), the copy of the CPU's widest vectors, each built for its ISA with every call
// inlined (flatten) and the native rows' traits (Lanes<8> there, unfused, ran at 0.2x
// f32_dwconv_3x3__avx2_fma on Zen 3); AVX-512 takes rows of at most 8 outputs in 8-lane vectors,
// as f32_dwconv_KxK__avx512f does. Elsewhere the vectors the build has.
#if defined(ONNXC_X86_ISA_DISPATCH)
#if defined(ONNXC_DW_ISA_TRAITS)
using CopyAvx512 = Avx512;
using CopyAvx2 = Avx2;
#else
using CopyAvx512 = Lanes<16>;
using CopyAvx2 = Lanes<8>;
#endif
template <index_t K, class Act>
__attribute__((target("avx512f,avx2,fma"), flatten, noinline, ONNXC_VECTORIZE_COPY)) void
run_avx512f(const ConvParams& p, const float* x, const float* w, const float* b, float* y,
            void* scratch, const Epilogue<Act>& e, const float* residual) {
  if (p.out[2] <= 8) return run<CopyAvx2, K>(p, x, w, b, y, scratch, e, residual);
  run<CopyAvx512, K>(p, x, w, b, y, scratch, e, residual);
}
template <index_t K, class Act>
__attribute__((target("avx2,fma"), flatten, noinline, ONNXC_VECTORIZE_COPY)) void run_avx2_fma(
    const ConvParams& p, const float* x, const float* w, const float* b, float* y, void* scratch,
    const Epilogue<Act>& e, const float* residual) {
  run<CopyAvx2, K>(p, x, w, b, y, scratch, e, residual);
}
#endif

template <index_t K, class Act>
inline void run_portable(const ConvParams& p, const float* x, const float* w, const float* b,
                         float* y, void* scratch, const Epilogue<Act>& e, const float* residual) {
#if defined(ONNXC_X86_ISA_DISPATCH)
  if (ONNXC_CPU_HAS_AVX512F()) return run_avx512f<K>(p, x, w, b, y, scratch, e, residual);
  if (ONNXC_CPU_HAS_AVX2_FMA()) return run_avx2_fma<K>(p, x, w, b, y, scratch, e, residual);
#endif
  run<Lanes<conv_detail::kLanes>, K>(p, x, w, b, y, scratch, e, residual);
}

}  // namespace dwkxk_detail

constexpr index_t f32_dwconv_kxk_scratch_bytes(const ConvParams& p) {
  return dwkxk_detail::padded_rows(p) * dwkxk_detail::row_floats(p) *
         static_cast<index_t>(sizeof(float));
}

#if defined(__AVX512F__)
template <class Act>
inline void f32_dwconv_3x3__avx512f(const ConvParams& p, const float* x, const float* w,
                                    const float* b, float* y, void* scratch, const Epilogue<Act>& e,
                                    const float* residual) {
#if defined(__AVX2__) && defined(__FMA__)
  if (p.out[2] <= 8)  // rows of at most 8 outputs: half the work in 8-lane vectors
    return dwkxk_detail::run<dwkxk_detail::Avx2, 3>(p, x, w, b, y, scratch, e, residual);
#endif
  dwkxk_detail::run<dwkxk_detail::Avx512, 3>(p, x, w, b, y, scratch, e, residual);
}
inline void f32_dwconv_3x3__avx512f(const ConvParams& p, const float* x, const float* w,
                                    const float* b, float* y, void* scratch) {
  f32_dwconv_3x3__avx512f(p, x, w, b, y, scratch, Epilogue<>{}, nullptr);
}
#endif

#if defined(__AVX2__) && defined(__FMA__)
template <class Act>
inline void f32_dwconv_3x3__avx2_fma(const ConvParams& p, const float* x, const float* w,
                                     const float* b, float* y, void* scratch,
                                     const Epilogue<Act>& e, const float* residual) {
  dwkxk_detail::run<dwkxk_detail::Avx2, 3>(p, x, w, b, y, scratch, e, residual);
}
inline void f32_dwconv_3x3__avx2_fma(const ConvParams& p, const float* x, const float* w,
                                     const float* b, float* y, void* scratch) {
  dwkxk_detail::run<dwkxk_detail::Avx2, 3>(p, x, w, b, y, scratch, Epilogue<>{}, nullptr);
}
#endif

#if defined(__ARM_NEON) && defined(__aarch64__)
template <class Act>
inline void f32_dwconv_3x3__neonfma(const ConvParams& p, const float* x, const float* w,
                                    const float* b, float* y, void* scratch, const Epilogue<Act>& e,
                                    const float* residual) {
  dwkxk_detail::run<dwkxk_detail::NeonFma, 3>(p, x, w, b, y, scratch, e, residual);
}
inline void f32_dwconv_3x3__neonfma(const ConvParams& p, const float* x, const float* w,
                                    const float* b, float* y, void* scratch) {
  dwkxk_detail::run<dwkxk_detail::NeonFma, 3>(p, x, w, b, y, scratch, Epilogue<>{}, nullptr);
}
#endif

#if defined(__AVX512F__)
template <class Act>
inline void f32_dwconv_5x5__avx512f(const ConvParams& p, const float* x, const float* w,
                                    const float* b, float* y, void* scratch, const Epilogue<Act>& e,
                                    const float* residual) {
#if defined(__AVX2__) && defined(__FMA__)
  if (p.out[2] <= 8)  // rows of at most 8 outputs: half the work in 8-lane vectors
    return dwkxk_detail::run<dwkxk_detail::Avx2, 5>(p, x, w, b, y, scratch, e, residual);
#endif
  dwkxk_detail::run<dwkxk_detail::Avx512, 5>(p, x, w, b, y, scratch, e, residual);
}
inline void f32_dwconv_5x5__avx512f(const ConvParams& p, const float* x, const float* w,
                                    const float* b, float* y, void* scratch) {
  f32_dwconv_5x5__avx512f(p, x, w, b, y, scratch, Epilogue<>{}, nullptr);
}
#endif

#if defined(__AVX2__) && defined(__FMA__)
template <class Act>
inline void f32_dwconv_5x5__avx2_fma(const ConvParams& p, const float* x, const float* w,
                                     const float* b, float* y, void* scratch,
                                     const Epilogue<Act>& e, const float* residual) {
  dwkxk_detail::run<dwkxk_detail::Avx2, 5>(p, x, w, b, y, scratch, e, residual);
}
inline void f32_dwconv_5x5__avx2_fma(const ConvParams& p, const float* x, const float* w,
                                     const float* b, float* y, void* scratch) {
  dwkxk_detail::run<dwkxk_detail::Avx2, 5>(p, x, w, b, y, scratch, Epilogue<>{}, nullptr);
}
#endif

#if defined(__ARM_NEON) && defined(__aarch64__)
template <class Act>
inline void f32_dwconv_5x5__neonfma(const ConvParams& p, const float* x, const float* w,
                                    const float* b, float* y, void* scratch, const Epilogue<Act>& e,
                                    const float* residual) {
  dwkxk_detail::run<dwkxk_detail::NeonFma, 5>(p, x, w, b, y, scratch, e, residual);
}
inline void f32_dwconv_5x5__neonfma(const ConvParams& p, const float* x, const float* w,
                                    const float* b, float* y, void* scratch) {
  dwkxk_detail::run<dwkxk_detail::NeonFma, 5>(p, x, w, b, y, scratch, Epilogue<>{}, nullptr);
}
#endif

// The portable rows (plain C++, for the x86-64 baseline: targets class "baseline"), run-time
// dispatched where the build is x86-64 (dwkxk_detail::run_portable).
template <class Act>
inline void f32_dwconv_3x3__scalar(const ConvParams& p, const float* x, const float* w,
                                   const float* b, float* y, void* scratch, const Epilogue<Act>& e,
                                   const float* residual) {
  dwkxk_detail::run_portable<3>(p, x, w, b, y, scratch, e, residual);
}
inline void f32_dwconv_3x3__scalar(const ConvParams& p, const float* x, const float* w,
                                   const float* b, float* y, void* scratch) {
  dwkxk_detail::run_portable<3>(p, x, w, b, y, scratch, Epilogue<>{}, nullptr);
}
template <class Act>
inline void f32_dwconv_5x5__scalar(const ConvParams& p, const float* x, const float* w,
                                   const float* b, float* y, void* scratch, const Epilogue<Act>& e,
                                   const float* residual) {
  dwkxk_detail::run_portable<5>(p, x, w, b, y, scratch, e, residual);
}
inline void f32_dwconv_5x5__scalar(const ConvParams& p, const float* x, const float* w,
                                   const float* b, float* y, void* scratch) {
  dwkxk_detail::run_portable<5>(p, x, w, b, y, scratch, Epilogue<>{}, nullptr);
}

}  // namespace onnxc

#endif  // ONNXC_CONV_VARIANTS_H
