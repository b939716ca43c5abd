// plan-memory: gives every value a storage (graph input or output buffer, weights blob, or an
// arena offset) and every node's scratch an arena offset, and records the arena size and the
// live-bytes lower bound in the Module. Views and in-place values (assign-storage) share their
// root's buffer, which lives until the last use of any of them. The placement is the
// greedy-by-size heuristic of memory_planner.h; check_storage() then proves the stored plan from
// the graph alone. It does not change nodes or decide aliasing. Required: codegen prints this plan.
// --check-bounds: every arena buffer (a storage root, a node's scratch, a control-flow region) is
// planned kGuardBytes longer and the tail recorded as its guard zone (MemorySummary::guards), so
// the arena size in the header includes them; views share their root's guard. Codegen only prints
// the fill and the checks. The guard goes after the buffer and not before: a kernel overrun runs
// forward, and the next buffer starts on a kArenaAlignment boundary anyway.
#include <map>

#include "base/checked_math.h"
#include "passes/memory_planner.h"
#include "passes/passes.h"

namespace onnxc {
namespace {

// --max-bytes: no single tensor, the arena, or the weights together may be larger, so every size
// the generated header states (kInputBytes, kOutputBytes, kWorkspaceSize, kWeightsSize) is proved
// to fit the budget, and with it size_t. Reports the first offender of each kind.
bool within_byte_budget(const Module& module, size_t arena, Diagnostics& diag) {
  const size_t budget = static_cast<size_t>(module.max_bytes);
  size_t weights = 0;
  bool weights_overflow = false;
  for (const Value* v : all_values(*module.graph)) {
    if (v->is_constant()) weights_overflow |= !checked_add(weights, v->bytes(), &weights);
    if (v->bytes() <= budget) continue;
    diag.error("tensor '{}' ({}[{}]) needs {} bytes, more than --max-bytes {}", v->name,
               dtype_name(v->dtype), shape_str(v->shape), v->bytes(), budget);
    return false;
  }
  if (weights_overflow || weights > budget) {
    diag.error("the weights need {} bytes, more than --max-bytes {}", weights, budget);
    return false;
  }
  if (arena > budget) {
    diag.error("the arena needs {} bytes, more than --max-bytes {}", arena, budget);
    return false;
  }
  return true;
}

// Bytes of each guard zone: one AVX vector, the widest tail store a kernel overrun can make in one
// step. The planner still aligns every offset to kArenaAlignment, so buffers keep their alignment.
constexpr size_t kGuardBytes = 32;

// --check-bounds: grows every request by the guard zone (before placement).
void add_guard_zones(std::vector<BufferRequest>& buffers) {
  for (auto& b : buffers) b.size += kGuardBytes;
}

// --check-bounds: records where each placed buffer's guard zone lies (after placement).
void record_guard_zones(const std::vector<BufferRequest>& buffers, const MemoryPlan& plan,
                        MemorySummary& memory) {
  memory.guard_bytes = kGuardBytes;
  for (size_t i = 0; i < buffers.size(); ++i) {
    MemorySummary::Guard g;
    g.offset = plan.offsets[i] + buffers[i].size - kGuardBytes;
    g.root = buffers[i].value;
    g.scratch_of = buffers[i].scratch_of;
    g.region_of = buffers[i].region_of;
    memory.guards.push_back(g);
  }
}

}  // namespace

bool run_plan_memory(Module& module, PassContext& ctx) {
  using K = Storage::Kind;
  Graph& g = *module.graph;
  for (Value* v : all_values(g)) {  // subgraph values too (see collect_buffers)
    Storage& st = v->storage;
    if (v->is_constant())
      st = Storage{K::kConstant, nullptr, 0};
    else if (v->is_graph_input)
      st = Storage{K::kGraphInput, nullptr, 0};
    else if (v->is_graph_output)
      st = Storage{K::kGraphOutput, nullptr, 0};
    else if (!st.shares())
      st = Storage{};
  }
  auto buffers = collect_buffers(g);
  if (module.check_bounds) add_guard_zones(buffers);
  auto planner = make_greedy_by_size_planner();
  MemoryPlan plan = planner->plan(buffers);
  for (const auto& e : check_plan(buffers, plan)) ctx.diag().error("memory plan: {}", e);
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].value) {
      auto* v = const_cast<Value*>(buffers[i].value);
      v->storage = Storage{K::kArena, nullptr, plan.offsets[i]};
    }
    if (buffers[i].scratch_of)
      const_cast<Node*>(buffers[i].scratch_of)->scratch_offset = plan.offsets[i];
    if (buffers[i].region_of)  // control flow: its subgraphs' values inside the region
      layout_subgraphs(*buffers[i].region_of, plan.offsets[i], /*assign=*/true);
  }
  module.memory.planned = true;
  module.memory.arena_bytes = plan.arena_size;
  module.memory.live_bytes_lower_bound = live_bytes_lower_bound(buffers);
  module.memory.planner = planner->name();
  module.memory.guards.clear();
  if (module.check_bounds) record_guard_zones(buffers, plan, module.memory);
  for (const auto& e : check_storage(module)) ctx.diag().error("memory plan: {}", e);
  if (!within_byte_budget(module, plan.arena_size, ctx.diag())) return false;
  if (module.max_arena && plan.arena_size > module.max_arena) {
    const auto& rows = module.rows;
    ctx.diag().error(
        "the arena needs {} bytes, more than --max-arena {} ({})", plan.arena_size,
        module.max_arena,
        rows.applied ? fmt::format("with {} in bands of {} rows; the layer-by-layer bound was {}",
                                   rows.stages, rows.band_rows, rows.bound_before)
                     : "no chain of convolutions, pools and elementwise ops could run in bands");
    return false;
  }
  ctx.count("arena bytes", static_cast<int64_t>(plan.arena_size));
  ctx.count("live-bytes lower bound", static_cast<int64_t>(module.memory.live_bytes_lower_bound));
  ctx.count("buffers placed", static_cast<int64_t>(buffers.size()));
  return true;
}

}  // namespace onnxc
