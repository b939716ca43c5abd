// The register tiles of the convolution GEMM (onnxc/conv.h): y[0..mr) x [0..nr) = (accumulate ?
// y : bias) + a[mr x kc] panel[kc x NR], as MR x NR tiles of scalar accumulators (FPUs without
// vectors) or of vectors of the width the C++ compiler was told the CPU has, with their run-time
// ISA copies on x86-64 baseline builds (ONNXC_X86_ISA_DISPATCH, onnxc/base.h).
#ifndef ONNXC_CONV_TILES_H
#define ONNXC_CONV_TILES_H

#include <cstring>

#include "onnxc/base.h"

namespace onnxc {
namespace conv_detail {

// The register tiles use a GCC/Clang vector extension type of one native vector (plain loops
// over float arrays get vectorized across the wrong loop, with gathers, by g++ 12). It must be
// the width the C++ compiler was told the CPU has: a wider type is split into pieces through
// memory (g++ -O2 at the x86-64 baseline ran the 6 x 16 tile with 8-float vectors at 2.7
// GFLOP/s, with 4-float ones at 41; --target generic builds with no -march at all).
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
// vectors: MR x NR scalar accumulators (a 4 x 8 tile: 32 of them, with few spills on an FPU of 32
// single registers).
template <index_t MR, index_t NR>
__attribute__((noinline)) void scalar_gemm_tile(const float* a, index_t lda, const float* panel,
                                                index_t kc, float* y, index_t ldy, index_t mr,
                                                index_t nr, const float* bias, bool accumulate) {
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

// y[0..mr) x [0..nr) = (accumulate ? y : bias) + a[mr x kc] panel[kc x NR]. Rows past mr
// re-read the last row and are not stored; columns past nr are zeros in the panel.
// The accumulators stay in registers only if every loop over them is unrolled before g++'s
// scalar replacement runs (hence the pragmas, which clang also honours) and their address is
// never taken (hence the copies through a temporary). gemm_tile below, noinline: inlined into
// the block loops, the tile's accumulators get spilled.
// kLanes: floats per vector (the tile is written once, instantiated per vector width).
template <index_t MR, index_t NR, index_t kLanes>
ONNXC_ALWAYS_INLINE void gemm_tile_lanes(const float* a, index_t lda, const float* panel,
                                         index_t kc, float* y, index_t ldy, index_t mr, index_t nr,
                                         const float* bias, bool accumulate) {
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

// The run-time ISA dispatch of the tile (ONNXC_X86_ISA_DISPATCH, see onnxc/base.h). Measured
// (pointwise 96 -> 576 at 14x14, 6 x 16 tile, g++ 12 -O2, Zen 5): SSE2 41 GFLOP/s, AVX2 + FMA
// 119, AVX-512 143; built with -march=native 166.
#if defined(ONNXC_X86_ISA_DISPATCH)
template <index_t MR, index_t NR>
__attribute__((target("avx512f"), noinline)) void gemm_tile_avx512f(
    const float* a, index_t lda, const float* panel, index_t kc, float* y, index_t ldy, index_t mr,
    index_t nr, const float* bias, bool accumulate) {
  gemm_tile_lanes<MR, NR, 16>(a, lda, panel, kc, y, ldy, mr, nr, bias, accumulate);
}
template <index_t MR, index_t NR>
__attribute__((target("avx2,fma"), noinline)) void gemm_tile_avx2_fma(
    const float* a, index_t lda, const float* panel, index_t kc, float* y, index_t ldy, index_t mr,
    index_t nr, const float* bias, bool accumulate) {
  gemm_tile_lanes<MR, NR, 8>(a, lda, panel, kc, y, ldy, mr, nr, bias, accumulate);
}
#endif

template <index_t MR, index_t NR>
__attribute__((noinline)) void gemm_tile(const float* a, index_t lda, const float* panel,
                                         index_t kc, float* y, index_t ldy, index_t mr, index_t nr,
                                         const float* bias, bool accumulate) {
#if defined(ONNXC_X86_ISA_DISPATCH)
  if (NR % 16 == 0 && ONNXC_CPU_HAS_AVX512F())
    return gemm_tile_avx512f<MR, NR>(a, lda, panel, kc, y, ldy, mr, nr, bias, accumulate);
  if (ONNXC_CPU_HAS_AVX2_FMA())
    return gemm_tile_avx2_fma<MR, NR>(a, lda, panel, kc, y, ldy, mr, nr, bias, accumulate);
#endif
  gemm_tile_lanes<MR, NR, kLanes>(a, lda, panel, kc, y, ldy, mr, nr, bias, accumulate);
}

}  // namespace conv_detail
}  // namespace onnxc

#endif  // ONNXC_CONV_TILES_H
