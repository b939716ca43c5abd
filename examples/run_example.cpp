// Runs the example model compiled at build time by onnxc_add_model: feeds an image of
// arange(n)/n, prints the class probabilities and the predicted class.
#include <cstdio>
#include <vector>

#include "tiny_cnn.h"

int main() {
  constexpr std::size_t kPixels = tiny_cnn::kInputBytes[0] / sizeof(float);
  std::vector<float> image(kPixels);
  for (std::size_t i = 0; i < kPixels; ++i) image[i] = static_cast<float>(i) / kPixels;
  float probabilities[10];
  alignas(64) static unsigned char workspace[tiny_cnn::kWorkspaceSize + 1];
  if (tiny_cnn::run({image.data()}, {probabilities}, workspace) != 0) return 1;
  int best = 0;
  for (int c = 0; c < 10; ++c) {
    std::printf("class %d: %.6f\n", c, static_cast<double>(probabilities[c]));
    if (probabilities[c] > probabilities[best]) best = c;
  }
  std::printf("predicted class: %d (workspace %zu bytes, weights %zu bytes)\n", best,
              tiny_cnn::kWorkspaceSize, tiny_cnn::kWeightsSize);
  return 0;
}
