// Memory planning (see memory_planner.h). Lifetimes come from node order; planners only see
// sizes and lifetimes, not the graph.
#include "passes/memory_planner.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>

#include "passes/lifetime_index.h"

namespace onnxc {
namespace {

size_t align_up(size_t x) {
  return (x + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}

// Places the buffers in `order`, each at the lowest aligned offset where it overlaps no placed
// buffer live at the same time. The lowest such offset is 0 or the aligned end of a conflicting
// buffer, so a scan of the conflicting buffers sorted by offset finds it; the LifetimeIndex hands
// over just the conflicting ones, which makes a chain of n nodes O(n log n) instead of O(n^2).
MemoryPlan place_in_order(const std::vector<BufferRequest>& req, const std::vector<size_t>& order) {
  MemoryPlan p;
  p.offsets.assign(req.size(), 0);
  int horizon = 1;
  for (const auto& r : req) horizon = std::max(horizon, r.last_use + 1);
  LifetimeIndex placed(horizon, req.size());
  std::vector<std::pair<size_t, size_t>> busy;  // [begin, end) of conflicting buffers
  for (size_t i : order) {
    busy.clear();
    placed.for_each_overlapping(req[i].first_use, req[i].last_use, [&](uint32_t j) {
      busy.emplace_back(p.offsets[j], p.offsets[j] + req[j].size);
    });
    std::sort(busy.begin(), busy.end());
    size_t offset = 0;
    for (const auto& [b, e] : busy) {
      if (offset + req[i].size <= b) break;
      offset = std::max(offset, align_up(e));
    }
    p.offsets[i] = offset;
    p.arena_size = std::max(p.arena_size, align_up(offset + req[i].size));
    placed.insert(static_cast<uint32_t>(i), req[i].first_use, req[i].last_use);
  }
  return p;
}

// Placement orders tried on small graphs, best arena kept. Largest first is the classic
// heuristic; the others win on graphs where a long-lived skip connection or a late large buffer
// fragments what largest-first leaves (residual blocks). Ties keep the earlier order.
enum class Order { kLargestFirst, kLongestFirst, kLargestAreaFirst, kEarliestFirst };
constexpr Order kOrders[] = {Order::kLargestFirst, Order::kLongestFirst, Order::kLargestAreaFirst,
                             Order::kEarliestFirst};
// Above this many buffers only largest-first runs: each order costs a full placement.
constexpr size_t kMaxBuffersForSearch = 20000;

std::vector<size_t> placement_order(const std::vector<BufferRequest>& req, Order how) {
  std::vector<size_t> order(req.size());
  std::iota(order.begin(), order.end(), 0);
  auto span = [&](size_t i) { return static_cast<size_t>(req[i].last_use - req[i].first_use) + 1; };
  auto area = [&](size_t i) { return static_cast<long double>(req[i].size) * span(i); };
  // Stable: ties broken by index so the plan (and the generated code) is deterministic.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    switch (how) {
      case Order::kLargestFirst:
        return req[a].size > req[b].size;
      case Order::kLongestFirst:
        return span(a) != span(b) ? span(a) > span(b) : req[a].size > req[b].size;
      case Order::kLargestAreaFirst:
        return area(a) > area(b);
      case Order::kEarliestFirst:
        return req[a].first_use != req[b].first_use ? req[a].first_use < req[b].first_use
                                                    : req[a].size > req[b].size;
    }
    return false;
  });
  return order;
}

class GreedyBySizePlanner final : public MemoryPlanner {
 public:
  const char* name() const override { return "greedy-by-size"; }
  MemoryPlan plan(const std::vector<BufferRequest>& req) const override {
    MemoryPlan best = place_in_order(req, placement_order(req, Order::kLargestFirst));
    if (req.size() > kMaxBuffersForSearch) return best;
    for (Order how : kOrders) {
      if (how == Order::kLargestFirst) continue;
      MemoryPlan p = place_in_order(req, placement_order(req, how));
      if (p.arena_size < best.arena_size) best = std::move(p);
    }
    return best;
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

const Value* storage_root(const Value* v) {
  for (int guard = 0; v && guard < 1 << 20; ++guard) {
    if (!v->storage.shares() || !v->storage.alias_of) return v;
    v = v->storage.alias_of;
  }
  return v;
}

namespace {

// A body whose nodes' outputs are transient (Graph::node_outputs_transient, a row pipeline): its
// inputs end to end, then one area that each node's outputs and scratch reuse in turn. Returns the
// bytes it takes.
size_t layout_transient_body(const Graph& sub, size_t base, bool assign) {
  size_t at = 0;
  for (Value* v : sub.inputs) {
    if (assign) v->storage = Storage{Storage::Kind::kArena, nullptr, base + at};
    at += align_up(std::max<size_t>(v->bytes(), 1));
  }
  size_t area = 0;
  for (const auto& m : sub.nodes) {
    size_t used = 0;
    for (Value* v : m->outputs) {
      if (!v) continue;
      if (assign) v->storage = Storage{Storage::Kind::kArena, nullptr, base + at + used};
      used += align_up(std::max<size_t>(v->bytes(), 1));
    }
    if (m->scratch_bytes) {
      if (assign) m->scratch_offset = base + at + used;
      used += align_up(m->scratch_bytes);
    }
    area = std::max(area, used);
  }
  return at + area;
}

}  // namespace

size_t layout_subgraphs(const Node& node, size_t base, bool assign) {
  // Each subgraph's buffers end to end (no reuse inside a body): its values, its nodes' scratch,
  // then the region of each of its control-flow nodes, laid out the same way. If (at any depth):
  // the branches start at the same offset, since only one runs; the region is the larger branch.
  // A row pipeline's body reuses bytes between its nodes (layout_transient_body).
  const bool exclusive = node.op_type == "If" && node.domain.empty();
  size_t region = 0, at = 0;
  for (const Graph* sub : subgraphs_of(node)) {
    if (exclusive) at = 0;
    auto place = [&](size_t bytes) {
      size_t offset = at;
      at += align_up(std::max<size_t>(bytes, 1));
      region = std::max(region, at);
      return base + offset;
    };
    if (sub->node_outputs_transient) {
      place(layout_transient_body(*sub, base + at, assign));
      continue;
    }
    for (const auto& v : sub->values) {
      if (v->is_constant()) continue;
      size_t offset = place(v->bytes());
      if (assign) v->storage = Storage{Storage::Kind::kArena, nullptr, offset};
    }
    for (const auto& m : sub->nodes)
      if (m->scratch_bytes) {
        size_t offset = place(m->scratch_bytes);
        if (assign) m->scratch_offset = offset;
      }
    for (const auto& m : sub->nodes)
      if (size_t inner = layout_subgraphs(*m, base + at, assign)) place(inner);
  }
  return region;
}

const AliasChains::Info& AliasChains::info(const Value* v) {
  if (auto it = memo_.find(v); it != memo_.end()) return it->second;
  std::vector<const Value*> path;  // v up to the first known value or the root, exclusive
  const Value* u = v;
  for (; u->storage.shares() && u->storage.alias_of && !memo_.count(u); u = u->storage.alias_of)
    if (path.size() > (size_t{1} << 26))
      break;  // a cycle (never planned): stop somewhere
    else
      path.push_back(u);
  Info base = memo_.count(u) ? memo_[u] : Info{u, 0, 0};
  memo_[u] = base;
  for (auto w = path.rbegin(); w != path.rend(); ++w) {
    size_t step = (*w)->storage.kind == Storage::Kind::kInPlace ? 0 : (*w)->storage.offset;
    base = Info{base.root, base.offset + step, base.depth + 1};
    memo_[*w] = base;
  }
  return memo_[v];
}

bool AliasChains::is_view_of(const Value* v, const Value* ancestor) {
  if (!v || !ancestor) return false;
  size_t dv = info(v).depth, da = info(ancestor).depth;
  if (dv <= da) return false;
  for (size_t k = dv - da; k > 0 && v; --k) v = v->storage.alias_of;
  return v == ancestor;
}

// A root buffer of the arena: produced by a node, not a constant or a graph output.
static bool in_arena(const Value* root) {
  return root && root->producer && !root->is_constant() && !root->is_graph_output &&
         !root->is_graph_input;
}

std::vector<BufferRequest> collect_buffers(const Graph& graph) {
  std::map<const Value*, size_t> index;  // root value -> its request
  std::vector<BufferRequest> req;
  AliasChains chains;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = *graph.nodes[n];
    int at = static_cast<int>(n);
    // Control flow: enclosing values its subgraphs read are read by the node itself.
    std::vector<const Value*> reads(node.inputs.begin(), node.inputs.end());
    for (const Value* in : implicit_inputs(node)) reads.push_back(in);
    for (const Value* in : reads) {
      auto it = index.find(chains.root(in));
      if (in && it != index.end())
        req[it->second].last_use = std::max(req[it->second].last_use, at);
    }
    // Control flow: the values of its subgraphs (bodies' inputs and outputs included) and their
    // nodes' scratch live in one region of the arena, live over the whole node (a loop body's
    // values survive across iterations, as loop-carried state needs); see layout_subgraphs().
    if (size_t region = layout_subgraphs(node, 0, /*assign=*/false)) {
      BufferRequest r;
      r.name = "subgraphs:" + node.name;
      r.size = region;
      r.first_use = r.last_use = at;
      r.region_of = &node;
      req.push_back(r);
    }
    for (const Value* out : node.outputs) {
      if (!out || out->is_constant() || out->is_graph_output) continue;
      const Value* root = chains.root(out);
      if (!in_arena(root)) continue;  // a view of a graph input: read-only, no arena bytes
      auto it = index.find(root);
      if (it != index.end()) {  // shares its root's buffer (a view, in place, a Concat slice)
        req[it->second].last_use = std::max(req[it->second].last_use, at);
        continue;
      }
      // The first value of this buffer: the root itself, or a slice its producer writes into.
      index[root] = req.size();
      BufferRequest r;
      r.name = root->name;
      r.size = std::max<size_t>(root->bytes(), 1);
      r.first_use = r.last_use = at;
      r.value = root;
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

size_t live_bytes_lower_bound(const std::vector<BufferRequest>& req) {
  int last = 0;
  for (const auto& r : req) last = std::max(last, r.last_use);
  std::vector<size_t> live(static_cast<size_t>(last) + 2, 0);
  for (const auto& r : req) {
    live[static_cast<size_t>(r.first_use)] += r.size;
    live[static_cast<size_t>(r.last_use) + 1] -= r.size;
  }
  size_t best = 0, sum = 0;
  for (size_t x : live) best = std::max(best, sum += x);
  return best;
}

std::map<const Value*, Span> value_spans(const Graph& g) {
  std::map<const Value*, Span> spans;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    int at = static_cast<int>(n);
    std::vector<const Value*> reads(g.nodes[n]->inputs.begin(), g.nodes[n]->inputs.end());
    for (const Value* in : implicit_inputs(*g.nodes[n])) reads.push_back(in);  // control flow
    for (const Value* in : reads)
      if (in && spans.count(in)) spans[in].last = std::max(spans[in].last, at);
    for (const Value* out : g.nodes[n]->outputs)
      if (out) spans[out] = Span{at, at};
  }
  int end = static_cast<int>(g.nodes.size());
  for (const Value* o : g.outputs)  // graph outputs are read by the caller after the last node
    if (spans.count(o)) spans[o].last = end;
  return spans;
}

size_t offset_in_root(const Value* v) {
  size_t off = 0;
  for (; v && v->storage.shares(); v = v->storage.alias_of)
    off += v->storage.kind == Storage::Kind::kInPlace ? 0 : v->storage.offset;
  return off;
}

std::vector<std::pair<size_t, size_t>> overlapping_live_pairs(
    const std::vector<LiveInterval>& items) {
  std::vector<size_t> by_first;
  for (size_t i = 0; i < items.size(); ++i)
    if (items[i].end > items[i].begin) by_first.push_back(i);  // empty intervals overlap nothing
  std::stable_sort(by_first.begin(), by_first.end(),
                   [&](size_t a, size_t b) { return items[a].first < items[b].first; });
  std::set<std::pair<size_t, size_t>> live;  // (begin, index): disjoint, ordered by offset
  std::multimap<int, size_t> expiry;         // last -> index of the live ones
  std::vector<std::pair<size_t, size_t>> pairs;
  for (size_t i : by_first) {
    const LiveInterval& x = items[i];
    while (!expiry.empty() && expiry.begin()->first < x.first) {
      const size_t dead = expiry.begin()->second;
      live.erase({items[dead].begin, dead});
      expiry.erase(expiry.begin());
    }
    // In a disjoint set ordered by begin, an interval overlapping x is the last one beginning
    // before x or the first one beginning at or after it.
    auto next = live.lower_bound({x.begin, 0});
    bool clash = false;
    if (next != live.end() && next->first < x.end) {
      pairs.emplace_back(std::min(i, next->second), std::max(i, next->second));
      clash = true;
    }
    if (next != live.begin() && items[std::prev(next)->second].end > x.begin) {
      const size_t j = std::prev(next)->second;
      pairs.emplace_back(std::min(i, j), std::max(i, j));
      clash = true;
    }
    if (clash) continue;  // reported; left out so that the live set stays disjoint
    live.insert({x.begin, i});
    expiry.emplace(x.last, i);
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

namespace {

using K = Storage::Kind;

// An arena interval of check_storage: [begin, end) bytes over nodes [def, last], for a value, a
// node's scratch or (control flow) the hull of a node's subgraph values.
struct Block {
  std::string name;
  const Value* value;  // null for scratch and regions
  size_t begin, end;
  Span span;
};

std::string overlap_error(const Block& a, const Block& b) {
  return fmt::format("'{}' [{}, {}) overlaps '{}' [{}, {}) while both are live", a.name, a.begin,
                     a.end, b.name, b.begin, b.end);
}

// Pairs of `blocks` live at the same time whose bytes overlap (overlapping_live_pairs).
std::vector<std::pair<size_t, size_t>> clashes(const std::vector<Block>& blocks) {
  std::vector<LiveInterval> items;
  items.reserve(blocks.size());
  for (const Block& b : blocks) items.push_back({b.begin, b.end, b.span.def, b.span.last});
  return overlapping_live_pairs(items);
}

// Every pair (i, j), i < j, of `blocks` whose inclusive lifetimes overlap, found by sorting by
// start: O(n log n + pairs). Only for the values of one storage root, which may share bytes
// (views, in place), so each such pair needs its own look; a root has few values live at once.
std::vector<std::pair<size_t, size_t>> lifetime_overlapping_pairs(const std::vector<Block>& b) {
  std::vector<size_t> by_start(b.size());
  std::iota(by_start.begin(), by_start.end(), 0);
  std::stable_sort(by_start.begin(), by_start.end(),
                   [&](size_t x, size_t y) { return b[x].span.def < b[y].span.def; });
  std::vector<std::pair<size_t, size_t>> pairs;
  for (size_t x = 0; x < b.size(); ++x)
    for (size_t y = x + 1; y < b.size() && b[by_start[y]].span.def <= b[by_start[x]].span.last; ++y)
      pairs.emplace_back(std::min(by_start[x], by_start[y]), std::max(by_start[x], by_start[y]));
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

// The sharing rules of one value that views, is written in place over or into another.
void check_sharing(const Value* v, Span span, const std::map<const Value*, Span>& spans,
                   const Value* root, std::vector<std::string>& errors) {
  const Storage& st = v->storage;
  const Value* a = st.alias_of;
  if (st.offset + v->bytes() > a->bytes())
    errors.push_back(fmt::format("view '{}' [{}, {}) runs past '{}' ({} bytes)", v->name, st.offset,
                                 st.offset + v->bytes(), a->name, a->bytes()));
  auto sa = spans.find(a);
  if (st.kind == K::kSlice) {
    // Written into a later Concat's output, which then runs no code. (Whether the slice is
    // overwritten while still read is the overlap check's.)
    if (!a->producer || !a->producer->elided || sa == spans.end() || sa->second.def <= span.def)
      errors.push_back(fmt::format("'{}' is written into '{}', which is not a later elided Concat",
                                   v->name, a->name));
  }
  if (st.kind != K::kInPlace) return;
  if (root->storage.kind != K::kArena)
    errors.push_back(
        fmt::format("'{}' is written in place over '{}', which is not an arena buffer (graph "
                    "input, output or constant)",
                    v->name, a->name));
  if (v->bytes() != a->bytes() || v->dtype != a->dtype)
    errors.push_back(fmt::format("'{}' is written in place over '{}' of another type or size",
                                 v->name, a->name));
  if (sa != spans.end() && sa->second.last != span.def)
    errors.push_back(fmt::format(
        "'{}' is written in place over '{}', which is still read at node {} after node {}", v->name,
        a->name, sa->second.last, span.def));
}

// Control flow: every value of a node's subgraphs (at any depth) lives while the node runs, at
// node index `at`, except that the branches of an If exclude each other. So within one subgraph
// its values and its nested nodes' regions (the hull of their subgraph values) must be disjoint,
// the subgraphs of a node other than If too, and the branches of an If may share bytes. Checked
// level by level, each hull standing for what it holds: a tree of n values costs O(n log n).
// (Comparing every pair live at `at` made If nested 15 deep, 131,070 values, take 17 GB.)
class RegionChecker {
 public:
  RegionChecker(int at, std::vector<std::string>& errors) : at_(at), errors_(errors) {}

  // The hull of `node`'s subgraph values, after checking them; empty when it has none.
  Block region(const Node& node) {
    const bool exclusive = node.op_type == "If" && node.domain.empty();
    std::vector<Block> subs;
    for (const Graph* sub : subgraphs_of(node)) {
      Block hull = subgraph(*sub);
      if (hull.end > hull.begin) subs.push_back(std::move(hull));
    }
    if (!exclusive) disjoint(subs);
    return hull_of("subgraphs of '" + node.name + "'", subs);
  }
  // Every subgraph value with an arena buffer, for the checks of single blocks.
  const std::vector<Block>& values() const { return values_; }

 private:
  // A transient body (Graph::node_outputs_transient): its inputs live over all its nodes, a
  // node's outputs and scratch only while that node runs; elsewhere every value lives throughout.
  Span local_span(const Graph& sub, const Value* v) const {
    const int end = static_cast<int>(sub.nodes.size());
    if (!sub.node_outputs_transient) return Span{at_, at_};
    if (!v->producer) return Span{-1, end};
    for (int k = 0; k < end; ++k)
      if (sub.nodes[static_cast<size_t>(k)].get() == v->producer) return Span{k, k};
    return Span{-1, end};
  }

  Block subgraph(const Graph& sub) {
    std::vector<Block> items;
    for (const auto& v : sub.values) {
      if (v->is_constant()) continue;
      if (v->storage.kind != K::kArena) {
        errors_.push_back(fmt::format("subgraph value '{}' has no arena buffer", v->name));
        continue;
      }
      Block b{v->name, v.get(), v->storage.offset,
              v->storage.offset + std::max<size_t>(v->bytes(), 1), Span{at_, at_}};
      values_.push_back(b);
      b.span = local_span(sub, v.get());
      items.push_back(std::move(b));
    }
    if (sub.node_outputs_transient)
      for (int k = 0; k < static_cast<int>(sub.nodes.size()); ++k) {
        const Node& m = *sub.nodes[static_cast<size_t>(k)];
        if (m.scratch_bytes)
          items.push_back({"scratch:" + m.name, nullptr, m.scratch_offset,
                           m.scratch_offset + m.scratch_bytes, Span{k, k}});
      }
    for (const auto& m : sub.nodes) {
      Block hull = region(*m);
      if (hull.end > hull.begin) items.push_back(std::move(hull));
    }
    disjoint(items);
    return hull_of("subgraph '" + sub.name + "'", items);
  }
  void disjoint(const std::vector<Block>& items) {
    for (const auto& [i, j] : clashes(items)) errors_.push_back(overlap_error(items[i], items[j]));
  }
  Block hull_of(std::string name, const std::vector<Block>& items) const {
    Block h{std::move(name), nullptr, 0, 0, Span{at_, at_}};
    for (const Block& b : items) {
      h.begin = h.end > h.begin ? std::min(h.begin, b.begin) : b.begin;
      h.end = std::max(h.end, b.end);
    }
    return h;
  }
  int at_;
  std::vector<std::string>& errors_;
  std::vector<Block> values_;
};

// The main graph's blocks: a value shares bytes legitimately only with values of its own storage
// root (views, in place, Concat slices), so those are compared pair by pair; each root's values
// as one unit (their hull over the union of their lifetimes: what the planner reserved), each
// scratch buffer and each control-flow region are then swept against each other.
void check_overlaps(const std::vector<Block>& blocks, AliasChains& chains,
                    std::vector<std::string>& errors) {
  std::map<const Value*, std::vector<Block>> by_root;
  std::vector<Block> units;
  for (const Block& b : blocks)
    if (b.value)
      by_root[chains.root(b.value)].push_back(b);
    else
      units.push_back(b);
  for (const auto& [root, members] : by_root) {
    Block unit = members[0];
    for (const Block& m : members) {
      unit.begin = std::min(unit.begin, m.begin), unit.end = std::max(unit.end, m.end);
      unit.span = Span{std::min(unit.span.def, m.span.def), std::max(unit.span.last, m.span.last)};
    }
    unit.name = root->name;
    units.push_back(unit);
    for (const auto& [i, j] : lifetime_overlapping_pairs(members)) {
      const Block &a = members[i], &b = members[j];
      if (a.begin >= b.end || b.begin >= a.end) continue;
      if (chains.is_view_of(a.value, b.value) || chains.is_view_of(b.value, a.value)) continue;
      // In place: the output's node is the last reader of the value it overwrites.
      auto in_place = [](const Block& out, const Block& in) {
        return out.value->storage.kind == K::kInPlace && out.value->storage.alias_of == in.value &&
               in.span.last == out.span.def;
      };
      if (!in_place(a, b) && !in_place(b, a)) errors.push_back(overlap_error(a, b));
    }
  }
  for (const auto& [i, j] : clashes(units)) errors.push_back(overlap_error(units[i], units[j]));
}

}  // namespace

std::vector<std::string> check_storage(const Module& module) {
  const Graph& g = *module.graph;
  std::vector<std::string> errors;
  auto spans = value_spans(g);
  AliasChains chains;
  std::vector<Block> blocks;  // the main graph's values and scratch, the control-flow regions
  for (const auto& [v, span] : spans) {
    const Storage& st = v->storage;
    if (v->is_constant()) continue;
    const Value* root = chains.root(v);
    if (st.kind == K::kUnplanned) {
      errors.push_back(fmt::format("'{}' has no storage", v->name));
      continue;
    }
    if (v->is_graph_output && !v->is_graph_input && st.kind != K::kGraphOutput)
      errors.push_back(fmt::format("graph output '{}' is not in the caller's buffer", v->name));
    if (st.shares()) {
      if (!st.alias_of) {
        errors.push_back(fmt::format("'{}' aliases nothing", v->name));
        continue;
      }
      check_sharing(v, span, spans, root, errors);
    }
    if (root->storage.kind != K::kArena) continue;
    size_t begin = root->storage.offset + chains.offset(v);
    blocks.push_back({v->name, v, begin, begin + std::max<size_t>(v->bytes(), 1), span});
  }
  std::vector<Block> singles = blocks;  // what the end and alignment checks look at
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = *g.nodes[n];
    const int at = static_cast<int>(n);
    if (node.scratch_bytes) {
      blocks.push_back({"scratch:" + node.name, nullptr, node.scratch_offset,
                        node.scratch_offset + node.scratch_bytes, Span{at, at}});
      singles.push_back(blocks.back());
    }
    RegionChecker regions(at, errors);
    Block hull = regions.region(node);
    if (hull.end > hull.begin) blocks.push_back(std::move(hull));
    singles.insert(singles.end(), regions.values().begin(), regions.values().end());
  }
  for (const auto& b : singles) {
    if (b.end > module.memory.arena_bytes)
      errors.push_back(fmt::format("'{}' [{}, {}) ends past the arena ({} bytes)", b.name, b.begin,
                                   b.end, module.memory.arena_bytes));
    if ((!b.value || chains.root(b.value) == b.value) && b.begin % kArenaAlignment)
      errors.push_back(fmt::format("'{}' at offset {} is not {}-byte aligned", b.name, b.begin,
                                   kArenaAlignment));
  }
  check_overlaps(blocks, chains, errors);
  return errors;
}

std::string print_memory_plan(const Module& module) {
  using K = Storage::Kind;
  const Graph& g = *module.graph;
  auto spans = value_spans(g);
  AliasChains chains;
  std::string s;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = *g.nodes[n];
    for (const Value* v : node.outputs) {
      if (!v || v->is_constant()) continue;
      const Storage& st = v->storage;
      const Value* root = chains.root(v);
      std::string where;
      if (root->storage.kind == K::kArena)
        where = fmt::format("{:>10}", root->storage.offset + chains.offset(v));
      else
        where = fmt::format("{:>10}", storage_kind_name(root->storage.kind));
      std::string how = storage_kind_name(st.kind);
      if (st.kind == K::kView) how = fmt::format("view of {} +{}", st.alias_of->name, st.offset);
      if (st.kind == K::kInPlace) how = fmt::format("in place over {}", st.alias_of->name);
      if (st.kind == K::kSlice) how = fmt::format("slice of {} +{}", st.alias_of->name, st.offset);
      Span sp = spans[v];
      s += fmt::format("{} {:>10}  nodes {:>4}..{:<4} {} ({})\n", where, v->bytes(), sp.def,
                       sp.last, v->name, how);
    }
    if (node.scratch_bytes)
      s += fmt::format("{:>10} {:>10}  nodes {:>4}..{:<4} scratch:{}\n", node.scratch_offset,
                       node.scratch_bytes, n, n, node.name);
  }
  s += fmt::format("arena {} bytes, live-bytes lower bound {} bytes ({})\n",
                   module.memory.arena_bytes, module.memory.live_bytes_lower_bound,
                   module.memory.planner);
  return s;
}

std::vector<std::string> check_plan(const std::vector<BufferRequest>& req, const MemoryPlan& plan) {
  std::vector<std::string> errors;
  if (plan.offsets.size() != req.size()) {
    errors.push_back(
        fmt::format("plan has {} offsets for {} buffers", plan.offsets.size(), req.size()));
    return errors;
  }
  std::vector<LiveInterval> items;
  items.reserve(req.size());
  for (size_t i = 0; i < req.size(); ++i)
    items.push_back(
        {plan.offsets[i], plan.offsets[i] + req[i].size, req[i].first_use, req[i].last_use});
  auto pairs = overlapping_live_pairs(items);
  auto next_pair = pairs.begin();
  for (size_t i = 0; i < req.size(); ++i) {
    size_t oi = plan.offsets[i];
    if (oi % kArenaAlignment)
      errors.push_back(fmt::format("'{}' at offset {} is not {}-byte aligned", req[i].name, oi,
                                   kArenaAlignment));
    if (oi + req[i].size > plan.arena_size)
      errors.push_back(fmt::format("'{}' [{}, {}) ends past the arena ({} bytes)", req[i].name, oi,
                                   oi + req[i].size, plan.arena_size));
    for (; next_pair != pairs.end() && next_pair->first == i; ++next_pair) {
      size_t j = next_pair->second, oj = plan.offsets[j];
      if (oi < oj + req[j].size && oj < oi + req[i].size)
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
