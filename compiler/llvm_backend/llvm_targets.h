// The LLVM backend's target table: for each onnxc --target (ir/target.h) the triple clang compiles
// for, the CPU clang's driver must derive from the target's g++ flags, the float ABI, and where a
// freestanding target's C++ headers live. The ISA flags themselves are ir/target.h's `cxx_flags`,
// the very flags the g++ path passes, so that both backends compile the same code for the same
// machine; this table adds only what g++ gets from being a cross compiler (its triple, its
// headers, arm-none-eabi-gcc's short enums). Plain data: no LLVM header.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace onnxc {

// X(target, triple, cpu, float_abi, hosted, multilib, clang_flags)
//   target:    an onnxc --target name
//   triple:    the LLVM target triple
//   cpu:       the target CPU clang's driver derives from the g++ flags (checked by the tests)
//   float_abi: "hard" (floats in VFP registers), "soft", or "" (the triple's only one)
//   hosted:    a Linux target: PIC code, and clang's driver finds the GCC installation's C++
//              headers for the triple. Not hosted: arm-none-eabi's newlib headers (below)
//   multilib:  for arm-none-eabi, the libstdc++ multilib folder of these flags, as
//              `arm-none-eabi-g++ FLAGS -print-multi-directory` prints it
//   clang_flags: what clang needs besides g++'s flags to build code of the same speed and size,
//              never other results: on x86-64-v4 clang 14 splits 512-bit vector code into 256-bit
//              halves by default (2.6x slower GEMM on the bench MLP); g++ does not. On the M
//              profile clang -O2 unrolls loops by 4-8 with remainders and g++ -O2 does not: twice
//              the flash of the g++ build on the small examples (the kernels unroll where it pays
//              with #pragma GCC unroll, which both compilers honour). On bare-metal ARMv7-M clang
//              assumes no unaligned access and g++ assumes it (the M3/M4/M7 have it): without
//              -munaligned-access every memcpy'd word of the SMLAD kernels is four byte loads
//              (the same on the bare-metal ARMv7-A). On the M4F and M7 g++ emits VFMA for
//              fmaf (onnxc/base.h scalar_mul_add), knowing it never sets errno; clang 14 calls
//              libm's fmaf unless told errno is not wanted (-fno-math-errno)
// `generic` compiles for the host's triple with no ISA flag, as g++ does. cortex-a7 is bare metal
// in ARM state, as arm-none-eabi-g++ builds it (run_qemu.sh): no arm-linux-gnueabihf C++ headers
// are installed on the CI machine.
#define ONNXC_LLVM_TARGETS(X)                                                                   \
  X("generic", "x86_64-pc-linux-gnu", "x86-64", "", true, "", "")                               \
  X("x86-64-v2", "x86_64-pc-linux-gnu", "x86-64-v2", "", true, "", "")                          \
  X("x86-64-v3", "x86_64-pc-linux-gnu", "x86-64-v3", "", true, "", "")                          \
  X("x86-64-v4", "x86_64-pc-linux-gnu", "x86-64-v4", "", true, "", "-mprefer-vector-width=512") \
  X("aarch64", "aarch64-linux-gnu", "generic", "", true, "", "")                                \
  X("cortex-a7", "armv7-none-eabihf", "cortex-a7", "hard", false, "thumb/v7ve+simd/hard",       \
    "-munaligned-access")                                                                       \
  X("cortex-m55", "thumbv8.1m.main-none-eabihf", "cortex-m55", "hard", false,                   \
    "thumb/v8-m.main+dp/hard", "-fno-unroll-loops -munaligned-access -fno-math-errno")          \
  X("cortex-m7", "thumbv7em-none-eabihf", "cortex-m7", "hard", false, "thumb/v7e-m+dp/hard",    \
    "-fno-unroll-loops -munaligned-access -fno-math-errno")                                     \
  X("cortex-m4", "thumbv7em-none-eabihf", "cortex-m4", "hard", false, "thumb/v7e-m+fp/hard",    \
    "-fno-unroll-loops -munaligned-access -fno-math-errno")                                     \
  X("cortex-m3", "thumbv7m-none-eabi", "cortex-m3", "soft", false, "thumb/v7-m/nofp",           \
    "-fno-unroll-loops -munaligned-access")                                                     \
  X("cortex-m0plus", "thumbv6m-none-eabi", "cortex-m0plus", "soft", false, "thumb/v6-m/nofp",   \
    "-fno-unroll-loops")

// What both backends pass their C++ compiler besides the target's flags: no contraction of
// a * b + c into a fused multiply-add where the code does not write one. clang contracts within an
// expression by default, g++ (in C++) across them, on every CPU with an FMA; with neither, code
// built by g++ (onnxc test, bench) and by the LLVM backend agrees bit for bit.
constexpr const char* kNoFpContraction = "-ffp-contract=off";

struct LlvmTarget {
  std::string_view target, triple, cpu, float_abi;
  bool hosted;
  std::string_view multilib;
  std::string_view clang_flags;
};

// Every row of ONNXC_LLVM_TARGETS, in table order.
const std::vector<LlvmTarget>& all_llvm_targets();
// The row of onnxc target `name`, or nullptr when the LLVM backend has none.
const LlvmTarget* find_llvm_target(std::string_view name);

// The clang driver arguments for `row`, besides the source and the optimisation level: the
// triple, the g++ flags of the onnxc target, kNoFpContraction, PIC on hosted targets, and for
// arm-none-eabi short enums and the newlib and libstdc++ header folders under `none_eabi_include`
// (GCC version `none_eabi_gcc_version`).
std::vector<std::string> llvm_target_arguments(const LlvmTarget& row,
                                               const std::string& none_eabi_include,
                                               const std::string& none_eabi_gcc_version);

}  // namespace onnxc
