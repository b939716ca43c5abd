// Deterministic replay of a libFuzzer target without libFuzzer (CTest, any compiler): every file
// of the corpus folders given, then a fixed stream of pseudo-random inputs drawn from an alphabet
// of the bytes that matter to names (quotes, slashes, stars, '?', control bytes, UTF-8 pieces).
//   replay CORPUS_DIR... [--random N]
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

int run(const std::string& bytes) {
  return LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

}  // namespace

int main(int argc, char** argv) {
  size_t files = 0, randoms = 10000;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--random") == 0 && i + 1 < argc) {
      randoms = std::strtoul(argv[++i], nullptr, 10);
      continue;
    }
    for (const auto& entry : std::filesystem::directory_iterator(argv[i])) {
      if (!entry.is_regular_file()) continue;
      std::ifstream in(entry.path(), std::ios::binary);
      run(std::string(std::istreambuf_iterator<char>(in), {}));
      ++files;
    }
  }
  static const char kAlphabet[] =
      "aZ_09.:/-* ?\\\"'\n\r\t\x01\x7f\x80\xc3\xa9\xff\xe2\x80\xae\xa8\xed\xa0\xf0\x9f";
  std::mt19937 rng(20261123);
  for (size_t k = 0; k < randoms; ++k) {
    std::string s;
    const size_t n = rng() % 40;
    for (size_t i = 0; i < n; ++i)
      s += (rng() % 8 == 0) ? '\0' : kAlphabet[rng() % (sizeof kAlphabet - 1)];
    run(s);
  }
  std::printf("replayed %zu corpus files and %zu random inputs: no failure\n", files, randoms);
  return 0;
}
