#include "ir/printer.h"

#include <fmt/format.h>

#include <set>

namespace onnxc {
namespace {

std::string attribute_str(const Attribute& a, int indent) {
  using K = Attribute::Kind;
  switch (a.kind) {
    case K::kFloat:
      return fmt::format("{}", a.f);
    case K::kInt:
      return fmt::format("{}", a.i);
    case K::kString:
      return fmt::format("\"{}\"", a.s);
    case K::kFloats:
      return fmt::format("[{}]", fmt::join(a.floats, ", "));
    case K::kInts:
      return fmt::format("[{}]", fmt::join(a.ints, ", "));
    case K::kStrings:
      return fmt::format("[\"{}\"]", fmt::join(a.strings, "\", \""));
    case K::kTensor:
      return fmt::format("tensor<{}[{}]>", dtype_name(a.t->dtype), shape_str(a.t->shape));
    case K::kGraph:
      return "\n" + print_graph(*a.g, indent + 4);
    case K::kGraphs: {
      std::string s;
      for (const auto& g : a.graphs) s += "\n" + print_graph(*g, indent + 4);
      return s;
    }
    default:
      return fmt::format("<{}>", attribute_kind_name(a.kind));
  }
}

std::string ref(const Value* v) {
  return v ? "%" + v->name : "none";
}

// Where a node's output lives once assign-storage / plan-memory ran: "arena+64", "view of %x+0",
// "in place over %x", "output". Empty before.
std::string storage_str(const Value& v) {
  using K = Storage::Kind;
  const Storage& st = v.storage;
  switch (st.kind) {
    case K::kUnplanned:
      return "";
    case K::kArena:
      return fmt::format("arena+{}", st.offset);
    case K::kView:
      return fmt::format("view of {}+{}", ref(st.alias_of), st.offset);
    case K::kInPlace:
      return fmt::format("in place over {}", ref(st.alias_of));
    case K::kSlice:
      return fmt::format("slice of {}+{}", ref(st.alias_of), st.offset);
    default:
      return storage_kind_name(st.kind);
  }
}

}  // namespace

// Tensors "float[2x3]"; containers spell out what they hold: "seq<float>[2x3, 4x3]",
// "optional<float[5]>", "optional<none: seq<float>>", "map<int64, float>[3]".
std::string value_type_str(const Value& v) {
  if (v.kind == ValueKind::kMap && v.elements.size() == 2)
    return fmt::format("map<{}, {}>[{}]", dtype_name(v.elements[0]->dtype), dtype_name(v.dtype),
                       v.elements[0]->has_shape ? shape_str(v.elements[0]->shape) : "?");
  if (v.kind == ValueKind::kSequence) {
    std::vector<std::string> shapes;
    for (const Value* e : v.elements)
      shapes.push_back(e->kind == ValueKind::kMap ? value_type_str(*e)
                       : e->has_shape             ? shape_str(e->shape)
                                                  : "?");
    return fmt::format("seq<{}>[{}]", dtype_name(v.dtype), fmt::join(shapes, ", "));
  }
  if (v.kind == ValueKind::kOptional) {
    if (!v.elements.empty()) return fmt::format("optional<{}>", value_type_str(*v.elements[0]));
    return fmt::format("optional<none: {}<{}>>",
                       v.contained == ValueKind::kSequence ? "seq" : "tensor", dtype_name(v.dtype));
  }
  return fmt::format("{}[{}]", dtype_name(v.dtype), v.has_shape ? shape_str(v.shape) : "?");
}

std::string print_graph(const Graph& g, int indent) {
  std::string pad(static_cast<size_t>(indent), ' ');
  std::vector<std::string> ins, outs;
  for (const Value* v : g.inputs)
    ins.push_back(fmt::format("%{}: {}", v->name, value_type_str(*v)));
  for (const Value* v : g.outputs) outs.push_back(ref(v));
  std::string s = fmt::format("{}graph {}({}) -> ({}) {{\n", pad, g.name.empty() ? "main" : g.name,
                              fmt::join(ins, ", "), fmt::join(outs, ", "));
  std::set<const Value*> used(g.outputs.begin(), g.outputs.end());
  for (const auto& n : g.nodes) used.insert(n->inputs.begin(), n->inputs.end());
  for (const auto& v : g.values)
    if (v->is_constant() && !v->producer && used.count(v.get()))
      s += fmt::format("{}  %{}: {} = constant\n", pad, v->name, value_type_str(*v));
  for (const auto& n : g.nodes) {
    std::vector<std::string> results, args, attrs;
    for (const Value* v : n->outputs)
      results.push_back(v ? fmt::format("%{}: {}", v->name, value_type_str(*v)) : "none");
    for (const Value* v : n->inputs) args.push_back(ref(v));
    for (const auto& [name, a] : n->attributes)
      attrs.push_back(fmt::format("{}={}", name, attribute_str(a, indent)));
    std::vector<std::string> placed;
    for (const Value* v : n->outputs)
      if (v && !storage_str(*v).empty())
        placed.push_back(fmt::format("%{}: {}", v->name, storage_str(*v)));
    if (n->elided) placed.push_back("no code");
    if (!n->kernel.empty())
      placed.push_back("kernel: " + n->kernel +
                       (n->kernel_tasks > 1 ? fmt::format(" in {} parts", n->kernel_tasks) : ""));
    if (n->scratch_bytes && !placed.empty())
      placed.push_back(
          fmt::format("scratch: arena+{} ({} bytes)", n->scratch_offset, n->scratch_bytes));
    s += fmt::format("{}  {} = {}{}@{}({}){}  # {}{}\n", pad, fmt::join(results, ", "),
                     n->domain.empty() ? "" : n->domain + ".", n->op_type, n->opset,
                     fmt::join(args, ", "),
                     attrs.empty() ? "" : fmt::format(" {{{}}}", fmt::join(attrs, ", ")), n->name,
                     placed.empty() ? "" : fmt::format("  [{}]", fmt::join(placed, "; ")));
  }
  s += pad + "}\n";
  return s;
}

std::string print_module(const Module& m) {
  std::string opsets;
  for (const auto& [d, v] : m.opsets) opsets += fmt::format(" {}={}", d.empty() ? "ai.onnx" : d, v);
  std::string memory;
  if (m.memory.planned)
    memory = fmt::format("memory: arena {} bytes, live-bytes lower bound {} bytes ({})\n",
                         m.memory.arena_bytes, m.memory.live_bytes_lower_bound, m.memory.planner);
  return fmt::format("module {} ir_version={} opsets:{}\n", m.model_name, m.ir_version, opsets) +
         print_graph(*m.graph) + memory;
}

}  // namespace onnxc
