// Runs kws_cmsis.cpp's CMSIS-NN build of kws_int8 on QEMU's MPS2 boards the way ../main.cpp runs
// onnxc's models, so that the two are measured alike (compare_cmsis_nn.sh): the same
// pseudo-random float input, one inference on its own painted stack right above an MPU guard (an
// overflow faults), SysTick ticks under `qemu-system-arm -icount shift=0` (one per instruction),
// calibrated against the same 2,000,000-instruction loop; all of it ../bare_metal.h's, which
// main.cpp uses too. Prints:
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

#include "../bare_metal.h"

extern "C" {
std::size_t kws_cmsis_workspace_bytes();
int kws_cmsis_run(const void* const* inputs, void* const* outputs, void* workspace);
}

namespace {

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

__attribute__((section(".inference_stack"))) alignas(8) std::uint32_t
    g_inference_stack[kInferenceStackBytes / 4];

// main.cpp's inputs for one input: bare_metal.h's sequence from its start.
void fill_input(float* x, std::size_t n) {
  bare_metal::InputSequence sequence;
  for (std::size_t j = 0; j < n; ++j) x[j] = sequence.next();
}

// One inference on the painted inference stack: returns run()'s status, the peak stack bytes
// and the SysTick ticks taken.
int run_measured(std::size_t* peak, std::uint64_t* ticks) {
  const void* const inputs[] = {g_input};
  void* const outputs[] = {g_logits, g_logits_q};
  const bare_metal::Call call = {kws_cmsis_run, inputs, outputs, g_workspace};
  return bare_metal::run_on_painted_stack(
      call, g_inference_stack, g_inference_stack + kInferenceStackBytes / 4, peak, ticks);
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

int main() {
  bare_metal::start_measuring();
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
