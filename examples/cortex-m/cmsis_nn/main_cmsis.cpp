// Runs kws_cmsis.cpp's CMSIS-NN build of kws_int8 on QEMU's MPS2 boards the way ../main.cpp runs
// onnxc's models, so that the two are measured alike (compare_cmsis_nn.sh): the same
// pseudo-random float input (main.cpp's fill_inputs), one inference on its own painted stack
// right above an MPU guard (an overflow faults), SysTick ticks under `qemu-system-arm -icount
// shift=0` (one per instruction), calibrated against the same 2,000,000-instruction loop. The
// timing, the stack code and the input generator are copies of main.cpp's (which is one program
// with models.h, not a library). Prints:
//   calibrate <ticks>                     ticks of the 2,000,000-instruction loop
//   workspace kws_cmsis <bytes>           activation buffers + scratch the network asked for
//   stack kws_cmsis <bytes>               the painted peak of the inference's stack
//   ticks kws_cmsis <ticks>               one inference (float in, float out, as onnxc's)
//   out kws_cmsis 0 <index> <hex bits>    the float logits, as main.cpp prints outputs
//   q kws_cmsis <index> <int8>            the int8 logits before dequantization
//   done <failures>
#include <cstdint>
#include <cstdio>
#include <cstring>

extern "C" {
std::size_t kws_cmsis_workspace_bytes();
int kws_cmsis_run(const void* const* inputs, void* const* outputs, void* workspace);
}

namespace {

using RunFn = int (*)(const void* const*, void* const*, void*);

constexpr std::size_t kInputFloats = 49 * 10;  // mfcc float[1x1x49x10]
constexpr std::size_t kLogits = 12;
// Reserved for the network's workspace: more than it asks (kws_cmsis_workspace_bytes() is
// checked against it); only what it asks for counts as its RAM.
constexpr std::size_t kWorkspaceReserve = 32768;
// The inference stack: CMSIS-NN states no bound, so this is generous; the painted peak is the
// figure, and the MPU guard below it turns an overflow into a failed run.
constexpr std::size_t kInferenceStackBytes = 4096;

alignas(64) unsigned char g_workspace[kWorkspaceReserve];
float g_input[kInputFloats];
float g_logits[kLogits];
int8_t g_logits_q[kLogits];

// main.cpp's fill_inputs for one input: floats in [-1, 1) from the same 32-bit LCG.
void fill_input(float* x, std::size_t n) {
  std::uint32_t state = 12345u;
  for (std::size_t j = 0; j < n; ++j) {
    state = state * 1664525u + 1013904223u;
    x[j] = static_cast<float>(state >> 8) / 8388608.0f - 1.0f;
  }
}

struct Call {  // what call_on_stack() passes to run(); its offsets are in the asm
  RunFn run;
  const void* const* inputs;
  void* const* outputs;
  void* workspace;
};

// main.cpp's call_on_stack: call->run(...) with the stack pointer at `top`. Thumb-1 only.
__attribute__((naked, noinline)) int call_on_stack(const Call* /*r0*/, void* /*top: r1*/) {
  __asm volatile(
      ".syntax unified\n"
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

__attribute__((section(".inference_stack"))) alignas(8) std::uint32_t
    g_inference_stack[kInferenceStackBytes / 4];
constexpr std::uint32_t kPaint = 0xA5A5A5A5u;

volatile std::uint32_t& reg(std::uintptr_t address) {
  return *reinterpret_cast<volatile std::uint32_t*>(address);
}

// main.cpp's guard: MPU region 0 makes the 1 KiB below the inference stack inaccessible.
extern "C" std::uint32_t __stack_guard[];
void guard_stack() {
  reg(0xE000ED98) = 0;
  reg(0xE000ED9C) = reinterpret_cast<std::uintptr_t>(__stack_guard);
  reg(0xE000EDA0) = (1u << 28) | (9u << 1) | 1u;
  reg(0xE000ED94) = 5;
  __asm volatile("dsb\n isb" ::: "memory");
}

volatile std::uint32_t g_systick_wraps = 0;
void start_systick() {
  reg(0xE000E014) = 0xFFFFFFu;
  reg(0xE000E018) = 0;
  reg(0xE000E010) = 7;
  while (reg(0xE000E018) == 0) {
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

// main.cpp's calibration: 1,000,000 iterations of a two-instruction loop.
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

// One inference on the painted inference stack: returns run()'s status, the peak stack bytes
// and the SysTick ticks taken.
int run_measured(std::size_t* peak, std::uint64_t* ticks) {
  const void* const inputs[] = {g_input};
  void* const outputs[] = {g_logits, g_logits_q};
  std::uint32_t* const end = g_inference_stack + kInferenceStackBytes / 4;
  for (std::uint32_t* p = g_inference_stack; p < end; ++p) *p = kPaint;
  const Call call = {kws_cmsis_run, inputs, outputs, g_workspace};
  const std::uint64_t t0 = systicks();
  const int rc = call_on_stack(&call, end);
  *ticks = systicks() - t0;
  std::uint32_t* p = g_inference_stack;
  while (p < end && *p == kPaint) ++p;
  *peak = static_cast<std::size_t>(end - p) * 4;
  return rc;
}

void print_logits() {
  for (std::size_t i = 0; i < kLogits; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, &g_logits[i], 4);
    std::printf("out kws_cmsis 0 %u %08lx\n", static_cast<unsigned>(i),
                static_cast<unsigned long>(bits));
  }
  for (std::size_t i = 0; i < kLogits; ++i)
    std::printf("q kws_cmsis %u %d\n", static_cast<unsigned>(i), g_logits_q[i]);
}

}  // namespace

extern "C" void SysTick_Handler() {
  g_systick_wraps = g_systick_wraps + 1;
}

int main() {
  guard_stack();
  start_systick();
  std::printf("calibrate %lu\n", static_cast<unsigned long>(calibrate()));
  const std::size_t workspace = kws_cmsis_workspace_bytes();
  std::printf("workspace kws_cmsis %u\n", static_cast<unsigned>(workspace));
  if (workspace > kWorkspaceReserve) {
    std::printf("error kws_cmsis workspace %u > %u\ndone 1\n", static_cast<unsigned>(workspace),
                static_cast<unsigned>(kWorkspaceReserve));
    return 1;
  }
  fill_input(g_input, kInputFloats);
  std::size_t peak = 0;
  std::uint64_t ticks = 0;
  const int rc = run_measured(&peak, &ticks);
  std::printf("stack kws_cmsis %u\nticks kws_cmsis %lu\n", static_cast<unsigned>(peak),
              static_cast<unsigned long>(ticks));
  if (rc != 0) {
    std::printf("error kws_cmsis %d\ndone 1\n", rc);
    return 1;
  }
  print_logits();
  std::printf("done 0\n");
  return 0;
}
