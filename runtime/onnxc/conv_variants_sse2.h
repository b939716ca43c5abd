// The SSE2 depthwise variant of the kernel-variant table (onnxc/variants.h), for x86-64 targets
// without AVX (x86-64-v2): f32_dwconv_3x3__sse2, onnxc/conv_variants.h's depthwise 3x3 kernel on
// 4-lane vectors.
//
// Same shapes (f32_dwconv_kxk_applies(p, 3)), signatures, scratch (f32_dwconv_kxk_scratch_bytes)
// and parallel form (..., residual, par, tasks) as the other f32_dwconv_3x3 variants. SSE2 has
// no FMA: each tap is a multiply, then an add (one rounding more per product than with FMA,
// within the variant tester's bound). A header of its own so that code for the other targets
// never includes it. Defined only when the compiler may use SSE2.
#ifndef ONNXC_CONV_VARIANTS_SSE2_H
#define ONNXC_CONV_VARIANTS_SSE2_H

#include "onnxc/conv_variants.h"
#include "onnxc/kernels_parallel.h"

#if defined(__SSE2__)
#include <emmintrin.h>

namespace onnxc {
namespace dwkxk_detail {

// onnxc/conv_variants.h's ISA traits for SSE2 (see the Avx2 ones there).
struct Sse2 {
  using V = __m128;
  static constexpr index_t kLanes = 4;
  static constexpr index_t kRows = 4;  // 16 registers, as AVX2: the weights, 4 accumulators
  static V set1(float f) { return _mm_set1_ps(f); }
  static V load(const float* p) { return _mm_loadu_ps(p); }
  static V load_once(const float* p) { return _mm_loadu_ps(p); }
  static void store(float* p, V v) { _mm_storeu_ps(p, v); }
  // Lanes 0, 2 of a and of b, then lanes 1, 3 of a and of b.
  static void deinterleave(V a, V b, V* even, V* odd) {
    *even = _mm_shuffle_ps(a, b, 0x88);
    *odd = _mm_shuffle_ps(a, b, 0xDD);
  }
  static V load_n(const float* p, index_t n) {
    if (n == kLanes) return _mm_loadu_ps(p);
    float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (index_t i = 0; i < n; ++i) t[i] = p[i];
    return _mm_loadu_ps(t);
  }
  static void store_n(float* p, V v, index_t n) {
    if (n == kLanes) return _mm_storeu_ps(p, v);
    float t[4];
    _mm_storeu_ps(t, v);
    for (index_t i = 0; i < n; ++i) p[i] = t[i];
  }
  static V fma(V a, V b, V c) { return _mm_add_ps(_mm_mul_ps(a, b), c); }
  static V add(V a, V b) { return _mm_add_ps(a, b); }
  // max/min return their second operand when either is NaN: Relu(NaN) = 0, Clip(NaN) = NaN.
  static V relu(V v) { return _mm_max_ps(v, _mm_setzero_ps()); }
  static V clip(V v, float lo, float hi) {
    return _mm_min_ps(_mm_set1_ps(hi), _mm_max_ps(_mm_set1_ps(lo), v));
  }
};

}  // namespace dwkxk_detail

template <class Act>
inline void f32_dwconv_3x3__sse2(const ConvParams& p, const float* x, const float* w,
                                 const float* b, float* y, void* scratch, const Epilogue<Act>& e,
                                 const float* residual) {
  dwkxk_detail::run<dwkxk_detail::Sse2, 3>(p, x, w, b, y, scratch, e, residual);
}
inline void f32_dwconv_3x3__sse2(const ConvParams& p, const float* x, const float* w,
                                 const float* b, float* y, void* scratch) {
  dwkxk_detail::run<dwkxk_detail::Sse2, 3>(p, x, w, b, y, scratch, Epilogue<>{}, nullptr);
}
ONNXC_DWCONV_KXK_PARALLEL(f32_dwconv_3x3__sse2)

}  // namespace onnxc

#endif  // defined(__SSE2__)

#endif  // ONNXC_CONV_VARIANTS_SSE2_H
