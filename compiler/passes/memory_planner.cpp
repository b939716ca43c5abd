// Memory planning (see memory_planner.h). Lifetimes come from node order; planners only see
// sizes and lifetimes, not the graph.
#include "passes/memory_planner.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <unordered_map>

#include "passes/lifetime_index.h"

namespace onnxc {
namespace {

size_t align_up(size_t x) {
  return (x + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}

// Every pair (i, j), i < j, of items whose inclusive lifetimes [first(k), last(k)] overlap, in
// (i, j) order: the candidates the plan checkers compare byte ranges of. Sorting by start and
// stopping at the first item that starts after i dies costs O(n log n + pairs), not O(n^2), so
// checking stays cheap on long chains while every overlapping pair is still compared.
template <class First, class Last>
std::vector<std::pair<size_t, size_t>> lifetime_overlapping_pairs(size_t n, First first,
                                                                  Last last) {
  std::vector<size_t> by_start(n);
  std::iota(by_start.begin(), by_start.end(), 0);
  std::stable_sort(by_start.begin(), by_start.end(),
                   [&](size_t a, size_t b) { return first(a) < first(b); });
  std::vector<std::pair<size_t, size_t>> pairs;
  for (size_t x = 0; x < n; ++x)
    for (size_t y = x + 1; y < n && first(by_start[y]) <= last(by_start[x]); ++y)
      pairs.emplace_back(std::min(by_start[x], by_start[y]), std::max(by_start[x], by_start[y]));
  std::sort(pairs.begin(), pairs.end());
  return pairs;
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

size_t layout_subgraphs(const Node& node, size_t base, bool assign) {
  // Each subgraph's buffers end to end (no reuse inside a body): its values, its nodes' scratch,
  // then the region of each of its control-flow nodes, laid out the same way. If (at any depth):
  // the branches start at the same offset, since only one runs; the region is the larger branch.
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

std::vector<std::string> check_storage(const Module& module) {
  using K = Storage::Kind;
  const Graph& g = *module.graph;
  std::vector<std::string> errors;
  auto spans = value_spans(g);
  AliasChains chains;
  // Arena intervals: [begin, end) bytes and [def, last] nodes, for values and scratch.
  struct Block {
    std::string name;
    const Value* value;
    size_t begin, end;
    Span span;
    // Control flow: the If branches (If node, branch graph) the value is in, outermost first.
    std::vector<std::pair<const Node*, const Graph*>> branches;
  };
  // Whether a and b are in different branches of one If: never both live.
  auto exclusive_branches = [](const Block& a, const Block& b) {
    for (const auto& [if_a, branch_a] : a.branches)
      for (const auto& [if_b, branch_b] : b.branches)
        if (if_a == if_b && branch_a != branch_b) return true;
    return false;
  };
  std::vector<Block> blocks;
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
      const Value* a = st.alias_of;
      if (!a) {
        errors.push_back(fmt::format("'{}' aliases nothing", v->name));
        continue;
      }
      if (st.offset + v->bytes() > a->bytes())
        errors.push_back(fmt::format("view '{}' [{}, {}) runs past '{}' ({} bytes)", v->name,
                                     st.offset, st.offset + v->bytes(), a->name, a->bytes()));
      if (st.kind == K::kSlice) {
        // Written into a later Concat's output, which then runs no code. (Whether the slice is
        // overwritten while still read is the overlap check's below.)
        auto sa = spans.find(a);
        if (!a->producer || !a->producer->elided || sa == spans.end() || sa->second.def <= span.def)
          errors.push_back(
              fmt::format("'{}' is written into '{}', which is not a later elided "
                          "Concat",
                          v->name, a->name));
      }
      if (st.kind == K::kInPlace) {
        if (root->storage.kind != K::kArena)
          errors.push_back(
              fmt::format("'{}' is written in place over '{}', which is not an arena "
                          "buffer (graph input, output or constant)",
                          v->name, a->name));
        if (v->bytes() != a->bytes() || v->dtype != a->dtype)
          errors.push_back(fmt::format("'{}' is written in place over '{}' of another type or size",
                                       v->name, a->name));
        auto sa = spans.find(a);
        if (sa != spans.end() && sa->second.last != span.def)
          errors.push_back(
              fmt::format("'{}' is written in place over '{}', which is still read at "
                          "node {} after node {}",
                          v->name, a->name, sa->second.last, span.def));
      }
    }
    if (root->storage.kind != K::kArena) continue;
    size_t begin = root->storage.offset + chains.offset(v);
    blocks.push_back({v->name, v, begin, begin + std::max<size_t>(v->bytes(), 1), span, {}});
  }
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = *g.nodes[n];
    if (!node.scratch_bytes) continue;
    int at = static_cast<int>(n);
    blocks.push_back({"scratch:" + node.name,
                      nullptr,
                      node.scratch_offset,
                      node.scratch_offset + node.scratch_bytes,
                      Span{at, at},
                      {}});
  }
  // Control flow: every non-constant value of a node's subgraphs (at any depth) lives over that
  // node, except that the branches of an If exclude each other.
  std::function<void(const Node&, int, std::vector<std::pair<const Node*, const Graph*>>)> add;
  add = [&](const Node& node, int at, std::vector<std::pair<const Node*, const Graph*>> path) {
    const bool exclusive = node.op_type == "If" && node.domain.empty();
    for (const Graph* sub : subgraphs_of(node)) {
      auto inner = path;
      if (exclusive) inner.emplace_back(&node, sub);
      for (const auto& v : sub->values) {
        if (v->is_constant()) continue;
        if (v->storage.kind != K::kArena) {
          errors.push_back(fmt::format("subgraph value '{}' has no arena buffer", v->name));
          continue;
        }
        blocks.push_back({v->name, v.get(), v->storage.offset,
                          v->storage.offset + std::max<size_t>(v->bytes(), 1), Span{at, at},
                          inner});
      }
      for (const auto& m : sub->nodes) add(*m, at, inner);
    }
  };
  for (size_t n = 0; n < g.nodes.size(); ++n) add(*g.nodes[n], static_cast<int>(n), {});
  for (const auto& b : blocks) {
    if (b.end > module.memory.arena_bytes)
      errors.push_back(fmt::format("'{}' [{}, {}) ends past the arena ({} bytes)", b.name, b.begin,
                                   b.end, module.memory.arena_bytes));
    if ((!b.value || chains.root(b.value) == b.value) && b.begin % kArenaAlignment)
      errors.push_back(fmt::format("'{}' at offset {} is not {}-byte aligned", b.name, b.begin,
                                   kArenaAlignment));
  }
  auto pairs = lifetime_overlapping_pairs(
      blocks.size(), [&](size_t i) { return blocks[i].span.def; },
      [&](size_t i) { return blocks[i].span.last; });
  for (const auto& [i, j] : pairs) {
    const Block &a = blocks[i], &b = blocks[j];
    if (a.begin >= b.end || b.begin >= a.end) continue;
    if (a.span.def == b.span.def && exclusive_branches(a, b))
      continue;  // two branches of one If: only one runs
    if (a.value && b.value) {
      if (chains.is_view_of(a.value, b.value) || chains.is_view_of(b.value, a.value)) continue;
      // In place: the output's node is the last reader of the value it overwrites.
      auto in_place = [](const Block& out, const Block& in) {
        return out.value->storage.kind == Storage::Kind::kInPlace &&
               out.value->storage.alias_of == in.value && in.span.last == out.span.def;
      };
      if (in_place(a, b) || in_place(b, a)) continue;
    }
    errors.push_back(fmt::format("'{}' [{}, {}) overlaps '{}' [{}, {}) while both are live", a.name,
                                 a.begin, a.end, b.name, b.begin, b.end));
  }
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
  auto pairs = lifetime_overlapping_pairs(
      req.size(), [&](size_t i) { return req[i].first_use; },
      [&](size_t i) { return req[i].last_use; });
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
