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
//       Per input channel the padded plane is copied once to scratch (for stride 2 with its even
//       and odd columns split, so every tap is a unit-stride load); then blocks of 4 output rows
//       x one vector accumulate in registers, each loaded input row feeding every output row
//       that uses it, and the epilogue (residual, Relu, Clip) is applied before the one store.
//       Scratch: f32_dwconv_kxk_scratch_bytes(p). Defined only when the compiler may use the ISA.
// The portable variants of the table are defined in onnxc/conv.h: f32_dwconv_any__scalar (any
// depthwise shape), and the convolution GEMM with its tiles, f32_conv_8x32__avx512f (plain C++,
// fastest where AVX-512 is available), f32_conv_6x16__scalar and f32_conv_4x8__scalar
// (microcontrollers).
// The depthwise variants take f32_dwconv_kxk_scratch_bytes(p).
// No heap; stack below 1 KiB.
#ifndef ONNXC_CONV_VARIANTS_H
#define ONNXC_CONV_VARIANTS_H

#include "onnxc/activation.h"
#include "onnxc/base.h"
#include "onnxc/conv.h"
#include "onnxc/gemm.h"

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
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

namespace dwkxk_detail {

constexpr index_t kMaxLanes = 16;  // the widest vector of any variant: the scratch's slack
constexpr index_t kRows = 4;       // output rows per register block

constexpr index_t round_up(index_t v, index_t m) {
  return (v + m - 1) / m * m;
}
// Floats per padded row in scratch: stride 1 holds columns [0, out_w + K - 1) and slack; stride 2
// holds the even columns then the odd ones, each [0, out_w + K / 2) at most, with slack.
constexpr index_t phase_floats(const ConvParams& p) {
  return round_up(p.out[2] + (p.kernel[2] - 1) + kMaxLanes, kMaxLanes);
}
constexpr index_t row_floats(const ConvParams& p) {
  return p.stride[2] == 1 ? phase_floats(p) : 2 * phase_floats(p);
}
constexpr index_t padded_rows(const ConvParams& p) {
  return (p.out[1] - 1) * p.stride[1] + p.kernel[1];
}

// dst[q] = src[2q - off] for q < n, 0 where that is outside [0, in_w).
inline void split_phases(const float* src, index_t in_w, index_t off, index_t n, float* dst) {
  index_t lo, hi;
  steps_in_range(n, 2, -off, in_w, &lo, &hi);
  for (index_t q = 0; q < lo; ++q) dst[q] = 0.0f;
  for (index_t q = lo; q < hi; ++q) dst[q] = src[2 * q - off];
  for (index_t q = hi; q < n; ++q) dst[q] = 0.0f;
}

// Copies input plane xc to `plane` with the padding made explicit (zeros) and, for stride 2,
// the columns split into even and odd phases. Every float of `plane` is written.
template <index_t S>
inline void pad_plane(const ConvParams& p, const float* xc, float* plane) {
  const index_t ld = row_floats(p), half = phase_floats(p);
  const index_t in_h = p.in[1], in_w = p.in[2], pad_t = p.pad[1], pad_l = p.pad[2];
  for (index_t r = 0; r < padded_rows(p); ++r) {
    float* dst = plane + r * ld;
    const index_t ih = r - pad_t;
    if (ih < 0 || ih >= in_h) {
      for (index_t i = 0; i < ld; ++i) dst[i] = 0.0f;
      continue;
    }
    const float* src = xc + ih * in_w;
    if (S == 1) {  // dst[c] = src[c - pad_l]: zeros, the row, zeros
      const index_t lo = pad_l < ld ? pad_l : ld, hi = in_w + pad_l < ld ? in_w + pad_l : ld;
      for (index_t c = 0; c < lo; ++c) dst[c] = 0.0f;
      for (index_t c = lo; c < hi; ++c) dst[c] = src[c - pad_l];
      for (index_t c = hi; c < ld; ++c) dst[c] = 0.0f;
    } else {  // dst[q] = src[2q - pad_l], dst[half + q] = src[2q + 1 - pad_l]
      split_phases(src, in_w, pad_l, half, dst);
      split_phases(src, in_w, pad_l - 1, half, dst + half);
    }
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
                  typename I::V bias, index_t oh0, index_t ow0, index_t n, float* y,
                  const float* res, index_t out_w, const Epilogue<Act>& e) {
  using V = typename I::V;
  constexpr InRegisters act = in_registers<Act>();
  V acc[R];
#pragma GCC unroll 8
  for (index_t r = 0; r < R; ++r) acc[r] = bias;
#pragma GCC unroll 16
  for (index_t j = 0; j < (R - 1) * S + K; ++j) {
    const float* row = plane + (oh0 * S + j) * ld;
#pragma GCC unroll 5
    for (index_t kw = 0; kw < K; ++kw) {
      const V v = I::load(S == 1 ? row + ow0 + kw : row + (kw % 2 ? half : 0) + ow0 + kw / 2);
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
inline void rows(const ConvParams& p, const float* plane, const typename I::V* wv,
                 typename I::V bias, index_t oh0, float* y, const float* res,
                 const Epilogue<Act>& e) {
  const index_t out_w = p.out[2], ld = row_floats(p), half = phase_floats(p);
  for (index_t ow0 = 0; ow0 < out_w; ow0 += I::kLanes) {
    const index_t n = out_w - ow0 < I::kLanes ? out_w - ow0 : I::kLanes;
    block<I, K, S, R>(plane, ld, half, wv, bias, oh0, ow0, n, y, res, out_w, e);
  }
}

template <class I, index_t K, index_t S, class Act>
inline void channels(const ConvParams& p, const float* x, const float* w, const float* b, float* y,
                     void* scratch, const Epilogue<Act>& e, const float* residual) {
  using V = typename I::V;
  float* plane = static_cast<float*>(scratch);
  const index_t multiplier = p.c_out / p.group;
  const index_t in_size = p.in[1] * p.in[2], out_size = p.out[1] * p.out[2];
  const index_t out_h = p.out[1];
  const float* res_or_null = e.residual ? residual : nullptr;
  for (index_t n = 0; n < p.batch; ++n)
    for (index_t oc = 0; oc < p.c_out; ++oc) {
      if (oc % multiplier == 0)
        pad_plane<S>(p, x + (n * p.c_in + oc / multiplier) * in_size, plane);
      V wv[K * K];
      for (index_t t = 0; t < K * K; ++t) wv[t] = I::set1(w[oc * K * K + t]);
      const V bias = I::set1(b ? b[oc] : 0.0f);
      float* yc = y + (n * p.c_out + oc) * out_size;
      const float* rc = res_or_null ? res_or_null + (n * p.c_out + oc) * out_size : nullptr;
      index_t oh = 0;
      for (; oh + kRows <= out_h; oh += kRows)
        rows<I, K, S, kRows>(p, plane, wv, bias, oh, yc, rc, e);
      // Fewer than kRows rows remain; the explicit bound lets g++ see the loop is short (with an
      // open bound, -O3 warns that a far iteration would overflow the row offset).
      for (index_t r = 0; r + 1 < kRows && oh < out_h; ++r, ++oh)
        rows<I, K, S, 1>(p, plane, wv, bias, oh, yc, rc, e);
      if constexpr (in_registers<Act>() == InRegisters::kLater) apply_epilogue(e, yc, rc, out_size);
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

// ISA traits: V (one vector), kLanes, set1, load, load_n / store_n (the first n lanes, the rest
// of load_n read as 0), fma(a, b, c) = a * b + c, add, relu and clip with the NaN behaviour of
// the scalar epilogue (Relu(NaN) = 0, Clip(NaN) = NaN).
#if defined(__AVX512F__)
struct Avx512 {
  using V = __m512;
  static constexpr index_t kLanes = 16;
  static __mmask16 mask(index_t n) { return static_cast<__mmask16>((1u << n) - 1u); }
  static V set1(float f) { return _mm512_set1_ps(f); }
  static V load(const float* p) { return _mm512_loadu_ps(p); }
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

#if defined(__AVX2__) && defined(__FMA__)
struct Avx2 {
  using V = __m256;
  static constexpr index_t kLanes = 8;
  static __m256i mask(index_t n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static V set1(float f) { return _mm256_set1_ps(f); }
  static V load(const float* p) { return _mm256_loadu_ps(p); }
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

#if defined(__ARM_NEON) && defined(__aarch64__)
struct NeonFma {
  using V = float32x4_t;
  static constexpr index_t kLanes = 4;
  static V set1(float f) { return vdupq_n_f32(f); }
  static V load(const float* p) { return vld1q_f32(p); }
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

}  // namespace onnxc

#endif  // ONNXC_CONV_VARIANTS_H
