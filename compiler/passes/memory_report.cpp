#include "passes/memory_report.h"

#include <fmt/format.h>

#include <set>

#include "ir/printer.h"
#include "ir/stack_bound.h"
#include "passes/memory_planner.h"

namespace onnxc {
namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\', out += c;
    else if (static_cast<unsigned char>(c) < 0x20)
      out += fmt::format("\\u{:04x}", c);
    else
      out += c;
  }
  return out + "\"";
}

}  // namespace

size_t weight_bytes(const Graph& g) {
  std::set<const Value*> used(g.outputs.begin(), g.outputs.end());
  for (const auto& n : g.nodes) used.insert(n->inputs.begin(), n->inputs.end());
  for (const Node* n : nested_nodes(g)) used.insert(n->inputs.begin(), n->inputs.end());
  size_t bytes = 0;
  for (const Value* v : used)
    if (v && v->is_constant()) bytes += v->bytes();
  return bytes;
}

std::vector<TensorRow> tensor_rows(const Module& m) {
  using K = Storage::Kind;
  const Graph& g = *m.graph;
  auto spans = value_spans(g);
  AliasChains chains;  // memoized storage_root / offset_in_root (long in-place chains)
  std::vector<TensorRow> rows;
  for (const auto& n : g.nodes)
    for (const Value* v : n->outputs) {
      if (!v || v->is_constant()) continue;
      const Value* root = chains.root(v);
      TensorRow r{v, storage_kind_name(v->storage.kind), "", -1, spans[v]};
      if (v->storage.alias_of) r.alias_of = v->storage.alias_of->name;
      if (root->storage.kind == K::kArena)
        r.offset = static_cast<long long>(root->storage.offset + chains.offset(v));
      rows.push_back(r);
    }
  // Control flow: subgraph values, live over their node (see layout_subgraphs()).
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (const Graph* sub : subgraphs_of(*g.nodes[i]))
      for (const Value* v : all_values(*sub)) {
        if (v->is_constant()) continue;
        int at = static_cast<int>(i);
        TensorRow r{v,
                    storage_kind_name(v->storage.kind),
                    "",
                    v->storage.kind == K::kArena ? static_cast<long long>(v->storage.offset) : -1,
                    Span{at, at},
                    g.nodes[i]->name + "/" + sub->name};
        rows.push_back(r);
      }
  return rows;
}

namespace {

// With --max-arena: what the row bands (patch-rows) did to the plan.
struct BandFigures {
  bool shown = false;
  std::string stages;
  int64_t band_rows = 0, iterations = 0, extra_macs = 0, chain_macs = 0;
  size_t arena_without = 0, bound_without = 0;
  double extra_percent() const {
    return chain_macs ? 100.0 * static_cast<double>(extra_macs) / static_cast<double>(chain_macs)
                      : 0.0;
  }
};

BandFigures band_figures(const Module& m, const Module* unbanded) {
  BandFigures f;
  if (!m.max_arena || !unbanded) return f;
  f.shown = true;
  f.stages = m.rows.applied ? m.rows.stages : "";
  f.band_rows = m.rows.band_rows;
  f.iterations = m.rows.iterations;
  f.extra_macs = m.rows.extra_macs;
  f.chain_macs = m.rows.chain_macs;
  f.arena_without = unbanded->memory.arena_bytes;
  f.bound_without = unbanded->memory.live_bytes_lower_bound;
  return f;
}

}  // namespace

std::string memory_report(const Module& m, bool json, const Module* unbanded) {
  const BandFigures bands = band_figures(m, unbanded);
  using K = Storage::Kind;
  const Graph& g = *m.graph;
  const std::vector<TensorRow> rows = tensor_rows(m);
  const size_t arena = m.memory.arena_bytes, bound = m.memory.live_bytes_lower_bound;
  const double above = bound ? 100.0 * (static_cast<double>(arena) - static_cast<double>(bound)) /
                                   static_cast<double>(bound)
                             : 0.0;
  const size_t weights = weight_bytes(g);
  const size_t stack = max_stack_bytes(*m.target);  // the header's kMaxStackBytes
  int views = 0, in_place = 0, slices = 0;
  for (const auto& r : rows) {
    views += r.v->storage.kind == K::kView;
    in_place += r.v->storage.kind == K::kInPlace;
    slices += r.v->storage.kind == K::kSlice;
  }
  std::string s;
  if (json) {
    s += fmt::format(
        "{{\n  \"model\": {},\n  \"arena_bytes\": {},\n  \"live_bytes_lower_bound\": {},\n"
        "  \"arena_above_bound_percent\": {:.2f},\n  \"weight_bytes\": {},\n"
        "  \"max_stack_bytes\": {},\n  \"planner\": {},\n  \"views\": {},\n  \"in_place\": {},\n  "
        "\"concat_slices\": {},\n"
        "  \"scratch\": [",
        json_string(m.source_path), arena, bound, above, weights, stack,
        json_string(m.memory.planner), views, in_place, slices);
    if (bands.shown)
      s.insert(s.find("  \"scratch\": ["),
               fmt::format(
                   "  \"row_bands\": {{\"max_arena\": {}, \"stages\": {}, \"band_rows\": {}, "
                   "\"iterations\": {}, \"arena_without\": {}, \"bound_without\": {}, "
                   "\"extra_macs\": {}, \"stage_macs\": {}}},\n",
                   m.max_arena, json_string(bands.stages), bands.band_rows, bands.iterations,
                   bands.arena_without, bands.bound_without, bands.extra_macs, bands.chain_macs));
    bool first = true;
    for (const auto& n : g.nodes) {
      if (!n->scratch_bytes) continue;
      s += fmt::format("{}\n    {{\"node\": {}, \"op\": {}, \"bytes\": {}, \"offset\": {}}}",
                       first ? "" : ",", json_string(n->name), json_string(n->op_type),
                       n->scratch_bytes, n->scratch_offset);
      first = false;
    }
    s += first ? "],\n  \"tensors\": [" : "\n  ],\n  \"tensors\": [";
    first = true;
    for (const auto& r : rows) {
      s += fmt::format(
          "{}\n    {{\"name\": {}, \"type\": {}, \"bytes\": {}, \"offset\": {}, "
          "\"first\": {}, \"last\": {}, \"storage\": {}{}{}}}",
          first ? "" : ",", json_string(r.v->name), json_string(value_type_str(*r.v)), r.v->bytes(),
          r.offset < 0 ? "null" : std::to_string(r.offset), r.span.def, r.span.last,
          json_string(r.storage),
          r.alias_of.empty() ? "" : ", \"alias_of\": " + json_string(r.alias_of),
          r.subgraph.empty() ? "" : ", \"subgraph\": " + json_string(r.subgraph));
      first = false;
    }
    s += first ? "]\n}\n" : "\n  ]\n}\n";
    return s;
  }
  s += fmt::format(
      "model {}\narena_bytes {}\nlive_bytes_lower_bound {} (arena {:+.2f}%)\n"
      "weight_bytes {}\nmax_stack_bytes {}\nplanner {}\nviews {}\nin_place {}\nconcat_slices {}\n",
      m.source_path, arena, bound, above, weights, stack, m.memory.planner, views, in_place,
      slices);
  if (bands.shown) {
    s += fmt::format("row_bands --max-arena {}: {}\n", m.max_arena,
                     bands.stages.empty()
                         ? "none (no chain of row-local stages fits)"
                         : fmt::format("{} in bands of {} rows, {} iterations", bands.stages,
                                       bands.band_rows, bands.iterations));
    s += fmt::format("  without bands: arena_bytes {}, live_bytes_lower_bound {}\n",
                     bands.arena_without, bands.bound_without);
    s += fmt::format(
        "  extra MACs (band rows past the tensors' edges): {} of the stages' {} "
        "({:.2f}%)\n",
        bands.extra_macs, bands.chain_macs, bands.extra_percent());
  }
  s += "scratch:\n";
  for (const auto& n : g.nodes)
    if (n->scratch_bytes)
      s += fmt::format("  {:>10} {:>10}  {} ({})\n", n->scratch_offset, n->scratch_bytes, n->name,
                       n->op_type);
  s += fmt::format("tensors:\n  {:>10} {:>10}  {:>9}  {}\n", "offset", "bytes", "nodes", "name");
  for (const auto& r : rows) {
    std::string how;
    if (r.v->storage.kind == K::kView)
      how = fmt::format("  view of {} +{}", r.alias_of, r.v->storage.offset);
    else if (r.v->storage.kind == K::kInPlace)
      how = fmt::format("  in place over {}", r.alias_of);
    else if (r.v->storage.kind == K::kSlice)
      how = fmt::format("  slice of {} +{}", r.alias_of, r.v->storage.offset);
    else if (r.v->storage.kind != K::kArena)
      how = fmt::format("  ({})", r.storage);
    if (!r.subgraph.empty()) how += fmt::format("  in subgraph {}", r.subgraph);
    s += fmt::format("  {:>10} {:>10}  {:>4}..{:<4} {} {}{}\n",
                     r.offset < 0 ? "-" : std::to_string(r.offset), r.v->bytes(), r.span.def,
                     r.span.last, r.v->name, value_type_str(*r.v), how);
  }
  return s;
}

}  // namespace onnxc
