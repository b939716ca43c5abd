// Shared pieces of the kernels: index type, max rank, byte copies and broadcasting strides.
#ifndef ONNXC_BASE_H
#define ONNXC_BASE_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "onnxc/types.h"

namespace onnxc {

using index_t = std::ptrdiff_t;
constexpr int kMaxRank = 8;

// A hint that the cache line at p is about to be written: the output rows of a register tile,
// which the blocked products visit panel by panel, one line per row: more streams than a core's
// prefetcher follows, so each tile's stores waited for their lines (a 1x1 convolution with 16
// input channels at 112x112, Zen 3: 1.5-2.0 ms, 0.8-1.0 with the hint). Nothing on
// microcontrollers, whose SRAM has no such latency.
#if defined(__GNUC__) && !(defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M')
#define ONNXC_PREFETCH_WRITE(p) __builtin_prefetch((p), 1)
#else
#define ONNXC_PREFETCH_WRITE(p) ((void)0)
#endif

// Small functions a loop must inline to vectorize (vmath.h; g++'s unit-growth limits left them as
// calls in large models: efficientnet_b0's Sigmoids 10x slower). Not on the M profile: no gain.
#if defined(__GNUC__) && !(defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M')
#define ONNXC_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ONNXC_ALWAYS_INLINE inline
#endif

// Run-time ISA dispatch in code built for the x86-64 baseline or SSE4.2 (--target generic and
// x86-64-v2 with no -march) by g++ or clang++: the hot register tiles (conv.h, gemm.h) are also
// compiled for AVX-512 and for AVX2 + FMA, and each call picks the copy the CPU runs (from what
// libgcc or compiler-rt recorded at start-up; onnxc keeps no state). ONNXC_NO_ISA_DISPATCH: the
// baseline copy only. The two questions below are the only place a copy is picked: a kernel
// tester defines them before its #includes to cap the copy it runs, so that one build of it
// checks every copy (tests/runtime/conv_variants_check.cpp).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__AVX__) && !defined(ONNXC_NO_ISA_DISPATCH)
#define ONNXC_X86_ISA_DISPATCH 1
#if !defined(ONNXC_CPU_HAS_AVX512F)
#define ONNXC_CPU_HAS_AVX512F() __builtin_cpu_supports("avx512f")
#endif
#if !defined(ONNXC_CPU_HAS_AVX2_FMA)
#define ONNXC_CPU_HAS_AVX2_FMA() (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
#endif
#endif

// a * b + c in the register tiles as one fused multiply-add where the build's ISA has one (x86
// FMA, aarch64): unfused, Intel cores ran them at half speed. Under -ffp-contract=off g++ fuses per
// function (ONNXC_CONTRACT_FN, always at -O2), clang per statement (every body it inlines).
#if defined(__clang__) && \
    (defined(__FMA__) || defined(__aarch64__) || defined(ONNXC_X86_ISA_DISPATCH))
#define ONNXC_CONTRACT _Pragma("clang fp contract(fast)")
#else  // (32-bit Arm: clang fuses no contracted statement; the M profile calls fmaf)
#define ONNXC_CONTRACT
#endif
#if !defined(__clang__) && (defined(__FMA__) || defined(__aarch64__))
#define ONNXC_CONTRACT_FN __attribute__((optimize("O2", "fp-contract=fast")))
#else
#define ONNXC_CONTRACT_FN
#endif
// The AVX2 + FMA and AVX-512 copies of a baseline build (g++) are built at -O3, as native code
// is: -O2 (a user's default build) vectorizes only loops of a known multiple of the vector and
// peels no short inner loop (max pooling ran at 0.12x native, efficientnet_b0's SiLU rows 19x
// slower), with no contraction, so that they compute what the baseline does whatever the build's
// -ffp-contract; only their register tiles fuse multiply-adds, which their ISA has and the
// build's has not (unfused: convolutions at 0.7x).
#if defined(ONNXC_X86_ISA_DISPATCH) && !defined(__clang__)
#define ONNXC_VECTORIZE_COPY optimize("O3", "fp-contract=off")
#define ONNXC_CONTRACT_COPY_FN __attribute__((optimize("O2", "fp-contract=fast")))
#else
#define ONNXC_VECTORIZE_COPY
#define ONNXC_CONTRACT_COPY_FN
#endif

// in_isa_copy(f) runs f() in the copy of the CPU's widest vectors where the build is for the
// x86-64 baseline (ONNXC_X86_ISA_DISPATCH): AVX-512 (with AVX2 and FMA) or AVX2 + FMA, every call
// f makes inlined (flatten; g++, clang++ inlines one level) and built at -O3 without contraction
// (ONNXC_VECTORIZE_COPY), so each copy computes what f() does at the baseline. Kernels whose loops
// ran far below native at the baseline wrap them in it (ONNXC_IN_ISA_COPY: max pooling, the float
// unary and binary ops, fused polynomial activations).
#if defined(ONNXC_X86_ISA_DISPATCH)
template <class F>
__attribute__((target("avx512f,avx2,fma"), flatten, noinline, ONNXC_VECTORIZE_COPY)) void
in_avx512f_copy(const F& f) {
  f();
}
template <class F>
__attribute__((target("avx2,fma"), flatten, noinline, ONNXC_VECTORIZE_COPY)) void in_avx2_fma_copy(
    const F& f) {
  f();
}
template <class F>
inline void in_isa_copy(const F& f) {
  if (ONNXC_CPU_HAS_AVX512F()) return in_avx512f_copy(f);
  if (ONNXC_CPU_HAS_AVX2_FMA()) return in_avx2_fma_copy(f);
  f();
}
// The statement given through in_isa_copy, or as it is where there is no dispatch (no lambda, so
// the LLVM backend still folds a node's constant parameters into the call).
#define ONNXC_IN_ISA_COPY(...) ::onnxc::in_isa_copy([&] { __VA_ARGS__; })
#else
#define ONNXC_IN_ISA_COPY(...) __VA_ARGS__
#endif

// a * b + c in the scalar float tiles, fused (the M4F's float models: 9-11% fewer instructions).
ONNXC_ALWAYS_INLINE float scalar_mul_add(float a, float b, float c) {
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M' && defined(__ARM_FEATURE_FMA)
  return __builtin_fmaf(a, b, c);  // clang fuses no M-profile statement contracted as below
#else
  ONNXC_CONTRACT
  return c + a * b;
#endif
}

// Before a loop that reads or writes with a stride: clang 14 vectorizes it with AVX-512 gathers or
// scatters, slower than scalar (Winograd's unstaging, im2col's stride-2 rows: 2x g++'s time).
#if defined(__clang__)
#define ONNXC_NO_GATHER_LOOP _Pragma("clang loop vectorize(disable)")
#else
#define ONNXC_NO_GATHER_LOOP
#endif

// The float lanes of the widest vector the build may use without a run-time test (1: no vector
// unit, as on Cortex-M).
#if defined(__AVX512F__)
constexpr index_t kIsaLanes = 16;
#elif defined(__AVX__)
constexpr index_t kIsaLanes = 8;
#elif defined(__SSE2__) || defined(__ARM_NEON)
constexpr index_t kIsaLanes = 4;
#else
constexpr index_t kIsaLanes = 1;
#endif

// c ? a : b, in the bits where vectors run the loops: g++ turns a float `c ? a : b * x` into a
// branch around the product, vectorized only with AVX-512's masks (without them Sigmoid, Tanh,
// Gelu, LeakyRelu, exp stayed scalar: efficientnet_b0 at 1/10 of its speed on Zen 3). The same
// values as the ternary, which Cortex-M keeps (one conditional select).
template <typename T>
ONNXC_ALWAYS_INLINE T pick(bool c, T a, T b) {
  if constexpr (std::is_same_v<T, float> && kIsaLanes > 1) {
    std::uint32_t ia, ib;
    std::memcpy(&ia, &a, sizeof ia);
    std::memcpy(&ib, &b, sizeof ib);
    const std::uint32_t keep_a = 0u - static_cast<std::uint32_t>(c);
    const std::uint32_t r = (ia & keep_a) | (ib & ~keep_a);
    float f;
    std::memcpy(&f, &r, sizeof f);
    return f;
  } else {
    return c ? a : b;
  }
}

// std::fmax(0, std::fmin(1, v)) (HardSigmoid, HardSwish) in comparisons, which vectorize where
// fmin/fmax compile to a call per element (30x slower); the same values, NaN giving 1.
template <typename T>
ONNXC_ALWAYS_INLINE T clamp_unit(T v) {
  const T upper = pick(v < T(1), v, T(1));
  return pick(upper > T(0), upper, T(0));
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

// The steps i in [0, n) with i * step + offset in [0, size): [*lo, *hi), empty when none is.
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
