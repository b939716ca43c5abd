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
// The measuring itself is bare_metal.h's, shared with cmsis_nn/main_cmsis.cpp.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "bare_metal.h"
#include "models.h"

namespace {

using bare_metal::RunFn;

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

// Inputs: bare_metal.h's sequence, restarted for each model.
void fill_inputs(const std::size_t* bytes, void** inputs, unsigned char*& at) {
  bare_metal::InputSequence sequence;
  for (std::size_t i = 0; bytes[i]; ++i) {
    inputs[i] = at;
    for (std::size_t j = 0; j + 4 <= bytes[i]; j += 4) {
      const float v = sequence.next();
      std::memcpy(at + j, &v, 4);
    }
    at += (bytes[i] + 15) / 16 * 16;
  }
}

#if ONNXC_BARE_METAL
// The inference stack: as large as the largest kMaxStackBytes, right above the 1 KiB guard at the
// start of RAM (mps2.ld) that guard_stack() makes inaccessible, so one more byte of stack faults.
#define MODEL_STACK(ns) ns::kMaxStackBytes,
constexpr std::size_t kInferenceStackBytes = std::max({std::size_t{8}, ONNXC_MODELS(MODEL_STACK)});
#undef MODEL_STACK
static_assert(kInferenceStackBytes % 8 == 0, "the AAPCS wants an 8-byte aligned stack");
__attribute__((section(".inference_stack"))) alignas(8) std::uint32_t
    g_inference_stack[kInferenceStackBytes / 4];

// Runs m on the lowest `m.max_stack` bytes of the inference stack (below them nothing is mapped).
int run_measured(const Model& m, const void* const* in, void* const* out, std::size_t* peak,
                 std::uint64_t* ticks) {
#ifdef ONNXC_UNDERSTATE_STACK  // run_qemu.sh's check that the guard works: far too little stack
  std::uint32_t* const end = g_inference_stack + 128 / 4;
#else
  std::uint32_t* const end = g_inference_stack + m.max_stack / 4;
#endif
  const bare_metal::Call call = {m.run, in, out, g_arena};
  return bare_metal::run_on_painted_stack(call, g_inference_stack, end, peak, ticks);
}
#endif

}  // namespace

int main() {
  int failures = 0;
#if ONNXC_BARE_METAL
  bare_metal::start_measuring();
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
