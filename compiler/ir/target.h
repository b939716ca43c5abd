// Compilation targets: what the generated code may assume about the CPU that runs it. A target
// fixes the instruction set the kernels may use (chosen at compile time, never detected at run
// time), the memory budget that tiles and scratch are sized for, the stack a kernel frame may
// use and which floating-point precisions the FPU has. `--target NAME` picks one; `native` is
// resolved by the compiler to the named target of the machine it runs on. The default, `generic`,
// assumes nothing: portable C++ that any conforming compiler builds for any CPU.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace onnxc {

// The closed set of ISAs kernel variants are written for (the `__<isa>` suffix of their names).
// dsp is the Arm DSP extension of the Cortex-M4, M7 and M33 (SMLAD, SXTB16: 16-bit SIMD in
// general registers), used through the ACLE intrinsics of arm_acle.h. mve is Helium, the M-profile
// vector extension of the Cortex-M55 and M85 (ARMv8.1-M: 128-bit vectors, 16 int8 lanes, through
// arm_mve.h); those cores also have the DSP extension, so mve targets run dsp rows too.
#define ONNXC_ISAS(X) \
  X(scalar)           \
  X(sse2)             \
  X(avx2_fma)         \
  X(avx512f)          \
  X(neon)             \
  X(neonfma)          \
  X(dsp)              \
  X(mve)

enum class Isa {
#define ONNXC_ISA_ENUM(name) name,
  ONNXC_ISAS(ONNXC_ISA_ENUM)
#undef ONNXC_ISA_ENUM
};

// What the FPU computes in hardware. kSingle: float only (double is emulated in software, so
// float kernels must not promote); kNone: no FPU at all.
enum class Fpu { kDouble, kSingle, kNone };

// --threads' costs on a target, in seconds (the table's ONNXC_SPLIT column).
struct SplitCosts {
  double region_s;    // one parallel region: dispatch and closing barrier
  double min_call_s;  // the least one-core time of a kernel call's work worth splitting
  double min_step_s;  // the same for one recurrent step's product
};
#define ONNXC_SPLIT(region_us, call_us, step_us)     \
  SplitCosts {                                       \
    region_us * 1e-6, call_us * 1e-6, step_us * 1e-6 \
  }

// X(name, isa, fpu, cache_bytes, max_kernel_stack, split, cxx_flags, description)
//   cache_bytes:      the working-set budget tiles and scratch are sized for (L2 on desktop
//                     cores, a fraction of SRAM on microcontrollers); `native` takes the host's
//                     L2 instead, where the host tells it
//   max_kernel_stack: the most stack one kernel call may use, in bytes
//   split:            --threads' cost table, ONNXC_SPLIT(region, call, step) in microseconds:
//                     one parallel region of onnxc::ThreadPool (dispatch and closing barrier),
//                     and the least one-core time of a kernel call's work (call) and of one
//                     recurrent step's (step) that a split pays for. A call's parts hand their
//                     outputs to another core's cache besides; a step's state stays in cache.
//                     Region: bench/pool_overhead, 5.5-6.1 us at 16 threads on a 16-core Xeon.
//                     Microcontrollers never split (--threads is refused there).
//   cxx_flags:        what to pass the C++ compiler so that it may use the ISA
#define ONNXC_TARGETS(X)                                                                          \
  X("generic", scalar, kDouble, 262144, 1024, ONNXC_SPLIT(6, 20, 5), "",                          \
    "portable C++, no ISA assumed (the default)")                                                 \
  X("x86-64-v2", sse2, kDouble, 262144, 1024, ONNXC_SPLIT(6, 20, 5), "-march=x86-64-v2",          \
    "x86-64 with SSE4.2")                                                                         \
  X("x86-64-v3", avx2_fma, kDouble, 1048576, 1024, ONNXC_SPLIT(6, 20, 5), "-march=x86-64-v3",     \
    "x86-64 with AVX2 and FMA")                                                                   \
  X("x86-64-v4", avx512f, kDouble, 1048576, 1024, ONNXC_SPLIT(6, 20, 5), "-march=x86-64-v4",      \
    "x86-64 with AVX-512")                                                                        \
  X("aarch64", neonfma, kDouble, 524288, 1024, ONNXC_SPLIT(6, 20, 5), "-march=armv8-a",           \
    "64-bit Arm (NEON with FMA)")                                                                 \
  X("cortex-a7", neon, kDouble, 131072, 1024, ONNXC_SPLIT(6, 20, 5),                              \
    "-mcpu=cortex-a7 -mfpu=neon-vfpv4 -mfloat-abi=hard", "32-bit Arm application core with NEON") \
  X("cortex-m55", mve, kDouble, 16384, 256, ONNXC_SPLIT(0, 0, 0),                                 \
    "-mcpu=cortex-m55 -mthumb -mfloat-abi=hard",                                                  \
    "Cortex-M55 with Helium (MVE) and a double-precision FPU")                                    \
  X("cortex-m7", dsp, kDouble, 65536, 256, ONNXC_SPLIT(0, 0, 0),                                  \
    "-mcpu=cortex-m7 -mthumb -mfpu=fpv5-d16 -mfloat-abi=hard",                                    \
    "Cortex-M7 with a double-precision FPU")                                                      \
  X("cortex-m4", dsp, kSingle, 16384, 256, ONNXC_SPLIT(0, 0, 0),                                  \
    "-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard",                                 \
    "Cortex-M4F (single-precision FPU)")                                                          \
  X("cortex-m3", scalar, kNone, 16384, 256, ONNXC_SPLIT(0, 0, 0),                                 \
    "-mcpu=cortex-m3 -mthumb -mfloat-abi=soft", "Cortex-M3 (no FPU)")                             \
  X("cortex-m0plus", scalar, kNone, 8192, 256, ONNXC_SPLIT(0, 0, 0),                              \
    "-mcpu=cortex-m0plus -mthumb -mfloat-abi=soft",                                               \
    "Cortex-M0+ (ARMv6-M, no FPU, no unaligned access)")

// The most parts --threads may split a kernel into.
constexpr int kMaxThreads = 64;

struct Target {
  std::string_view name;
  Isa isa;
  Fpu fpu;
  size_t cache_bytes;
  size_t max_kernel_stack;
  SplitCosts split;
  std::string_view cxx_flags;
  std::string_view description;
  // --max-scratch: the most arena bytes one kernel's tiles and panels may take (0: no cap
  // beyond cache_bytes). Set on a copy of a table row by with_max_scratch().
  size_t max_scratch = 0;
  // --threads: the parts the heavy kernels split into (1: no thread code is emitted). Set on a
  // copy by with_threads(); never above 1 on a microcontroller.
  int threads = 1;

  bool is_microcontroller() const { return max_kernel_stack <= 256; }
  // The bytes of planned scratch a kernel sizes its tiles for: the cache budget, capped by
  // --max-scratch.
  size_t scratch_budget() const {
    return max_scratch && max_scratch < cache_bytes ? max_scratch : cache_bytes;
  }
};

// Every target of ONNXC_TARGETS, in table order.
const std::vector<Target>& all_targets();
// The target named `name`, or nullptr when there is none. "native" is the host's row with the
// host's L2 size as its cache budget (the row's where the host does not tell it).
const Target* find_target(std::string_view name);
const Target& default_target();
// `t` with max_scratch set to `bytes` (0: `t` itself). The copies live as long as the process.
const Target* with_max_scratch(const Target& t, size_t bytes);
// `t` with threads set to `threads` (>= 1).
const Target* with_threads(const Target& t, int threads);
// Whether code built for `t` runs on the machine the compiler runs on (onnxc test and bench run
// what they build).
bool host_can_run(const Target& t);
// "scalar", "avx2_fma", ...: the suffix of kernel variant names.
std::string_view isa_name(Isa isa);
// "generic, x86-64-v2, ...": for usage messages.
std::string target_names();

}  // namespace onnxc
