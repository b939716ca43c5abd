// Memory planning: every intermediate tensor and every node's scratch space gets an offset in one
// arena, reusing space between buffers whose lifetimes do not overlap. Planners sit behind one
// interface so strategies can be compared; check_plan() verifies any plan independently.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace onnxc {

constexpr size_t kArenaAlignment = 64;

struct BufferRequest {
  std::string name;    // value name, or "scratch:<node>"
  size_t size = 0;     // bytes
  int first_use = 0;   // index of the node that writes it
  int last_use = 0;    // index of the last node that reads it (inclusive)
  const Value* value = nullptr;  // null for scratch buffers
  const Node* scratch_of = nullptr;
};

struct MemoryPlan {
  std::vector<size_t> offsets;  // parallel to the requests
  size_t arena_size = 0;
};

class MemoryPlanner {
 public:
  virtual ~MemoryPlanner() = default;
  virtual const char* name() const = 0;
  virtual MemoryPlan plan(const std::vector<BufferRequest>& requests) const = 0;
};

// Places the largest buffers first, each at the lowest aligned offset not overlapping a live one.
std::unique_ptr<MemoryPlanner> make_greedy_by_size_planner();
// No reuse: buffers laid end to end. A baseline for tests and comparisons.
std::unique_ptr<MemoryPlanner> make_sequential_planner();

// The arena buffers of a graph: values nodes produce (not constants, not graph outputs) and
// node scratch, with lifetimes in node indices.
std::vector<BufferRequest> collect_buffers(const Graph& graph);

// Every violation of a plan: buffers live at the same time that overlap, misaligned offsets,
// buffers past the arena end. Empty means the plan is sound.
std::vector<std::string> check_plan(const std::vector<BufferRequest>& requests,
                                    const MemoryPlan& plan);

// One line per buffer: offset, size, lifetime, name; then the arena size.
std::string print_plan(const std::vector<BufferRequest>& requests, const MemoryPlan& plan);

}  // namespace onnxc
