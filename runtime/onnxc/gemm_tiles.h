// The register tiles of the blocked float GEMM (onnxc/gemm.h): y[0..mr) x [0..nr) += alpha *
// opA(rows, kc) * panel[kc x NR], in vector accumulators (GCC/Clang vector types) or, without a
// vector unit, scalar ones, with run-time ISA copies in x86-64 baseline builds (onnxc/base.h).
#ifndef ONNXC_GEMM_TILES_H
#define ONNXC_GEMM_TILES_H

#include <cstring>

#include "onnxc/base.h"

namespace onnxc {
namespace gemm_detail {

// The vector width of an MR x NR tile on an ISA of isa_lanes floats: at least two vectors per
// row (a 6 x 16 tile on AVX-512 keeps 12 accumulators of 8 lanes, not 6 of 16), and 1 (scalar
// accumulators) where no vector of 4 or more lanes divides NR.
constexpr index_t tile_lanes(index_t isa_lanes, index_t nr) {
  index_t lanes = isa_lanes;
  while (lanes > 4 && nr < 2 * lanes) lanes /= 2;
  return lanes >= 4 && nr % lanes == 0 ? lanes : 1;
}

// y[0..mr)[0..nr) += alpha * opA(rows, k0..k0+kc) * panel, in MR x NR scalar accumulators.
// Every access to the tile has compile-time indices (the column loop outside the row loop, edge
// stores predicated), so a compiler may keep it in registers. Rows beyond mr re-read the last
// valid row and are not stored.
template <index_t MR, index_t NR, bool kTransA>
ONNXC_ALWAYS_INLINE void scalar_tile_body(const float* a, index_t lda, const float* panel,
                                          index_t kc, float* y, index_t ldy, index_t mr, index_t nr,
                                          float alpha) {
  ONNXC_CONTRACT  // also y += alpha * acc below: g++ fuses the whole function
      const float* rows[MR];
  for (index_t r = 0; r < MR; ++r) rows[r] = a + (r < mr ? r : mr - 1) * (kTransA ? 1 : lda);
  float acc[MR][NR] = {};
  for (index_t kk = 0; kk < kc; ++kk) {
    const float* bk = panel + kk * NR;
    float av[MR];
    for (index_t r = 0; r < MR; ++r) av[r] = kTransA ? rows[r][kk * lda] : rows[r][kk];
    for (index_t j = 0; j < NR; ++j)
      for (index_t r = 0; r < MR; ++r) acc[r][j] = scalar_mul_add(av[r], bk[j], acc[r][j]);
  }
  if (mr == MR && nr == NR) {
    for (index_t r = 0; r < MR; ++r)
      for (index_t j = 0; j < NR; ++j) y[r * ldy + j] += alpha * acc[r][j];
  } else {
    for (index_t r = 0; r < MR; ++r)
      for (index_t j = 0; j < NR; ++j)
        if (r < mr && j < nr) y[r * ldy + j] += alpha * acc[r][j];
  }
}

// The same in MR x (NR / kLanes) accumulators of a GCC/Clang vector type (as the convolution
// tiles, onnxc/conv_tiles.h): g++ 12 neither vectorizes nor register-allocates the scalar tile
// at the -O2 its functions are built at (a 4 x 16 tile on AVX2 ran at the scalar FMA peak, its
// accumulators on the stack). Each element sums its products in k order, as the scalar tile
// does. The loops over the tile are unrolled (the pragmas) and its address never taken (copies
// through memcpy), so it stays in registers; tile() is noinline, or it spills.
template <index_t MR, index_t NR, bool kTransA, index_t kLanes>
ONNXC_ALWAYS_INLINE void vector_tile_body(const float* a, index_t lda, const float* panel,
                                          index_t kc, float* y, index_t ldy, index_t mr, index_t nr,
                                          float alpha) {
  ONNXC_CONTRACT
  typedef float vfloat __attribute__((vector_size(kLanes * sizeof(float))));
  constexpr index_t kVecs = NR / kLanes;
  static_assert(NR % kLanes == 0, "a panel row is whole vectors");
  const float* rows[MR];
#pragma GCC unroll 16
  for (index_t r = 0; r < MR; ++r) rows[r] = a + (r < mr ? r : mr - 1) * (kTransA ? 1 : lda);
  vfloat acc[MR][kVecs];
#pragma GCC unroll 16
  for (index_t r = 0; r < MR; ++r)
#pragma GCC unroll 16
    for (index_t v = 0; v < kVecs; ++v) acc[r][v] = vfloat{};
  for (index_t kk = 0; kk < kc; ++kk) {
    vfloat bv[kVecs];
#pragma GCC unroll 16
    for (index_t v = 0; v < kVecs; ++v)
      std::memcpy(&bv[v], panel + kk * NR + v * kLanes, sizeof(vfloat));
#pragma GCC unroll 16
    for (index_t r = 0; r < MR; ++r) {
      const float av = kTransA ? rows[r][kk * lda] : rows[r][kk];
#pragma GCC unroll 16
      for (index_t v = 0; v < kVecs; ++v) acc[r][v] += av * bv[v];
    }
  }
#pragma GCC unroll 16
  for (index_t r = 0; r < MR; ++r) {
    if (r >= mr) continue;
    float* yr = y + r * ldy;
    if (nr == NR) {
#pragma GCC unroll 16
      for (index_t v = 0; v < kVecs; ++v) {
        vfloat t;
        std::memcpy(&t, yr + v * kLanes, sizeof t);
        t += alpha * acc[r][v];
        std::memcpy(yr + v * kLanes, &t, sizeof t);
      }
    } else {
      float row[NR];
#pragma GCC unroll 16
      for (index_t v = 0; v < kVecs; ++v) {
        const vfloat t = acc[r][v];
        std::memcpy(row + v * kLanes, &t, sizeof t);
      }
      for (index_t j = 0; j < nr; ++j) yr[j] += alpha * row[j];
    }
  }
}

// The tile on an ISA of kIsa lanes: vector accumulators where tile_lanes allows, else scalar.
template <index_t MR, index_t NR, bool kTransA, index_t kIsa>
ONNXC_ALWAYS_INLINE void tile_body(const float* a, index_t lda, const float* panel, index_t kc,
                                   float* y, index_t ldy, index_t mr, index_t nr, float alpha) {
  constexpr index_t kLanes = tile_lanes(kIsa, NR);
  if constexpr (kLanes > 1)
    vector_tile_body<MR, NR, kTransA, kLanes>(a, lda, panel, kc, y, ldy, mr, nr, alpha);
  else
    scalar_tile_body<MR, NR, kTransA>(a, lda, panel, kc, y, ldy, mr, nr, alpha);
}

// The run-time ISA dispatch of the tile (ONNXC_X86_ISA_DISPATCH, see onnxc/base.h).
#if defined(ONNXC_X86_ISA_DISPATCH)
template <index_t MR, index_t NR, bool kTransA>
__attribute__((target("avx512f"), noinline)) ONNXC_CONTRACT_COPY_FN void tile_avx512f(
    const float* a, index_t lda, const float* panel, index_t kc, float* y, index_t ldy, index_t mr,
    index_t nr, float alpha) {
  tile_body<MR, NR, kTransA, 16>(a, lda, panel, kc, y, ldy, mr, nr, alpha);
}
template <index_t MR, index_t NR, bool kTransA>
__attribute__((target("avx2,fma"), noinline)) ONNXC_CONTRACT_COPY_FN void tile_avx2_fma(
    const float* a, index_t lda, const float* panel, index_t kc, float* y, index_t ldy, index_t mr,
    index_t nr, float alpha) {
  tile_body<MR, NR, kTransA, 8>(a, lda, panel, kc, y, ldy, mr, nr, alpha);
}
#endif
template <index_t MR, index_t NR, bool kTransA>
__attribute__((noinline)) ONNXC_CONTRACT_FN void tile(const float* a, index_t lda,
                                                      const float* panel, index_t kc, float* y,
                                                      index_t ldy, index_t mr, index_t nr,
                                                      float alpha) {
#if defined(ONNXC_X86_ISA_DISPATCH)
  if (ONNXC_CPU_HAS_AVX512F())
    return tile_avx512f<MR, NR, kTransA>(a, lda, panel, kc, y, ldy, mr, nr, alpha);
  if (ONNXC_CPU_HAS_AVX2_FMA())
    return tile_avx2_fma<MR, NR, kTransA>(a, lda, panel, kc, y, ldy, mr, nr, alpha);
#endif
  tile_body<MR, NR, kTransA, kIsaLanes>(a, lda, panel, kc, y, ldy, mr, nr, alpha);
}

}  // namespace gemm_detail
}  // namespace onnxc

#endif  // ONNXC_GEMM_TILES_H
