// Shared pieces of the kernels: index type, max rank, byte copies and broadcasting strides.
#ifndef ONNXC_BASE_H
#define ONNXC_BASE_H

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "onnxc/types.h"

namespace onnxc {

using index_t = std::ptrdiff_t;
constexpr int kMaxRank = 8;

// For the few small functions a loop must inline to vectorize (onnxc/vmath.h): in a generated
// translation unit of a large model, g++'s unit-growth limits otherwise leave them as calls, and a
// loop over exp_poly runs one element per call (efficientnet_b0's Sigmoids took 10x longer).
// Not on Arm's M profile: no vector unit to gain, and flash to lose.
#if defined(__GNUC__) && !(defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M')
#define ONNXC_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ONNXC_ALWAYS_INLINE inline
#endif

// Run-time ISA dispatch, for code built for the x86-64 baseline or SSE4.2 (--target generic and
// x86-64-v2 built with no -march) by g++ or clang++: the hot register tiles (conv.h, gemm.h) are
// the same C++ compiled for AVX-512 and for AVX2 + FMA besides the baseline, and each call picks
// the copy the CPU runs, from the features libgcc (or compiler-rt) read at start-up
// (__builtin_cpu_supports reads that record; onnxc keeps no state of its own). Each element's
// sum runs in the same order at every vector width, so the copies agree bit for bit unless the
// compiler contracts a * b + c into an FMA (clang's default; onnxc test and bench pass
// -ffp-contract=off). ONNXC_NO_ISA_DISPATCH turns it off (the baseline copy only);
// ONNXC_NO_AVX512_DISPATCH leaves out the AVX-512 copy (the tests use both to run every copy on
// one machine).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__AVX__) && !defined(ONNXC_NO_ISA_DISPATCH)
#define ONNXC_X86_ISA_DISPATCH 1
#if !defined(ONNXC_NO_AVX512_DISPATCH)
#define ONNXC_CPU_HAS_AVX512F() __builtin_cpu_supports("avx512f")
#else
#define ONNXC_CPU_HAS_AVX512F() false
#endif
#define ONNXC_CPU_HAS_AVX2_FMA() (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
#endif

// a * b + c in the scalar float tiles: one fused multiply-add (VFMA.F32, one rounding) on the
// M profile where the FPU has it (Cortex-M4F, M7), from g++ and clang alike (-ffp-contract=off,
// which both backends build with, fuses only what the code asks for: without this the M4F's float
// models ran 9-11% more instructions); elsewhere the product rounded, then the sum.
ONNXC_ALWAYS_INLINE float scalar_mul_add(float a, float b, float c) {
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M' && defined(__ARM_FEATURE_FMA)
  return __builtin_fmaf(a, b, c);
#else
  return c + a * b;
#endif
}

// Before a loop that reads or writes with a stride (a strided copy of a row): clang 14 vectorizes
// it with AVX-512 gathers or scatters, which run slower than the scalar loop (Winograd's
// unstaging and im2col's stride-2 rows took twice g++'s time in the LLVM backend's code). g++
// builds such loops without them.
#if defined(__clang__)
#define ONNXC_NO_GATHER_LOOP _Pragma("clang loop vectorize(disable)")
#else
#define ONNXC_NO_GATHER_LOOP
#endif

// std::fmax(0, std::fmin(1, v)) (HardSigmoid, HardSwish) in comparisons, which vectorize where
// fmin/fmax compile to a call per element (30x slower); the same values, NaN giving 1.
template <typename T>
ONNXC_ALWAYS_INLINE T clamp_unit(T v) {
  const T upper = v < T(1) ? v : T(1);
  return upper > T(0) ? upper : T(0);
}

// What a generated run() returns when it cannot compute its outputs (0: success). 1 and 2 concern
// an external weights file and are declared in the model's header (kErrorWeightsFormat,
// kErrorWeightsByteOrder); the others come from the kernels and checks below.
constexpr int kStringTooLong = 3;       // a string does not fit its planned slot (onnxc/strings.h)
constexpr int kErrorBoundsCheck = 4;    // --check-bounds found a corrupted arena buffer
constexpr int kErrorRunTimeExtent = 5;  // a run-time Slice start selects another extent
constexpr int kErrorImageFormat = 6;    // ImageDecoder: not a well-formed image of a known format
constexpr int kErrorImageSize = 7;      // ImageDecoder: the image's size is not the output's
constexpr int kErrorMapKey = 8;         // CastMap: repeated keys, or a key outside [0, max_map)
constexpr int kErrorTripCount = 9;      // a Loop would run more iterations than --max-trip-count
constexpr int kErrorCastString = 10;    // Cast: a string spells no number (onnxc/cast_string.h)

// The steps i in [0, n) whose position i * step + offset lies in [0, size): the range [*lo, *hi),
// empty when none does (a convolution's outputs whose tap is inside a row, a window's taps).
inline void steps_in_range(index_t n, index_t step, index_t offset, index_t size, index_t* lo,
                           index_t* hi) {
  *lo = offset >= 0 ? 0 : (-offset + step - 1) / step;
  *hi = size - offset <= 0 ? 0 : (size - offset - 1) / step + 1;
  if (*hi > n) *hi = n;
  if (*lo > *hi) *lo = *hi;
}

inline void copy_bytes(void* dst, const void* src, std::size_t n) {
  if (n && dst != src) std::memcpy(dst, src, n);
}
inline void zero_bytes(void* dst, std::size_t n) {
  if (n) std::memset(dst, 0, n);
}

// A shape and, for an operand broadcast to it, the operand's strides (0 on broadcast axes).
struct BroadcastShape {
  int rank;
  index_t dims[kMaxRank];
};

}  // namespace onnxc

#endif  // ONNXC_BASE_H
