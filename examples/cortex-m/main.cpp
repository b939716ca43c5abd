// Runs every model of models.h (written by run_qemu.sh: the generated headers and an X-macro
// ONNXC_MODELS) on the same pseudo-random inputs and prints each output word in hex, so that
// runs on different CPUs can be compared. On the microcontroller it also paints the stack before
// each inference and prints the peak stack depth the inference reached:
//   out <model> <output> <index> <hex bits>
//   stack <model> <bytes>        (bare-metal builds only)
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
};

#define MODEL_ROW(ns) {#ns, ns##_run, ns::kInputBytes, ns::kOutputBytes},
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
extern "C" std::uint32_t __stack_bottom[];
constexpr std::uint32_t kPaint = 0xA5A5A5A5u;

// Runs m with the free part of the stack painted; returns the peak bytes used below `top`
// (this frame's stack pointer), i.e. the inference's own stack.
__attribute__((noinline)) int run_painted(const Model& m, const void* const* in, void* const* out,
                                          std::size_t* peak) {
  std::uint32_t* sp;
  __asm volatile("mov %0, sp" : "=r"(sp));
  std::uint32_t* const top = sp - 16;  // leave this frame's red zone alone
  for (volatile std::uint32_t* p = __stack_bottom; p < top; ++p) *p = kPaint;
  const int rc = m.run(in, out, g_arena);
  std::uint32_t* p = __stack_bottom;
  while (p < top && *p == kPaint) ++p;
  *peak = static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(sp) -
                                   reinterpret_cast<std::uintptr_t>(p));
  return rc;
}
#endif

}  // namespace

int main() {
  int failures = 0;
  for (const Model& m : kModels) {
    void* inputs[16] = {};
    void* outputs[16] = {};
    unsigned char* at = g_io;
    fill_inputs(m.input_bytes, inputs, at);
    for (std::size_t i = 0; m.output_bytes[i]; ++i) {
      outputs[i] = at;
      at += (m.output_bytes[i] + 15) / 16 * 16;
    }
#if defined(__arm__) && !defined(__linux__)
    std::size_t peak = 0;
    const int rc = run_painted(m, inputs, outputs, &peak);
    std::printf("stack %s %u\n", m.name, static_cast<unsigned>(peak));
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
