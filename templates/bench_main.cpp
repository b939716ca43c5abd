// Host-side timing driver that `onnxc bench` compiles with one generated model.
// The including source defines ONNXC_BENCH_MODEL (the model's namespace) and
// ONNXC_BENCH_SOURCE (the generated .cpp, included here after the profiling
// hooks), and with --profile ONNXC_BENCH_PROFILE_NODES (the number of top-level
// nodes).
//
//   bench DIR ITERS    reads DIR/input_K.bin, runs a warm-up then ITERS timed
//   inferences and
//                      prints `median_ms=X min_ms=Y`; with profiling, first one
//                      `node INDEX NS` line per timed node (its median
//                      nanoseconds over the timed inferences: robust to the
//                      other processes of a shared machine)
//   bench DIR --serve  reads a count N per line on stdin, runs N inferences and
//   prints their
//                      latencies in ms on one line (bench/run interleaves it
//                      with a peer)
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#ifdef ONNXC_BENCH_PROFILE_NODES
// The generated code calls these around each node block (see
// CodegenOptions::profile).
namespace onnxc_bench_profile {
std::int64_t node_ns[ONNXC_BENCH_PROFILE_NODES];
std::chrono::steady_clock::time_point node_start;
}  // namespace onnxc_bench_profile
#define ONNXC_PROFILE_BEGIN(node) \
  (onnxc_bench_profile::node_start = std::chrono::steady_clock::now())
#define ONNXC_PROFILE_END(node)                                                            \
  (onnxc_bench_profile::node_ns[node] +=                                                   \
   std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - \
                                                        onnxc_bench_profile::node_start)   \
       .count())
#endif

#include ONNXC_BENCH_SOURCE

#if ONNXC_BENCH_THREADS > 1
#include "onnxc/thread_pool.h"
#endif

#define ONNXC_CAT2(a, b) a##b
#define ONNXC_CAT(a, b) ONNXC_CAT2(a, b)

namespace {

namespace m = ONNXC_BENCH_MODEL;

struct Buffers {
  std::vector<std::vector<unsigned char>> inputs, outputs;
  std::vector<const void*> in_ptrs;
  std::vector<void*> out_ptrs;
  void* workspace = nullptr;
};

bool load(const std::string& dir, Buffers& b) {
  b.inputs.resize(m::kNumInputs);
  b.outputs.resize(m::kNumOutputs);
  for (std::size_t i = 0; i < m::kNumInputs; ++i) {
    b.inputs[i].assign(m::kInputBytes[i] + 1, 0);
    std::FILE* f = std::fopen((dir + "/input_" + std::to_string(i) + ".bin").c_str(), "rb");
    if (!f) return false;
    bool ok = std::fread(b.inputs[i].data(), 1, m::kInputBytes[i], f) == m::kInputBytes[i];
    std::fclose(f);
    if (!ok) return false;
    b.in_ptrs.push_back(b.inputs[i].data());
  }
  for (std::size_t i = 0; i < m::kNumOutputs; ++i) {
    b.outputs[i].assign(m::kOutputBytes[i] + 1, 0);
    b.out_ptrs.push_back(b.outputs[i].data());
  }
  b.workspace = std::aligned_alloc(64, (m::kWorkspaceSize + 64) / 64 * 64);
  return b.workspace != nullptr;
}

#if ONNXC_BENCH_THREADS > 1
// The model was compiled with --threads ONNXC_BENCH_THREADS: its parts run on this pool.
onnxc::ThreadPool pool(ONNXC_BENCH_THREADS);
const onnxc::Parallel parallel = pool.parallel();
#define ONNXC_BENCH_POOL , &parallel
#else
#define ONNXC_BENCH_POOL
#endif

// Latency of one inference in ms, or a negative value when run() fails.
double timed_run(Buffers& b) {
  auto t0 = std::chrono::steady_clock::now();
  int rc = ONNXC_CAT(ONNXC_BENCH_MODEL, _run)(b.in_ptrs.data(), b.out_ptrs.data(),
                                              b.workspace ONNXC_BENCH_POOL);
  auto t1 = std::chrono::steady_clock::now();
  return rc == 0 ? std::chrono::duration<double, std::milli>(t1 - t0).count() : -1.0;
}

int serve(Buffers& b) {
  char line[64];
  while (std::fgets(line, sizeof line, stdin)) {
    int n = std::atoi(line);
    if (n <= 0) break;
    for (int i = 0; i < n; ++i) {
      double ms = timed_run(b);
      if (ms < 0) return 4;
      std::printf(i ? " %.6f" : "%.6f", ms);
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  return 0;
}

int measure(Buffers& b, int iters) {
  for (int i = 0; i < std::max(1, iters / 10); ++i)
    if (timed_run(b) < 0) return 4;
#ifdef ONNXC_BENCH_PROFILE_NODES
  std::fill(std::begin(onnxc_bench_profile::node_ns), std::end(onnxc_bench_profile::node_ns), 0);
#endif
  std::vector<double> ms;
#ifdef ONNXC_BENCH_PROFILE_NODES
  using onnxc_bench_profile::node_ns;
  std::vector<std::vector<std::int64_t>> per_node(ONNXC_BENCH_PROFILE_NODES);
#endif
  for (int i = 0; i < iters; ++i) {
    ms.push_back(timed_run(b));
    if (ms.back() < 0) return 4;
#ifdef ONNXC_BENCH_PROFILE_NODES
    for (int k = 0; k < ONNXC_BENCH_PROFILE_NODES; ++k) per_node[k].push_back(node_ns[k]);
    std::fill(std::begin(node_ns), std::end(node_ns), 0);
#endif
  }
#ifdef ONNXC_BENCH_PROFILE_NODES
  for (int k = 0; k < ONNXC_BENCH_PROFILE_NODES; ++k) {
    std::vector<std::int64_t>& t = per_node[k];
    std::nth_element(t.begin(), t.begin() + iters / 2, t.end());
    if (t[iters / 2]) std::printf("node %d %lld\n", k, static_cast<long long>(t[iters / 2]));
  }
#endif
  std::sort(ms.begin(), ms.end());
  std::printf("median_ms=%.4f min_ms=%.4f\n", ms[ms.size() / 2], ms.front());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  Buffers b;
  if (!load(argv[1], b)) return 3;
  int rc = std::strcmp(argv[2], "--serve") == 0 ? serve(b) : measure(b, std::atoi(argv[2]));
  std::free(b.workspace);
  return rc;
}
