// Host-side driver that `onnxc test` links with a batch of generated models. The batch source
// defines ONNXC_HARNESS_MODELS as X(name) X(name) ... and includes this file after the models.
// Usage: harness INDEX DIR — reads DIR/input_K.bin, runs model INDEX, writes DIR/output_K.bin.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#if ONNXC_HARNESS_THREADS > 1  // onnxc test --threads N: models take a pool, given one of N
#include "onnxc/thread_pool.h"
#define ONNXC_HARNESS_POOL , const void*
#else
#define ONNXC_HARNESS_POOL
#endif

namespace onnxc_harness {

struct Model {
  int (*run)(const void* const*, void* const*, void* ONNXC_HARNESS_POOL);
  std::size_t workspace_size;
  const std::size_t* input_bytes;
  std::size_t num_inputs;
  const std::size_t* output_bytes;
  std::size_t num_outputs;
};

#define X(name)                                                    \
  Model{&name##_run,      name::kWorkspaceSize, name::kInputBytes, \
        name::kNumInputs, name::kOutputBytes,   name::kNumOutputs},
const Model kModels[] = {ONNXC_HARNESS_MODELS};
#undef X

bool read_file(const std::string& path, std::vector<unsigned char>& data, std::size_t expected) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  data.assign(expected + 1, 0);
  std::size_t n = std::fread(data.data(), 1, expected + 1, f);
  std::fclose(f);
  data.resize(expected + 1);  // keep a non-null pointer for zero-sized tensors
  return n == expected;
}

}  // namespace onnxc_harness

int main(int argc, char** argv) {
  using namespace onnxc_harness;
  if (argc != 3) return 2;
  std::size_t index = std::strtoul(argv[1], nullptr, 10);
  if (index >= sizeof(kModels) / sizeof(kModels[0])) return 2;
  const Model& m = kModels[index];
  std::string dir = argv[2];
  std::vector<std::vector<unsigned char>> inputs(m.num_inputs), outputs(m.num_outputs);
  std::vector<const void*> in_ptrs;
  std::vector<void*> out_ptrs;
  for (std::size_t i = 0; i < m.num_inputs; ++i) {
    if (!read_file(dir + "/input_" + std::to_string(i) + ".bin", inputs[i], m.input_bytes[i])) {
      std::fprintf(stderr, "input %zu: missing or wrong size\n", i);
      return 3;
    }
    in_ptrs.push_back(inputs[i].data());
  }
  for (std::size_t i = 0; i < m.num_outputs; ++i) {
    outputs[i].assign(m.output_bytes[i] + 1, 0xCD);  // a pattern, so unwritten outputs show
    out_ptrs.push_back(outputs[i].data());
  }
  void* workspace = std::aligned_alloc(64, (m.workspace_size + 64) / 64 * 64);
#if ONNXC_HARNESS_THREADS > 1
  onnxc::ThreadPool pool(ONNXC_HARNESS_THREADS);
  const onnxc::Parallel parallel = pool.parallel();
  int rc = m.run(in_ptrs.data(), out_ptrs.data(), workspace, &parallel);
#else
  int rc = m.run(in_ptrs.data(), out_ptrs.data(), workspace);
#endif
  std::free(workspace);
  if (rc != 0) return 4;
  for (std::size_t i = 0; i < m.num_outputs; ++i) {
    std::string path = dir + "/output_" + std::to_string(i) + ".bin";
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(outputs[i].data(), 1, m.output_bytes[i], f) != m.output_bytes[i])
      return 5;
    std::fclose(f);
  }
  return 0;
}
