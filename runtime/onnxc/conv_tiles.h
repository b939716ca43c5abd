// The register tiles of the convolution GEMM (onnxc/conv.h): y[0..mr) x [0..nr) = (accumulate ?
// y : bias) + a[mr x kc] panel[kc x NR], in scalar accumulators (FPUs without vectors) or native
// vectors, with run-time ISA copies in x86-64 baseline builds (onnxc/base.h).
#ifndef ONNXC_CONV_TILES_H
#define ONNXC_CONV_TILES_H

#include <cstring>

#include "onnxc/base.h"

namespace onnxc {
namespace conv_detail {

// The register tiles use a GCC/Clang vector extension type of one native vector (g++ 12
// vectorizes plain float loops across the wrong loop). A type wider than the compiler was told the
// CPU has is split through memory (the 6 x 16 tile at the x86-64 baseline: 2.7 GFLOP/s, 41 with
// 4-float vectors).
#if defined(__AVX512F__)
constexpr index_t kLanes = 16;
#elif defined(__AVX__)
constexpr index_t kLanes = 8;
#else
// SSE2, NEON, or no vector unit (short "vectors" keep the tiles' frames small).
constexpr index_t kLanes = 4;
#endif
typedef float vfloat __attribute__((vector_size(kLanes * sizeof(float))));

// y[0..mr) x [0..nr) = (accumulate ? y : bias) + a[mr x kc] panel[kc x NR], for FPUs without
// vectors: MR x NR scalar accumulators (4 x 8: 32, few spills on an FPU of 32 registers).
template <index_t MR, index_t NR>
__attribute__((noinline)) ONNXC_CONTRACT_FN void scalar_gemm_tile(const float* a, index_t lda,
                                                                  const float* panel, index_t kc,
                                                                  float* y, index_t ldy, index_t mr,
                                                                  index_t nr, const float* bias,
                                                                  bool accumulate) {
  float acc[MR][NR];
  for (index_t r = 0; r < MR; ++r)
    for (index_t j = 0; j < NR; ++j)
      acc[r][j] = r >= mr || j >= nr ? 0.0f : accumulate ? y[r * ldy + j] : bias ? bias[r] : 0.0f;
  for (index_t kk = 0; kk < kc; ++kk) {
    const float* bk = panel + kk * NR;
    for (index_t r = 0; r < MR; ++r) {
      const float av = a[(r < mr ? r : mr - 1) * lda + kk];
      for (index_t j = 0; j < NR; ++j) acc[r][j] = scalar_mul_add(av, bk[j], acc[r][j]);
    }
  }
  for (index_t r = 0; r < MR; ++r)
    for (index_t j = 0; j < NR; ++j)
      if (r < mr && j < nr) y[r * ldy + j] = acc[r][j];
}

// y[0..mr) x [0..nr) = (accumulate ? y : bias) + a[mr x kc] panel[kc x NR]; rows past mr re-read
// the last row, unstored; columns past nr are panel zeros. The accumulators stay in registers if
// every loop over them is unrolled before g++'s scalar replacement (the pragmas) and their address
// is never taken (copies through a temporary); gemm_tile is noinline, or they spill.
template <index_t MR, index_t NR, index_t kLanes>
ONNXC_ALWAYS_INLINE void gemm_tile_lanes(const float* a, index_t lda, const float* panel,
                                         index_t kc, float* y, index_t ldy, index_t mr, index_t nr,
                                         const float* bias, bool accumulate) {
  ONNXC_CONTRACT
  typedef float vfloat __attribute__((vector_size(kLanes * sizeof(float))));
  constexpr index_t kVecs = NR / kLanes;
  static_assert(NR % kLanes == 0, "a panel row is whole vectors");
  const float* rows[MR];
  vfloat acc[MR][kVecs];
#pragma GCC unroll 16
  for (index_t r = 0; r < MR; ++r) {
    const index_t rr = r < mr ? r : mr - 1;
    rows[r] = a + rr * lda;
    const float init = bias ? bias[rr] : 0.0f;
#pragma GCC unroll 16
    for (index_t v = 0; v < kVecs; ++v) acc[r][v] = init - vfloat{};
  }
  if (accumulate) {
#pragma GCC unroll 16
    for (index_t r = 0; r < MR; ++r) {
      if (r >= mr) continue;
      float row[NR] = {};
      for (index_t j = 0; j < nr; ++j) row[j] = y[r * ldy + j];
#pragma GCC unroll 16
      for (index_t v = 0; v < kVecs; ++v) {
        vfloat t;
        std::memcpy(&t, row + v * kLanes, sizeof t);
        acc[r][v] = t;
      }
    }
  }
  for (index_t kk = 0; kk < kc; ++kk) {
    vfloat bv[kVecs];
#pragma GCC unroll 16
    for (index_t v = 0; v < kVecs; ++v)
      std::memcpy(&bv[v], panel + kk * NR + v * kLanes, sizeof(vfloat));
#pragma GCC unroll 16
    for (index_t r = 0; r < MR; ++r) {
      const float av = rows[r][kk];
#pragma GCC unroll 16
      for (index_t v = 0; v < kVecs; ++v) acc[r][v] += av * bv[v];
    }
  }
#pragma GCC unroll 16
  for (index_t r = 0; r < MR; ++r) {
    if (r >= mr) continue;
    float row[NR];
#pragma GCC unroll 16
    for (index_t v = 0; v < kVecs; ++v) {
      const vfloat t = acc[r][v];
      std::memcpy(nr == NR ? y + r * ldy + v * kLanes : row + v * kLanes, &t, sizeof t);
    }
    if (nr != NR)
      for (index_t j = 0; j < nr; ++j) y[r * ldy + j] = row[j];
  }
}

// The tile's run-time ISA copies (conv_gemm_rows, onnxc/conv.h). Pointwise 96 -> 576 at 14x14,
// Zen 5: SSE2 41 GFLOP/s, AVX2 + FMA 119, AVX-512 143; -march=native 166.
#if defined(ONNXC_X86_ISA_DISPATCH)
template <index_t MR, index_t NR>
__attribute__((target("avx512f"), noinline)) ONNXC_CONTRACT_COPY_FN void gemm_tile_avx512f(
    const float* a, index_t lda, const float* panel, index_t kc, float* y, index_t ldy, index_t mr,
    index_t nr, const float* bias, bool accumulate) {
  gemm_tile_lanes<MR, NR, 16>(a, lda, panel, kc, y, ldy, mr, nr, bias, accumulate);
}
template <index_t MR, index_t NR>
__attribute__((target("avx2,fma"), noinline)) ONNXC_CONTRACT_COPY_FN void gemm_tile_avx2_fma(
    const float* a, index_t lda, const float* panel, index_t kc, float* y, index_t ldy, index_t mr,
    index_t nr, const float* bias, bool accumulate) {
  gemm_tile_lanes<MR, NR, 8>(a, lda, panel, kc, y, ldy, mr, nr, bias, accumulate);
}
#endif

template <index_t MR, index_t NR>
__attribute__((noinline)) ONNXC_CONTRACT_FN void gemm_tile(const float* a, index_t lda,
                                                           const float* panel, index_t kc, float* y,
                                                           index_t ldy, index_t mr, index_t nr,
                                                           const float* bias, bool accumulate) {
  gemm_tile_lanes<MR, NR, kLanes>(a, lda, panel, kc, y, ldy, mr, nr, bias, accumulate);
}

}  // namespace conv_detail
}  // namespace onnxc

#endif  // ONNXC_CONV_TILES_H
