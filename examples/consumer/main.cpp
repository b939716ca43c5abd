// The consumer example: two models compiled by onnxc_add_model (the README's CNN with embedded
// weights, an MLP with external weights) linked into one program, run on fixed inputs and checked
// against PyTorch's outputs (expected.h, written by make_expected.py). Prints one line per output
//   out <model> <index> <hex bits of the float>
// so that runs on different CPUs can be compared bit for bit or within a tolerance, then
//   check <model> max-error <error>e-9 PASS|FAIL
// Exit status: the number of failed models.
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "expected.h"
#include "mlp.h"
#include "tiny_cnn.h"

// The MLP's weights (mlp.bin, mlp::kWeightsSize bytes, 64-byte aligned), or nullptr if they
// cannot be loaded: memory-mapped on the host (weights_mmap.cpp), placed in flash by the linker
// on the microcontroller (weights_blob.cpp).
const void* mlp_weights();

namespace {

constexpr std::size_t kArenaBytes =
    tiny_cnn::kWorkspaceSize > mlp::kWorkspaceSize ? tiny_cnn::kWorkspaceSize : mlp::kWorkspaceSize;
alignas(64) unsigned char g_arena[kArenaBytes + 1];

constexpr std::size_t kPixels = tiny_cnn::kInputBytes[0] / sizeof(float);
constexpr std::size_t kFeatures = mlp::kInputBytes[0] / sizeof(float);
constexpr std::size_t kClasses = 10;
static_assert(sizeof(kCnnExpected) == tiny_cnn::kOutputBytes[0], "expected.h is out of date");
static_assert(sizeof(kMlpExpected) == mlp::kOutputBytes[0], "expected.h is out of date");

float g_image[kPixels];
float g_features[kFeatures];

// Prints the outputs and compares them with `expected` within 1e-5 (relative to max(1, |x|)).
int check(const char* model, const float* got, const float* expected, std::size_t n) {
  float worst = 0.0f;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, &got[i], sizeof bits);
    std::printf("out %s %u %08lx\n", model, static_cast<unsigned>(i),
                static_cast<unsigned long>(bits));
    const float magnitude = expected[i] < 0 ? -expected[i] : expected[i];
    const float error = (got[i] > expected[i] ? got[i] - expected[i] : expected[i] - got[i]) /
                        (magnitude > 1.0f ? magnitude : 1.0f);
    if (!(error <= worst)) worst = error;  // also catches NaN
  }
  const bool pass = worst <= 1e-5f;
  // In units of 1e-9, as an integer: newlib's float formatting needs a heap the board lacks.
  const unsigned long nano = pass ? static_cast<unsigned long>(worst * 1e9f) : 99999999ul;
  std::printf("check %s max-error %lue-9 %s\n", model, nano, pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}

}  // namespace

int main() {
  for (std::size_t i = 0; i < kPixels; ++i) g_image[i] = static_cast<float>(i) / kPixels;
  for (std::size_t i = 0; i < kFeatures; ++i) {
    g_features[i] = static_cast<float>(static_cast<int>(i % 7) - 3) / 4.0f;
  }
  int failures = 0;
  float probabilities[kClasses];
  if (tiny_cnn::run({g_image}, {probabilities}, g_arena) != 0) {
    std::printf("error tiny_cnn\n");
    ++failures;
  } else {
    failures += check("tiny_cnn", probabilities, kCnnExpected, kClasses);
  }
  const void* weights = mlp_weights();
  float scores[kClasses];
  if (weights == nullptr || mlp::run({g_features}, {scores}, g_arena, weights) != 0) {
    std::printf("error mlp\n");
    ++failures;
  } else {
    failures += check("mlp", scores, kMlpExpected, kClasses);
  }
  std::printf("done %d\n", failures);
  return failures;
}
