// Host-side timing driver that `onnxc bench` compiles with one generated model. The including
// source defines ONNXC_BENCH_MODEL (the model's namespace). Usage: bench DIR ITERS — reads
// DIR/input_K.bin, runs a warm-up then ITERS timed inferences, prints one line per statistic.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define ONNXC_CAT2(a, b) a##b
#define ONNXC_CAT(a, b) ONNXC_CAT2(a, b)

int main(int argc, char** argv) {
  namespace m = ONNXC_BENCH_MODEL;
  if (argc != 3) return 2;
  std::string dir = argv[1];
  int iters = std::atoi(argv[2]);
  std::vector<std::vector<unsigned char>> inputs(m::kNumInputs), outputs(m::kNumOutputs);
  std::vector<const void*> in_ptrs;
  std::vector<void*> out_ptrs;
  for (std::size_t i = 0; i < m::kNumInputs; ++i) {
    inputs[i].assign(m::kInputBytes[i] + 1, 0);
    std::FILE* f = std::fopen((dir + "/input_" + std::to_string(i) + ".bin").c_str(), "rb");
    if (!f || std::fread(inputs[i].data(), 1, m::kInputBytes[i], f) != m::kInputBytes[i]) return 3;
    std::fclose(f);
    in_ptrs.push_back(inputs[i].data());
  }
  for (std::size_t i = 0; i < m::kNumOutputs; ++i) {
    outputs[i].assign(m::kOutputBytes[i] + 1, 0);
    out_ptrs.push_back(outputs[i].data());
  }
  void* workspace = std::aligned_alloc(64, (m::kWorkspaceSize + 64) / 64 * 64);
  auto run = [&] {
    return ONNXC_CAT(ONNXC_BENCH_MODEL, _run)(in_ptrs.data(), out_ptrs.data(), workspace);
  };
  for (int i = 0; i < std::max(1, iters / 10); ++i)
    if (run() != 0) return 4;
  std::vector<double> ms;
  for (int i = 0; i < iters; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    run();
    auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::free(workspace);
  std::sort(ms.begin(), ms.end());
  std::printf("median_ms=%.4f min_ms=%.4f\n", ms[ms.size() / 2], ms.front());
  return 0;
}
