// Runs every model of models.h (written by run_qemu.sh: the generated headers and an X-macro
// ONNXC_MODELS) on the same pseudo-random inputs and prints each output word in hex, so that
// runs on different CPUs can be compared. On the microcontroller each inference runs on its own
// stack of exactly the model's kMaxStackBytes, at the bottom of RAM (mps2.ld), so a stack the
// header understates faults; the stack is painted first, and the run counts SysTick ticks, which
// under `qemu-system-arm -icount shift=0` measure executed instructions:
//   out <model> <output> <index> <hex bits>
//   stack <model> <bytes>        (bare-metal builds: the painted peak of the inference's stack)
//   ticks <model> <ticks>        (bare-metal builds: SysTick ticks of one inference)
//   calibrate <ticks>            (bare-metal builds: SysTick ticks of a 2,000,000-instruction loop)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "models.h"

namespace {

using RunFn = int (*)(const void* const*, void* const*, void*);

struct Model {
  const char* name;
  RunFn run;
  const std::size_t* input_bytes;   // 0-terminated
  const std::size_t* output_bytes;  // 0-terminated
  std::size_t max_stack;            // kMaxStackBytes
};

#define MODEL_ROW(ns) {#ns, ns##_run, ns::kInputBytes, ns::kOutputBytes, ns::kMaxStackBytes},
const Model kModels[] = {ONNXC_MODELS(MODEL_ROW)};
#undef MODEL_ROW

constexpr std::size_t sum_bytes(const std::size_t* b) {
  std::size_t total = 0;
  for (; *b; ++b) total += (*b + 15) / 16 * 16;
  return total;
}

#define MODEL_WORKSPACE(ns) ns::kWorkspaceSize,
#define MODEL_IO(ns) sum_bytes(ns::kInputBytes) + sum_bytes(ns::kOutputBytes),
constexpr std::size_t kArenaBytes = std::max({std::size_t{16}, ONNXC_MODELS(MODEL_WORKSPACE)});
constexpr std::size_t kIoBytes = std::max({std::size_t{16}, ONNXC_MODELS(MODEL_IO)});
#undef MODEL_WORKSPACE
#undef MODEL_IO

alignas(64) unsigned char g_arena[kArenaBytes];
alignas(64) unsigned char g_io[kIoBytes];

// Inputs: floats in [-1, 1) from a 32-bit LCG, the same sequence on every CPU.
void fill_inputs(const std::size_t* bytes, void** inputs, unsigned char*& at) {
  std::uint32_t state = 12345u;
  for (std::size_t i = 0; bytes[i]; ++i) {
    inputs[i] = at;
    for (std::size_t j = 0; j + 4 <= bytes[i]; j += 4) {
      state = state * 1664525u + 1013904223u;
      const float v = static_cast<float>(state >> 8) / 8388608.0f - 1.0f;
      std::memcpy(at + j, &v, 4);
    }
    at += (bytes[i] + 15) / 16 * 16;
  }
}

#if defined(__arm__) && !defined(__linux__)
#define ONNXC_BARE_METAL 1
struct Call {  // what call_on_stack() passes to the model's run(); its offsets are in the asm
  RunFn run;
  const void* const* inputs;
  void* const* outputs;
  void* workspace;
};

// Calls call->run(...) with the stack pointer at `top`, and restores it after. Thumb-1 only, so
// the same code runs on ARMv6-M and ARMv7-M.
__attribute__((naked, noinline)) int call_on_stack(const Call* /*r0*/, void* /*top: r1*/) {
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

// The inference stack: as large as the largest kMaxStackBytes, right above the 1 KiB guard at the
// start of RAM (mps2.ld) that guard_stack() makes inaccessible, so one more byte of stack faults.
#define MODEL_STACK(ns) ns::kMaxStackBytes,
constexpr std::size_t kInferenceStackBytes = std::max({std::size_t{8}, ONNXC_MODELS(MODEL_STACK)});
#undef MODEL_STACK
static_assert(kInferenceStackBytes % 8 == 0, "the AAPCS wants an 8-byte aligned stack");
__attribute__((section(".inference_stack"))) alignas(8) std::uint32_t
    g_inference_stack[kInferenceStackBytes / 4];
constexpr std::uint32_t kPaint = 0xA5A5A5A5u;

volatile std::uint32_t& reg(std::uintptr_t address) {
  return *reinterpret_cast<volatile std::uint32_t*>(address);
}

// MPU region 0 (PMSAv7, on QEMU's Cortex-M3 and M4): the guard below the inference stack, no
// access, faults escalate to HardFault (Fault_Handler ends the run); elsewhere the default map.
extern "C" std::uint32_t __stack_guard[];
void guard_stack() {
  reg(0xE000ED98) = 0;                                                // MPU_RNR: region 0
  reg(0xE000ED9C) = reinterpret_cast<std::uintptr_t>(__stack_guard);  // MPU_RBAR (1 KiB aligned)
  reg(0xE000EDA0) = (1u << 28) | (9u << 1) | 1u;  // MPU_RASR: XN, AP none, 2^(9+1) B, enable
  reg(0xE000ED94) = 5;                            // MPU_CTRL: enable, default map elsewhere
  __asm volatile("dsb\n isb" ::: "memory");
}

// SysTick on the CPU clock, counting down from 2^24 - 1; SysTick_Handler counts the wraps.
volatile std::uint32_t g_systick_wraps = 0;
void start_systick() {
  reg(0xE000E014) = 0xFFFFFFu;  // SYST_RVR
  reg(0xE000E018) = 0;          // SYST_CVR
  reg(0xE000E010) = 7;          // SYST_CSR: enable, interrupt, processor clock
  while (reg(0xE000E018) == 0) {
    // the first tick reloads the count without an interrupt: wait for it
  }
}
std::uint64_t systicks() {
  std::uint32_t wraps, value;
  do {
    wraps = g_systick_wraps;
    value = reg(0xE000E018);
  } while (wraps != g_systick_wraps);
  return (std::uint64_t{wraps} << 24) + (0xFFFFFFu - value);
}

// Runs m on the lowest `m.max_stack` bytes of the inference stack, painted first (below them
// nothing is mapped): returns the peak bytes used and the SysTick ticks taken.
int run_measured(const Model& m, const void* const* in, void* const* out, std::size_t* peak,
                 std::uint64_t* ticks) {
#ifdef ONNXC_UNDERSTATE_STACK  // run_qemu.sh's check that the guard works: far too little stack
  std::uint32_t* const end = g_inference_stack + 128 / 4;
#else
  std::uint32_t* const end = g_inference_stack + m.max_stack / 4;
#endif
  for (std::uint32_t* p = g_inference_stack; p < end; ++p) *p = kPaint;
  const Call call = {m.run, in, out, g_arena};
  const std::uint64_t t0 = systicks();
  const int rc = call_on_stack(&call, reinterpret_cast<unsigned char*>(end));
  *ticks = systicks() - t0;
  std::uint32_t* p = g_inference_stack;
  while (p < end && *p == kPaint) ++p;
  *peak = static_cast<std::size_t>(end - p) * 4;
  return rc;
}

// 1,000,000 iterations of a two-instruction loop: ticks per 2,000,000 instructions.
std::uint64_t calibrate() {
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
#endif

}  // namespace

#if ONNXC_BARE_METAL
extern "C" void SysTick_Handler() {
  g_systick_wraps = g_systick_wraps + 1;
}
#endif

int main() {
  int failures = 0;
#if ONNXC_BARE_METAL
  guard_stack();
  start_systick();
  std::printf("calibrate %lu\n", static_cast<unsigned long>(calibrate()));
#endif
  for (const Model& m : kModels) {
    void* inputs[16] = {};
    void* outputs[16] = {};
    unsigned char* at = g_io;
    fill_inputs(m.input_bytes, inputs, at);
    for (std::size_t i = 0; m.output_bytes[i]; ++i) {
      outputs[i] = at;
      at += (m.output_bytes[i] + 15) / 16 * 16;
    }
#if ONNXC_BARE_METAL
    std::size_t peak = 0;
    std::uint64_t ticks = 0;
    const int rc = run_measured(m, inputs, outputs, &peak, &ticks);
    std::printf("stack %s %u\nticks %s %lu\n", m.name, static_cast<unsigned>(peak), m.name,
                static_cast<unsigned long>(ticks));
#else
    const int rc = m.run(inputs, outputs, g_arena);
#endif
    if (rc != 0) {
      std::printf("error %s %d\n", m.name, rc);
      ++failures;
      continue;
    }
    for (std::size_t i = 0; m.output_bytes[i]; ++i) {
      const unsigned char* o = static_cast<const unsigned char*>(outputs[i]);
      for (std::size_t j = 0; j + 4 <= m.output_bytes[i]; j += 4) {
        std::uint32_t bits;
        std::memcpy(&bits, o + j, 4);
        std::printf("out %s %u %u %08lx\n", m.name, static_cast<unsigned>(i),
                    static_cast<unsigned>(j / 4), static_cast<unsigned long>(bits));
      }
    }
  }
  std::printf("done %d\n", failures);
  return failures;
}
