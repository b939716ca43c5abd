// The --threads prediction of `onnxc inspect`. Cost model, per node:
//   serial time   its FLOPs (driver/node_flops.h) at its kernel variant's per-core rate (the
//                 variant table's gflops column, the same rate select-kernels splits by); nodes
//                 with no rated variant at kUnratedGflops (elementwise, pooling, reshapes: one
//                 operation per output element, a memory-bound guess)
//   split time    serial time x the largest part's share (OpHandler::parts_plan: the grid the
//                 parallel form runs) + one parallel region's cost (the target's split.region_s)
// The model's N-thread time is the sum over nodes: nodes run one after the other, each whole or
// split, so the critical path is that sum. Not modelled: memory bandwidth shared by the cores,
// caches per core, clock changes with the active core count, the pool's wake-up after a long
// serial stretch. Measured speedups fall short of it where those bind (docs/PERFORMANCE.md).
#include "driver/thread_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "driver/node_flops.h"
#include "ops/kernel_variants.h"
#include "ops/op.h"

namespace onnxc {
namespace {

// The rate of nodes without a rated kernel variant (elementwise ops and the like).
constexpr double kUnratedGflops = 4.0;

struct NodeCost {
  const Node* node;
  PartsPlan plan;
  double serial_s = 0, split_s = 0;
  bool rated = false;  // its variant has a measured rate (else kUnratedGflops)
};

NodeCost cost_of(const Node& n, const Target& target) {
  NodeCost c{&n, {"whole", 1.0}};
  const KernelVariant* v = n.kernel.empty() ? nullptr : find_kernel_variant(n.kernel);
  c.rated = v && v->gflops > 0;
  const double gflops = c.rated ? v->gflops : kUnratedGflops;
  c.serial_s = static_cast<double>(node_flops(n)) / (gflops * 1e9);
  c.split_s = c.serial_s;
  if (n.kernel_tasks > 1 && n.handler) {
    c.plan = n.handler->parts_plan(n);
    c.split_s = c.serial_s * c.plan.largest_share + target.split.region_s;
  }
  return c;
}

std::string split_table(std::vector<NodeCost> split, int threads) {
  std::sort(split.begin(), split.end(),
            [](const NodeCost& a, const NodeCost& b) { return a.serial_s > b.serial_s; });
  size_t width = 10;
  for (const NodeCost& c : split) width = std::max(width, c.node->name.size());
  std::string out =
      fmt::format("{:<{}} {:<12} {:<40} {:>7} {:>9} {:>9}\n", "split node", width, "op",
                  "parts (grid)", "largest", "1 thr ms", fmt::format("{} thr ms", threads));
  for (const NodeCost& c : split)
    out += fmt::format("{:<{}} {:<12} {:<40} {:>6.1f}% {:>9.3f} {:>9.3f}\n", c.node->name, width,
                       c.node->op_type, c.plan.grid, 100.0 * c.plan.largest_share, c.serial_s * 1e3,
                       c.split_s * 1e3);
  return out;
}

// The heaviest nodes that run whole (at most kWholeListed): where a parallel form would pay.
constexpr size_t kWholeListed = 5;
std::string whole_table(std::vector<NodeCost> whole) {
  std::sort(whole.begin(), whole.end(),
            [](const NodeCost& a, const NodeCost& b) { return a.serial_s > b.serial_s; });
  whole.resize(std::min(whole.size(), kWholeListed));
  std::string out;
  for (const NodeCost& c : whole)
    out += fmt::format("  whole: {} ({}) {:.3f} ms{}\n", c.node->name, c.node->op_type,
                       c.serial_s * 1e3, c.rated ? "" : " (unrated: a memory-bound guess)");
  return out;
}

}  // namespace

std::string thread_report(const Module& m) {
  const int threads = m.target->threads;
  std::vector<NodeCost> split, whole;
  double serial = 0, parallel = 0, whole_s = 0;
  for (const auto& n : m.graph->nodes) {
    if (n->elided) continue;  // a view: no code runs
    const NodeCost c = cost_of(*n, *m.target);
    serial += c.serial_s, parallel += c.split_s;
    if (n->kernel_tasks > 1) {
      split.push_back(c);
    } else {
      whole.push_back(c);
      whole_s += c.serial_s;
    }
  }
  std::string out = fmt::format(
      "threads: {} (predicted from onnxc's kernel rates; see "
      "docs/PERFORMANCE.md for measured figures)\n",
      threads);
  out += split_table(split, threads);
  out += fmt::format(
      "model: {} split nodes, {} whole ({:.1f}% of the serial time); predicted {:.3f} ms at 1 "
      "thread, {:.3f} ms at {}: speedup {:.2f} (ideal {})\n",
      split.size(), whole.size(), serial > 0 ? 100.0 * whole_s / serial : 0.0, serial * 1e3,
      parallel * 1e3, threads, parallel > 0 ? serial / parallel : 1.0, threads);
  return out + whole_table(std::move(whole));
}

}  // namespace onnxc
