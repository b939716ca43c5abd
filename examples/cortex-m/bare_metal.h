// The measuring machinery shared by the programs that run networks on QEMU's MPS2 and MPS3 boards:
// main.cpp (onnxc's models, models.h) and cmsis_nn/main_cmsis.cpp (the CMSIS-NN build of
// each model). compare_cmsis_nn.sh sets the two side by side, so both must measure alike: the same
// pseudo-random inputs, each inference on its own painted stack right above an MPU guard (an
// overflow faults), SysTick ticks under `qemu-system-arm -icount shift=0` (one per instruction),
// calibrated against the same 2,000,000-instruction loop. One copy here keeps them so.
// Header-only, for the one translation unit of a program that has main(): it defines
// SysTick_Handler (startup.cpp's is weak). The input generator is portable (main.cpp also runs on
// the host and aarch64); the rest exists on bare-metal ARM only (ONNXC_BARE_METAL).
#ifndef ONNXC_EXAMPLES_CORTEX_M_BARE_METAL_H
#define ONNXC_EXAMPLES_CORTEX_M_BARE_METAL_H

#include <cstddef>
#include <cstdint>
#include <cstdio>

namespace bare_metal {

// The signature of a generated model's run() (and of cmsis_nn/network_cmsis.cpp's cmsis_run()).
using RunFn = int (*)(const void* const*, void* const*, void*);

// Input values: floats in [-1, 1) from a 32-bit LCG, the same sequence on every CPU.
class InputSequence {
 public:
  float next() {
    state_ = state_ * 1664525u + 1013904223u;
    return static_cast<float>(state_ >> 8) / 8388608.0f - 1.0f;
  }

 private:
  std::uint32_t state_ = 12345u;
};

}  // namespace bare_metal

#if defined(__arm__) && !defined(__linux__)
#define ONNXC_BARE_METAL 1

namespace bare_metal {

struct Call {  // what call_on_stack() passes to run(); its offsets are in the asm
  RunFn run;
  const void* const* inputs;
  void* const* outputs;
  void* workspace;
};

// Calls call->run(...) with the stack pointer at `top`, and restores it after. Thumb-1 only, so
// the same code runs on ARMv6-M and ARMv7-M.
__attribute__((naked, noinline)) inline int call_on_stack(const Call* /*r0*/, void* /*top: r1*/) {
  __asm volatile(
      ".syntax unified\n"  // GCC passes Thumb-1 inline asm in divided syntax
      "push {r4, lr}\n"
      "mov r4, sp\n"
      "mov sp, r1\n"
      "ldr r3, [r0, #0]\n"
      "ldr r1, [r0, #8]\n"
      "ldr r2, [r0, #12]\n"
      "ldr r0, [r0, #4]\n"
      "blx r3\n"
      "mov sp, r4\n"
      "pop {r4, pc}\n");
}

inline volatile std::uint32_t& reg(std::uintptr_t address) {
  return *reinterpret_cast<volatile std::uint32_t*>(address);
}

}  // namespace bare_metal

// The 1 KiB at the start of RAM, right below the inference stack (mps2.ld).
extern "C" std::uint32_t __stack_guard[];

namespace bare_metal {

#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
// MPU region 0 (PMSAv8, on QEMU's Cortex-M55): the guard below the inference stack. PMSAv8 has no
// permission that denies privileged reads, so the guard is read-only and execute-never: an
// overflow pushes into it and faults; faults escalate to HardFault (Fault_Handler ends the run).
// Elsewhere the default map.
inline void guard_stack() {
  const std::uintptr_t base = reinterpret_cast<std::uintptr_t>(__stack_guard);
  reg(0xE000EDC0) = 0;                                 // MPU_MAIR0: attribute 0, Device-nGnRnE
  reg(0xE000ED98) = 0;                                 // MPU_RNR: region 0
  reg(0xE000ED9C) = base | (2u << 1) | 1u;             // MPU_RBAR: AP read-only (privileged), XN
  reg(0xE000EDA0) = ((base + 1024 - 32) & ~31u) | 1u;  // MPU_RLAR: the last 32 bytes, enable
  reg(0xE000ED94) = 5;                                 // MPU_CTRL: enable, default map elsewhere
  __asm volatile("dsb\n isb" ::: "memory");
}
#else
// MPU region 0 (PMSAv7, on QEMU's Cortex-M3 and M4): the guard below the inference stack, no
// access, faults escalate to HardFault (Fault_Handler ends the run); elsewhere the default map.
inline void guard_stack() {
  reg(0xE000ED98) = 0;                                                // MPU_RNR: region 0
  reg(0xE000ED9C) = reinterpret_cast<std::uintptr_t>(__stack_guard);  // MPU_RBAR (1 KiB aligned)
  reg(0xE000EDA0) = (1u << 28) | (9u << 1) | 1u;  // MPU_RASR: XN, AP none, 2^(9+1) B, enable
  reg(0xE000ED94) = 5;                            // MPU_CTRL: enable, default map elsewhere
  __asm volatile("dsb\n isb" ::: "memory");
}
#endif

// SysTick on the CPU clock, counting down from 2^24 - 1; SysTick_Handler counts the wraps.
inline volatile std::uint32_t g_systick_wraps = 0;
inline void start_systick() {
  reg(0xE000E014) = 0xFFFFFFu;  // SYST_RVR
  reg(0xE000E018) = 0;          // SYST_CVR
  reg(0xE000E010) = 7;          // SYST_CSR: enable, interrupt, processor clock
  while (reg(0xE000E018) == 0) {
    // the first tick reloads the count without an interrupt: wait for it
  }
}
inline std::uint64_t systicks() {
  std::uint32_t wraps, value;
  do {
    wraps = g_systick_wraps;
    value = reg(0xE000E018);
  } while (wraps != g_systick_wraps);
  return (std::uint64_t{wraps} << 24) + (0xFFFFFFu - value);
}

// 1,000,000 iterations of a two-instruction loop: ticks per 2,000,000 instructions.
inline std::uint64_t calibrate() {
  const std::uint64_t t0 = systicks();
  std::uint32_t n = 1000000;
  __asm volatile(
      ".syntax unified\n"
      "1: subs %0, %0, #1\n"
      "bne 1b\n"
      : "+l"(n)
      :
      : "cc");
  return systicks() - t0;
}

// What every run does first: the guard, SysTick, and the line `calibrate <ticks>`, which the
// scripts divide the other tick counts by.
inline void start_measuring() {
  guard_stack();
  start_systick();
  std::printf("calibrate %lu\n", static_cast<unsigned long>(calibrate()));
}

// Runs `call` on the stack [bottom, top) (the lowest part of the inference stack, right above the
// guard), painted first: returns run()'s status, the painted peak in bytes and the SysTick ticks.
constexpr std::uint32_t kPaint = 0xA5A5A5A5u;
inline int run_on_painted_stack(const Call& call, std::uint32_t* bottom, std::uint32_t* top,
                                std::size_t* peak, std::uint64_t* ticks) {
  for (std::uint32_t* p = bottom; p < top; ++p) *p = kPaint;
  const std::uint64_t t0 = systicks();
  const int rc = call_on_stack(&call, top);
  *ticks = systicks() - t0;
  std::uint32_t* p = bottom;
  while (p < top && *p == kPaint) ++p;
  *peak = static_cast<std::size_t>(top - p) * 4;
  return rc;
}

}  // namespace bare_metal

extern "C" void SysTick_Handler() {
  bare_metal::g_systick_wraps = bare_metal::g_systick_wraps + 1;
}

#endif  // bare-metal ARM

#endif  // ONNXC_EXAMPLES_CORTEX_M_BARE_METAL_H
