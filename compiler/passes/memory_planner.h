// Memory planning: every intermediate tensor and every node's scratch space gets an offset in one
// arena, reusing space between buffers whose lifetimes do not overlap. Planners sit behind one
// interface so strategies can be compared; check_plan() verifies any plan independently.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/ir.h"

namespace onnxc {

constexpr size_t kArenaAlignment = 64;

struct BufferRequest {
  std::string name;              // value name, or "scratch:<node>"
  size_t size = 0;               // bytes
  int first_use = 0;             // index of the node that writes it
  int last_use = 0;              // index of the last node that reads it (inclusive)
  const Value* value = nullptr;  // null for scratch buffers
  const Node* scratch_of = nullptr;
  const Node* region_of = nullptr;  // control flow: the region of this node's subgraphs
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

// Places the buffers, largest first, each at the lowest aligned offset not overlapping a live one
// (O(n log n) on chains); graphs of up to 20k buffers also try other orders and keep the best.
std::unique_ptr<MemoryPlanner> make_greedy_by_size_planner();
// No reuse: buffers laid end to end. A baseline for tests and comparisons.
std::unique_ptr<MemoryPlanner> make_sequential_planner();

// The arena buffers of a graph: values nodes produce (not constants, not graph outputs) and
// node scratch, with lifetimes in node indices. A value whose storage is a view of, or in place
// over, another shares its root's buffer, which then lives until the last use of any of them.
// A control-flow node (If, Loop, Scan) gets one request for its subgraphs' values and scratch.
std::vector<BufferRequest> collect_buffers(const Graph& graph);

// Control flow: lays out `node`'s subgraph values and nested scratch from arena offset `base`,
// each subgraph's end to end, the branches of an If at the same offset (only one runs); stores
// the offsets when `assign`. Returns the region's size (0 without subgraphs).
size_t layout_subgraphs(const Node& node, size_t base, bool assign);

// Lifetime of one value on its own, in node indices: the node that defines it to the last node
// that reads it (graph outputs: one past the last node, the caller reads them).
struct Span {
  int def = -1, last = -1;
};
std::map<const Value*, Span> value_spans(const Graph& graph);

// Byte offset of `v` within its storage root's buffer (the sum of its view offsets).
size_t offset_in_root(const Value* v);

// The value whose buffer `v` uses: `v` itself unless it is a view or in place (transitively).
const Value* storage_root(const Value* v);

// storage_root() and offset_in_root() memoized, for loops over every value: walking the chain per
// value is O(n^2) on a chain of n in-place values (a 100k-node elementwise chain). Valid while no
// value's storage changes.
class AliasChains {
 public:
  const Value* root(const Value* v) { return v ? info(v).root : v; }
  size_t offset(const Value* v) { return v ? info(v).offset : 0; }
  // True when `ancestor` is on v's chain (v views it, is written over it or into it).
  bool is_view_of(const Value* v, const Value* ancestor);

 private:
  struct Info {
    const Value* root;
    size_t offset, depth;  // depth: links from v down to its root
  };
  const Info& info(const Value* v);
  std::unordered_map<const Value*, Info> memo_;
};

// Max over nodes of the bytes of the buffers live at that node (each root once, scratch
// included): no plan of these requests can use a smaller arena.
size_t live_bytes_lower_bound(const std::vector<BufferRequest>& requests);

// Verifies the plan stored in the graph's values (plan-memory's result) from the graph alone:
// every value that needs one has a storage; views and in-place writes only share what they may
// (in place only over a value that dies at that node, never over an input, output or constant);
// no two values or scratch buffers live at the same time overlap unless one views the other.
std::vector<std::string> check_storage(const Module& module);

// The stored plan, one line per planned value and scratch buffer: offset, size, lifetime,
// storage, name; then the arena size and the lower bound.
std::string print_memory_plan(const Module& module);

// An arena interval [begin, end) live over nodes [first, last] (inclusive).
struct LiveInterval {
  size_t begin = 0, end = 0;
  int first = 0, last = 0;
};

// Pairs (i, j), i < j, of intervals live at the same time whose bytes overlap; empty if and only
// if no two do. A sweep in time order keeps the live set disjoint and ordered by offset, so a new
// interval is compared with its two neighbours there only: O(n log n) however many are live at
// once. An interval found overlapping is reported with those neighbours and left out of the live
// set, so each bad placement gives at least one pair, not every pair it is part of.
std::vector<std::pair<size_t, size_t>> overlapping_live_pairs(
    const std::vector<LiveInterval>& intervals);

// Every violation of a plan: buffers live at the same time that overlap, misaligned offsets,
// buffers past the arena end. Empty means the plan is sound.
std::vector<std::string> check_plan(const std::vector<BufferRequest>& requests,
                                    const MemoryPlan& plan);

// One line per buffer: offset, size, lifetime, name; then the arena size.
std::string print_plan(const std::vector<BufferRequest>& requests, const MemoryPlan& plan);

}  // namespace onnxc
