// Memory planning (see memory_planner.h). Lifetimes come from node order; planners only see
// sizes and lifetimes, not the graph.
#include "passes/memory_planner.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>

namespace onnxc {
namespace {

size_t align_up(size_t x) { return (x + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment; }

bool lifetimes_overlap(const BufferRequest& a, const BufferRequest& b) {
  return a.first_use <= b.last_use && b.first_use <= a.last_use;
}

class GreedyBySizePlanner final : public MemoryPlanner {
 public:
  const char* name() const override { return "greedy-by-size"; }
  MemoryPlan plan(const std::vector<BufferRequest>& req) const override {
    MemoryPlan p;
    p.offsets.assign(req.size(), 0);
    std::vector<size_t> order(req.size());
    std::iota(order.begin(), order.end(), 0);
    // Ties broken by index so the plan (and the generated code) is deterministic.
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return req[a].size > req[b].size; });
    std::vector<size_t> placed;
    for (size_t i : order) {
      // Candidate offsets: 0 and the end of every placed buffer live at the same time.
      std::vector<std::pair<size_t, size_t>> busy;  // [begin, end) of conflicting buffers
      for (size_t j : placed)
        if (lifetimes_overlap(req[i], req[j])) busy.emplace_back(p.offsets[j], p.offsets[j] + req[j].size);
      std::sort(busy.begin(), busy.end());
      size_t offset = 0;
      for (const auto& [b, e] : busy) {
        if (offset + req[i].size <= b) break;
        offset = std::max(offset, align_up(e));
      }
      p.offsets[i] = offset;
      p.arena_size = std::max(p.arena_size, align_up(offset + req[i].size));
      placed.push_back(i);
    }
    return p;
  }
};

class SequentialPlanner final : public MemoryPlanner {
 public:
  const char* name() const override { return "sequential"; }
  MemoryPlan plan(const std::vector<BufferRequest>& req) const override {
    MemoryPlan p;
    for (const auto& r : req) {
      p.offsets.push_back(p.arena_size);
      p.arena_size += align_up(r.size);
    }
    return p;
  }
};

}  // namespace

std::unique_ptr<MemoryPlanner> make_greedy_by_size_planner() {
  return std::make_unique<GreedyBySizePlanner>();
}
std::unique_ptr<MemoryPlanner> make_sequential_planner() {
  return std::make_unique<SequentialPlanner>();
}

std::vector<BufferRequest> collect_buffers(const Graph& graph) {
  std::map<const Value*, size_t> index;
  std::vector<BufferRequest> req;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = *graph.nodes[n];
    int at = static_cast<int>(n);
    for (const Value* in : node.inputs) {
      auto it = index.find(in);
      if (in && it != index.end()) req[it->second].last_use = at;
    }
    for (const Value* out : node.outputs) {
      if (!out || out->is_constant() || out->is_graph_output) continue;
      index[out] = req.size();
      BufferRequest r;
      r.name = out->name;
      r.size = std::max<size_t>(out->bytes(), 1);
      r.first_use = r.last_use = at;
      r.value = out;
      req.push_back(r);
    }
    if (node.scratch_bytes) {
      BufferRequest r;
      r.name = "scratch:" + node.name;
      r.size = node.scratch_bytes;
      r.first_use = r.last_use = at;
      r.scratch_of = &node;
      req.push_back(r);
    }
  }
  return req;
}

std::vector<std::string> check_plan(const std::vector<BufferRequest>& req, const MemoryPlan& plan) {
  std::vector<std::string> errors;
  if (plan.offsets.size() != req.size()) {
    errors.push_back(fmt::format("plan has {} offsets for {} buffers", plan.offsets.size(), req.size()));
    return errors;
  }
  for (size_t i = 0; i < req.size(); ++i) {
    size_t oi = plan.offsets[i];
    if (oi % kArenaAlignment)
      errors.push_back(fmt::format("'{}' at offset {} is not {}-byte aligned", req[i].name, oi,
                                   kArenaAlignment));
    if (oi + req[i].size > plan.arena_size)
      errors.push_back(fmt::format("'{}' [{}, {}) ends past the arena ({} bytes)", req[i].name, oi,
                                   oi + req[i].size, plan.arena_size));
    for (size_t j = i + 1; j < req.size(); ++j) {
      size_t oj = plan.offsets[j];
      if (lifetimes_overlap(req[i], req[j]) && oi < oj + req[j].size && oj < oi + req[i].size)
        errors.push_back(fmt::format("'{}' [{}, {}) overlaps '{}' [{}, {}) while both are live",
                                     req[i].name, oi, oi + req[i].size, req[j].name, oj,
                                     oj + req[j].size));
    }
  }
  return errors;
}

std::string print_plan(const std::vector<BufferRequest>& req, const MemoryPlan& plan) {
  std::string s;
  for (size_t i = 0; i < req.size(); ++i)
    s += fmt::format("{:>10} {:>10}  nodes {:>4}..{:<4} {}\n", plan.offsets[i], req[i].size,
                     req[i].first_use, req[i].last_use, req[i].name);
  s += fmt::format("arena {} bytes\n", plan.arena_size);
  return s;
}

}  // namespace onnxc
