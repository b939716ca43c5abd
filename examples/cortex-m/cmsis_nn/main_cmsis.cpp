// Runs network_cmsis.cpp's CMSIS-NN build of one network (kws_int8 or cnn_int8: the model whose
// cmsis_params.h both files are compiled with; this file takes only its name and the input's and
// logits' sizes from it) on QEMU's MPS2 boards the way ../main.cpp runs onnxc's models, so that the
// two are measured alike (compare_cmsis_nn.sh): the same pseudo-random float input, one inference
// on its own painted stack right above an MPU guard (an overflow faults), SysTick ticks under
// `qemu-system-arm -icount shift=0` (one per instruction), calibrated against the same
// 2,000,000-instruction loop; all of it ../bare_metal.h's, which main.cpp uses too. Prints, <model>
// being the model's name (as main.cpp prints onnxc's):
//   calibrate <ticks>                     ticks of the 2,000,000-instruction loop
//   workspace <model> <bytes>             activation buffers + scratch the network asked for
//   stack <model> <bytes>                 the painted peak of the inference's stack
//   ticks <model> <ticks>                 one inference (float in, float out, as onnxc's)
//   out <model> 0 <index> <hex bits>      the float logits, as main.cpp prints outputs
//   q <model> <index> <int8>              the int8 logits before dequantization
//   done <failures>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "../bare_metal.h"
#include "cmsis_params.h"

extern "C" {
std::size_t cmsis_workspace_bytes();
int cmsis_run(const void* const* inputs, void* const* outputs, void* workspace);
}

namespace {

using cmsis_params::kModelName;
constexpr std::size_t kInputFloats = cmsis_params::kInput.h * cmsis_params::kInput.w *
                                     cmsis_params::kInput.c;  // the float input, NCHW
constexpr std::size_t kLogits = cmsis_params::kFcOut;
// Reserved for the network's workspace: more than it asks (cmsis_workspace_bytes() is checked
// against it); only what it asks for counts as its RAM.
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
  const bare_metal::Call call = {cmsis_run, inputs, outputs, g_workspace};
  return bare_metal::run_on_painted_stack(
      call, g_inference_stack, g_inference_stack + kInferenceStackBytes / 4, peak, ticks);
}

void print_logits() {
  for (std::size_t i = 0; i < kLogits; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, &g_logits[i], 4);
    std::printf("out %s 0 %u %08lx\n", kModelName, static_cast<unsigned>(i),
                static_cast<unsigned long>(bits));
  }
  for (std::size_t i = 0; i < kLogits; ++i)
    std::printf("q %s %u %d\n", kModelName, static_cast<unsigned>(i), g_logits_q[i]);
}

}  // namespace

int main() {
  bare_metal::start_measuring();
  const std::size_t workspace = cmsis_workspace_bytes();
  std::printf("workspace %s %u\n", kModelName, static_cast<unsigned>(workspace));
  if (workspace > kWorkspaceReserve) {
    std::printf("error %s workspace %u > %u\ndone 1\n", kModelName,
                static_cast<unsigned>(workspace), static_cast<unsigned>(kWorkspaceReserve));
    return 1;
  }
  fill_input(g_input, kInputFloats);
  std::size_t peak = 0;
  std::uint64_t ticks = 0;
  const int rc = run_measured(&peak, &ticks);
  std::printf("stack %s %u\nticks %s %lu\n", kModelName, static_cast<unsigned>(peak), kModelName,
              static_cast<unsigned long>(ticks));
  if (rc != 0) {
    std::printf("error %s %d\ndone 1\n", kModelName, rc);
    return 1;
  }
  print_logits();
  std::printf("done 0\n");
  return 0;
}
