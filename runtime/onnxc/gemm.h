// Matrix multiplication kernels (Gemm, MatMul, and any op lowered to a GEMM such as Conv).
//
// The GEMM, for every op that needs one:
//
//   struct GemmParams { m, n, k, trans_a, trans_b, lda, ldb, ldy, alpha, beta,
//                       c_row_stride, c_col_stride };
//   struct Workspace { void* data; index_t bytes; };
//   template <class Tile, typename T>
//   void gemm(const GemmParams& p, const T* a, const T* b, const T* c, T* y, Workspace ws);
//
// computes, for i < m and j < n (all matrices row-major, leading dimensions in elements):
//
//   y[i * ldy + j] = alpha * sum_{kk < k} opA(i, kk) * opB(kk, j)
//                    + beta * c[i * c_row_stride + j * c_col_stride]
//   opA(i, kk) = trans_a ? a[kk * lda + i] : a[i * lda + kk]     (A stored m x k, or k x m)
//   opB(kk, j) = trans_b ? b[j * ldb + kk] : b[kk * ldb + j]     (B stored k x n, or n x k)
//
// - c may be null (the beta term is then dropped). Strides of 0 broadcast C: a bias row is
//   {c_row_stride 0, c_col_stride 1}, a per-row bias {1, 0}, a scalar {0, 0}.
// - c may alias y when c_row_stride == ldy and c_col_stride == 1 (y = alpha*AB + beta*y).
//   a and b must not overlap y.
// - gemm<Tile>() runs the blocked tile the caller names (GemmTile<MR, NR>, a row the compiler
//   chose) where the product is large enough to pay for packing, else gemm_ref.
//   The float variants are rows of the kernel-variant table (onnxc/variants.h): the compiler's
//   select-kernels pass picks one per Gemm node for the target, and the generated code calls it
//   by name. Each has the signature (p, a, b, c, y, ws) and (p, a, b, c, y, e, residual, ws):
//     gemm_ref<T>                 any arithmetic T; integers accumulate with wraparound
//     f32_gemm_1x1__scalar        float; a dot product per element: products too small to pack
//     f32_gemm_6x16__scalar       float; cache-blocked, 6x16 register tile (AVX2: 12
//                                 accumulators of its 16 registers; NEON)
//     f32_gemm_8x32__scalar       float; cache-blocked, 8x32 register tile (AVX-512's pick;
//                                 portable code, compiled everywhere)
//     f32_gemm_4x4__scalar        float; cache-blocked, 4x4 tile of scalar accumulators
//                                 (microcontrollers: no vector unit, little stack)
// - ws is the kernel's working memory (a slice of the planned arena): the blocked variants pack
//   B panels into it, as deep as gemm_workspace_bytes(p, budget) allows. Given less than one
//   panel row (or no ws: the overloads without it), they compute as gemm_ref does. No variant
//   uses the heap or keeps more than its register tile (at most 1 KiB) on the stack.
//
// MatMul (numpy semantics) runs a GEMM per broadcast batch: matmul_ref, and matmul<Tile> (via
// gemm<Tile>).
//
// Fused epilogues: every GEMM, MatMul and float convolution variant has an overload taking
// (..., const Epilogue<Act>& e, const T* residual) that finishes each output element as
//
//   y = activation(acc + bias [+ residual])        (acc + bias: what the plain variant stores)
//
// while the output tile is still in cache. residual (may be null when e.residual is 0) has Y's
// layout and must not overlap Y. Act is the functor the unary op of the same name uses
// (onnxc/activation.h), so a fused graph gives the unfused graph's values; as a type, it is
// inlined into the kernel's loops and a program holds the code of the activations it uses only.
#ifndef ONNXC_GEMM_H
#define ONNXC_GEMM_H

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "onnxc/activation.h"
#include "onnxc/base.h"
#include "onnxc/gemm_tiles.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace onnxc {

struct GemmParams {
  index_t m, n, k;
  int trans_a, trans_b;
  index_t lda, ldb, ldy;  // row strides of A and B as stored, and of Y
  float alpha, beta;      // float attributes: float kernels read them without double math
  index_t c_row_stride, c_col_stride;  // C's strides; beta is ignored when C is null
};

// A kernel's working memory: `bytes` bytes at `data`, a slice of the planned arena (aligned to
// 64 bytes), or {nullptr, 0}. Kernels keep their buffers here, never on the stack.
struct Workspace {
  void* data;
  index_t bytes;
};

// A fused epilogue: the activation (a functor of onnxc/activation.h, with its alpha and beta) and
// whether the residual operand is added first. The activation is a type, so each kernel is
// compiled with the one it applies, inlined into its loops, and a program carries no other.
template <class Act = NoActivation>
struct Epilogue {
  Act activation;
  int residual;  // 1: add the residual operand (Y's layout) before the activation
};

// Whether e does anything (kernels skip their epilogue pass otherwise).
template <class Act>
constexpr bool has_epilogue(const Epilogue<Act>& e) {
  return !std::is_same_v<Act, NoActivation> || e.residual;
}

// y[0..n) = activation(y + residual) over one row of a finished tile (residual may be null).
template <class Act, typename T>
inline void apply_epilogue(const Epilogue<Act>& e, T* y, const T* residual, index_t n) {
  if (e.residual && residual)
    for (index_t i = 0; i < n; ++i) y[i] += residual[i];
  if constexpr (!std::is_same_v<Act, NoActivation>)
    for (index_t i = 0; i < n; ++i) y[i] = e.activation(y[i]);
}

// apply_epilogue for one value on its way to memory: y + *residual (null: none, or the epilogue
// adds none), then the activation; the same operations in the same order.
template <class Act, typename T>
ONNXC_ALWAYS_INLINE T epilogue_value(const Epilogue<Act>& e, T y, const T* residual) {
  if (e.residual && residual) y += *residual;
  if constexpr (!std::is_same_v<Act, NoActivation>) y = e.activation(y);
  return y;
}

namespace gemm_detail {

// Integers accumulate in uint64_t so that overflow wraps (as numpy does) instead of being UB.
template <typename T>
using Acc = std::conditional_t<std::is_integral_v<T>, std::uint64_t, T>;

// alpha * acc + beta * c, in T for floats; for integers exact when alpha and beta are 1.
template <typename T>
inline T combine(Acc<T> acc, const T* c, float alpha, float beta) {
  if constexpr (std::is_integral_v<T>) {
    std::uint64_t v = acc;
    if (alpha != 1.0f)
      v = static_cast<std::uint64_t>(
          static_cast<T>(static_cast<double>(alpha) * static_cast<double>(static_cast<T>(v))));
    if (c) {
      if (beta == 1.0f)
        v += static_cast<std::uint64_t>(*c);
      else
        v = static_cast<std::uint64_t>(
            static_cast<T>(static_cast<double>(static_cast<T>(v)) +
                           static_cast<double>(beta) * static_cast<double>(*c)));
    }
    return static_cast<T>(v);
  } else {
    T v = alpha == 1.0f ? acc : static_cast<T>(alpha) * acc;
    if (c) v += static_cast<T>(beta) * *c;
    return v;
  }
}

}  // namespace gemm_detail

// The reference: one dot product per output element.
template <typename T, class Act>
inline void gemm_ref(const GemmParams& p, const T* a, const T* b, const T* c, T* y,
                     const Epilogue<Act>& e, const T* residual) {
  using Acc = gemm_detail::Acc<T>;
  const index_t a_is = p.trans_a ? 1 : p.lda, a_ks = p.trans_a ? p.lda : 1;
  const index_t b_ks = p.trans_b ? 1 : p.ldb, b_js = p.trans_b ? p.ldb : 1;
  for (index_t i = 0; i < p.m; ++i) {
    for (index_t j = 0; j < p.n; ++j) {
      Acc acc = Acc(0);
      for (index_t kk = 0; kk < p.k; ++kk)
        acc +=
            static_cast<Acc>(a[i * a_is + kk * a_ks]) * static_cast<Acc>(b[kk * b_ks + j * b_js]);
      const T* ci = c ? c + i * p.c_row_stride + j * p.c_col_stride : nullptr;
      y[i * p.ldy + j] = gemm_detail::combine<T>(acc, ci, p.alpha, p.beta);
    }
    if (has_epilogue(e))  // the row is final
      apply_epilogue(e, y + i * p.ldy, residual ? residual + i * p.ldy : residual, p.n);
  }
}

template <typename T>
inline void gemm_ref(const GemmParams& p, const T* a, const T* b, const T* c, T* y) {
  gemm_ref(p, a, b, c, y, Epilogue<>{}, static_cast<const T*>(nullptr));
}

namespace gemm_detail {

// Blocking (float elements): a packed B panel of KC x NR (32 KiB at most, for L1; the
// workspace may hold less) stays in cache while a kBlockM x KC block of A (256 KiB) stays in
// L2 across the panels of one k block.
constexpr index_t kPanelFloats = 8192;
constexpr index_t kBlockM = 256;
constexpr index_t kMaxNr = 32;  // the widest register tile's NR (workspaces are sized for it)

// panel[kk][0..NR) = opB(k0 + kk, j0 .. j0 + nr), zero beyond nr: tiles never branch on n.
template <index_t NR>
inline void pack_b_panel(const GemmParams& p, const float* b, index_t k0, index_t kc, index_t j0,
                         index_t nr, float* panel) {
  if (p.trans_b) {  // B stored n x k: read each of its rows contiguously
    for (index_t j = 0; j < nr; ++j) {
      const float* src = b + (j0 + j) * p.ldb + k0;
      for (index_t kk = 0; kk < kc; ++kk) panel[kk * NR + j] = src[kk];
    }
    for (index_t kk = 0; kk < kc; ++kk)
      for (index_t j = nr; j < NR; ++j) panel[kk * NR + j] = 0.0f;
    return;
  }
  for (index_t kk = 0; kk < kc; ++kk) {
    const float* src = b + (k0 + kk) * p.ldb + j0;
    float* dst = panel + kk * NR;
    for (index_t j = 0; j < nr; ++j) dst[j] = src[j];
    for (index_t j = nr; j < NR; ++j) dst[j] = 0.0f;
  }
}

// Y (+)= alpha * opA opB over the blocks, Y already holding beta * C. panel holds kc_max x NR
// floats. With an epilogue (e non-null), each tile is finished right after its last k block.
// kPrepacked: b is already in packed_b_floats() layout (weights packed by the compiler), so the
// panel of (k0, j0) is read in place and `panel` is unused.
template <index_t MR, index_t NR, bool kPrepacked = false, class Act>
inline void blocked_product(const GemmParams& p, const float* a, const float* b, float* y,
                            float alpha, const Epilogue<Act>& e, const float* residual,
                            float* panel, index_t kc_max) {
  const index_t a_is = p.trans_a ? 1 : p.lda, a_ks = p.trans_a ? p.lda : 1;
  for (index_t k0 = 0; k0 < p.k; k0 += kc_max) {
    const index_t kc = p.k - k0 < kc_max ? p.k - k0 : kc_max;
    for (index_t i0 = 0; i0 < p.m; i0 += kBlockM) {
      const index_t mc = p.m - i0 < kBlockM ? p.m - i0 : kBlockM;
      for (index_t j0 = 0; j0 < p.n; j0 += NR) {
        const index_t nr = p.n - j0 < NR ? p.n - j0 : NR;
        const float* pb = b + (j0 * p.k + k0 * NR);  // prepacked: panel j0 / NR, row k0
        if (!kPrepacked) {
          pack_b_panel<NR>(p, b, k0, kc, j0, nr, panel);
          pb = panel;
        }
        for (index_t i = i0; i < i0 + mc; i += MR) {
          const index_t mr = i0 + mc - i < MR ? i0 + mc - i : MR;
          const float* ai = a + i * a_is + k0 * a_ks;
          float* yi = y + i * p.ldy + j0;
          if (j0 + NR < p.n)  // the next panel's output lines of these rows
            for (index_t r = 0; r < mr; ++r) ONNXC_PREFETCH_WRITE(yi + r * p.ldy + NR);
          if (p.trans_a)
            tile<MR, NR, true>(ai, p.lda, pb, kc, yi, p.ldy, mr, nr, alpha);
          else
            tile<MR, NR, false>(ai, p.lda, pb, kc, yi, p.ldy, mr, nr, alpha);
          if (has_epilogue(e) && k0 + kc == p.k)
            for (index_t r = 0; r < mr; ++r)
              apply_epilogue(e, yi + r * p.ldy,
                             residual ? residual + (i + r) * p.ldy + j0 : residual, nr);
        }
      }
    }
  }
}

#if defined(__AVX512F__)
// The sums of eight vectors' lanes, in order, in lanes 0..7: a reduction tree that shares its
// shuffles among the eight (a per-vector reduction costs about as much as the FMAs of a 256-deep
// dot product). The masked intrinsic forms: g++ 12 warns that the plain ones' undefined source
// may be used uninitialized.
inline __m512 sum_lanes8(__m512 a0, __m512 a1, __m512 a2, __m512 a3, __m512 a4, __m512 a5,
                         __m512 a6, __m512 a7) {
  constexpr __mmask16 kAll = 0xFFFF;
  // Two vectors into one: 128-bit blocks [p0+p2, p1+p3, q0+q2, q1+q3].
  auto halve = [](__m512 p, __m512 q) {
    return _mm512_add_ps(_mm512_mask_shuffle_f32x4(p, kAll, p, q, 0x44),
                         _mm512_mask_shuffle_f32x4(p, kAll, p, q, 0xEE));
  };
  // Two of those into one: block r holds 4 partial sums of row r.
  auto quarter = [](__m512 p, __m512 q) {
    return _mm512_add_ps(_mm512_mask_shuffle_f32x4(p, kAll, p, q, 0x88),
                         _mm512_mask_shuffle_f32x4(p, kAll, p, q, 0xDD));
  };
  const __m512 s = quarter(halve(a0, a1), halve(a2, a3));
  const __m512 t = quarter(halve(a4, a5), halve(a6, a7));
  // Block r: [s0+s2, t0+t2, s1+s3, t1+t3], then [row r, row r+4, row r, row r+4].
  const __m512 u =
      _mm512_add_ps(_mm512_mask_unpacklo_ps(s, kAll, s, t), _mm512_mask_unpackhi_ps(s, kAll, s, t));
  const __m512 v = _mm512_add_ps(u, _mm512_mask_permute_ps(u, kAll, u, 0x4E));
  const __m512i rows = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 0, 0, 0, 0, 0, 0, 0, 0);
  return _mm512_mask_permutexvar_ps(v, kAll, rows, v);
}

// y[j] += alpha * dot(a, row j of B) for 8 rows at a time: each loaded vector of `a` feeds eight
// FMAs, the k remainder is a masked load, and one reduction tree finishes the eight rows. The
// last block of fewer rows repeats its last row and stores only its own lanes.
inline void f32_dot_rows_avx512(const GemmParams& p, const float* a, const float* b, float* y,
                                float alpha) {
  const index_t kv = p.k - p.k % 16, ldb = p.ldb;
  const __mmask16 tail = static_cast<__mmask16>((1u << (p.k % 16)) - 1u);
  const __m512 va_alpha = _mm512_set1_ps(alpha);
  for (index_t j = 0; j < p.n; j += 8) {
    const index_t rows = p.n - j < 8 ? p.n - j : 8;
    const float* r[8];
    for (index_t q = 0; q < 8; ++q) r[q] = b + (j + (q < rows ? q : rows - 1)) * ldb;
    __m512 acc[8];
    for (__m512& c : acc) c = _mm512_setzero_ps();
    for (index_t kk = 0; kk < kv; kk += 16) {
      const __m512 va = _mm512_loadu_ps(a + kk);
      for (index_t q = 0; q < 8; ++q)
        acc[q] = _mm512_fmadd_ps(_mm512_loadu_ps(r[q] + kk), va, acc[q]);
    }
    if (tail) {
      const __m512 va = _mm512_maskz_loadu_ps(tail, a + kv);
      for (index_t q = 0; q < 8; ++q)
        acc[q] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tail, r[q] + kv), va, acc[q]);
    }
    const __m512 sums = sum_lanes8(acc[0], acc[1], acc[2], acc[3], acc[4], acc[5], acc[6], acc[7]);
    const __mmask16 out = static_cast<__mmask16>((1u << rows) - 1u);
    _mm512_mask_storeu_ps(y + j, out,
                          _mm512_fmadd_ps(va_alpha, sums, _mm512_maskz_loadu_ps(out, y + j)));
  }
}
#endif

// One row of Y with a contiguous A row (a fully connected layer at batch 1):
// y += alpha * a . opB. Memory bound on B, so B is streamed in its stored order.
ONNXC_ALWAYS_INLINE void gemv_body(const GemmParams& p, const float* a, const float* b, float* y,
                                   float alpha) {
  constexpr index_t kLanes = 16;
  if (p.trans_b) {
    const index_t kv = p.k - p.k % kLanes;  // (not `kk + kLanes <= k`: g++ -O3 then warns)
    for (index_t j = 0; j < p.n; ++j) {     // y[j] += alpha * dot(a, row j of B)
      const float* bj = b + j * p.ldb;
      float acc[kLanes] = {};
      for (index_t kk = 0; kk < kv; kk += kLanes)
        for (index_t l = 0; l < kLanes; ++l) acc[l] += a[kk + l] * bj[kk + l];
      float sum = 0.0f;
      for (index_t kk = kv; kk < p.k; ++kk) sum += a[kk] * bj[kk];
      for (index_t l = 0; l < kLanes; ++l) sum += acc[l];
      y[j] += alpha * sum;
    }
  } else {
    for (index_t kk = 0; kk < p.k; ++kk) {  // y += (alpha * a[kk]) * row kk of B
      const float av = alpha * a[kk];
      const float* bk = b + kk * p.ldb;
      for (index_t j = 0; j < p.n; ++j) y[j] += av * bk[j];
    }
  }
}

// The run-time ISA dispatch of the row product (ONNXC_X86_ISA_DISPATCH, see onnxc/base.h).
#if defined(ONNXC_X86_ISA_DISPATCH)
__attribute__((target("avx512f"), noinline)) inline void gemv_avx512f(const GemmParams& p,
                                                                      const float* a,
                                                                      const float* b, float* y,
                                                                      float alpha) {
  gemv_body(p, a, b, y, alpha);
}
__attribute__((target("avx2,fma"), noinline)) inline void gemv_avx2_fma(const GemmParams& p,
                                                                        const float* a,
                                                                        const float* b, float* y,
                                                                        float alpha) {
  gemv_body(p, a, b, y, alpha);
}
#endif

// With AVX-512 at compile time, a transposed B (one dot product per output) runs
// f32_dot_rows_avx512.
inline void f32_gemv(const GemmParams& p, const float* a, const float* b, float* y, float alpha) {
#if defined(__AVX512F__)
  if (p.trans_b) return f32_dot_rows_avx512(p, a, b, y, alpha);
#endif
#if defined(ONNXC_X86_ISA_DISPATCH)
  if (ONNXC_CPU_HAS_AVX512F()) return gemv_avx512f(p, a, b, y, alpha);
  if (ONNXC_CPU_HAS_AVX2_FMA()) return gemv_avx2_fma(p, a, b, y, alpha);
#endif
  gemv_body(p, a, b, y, alpha);
}

// Whether the blocked variants pack B for p (the other paths stream A or B as stored).
constexpr bool packs_panels(const GemmParams& p) {
  const index_t a_ks = p.trans_a ? p.lda : 1, b_ks = p.trans_b ? 1 : p.ldb;
  if (p.k == 0 || (p.m < 4 && (a_ks == 1 || p.k == 1))) return false;
  return !(p.n == 1 && !p.trans_a && (b_ks == 1 || p.k == 1) && p.ldy == 1);
}

// Whether the blocked variants run p as one row product per row of A (f32_gemv: fewer than 4
// rows, read in place), B streamed as stored: a product whose columns split without scratch.
constexpr bool runs_row_products(const GemmParams& p) {
  const index_t a_ks = p.trans_a ? p.lda : 1;
  return p.k > 0 && p.m < 4 && (a_ks == 1 || p.k == 1);
}

// Cache-blocked GEMM around an MR x NR register tile (BLIS loop order, A read in place).
// Without room for one panel row in ws, the reference.
template <index_t MR, index_t NR, index_t KC = kPanelFloats / NR, class Act>
inline void f32_gemm_blocked(const GemmParams& p, const float* a, const float* b, const float* c,
                             float* y, const Epilogue<Act>& e, const float* residual,
                             const Workspace& ws) {
  const index_t ws_depth = ws.data ? ws.bytes / (NR * static_cast<index_t>(sizeof(float))) : 0;
  const index_t kc_max = ws_depth < KC ? ws_depth : KC;
  if (packs_panels(p) && kc_max < 1) return gemm_ref(p, a, b, c, y, e, residual);
  // Y = beta * C (or 0) first; the k blocks then accumulate into it.
  const float beta = p.beta, alpha = p.alpha;
  for (index_t i = 0; i < p.m; ++i) {
    float* yi = y + i * p.ldy;
    if (c) {
      const float* ci = c + i * p.c_row_stride;
      for (index_t j = 0; j < p.n; ++j) yi[j] = beta * ci[j * p.c_col_stride];
    } else {
      for (index_t j = 0; j < p.n; ++j) yi[j] = 0.0f;
    }
  }
  // Finishes rows [0, m) of Y (the paths that do not work tile by tile).
  auto finish_rows = [&] {
    if (has_epilogue(e))
      for (index_t i = 0; i < p.m; ++i)
        apply_epilogue(e, y + i * p.ldy, residual ? residual + i * p.ldy : residual, p.n);
  };
  const index_t a_is = p.trans_a ? 1 : p.lda;
  if (p.k == 0) return finish_rows();
  if (runs_row_products(p)) {  // too few rows to fill a tile; A rows contiguous
    for (index_t i = 0; i < p.m; ++i) f32_gemv(p, a + i * a_is, b, y + i * p.ldy, alpha);
    return finish_rows();
  }
  const index_t b_ks = p.trans_b ? 1 : p.ldb;
  if (p.n == 1 && !p.trans_a && (b_ks == 1 || p.k == 1) && p.ldy == 1) {
    // A matrix times a vector: y^T = b^T A^T, one dot product per row of A.
    const GemmParams t = {1, p.m, p.k, 0, 1, p.k, p.lda, p.m, p.alpha, 0.0f, 0, 0};
    f32_gemv(t, b, a, y, alpha);
    return finish_rows();
  }
  blocked_product<MR, NR>(p, a, b, y, alpha, e, residual, static_cast<float*>(ws.data), kc_max);
}

}  // namespace gemm_detail

// 6 x 16 tile: 6 rows of 16 floats, 12 ymm accumulators with AVX2 (a 4 x 16 tile, 8 of them, ran
// at half the FMA peak on Zen 3: too few independent chains), 24 q registers with NEON.
template <class Act>
inline void f32_gemm_6x16__scalar(const GemmParams& p, const float* a, const float* b,
                                  const float* c, float* y, const Epilogue<Act>& e,
                                  const float* residual, const Workspace& ws) {
  gemm_detail::f32_gemm_blocked<6, 16>(p, a, b, c, y, e, residual, ws);
}
inline void f32_gemm_6x16__scalar(const GemmParams& p, const float* a, const float* b,
                                  const float* c, float* y, const Workspace& ws) {
  gemm_detail::f32_gemm_blocked<6, 16>(p, a, b, c, y, Epilogue<>{}, nullptr, ws);
}

// 8 x 32 tile: 16 zmm accumulators of AVX-512's 32 registers.
template <class Act>
inline void f32_gemm_8x32__scalar(const GemmParams& p, const float* a, const float* b,
                                  const float* c, float* y, const Epilogue<Act>& e,
                                  const float* residual, const Workspace& ws) {
  gemm_detail::f32_gemm_blocked<8, 32>(p, a, b, c, y, e, residual, ws);
}
inline void f32_gemm_8x32__scalar(const GemmParams& p, const float* a, const float* b,
                                  const float* c, float* y, const Workspace& ws) {
  gemm_detail::f32_gemm_blocked<8, 32>(p, a, b, c, y, Epilogue<>{}, nullptr, ws);
}

// 4 x 4 tile: 16 scalar accumulators (microcontrollers: no vector unit, and a few KiB of stack,
// where a spilled 6 x 16 tile alone takes 384 bytes).
template <class Act>
inline void f32_gemm_4x4__scalar(const GemmParams& p, const float* a, const float* b,
                                 const float* c, float* y, const Epilogue<Act>& e,
                                 const float* residual, const Workspace& ws) {
  gemm_detail::f32_gemm_blocked<4, 4>(p, a, b, c, y, e, residual, ws);
}
inline void f32_gemm_4x4__scalar(const GemmParams& p, const float* a, const float* b,
                                 const float* c, float* y, const Workspace& ws) {
  gemm_detail::f32_gemm_blocked<4, 4>(p, a, b, c, y, Epilogue<>{}, nullptr, ws);
}

// One float dot product per output element, for products below gemm_prefers_blocked(): gemm_ref's
// float arithmetic (same order of sums), without its integer paths.
template <class Act>
inline void f32_gemm_1x1__scalar(const GemmParams& p, const float* a, const float* b,
                                 const float* c, float* y, const Epilogue<Act>& e,
                                 const float* residual, const Workspace& /*ws*/) {
  const index_t a_is = p.trans_a ? 1 : p.lda, a_ks = p.trans_a ? p.lda : 1;
  const index_t b_ks = p.trans_b ? 1 : p.ldb, b_js = p.trans_b ? p.ldb : 1;
  for (index_t i = 0; i < p.m; ++i) {
    float* const yi = y + i * p.ldy;
    for (index_t j = 0; j < p.n; ++j) {
      float acc = 0.0f;
      for (index_t kk = 0; kk < p.k; ++kk) acc += a[i * a_is + kk * a_ks] * b[kk * b_ks + j * b_js];
      if (p.alpha != 1.0f) acc *= p.alpha;
      yi[j] = c ? acc + p.beta * c[i * p.c_row_stride + j * p.c_col_stride] : acc;
    }
    if (has_epilogue(e))  // the row is final
      apply_epilogue(e, yi, residual ? residual + i * p.ldy : residual, p.n);
  }
}
inline void f32_gemm_1x1__scalar(const GemmParams& p, const float* a, const float* b,
                                 const float* c, float* y, const Workspace& ws) {
  f32_gemm_1x1__scalar(p, a, b, c, y, Epilogue<>{}, nullptr, ws);
}

// ---- GEMM with B packed at compile time -------------------------------------------------------
//
// When B is a constant (a layer's weights), the compiler stores it already in the panel layout
// the register tiles read, so no kernel packs it at run time and none needs a workspace:
//   packed[(jp * k + kk) * NR + j] = opB(kk, jp * NR + j), zero for columns past n,
// panel jp after panel jp - 1, packed_b_floats(k, n, NR) floats in all. pack_gemm_b() computes it
// (the compiler calls it at compile time, the testers at run time). The variants
//   f32_gemm_packed_6x16__scalar, f32_gemm_packed_8x32__scalar, f32_gemm_packed_4x4__scalar
// take (p, a, packed_b, c, y) and (p, a, packed_b, c, y, e, residual), p as for gemm() (trans_b
// and ldb describe B before packing and are otherwise unused); m >= 4 (below, the plain variants
// stream B as a vector product instead).

constexpr index_t packed_b_floats(index_t k, index_t n, index_t nr) {
  return (n + nr - 1) / nr * nr * k;
}

template <index_t NR>
inline void pack_gemm_b(const GemmParams& p, const float* b, float* packed) {
  for (index_t j0 = 0; j0 < p.n; j0 += NR)
    gemm_detail::pack_b_panel<NR>(p, b, 0, p.k, j0, p.n - j0 < NR ? p.n - j0 : NR,
                                  packed + j0 * p.k);
}

namespace gemm_detail {

template <index_t MR, index_t NR, index_t KC = kPanelFloats / NR, class Act>
inline void f32_gemm_packed(const GemmParams& p, const float* a, const float* packed_b,
                            const float* c, float* y, const Epilogue<Act>& e,
                            const float* residual) {
  const float beta = static_cast<float>(p.beta), alpha = static_cast<float>(p.alpha);
  for (index_t i = 0; i < p.m; ++i) {  // Y = beta * C (or 0); the k blocks accumulate into it
    float* yi = y + i * p.ldy;
    const float* ci = c ? c + i * p.c_row_stride : nullptr;
    for (index_t j = 0; j < p.n; ++j) yi[j] = ci ? beta * ci[j * p.c_col_stride] : 0.0f;
  }
  if (p.k == 0) {
    if (has_epilogue(e))
      for (index_t i = 0; i < p.m; ++i)
        apply_epilogue(e, y + i * p.ldy, residual ? residual + i * p.ldy : residual, p.n);
    return;
  }
  blocked_product<MR, NR, true>(p, a, packed_b, y, alpha, e, residual, nullptr, KC);
}

}  // namespace gemm_detail

// 8 x 32 tiles (AVX-512's pick; portable code), B packed into 32-column panels.
template <class Act>
inline void f32_gemm_packed_8x32__scalar(const GemmParams& p, const float* a, const float* packed_b,
                                         const float* c, float* y, const Epilogue<Act>& e,
                                         const float* residual) {
  gemm_detail::f32_gemm_packed<8, 32>(p, a, packed_b, c, y, e, residual);
}
inline void f32_gemm_packed_8x32__scalar(const GemmParams& p, const float* a, const float* packed_b,
                                         const float* c, float* y) {
  gemm_detail::f32_gemm_packed<8, 32>(p, a, packed_b, c, y, Epilogue<>{}, nullptr);
}
// 6 x 16 tiles, B packed into 16-column panels.
template <class Act>
inline void f32_gemm_packed_6x16__scalar(const GemmParams& p, const float* a, const float* packed_b,
                                         const float* c, float* y, const Epilogue<Act>& e,
                                         const float* residual) {
  gemm_detail::f32_gemm_packed<6, 16>(p, a, packed_b, c, y, e, residual);
}
inline void f32_gemm_packed_6x16__scalar(const GemmParams& p, const float* a, const float* packed_b,
                                         const float* c, float* y) {
  gemm_detail::f32_gemm_packed<6, 16>(p, a, packed_b, c, y, Epilogue<>{}, nullptr);
}
// 4 x 4 tiles of scalar accumulators (microcontrollers), B packed into 4-column panels.
template <class Act>
inline void f32_gemm_packed_4x4__scalar(const GemmParams& p, const float* a, const float* packed_b,
                                        const float* c, float* y, const Epilogue<Act>& e,
                                        const float* residual) {
  gemm_detail::f32_gemm_packed<4, 4>(p, a, packed_b, c, y, e, residual);
}
inline void f32_gemm_packed_4x4__scalar(const GemmParams& p, const float* a, const float* packed_b,
                                        const float* c, float* y) {
  gemm_detail::f32_gemm_packed<4, 4>(p, a, packed_b, c, y, Epilogue<>{}, nullptr);
}

// Whether the blocked float GEMM beats the reference for an m x n x k product; below this the
// packing and tile bookkeeping cost more than they save.
constexpr bool gemm_prefers_blocked(index_t m, index_t n, index_t k) {
  return m * n * k >= 4096 && (n >= 8 || n == 1) && k >= 4;
}

// Workspace bytes for gemm(p, ...) on floats: B panels of any variant's width, as deep as k
// and the blocking allow, at most `budget` bytes (0: p needs none, or the budget holds less
// than one panel row, and the product runs unpacked or as the reference).
constexpr index_t gemm_workspace_bytes(const GemmParams& p, index_t budget) {
  using gemm_detail::kMaxNr;
  if (!gemm_prefers_blocked(p.m, p.n, p.k) || !gemm_detail::packs_panels(p)) return 0;
  const index_t row = kMaxNr * static_cast<index_t>(sizeof(float));
  const index_t max_depth = gemm_detail::kPanelFloats / kMaxNr;
  index_t depth = p.k < max_depth ? p.k : max_depth;
  if (depth * row > budget) depth = budget / row;
  return depth * row;
}

// The blocked float GEMM tile a kernel that runs GEMMs inside (matmul, ConvTranspose, the
// recurrent input products) uses: the row of the kernel-variant table (f32_gemm_<MR>x<NR>__scalar)
// the compiler chose for the node's product and the target, named by the generated call, e.g.
// onnxc::matmul<onnxc::GemmTile<6, 16>>(...): the target's blocked tile. Products below
// gemm_prefers_blocked, and every non-float product, run as gemm_ref whatever the tile.
template <int MR, int NR>
struct GemmTile {
  static constexpr int kRows = MR, kCols = NR;
};

// y = op(A) op(B) (+ C) through Tile's blocked variant where gemm_prefers_blocked says blocking
// pays (p is usually a compile-time constant, so the test folds), else as gemm_ref.
template <class Tile, typename T, class Act>
inline void gemm(const GemmParams& p, const T* a, const T* b, const T* c, T* y,
                 const Epilogue<Act>& e, const T* residual, const Workspace& ws) {
  if constexpr (std::is_same_v<T, float>) {
    if (gemm_prefers_blocked(p.m, p.n, p.k))
      return gemm_detail::f32_gemm_blocked<Tile::kRows, Tile::kCols>(p, a, b, c, y, e, residual,
                                                                     ws);
  }
  gemm_ref(p, a, b, c, y, e, residual);
}
template <class Tile, typename T>
inline void gemm(const GemmParams& p, const T* a, const T* b, const T* c, T* y,
                 const Workspace& ws) {
  gemm<Tile>(p, a, b, c, y, Epilogue<>{}, static_cast<const T*>(nullptr), ws);
}
// Without a workspace: the products that would pack B run as the reference.
template <class Tile, typename T, class Act>
inline void gemm(const GemmParams& p, const T* a, const T* b, const T* c, T* y,
                 const Epilogue<Act>& e, const T* residual) {
  gemm<Tile>(p, a, b, c, y, e, residual, Workspace{nullptr, 0});
}
template <class Tile, typename T>
inline void gemm(const GemmParams& p, const T* a, const T* b, const T* c, T* y) {
  gemm<Tile>(p, a, b, c, y, Epilogue<>{}, static_cast<const T*>(nullptr), Workspace{nullptr, 0});
}

// ---- MatMul ---------------------------------------------------------------------------------

// Y[batch..., m, n] = A[batch..., m, k] @ B[batch..., k, n]; batch dims broadcast through
// stride-0 entries. A 1-D operand is passed as m = 1 (A) or n = 1 (B). trans_a / trans_b: the
// operand is stored with its last two axes swapped (k x m, n x k: a folded Transpose).
// The overload with (bias, epilogue, residual) adds bias[n] to every row (bias may be null),
// then finishes each element with the epilogue; residual has Y's layout. ws: as gemm()'s, for
// one batch's product (matmul_workspace_bytes), reused by every batch.
struct MatMulParams {
  int batch_rank;
  index_t batch_dims[kMaxRank];
  index_t a_strides[kMaxRank], b_strides[kMaxRank];  // in elements, per batch dim
  index_t batch_count;
  index_t m, n, k;
  // Defaulted, so literals written before these fields existed stay complete.
  int trans_a = 0, trans_b = 0;
};

namespace gemm_detail {

// The GEMM of one batch (bias: whether a bias row is added).
constexpr GemmParams batch_gemm_params(const MatMulParams& p, bool bias) {
  return {p.m,
          p.n,
          p.k,
          p.trans_a,
          p.trans_b,
          p.trans_a ? p.m : p.k,
          p.trans_b ? p.k : p.n,
          p.n,
          1.0f,
          bias ? 1.0f : 0.0f,
          0,
          1};
}

template <typename T, class Act, typename Gemm>
inline void matmul_batched(const MatMulParams& p, const T* a, const T* b, const T* bias, T* y,
                           const Epilogue<Act>& e, const T* residual, Gemm gemm_fn) {
  const GemmParams g = batch_gemm_params(p, bias != nullptr);
  index_t idx[kMaxRank] = {};
  for (index_t bi = 0; bi < p.batch_count; ++bi) {
    index_t ao = 0, bo = 0;
    for (int d = 0; d < p.batch_rank; ++d) {
      ao += idx[d] * p.a_strides[d];
      bo += idx[d] * p.b_strides[d];
    }
    gemm_fn(g, a + ao, b + bo, bias, y + bi * p.m * p.n, e,
            residual ? residual + bi * p.m * p.n : residual);
    for (int d = p.batch_rank - 1; d >= 0; --d) {
      if (++idx[d] < p.batch_dims[d]) break;
      idx[d] = 0;
    }
  }
}

}  // namespace gemm_detail

// Workspace bytes for matmul(p, ...) on floats (see gemm_workspace_bytes).
constexpr index_t matmul_workspace_bytes(const MatMulParams& p, bool bias, index_t budget) {
  return gemm_workspace_bytes(gemm_detail::batch_gemm_params(p, bias), budget);
}

template <typename T, class Act>
inline void matmul_ref(const MatMulParams& p, const T* a, const T* b, const T* bias, T* y,
                       const Epilogue<Act>& e, const T* residual) {
  gemm_detail::matmul_batched(
      p, a, b, bias, y, e, residual,
      [](const GemmParams& g, const T* ga, const T* gb, const T* gc, T* gy, const Epilogue<Act>& ge,
         const T* gr) { gemm_ref(g, ga, gb, gc, gy, ge, gr); });
}
template <typename T>
inline void matmul_ref(const MatMulParams& p, const T* a, const T* b, T* y) {
  matmul_ref(p, a, b, static_cast<const T*>(nullptr), y, Epilogue<>{},
             static_cast<const T*>(nullptr));
}

// Each batch through gemm<Tile>(), so float products large enough run blocked.
template <class Tile, typename T, class Act>
inline void matmul(const MatMulParams& p, const T* a, const T* b, const T* bias, T* y,
                   const Epilogue<Act>& e, const T* residual, const Workspace& ws) {
  gemm_detail::matmul_batched(
      p, a, b, bias, y, e, residual,
      [&ws](const GemmParams& g, const T* ga, const T* gb, const T* gc, T* gy,
            const Epilogue<Act>& ge, const T* gr) { gemm<Tile>(g, ga, gb, gc, gy, ge, gr, ws); });
}
template <class Tile, typename T>
inline void matmul(const MatMulParams& p, const T* a, const T* b, T* y, const Workspace& ws) {
  matmul<Tile>(p, a, b, static_cast<const T*>(nullptr), y, Epilogue<>{},
               static_cast<const T*>(nullptr), ws);
}
template <class Tile, typename T, class Act>
inline void matmul(const MatMulParams& p, const T* a, const T* b, const T* bias, T* y,
                   const Epilogue<Act>& e, const T* residual) {
  matmul<Tile>(p, a, b, bias, y, e, residual, Workspace{nullptr, 0});
}
template <class Tile, typename T>
inline void matmul(const MatMulParams& p, const T* a, const T* b, T* y) {
  matmul<Tile>(p, a, b, y, Workspace{nullptr, 0});
}

}  // namespace onnxc

#endif  // ONNXC_GEMM_H
