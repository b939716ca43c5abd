// plan_scaling: times the memory planner (GreedyBySizePlanner::plan) and the plan checker
// (check_plan) on synthetic chains of 10k, 100k and 1M nodes, and prints the figures. Each node
// writes one buffer read by the next node (sizes vary from 1 to 16 KiB, as in a real chain), every
// 8th node has scratch and every 16th output is also read 8 nodes later (a residual skip). Not a
// timed test: run it by hand, `./build/bench/plan_scaling [nodes...]`, and compare the growth.
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <vector>

#include "passes/memory_planner.h"

namespace {

std::vector<onnxc::BufferRequest> chain(int nodes) {
  std::vector<onnxc::BufferRequest> req;
  uint32_t seed = 12345;
  auto next_size = [&] {
    seed = seed * 1664525u + 1013904223u;  // a fixed LCG: the same chain every run
    return size_t{1024} * (1 + (seed >> 28));
  };
  for (int n = 0; n < nodes; ++n) {
    onnxc::BufferRequest r;
    r.name = "v" + std::to_string(n);
    r.size = next_size();
    r.first_use = n;
    r.last_use = std::min(nodes - 1, n % 16 == 0 ? n + 8 : n + 1);
    req.push_back(r);
    if (n % 8 == 0) {
      onnxc::BufferRequest s;
      s.name = "scratch:" + std::to_string(n);
      s.size = 4096;
      s.first_use = s.last_use = n;
      req.push_back(s);
    }
  }
  return req;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes = {10000, 100000, 1000000};
  if (argc > 1) {
    sizes.clear();
    for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  }
  auto planner = onnxc::make_greedy_by_size_planner();
  fmt::print("{:>9} {:>9} {:>10} {:>10} {:>14} {:>14}\n", "nodes", "buffers", "plan s", "check s",
             "arena bytes", "lower bound");
  for (int n : sizes) {
    auto req = chain(n);
    auto t0 = std::chrono::steady_clock::now();
    onnxc::MemoryPlan plan = planner->plan(req);
    double plan_s = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    auto errors = onnxc::check_plan(req, plan);
    double check_s = seconds_since(t0);
    fmt::print("{:>9} {:>9} {:>10.3f} {:>10.3f} {:>14} {:>14}{}\n", n, req.size(), plan_s, check_s,
               plan.arena_size, onnxc::live_bytes_lower_bound(req),
               errors.empty() ? "" : "  PLAN INVALID: " + errors[0]);
    if (!errors.empty()) return 1;
  }
  return 0;
}
