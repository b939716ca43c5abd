// libFuzzer target: arbitrary bytes through ImageDecoder's run-time decoders (issue 17); they
// read images a model's caller hands over, so they must refuse anything malformed without a read
// outside the input, a write outside the output or scratch, or a hang. The first two bytes give
// the expected height and width (1..64); the rest is the file. Input, output and scratch are
// buffers of their exact sizes, so ASan reports any overrun. The status must be 0,
// kErrorImageFormat or kErrorImageSize, and decoding twice must give the same pixels.
//   Build with clang: cmake -DONNXC_BUILD_FUZZERS=ON -DCMAKE_CXX_COMPILER=clang++; run
//   ./fuzz_image_decoder tests/fuzz/corpus/image_decoder. CTest `fuzz_image_decoder_replay`
//   replays the corpus and a fixed stream of random inputs through the same function.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "onnxc/image_decoder.h"

namespace {

void require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz_image_decoder: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const onnxc::index_t height = 1 + data[0] % 64, width = 1 + data[1] % 64;
  const std::vector<unsigned char> file(data + 2, data + size);  // exactly the file's bytes
  for (int f = 0; f < 3; ++f) {
    const auto format = static_cast<onnxc::ImagePixelFormat>(f);
    const size_t pixels = static_cast<size_t>(height * width) * (f == 2 ? 1 : 3);
    std::vector<unsigned char> scratch(
        static_cast<size_t>(onnxc::image_decoder_scratch_bytes(height, width, format)));
    std::vector<unsigned char> first(pixels), second(pixels);
    const int status =
        onnxc::image_decoder_ref(file.data(), static_cast<onnxc::index_t>(file.size()), height,
                                 width, format, first.data(), scratch.data());
    require(status == 0 || status == onnxc::kErrorImageFormat || status == onnxc::kErrorImageSize,
            "an unknown status");
    if (status != 0) return 0;
    require(onnxc::image_decoder_ref(file.data(), static_cast<onnxc::index_t>(file.size()), height,
                                     width, format, second.data(), scratch.data()) == 0,
            "a second decode fails");
    require(first == second, "two decodes differ");
  }
  return 0;
}
