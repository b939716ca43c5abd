// `onnxc inspect`: what a model is (inputs and outputs with their symbolic dims named, opsets,
// producer, op histogram, parameter bytes, FLOPs per op type) and, with --ir, --plan or --memory,
// what onnxc makes of it; with --threads N, how its kernels split and the predicted speedup.
//
// A model whose graph inputs have symbolic dims that no --dim or --shape pins (a torchvision
// export's `batch`) is still shown, and inspect exits 0: the user asked to see the model, not to
// compile it. The figures that need static shapes (arena, FLOPs, the memory report) are computed
// with each such dim assumed to be 1, and the output says so in words and names the flags that
// would pin them, with every place each dim is used. Where even that does not lower, the model's
// own description (from the ModelProto) is printed after the errors, and inspect exits 1.
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>

#include "codegen/identifiers.h"
#include "codegen/model_info.h"
#include "driver/commands.h"
#include "driver/lower_flags.h"
#include "driver/node_flops.h"
#include "driver/thread_report.h"
#include "frontend/model_loader.h"
#include "ir/dtype.h"
#include "ir/printer.h"
#include "passes/memory_planner.h"
#include "passes/memory_report.h"

namespace onnxc {
namespace {

// A symbolic dim of the graph inputs that nothing pins, and where the graph uses it.
struct UnpinnedDim {
  std::string name;               // the dim_param; "" for a dim with neither value nor name
  std::vector<std::string> uses;  // "input 'image' axis 0", "output 'logits' axis 0"
};

bool is_initializer(const onnx::GraphProto& g, const std::string& name) {
  for (const auto& init : g.initializer())
    if (init.name() == name) return true;
  return false;
}

// The dims of the graph inputs that --dim and --shape (in `pins`) leave symbolic, in order of
// first use; outputs that name one of them are listed as uses too.
std::vector<UnpinnedDim> unpinned_dims(const onnx::GraphProto& g, const ImportOptions& pins) {
  std::vector<UnpinnedDim> dims;
  auto add_use = [&](const std::string& name, const std::string& use) {
    for (auto& d : dims)
      if (!name.empty() && d.name == name) return d.uses.push_back(use);
    dims.push_back({name, {use}});
  };
  for (const auto& in : g.input()) {
    if (is_initializer(g, in.name()) || pins.input_shapes.count(in.name())) continue;
    if (!in.type().has_tensor_type() || !in.type().tensor_type().has_shape()) continue;
    const auto& shape = in.type().tensor_type().shape();
    for (int a = 0; a < shape.dim_size(); ++a) {
      const auto& d = shape.dim(a);
      if (d.has_dim_value() || (d.has_dim_param() && pins.dims.count(d.dim_param()))) continue;
      add_use(d.dim_param(), fmt::format("input '{}' axis {}", escape_model_text(in.name()), a));
    }
  }
  for (const auto& out : g.output()) {
    if (!out.type().has_tensor_type()) continue;
    const auto& shape = out.type().tensor_type().shape();
    for (int a = 0; a < shape.dim_size(); ++a)
      for (auto& d : dims)
        if (!d.name.empty() && shape.dim(a).dim_param() == d.name)
          d.uses.push_back(fmt::format("output '{}' axis {}", escape_model_text(out.name()), a));
  }
  return dims;
}

// "float[batch x 3 x 224 x 224]" from a declared tensor type whose dims are not all static; ""
// when they are (the lowered type says it as before) or the type is not a tensor.
std::string symbolic_type(const onnx::ValueInfoProto& vi, const ImportOptions& pins) {
  if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) return "";
  const auto& tt = vi.type().tensor_type();
  if (pins.input_shapes.count(vi.name()) || !is_valid_dtype(tt.elem_type())) return "";
  std::vector<std::string> dims;
  bool symbolic = false;
  for (const auto& d : tt.shape().dim()) {
    const bool pinned = d.has_dim_param() && pins.dims.count(d.dim_param());
    symbolic |= !d.has_dim_value() && !pinned;
    dims.push_back(d.has_dim_value()   ? std::to_string(d.dim_value())
                   : pinned            ? std::to_string(pins.dims.at(d.dim_param()))
                   : d.has_dim_param() ? escape_model_text(d.dim_param())
                                       : "?");
  }
  if (!symbolic) return "";
  return fmt::format("{}[{}]", dtype_name(static_cast<DataType>(tt.elem_type())),
                     fmt::join(dims, " x "));
}

// The lines on unpinned dims: what was assumed, where each dim is used, the flags to pin them.
std::string pinning_hint(const std::vector<UnpinnedDim>& dims, bool assumed) {
  std::string s = assumed ? "symbolic dims not pinned (FLOPs and bytes below take each as 1):\n"
                          : "symbolic dims not pinned:\n";
  std::vector<std::string> flags;
  for (const auto& d : dims) {
    s += fmt::format("  {}: {}\n", d.name.empty() ? "(unnamed)" : escape_model_text(d.name),
                     fmt::join(d.uses, ", "));
    if (!d.name.empty()) flags.push_back(fmt::format("--dim {}=N", escape_model_text(d.name)));
  }
  if (std::any_of(dims.begin(), dims.end(), [](const UnpinnedDim& d) { return d.name.empty(); }))
    flags.push_back("--shape INPUT=DIMS (for the unnamed dims)");
  s += fmt::format("pin them with: {}\n", fmt::join(flags, " "));
  return s;
}

// inspect's lines on what the model says about itself, as the generated header has it
// (codegen/model_info.cpp): doc strings, metadata_props and each TrainingInfoProto, which is
// validated but not compiled. Model text is escaped (escape_model_text), never printed raw.
std::string describe_model(const Module& m) {
  std::string s;
  auto text = [](const std::string& t) { return escape_model_text(t); };
  if (!m.domain.empty() || m.model_version)
    s += fmt::format("domain '{}' model_version {}\n", text(m.domain), m.model_version);
  if (!m.doc_string.empty()) s += fmt::format("doc_string \"{}\"\n", text(m.doc_string));
  if (!m.graph_doc_string.empty())
    s +=
        fmt::format("graph '{}' doc_string \"{}\"\n", text(m.graph_name), text(m.graph_doc_string));
  for (const auto* list : {&m.metadata_props, &m.graph_metadata_props})
    for (const auto& [key, value] : *list)
      s += fmt::format("metadata{} '{}' = '{}'\n", list == &m.metadata_props ? "" : " (graph)",
                       text(key), text(value));
  for (size_t i = 0; i < m.training_info.size(); ++i)
    s += fmt::format(
        "training_info {}: {}: validated, not compiled (the generated code runs the inference "
        "graph)\n",
        i, training_info_summary(m.training_info[i]));
  return s;
}

std::string opsets_line(const onnx::ModelProto& proto) {
  std::vector<std::string> sets;
  for (const auto& os : proto.opset_import())
    sets.push_back(fmt::format(
        "{} {}", os.domain().empty() ? "ai.onnx" : escape_model_text(os.domain()), os.version()));
  return fmt::format("opsets {}\n", fmt::join(sets, ", "));
}

// The description that needs no lowering: from the ModelProto alone.
std::string proto_summary(const std::string& path, const onnx::ModelProto& proto,
                          const ImportOptions& pins) {
  const onnx::GraphProto& g = proto.graph();
  std::string s = fmt::format("model {} (ir_version {}, producer '{}' {})\n", path,
                              proto.ir_version(), escape_model_text(proto.producer_name()),
                              escape_model_text(proto.producer_version()));
  for (const auto* list : {&g.input(), &g.output()})
    for (const auto& vi : *list) {
      if (list == &g.input() && is_initializer(g, vi.name())) continue;
      const std::string type = symbolic_type(vi, pins);
      s += fmt::format("{} {}: {}\n", list == &g.input() ? "input " : "output",
                       escape_model_text(vi.name()), type.empty() ? "(declared static)" : type);
    }
  s += opsets_line(proto);
  std::map<std::string, int> histogram;
  for (const auto& n : g.node()) histogram[escape_model_text(n.op_type())]++;
  s += "ops:";
  for (const auto& [op, count] : histogram) s += fmt::format(" {}={}", op, count);
  size_t params = 0;
  for (const auto& init : g.initializer()) {
    if (!is_valid_dtype(init.data_type())) continue;
    int64_t numel = 1;
    for (int64_t d : init.dims()) numel = d < 0 || numel > (int64_t{1} << 40) ? 0 : numel * d;
    params += dtype_bytes(static_cast<DataType>(init.data_type()), numel);
  }
  s += fmt::format("\nnodes {}\nparameter_bytes {}\n", g.node_size(), params);
  return s;
}

// The description of the lowered model; `proto` names the symbolic dims of its inputs and
// outputs where the lowered types only have the assumed 1.
std::string module_summary(const Module& m, const onnx::ModelProto& proto,
                           const ImportOptions& pins, const std::string& hint) {
  const Graph& g = *m.graph;
  std::map<std::string, const onnx::ValueInfoProto*> declared;
  for (const auto* list : {&proto.graph().input(), &proto.graph().output()})
    for (const auto& vi : *list) declared[vi.name()] = &vi;
  auto type_of = [&](const Value& v) {
    auto it = declared.find(v.name);
    const std::string symbolic = it == declared.end() ? "" : symbolic_type(*it->second, pins);
    return symbolic.empty() ? value_type_str(v) : symbolic;
  };
  std::string out = fmt::format("model {} (ir_version {}, producer '{}' {})\n", m.source_path,
                                m.ir_version, m.producer_name, m.producer_version);
  for (const Value* v : g.inputs) out += fmt::format("input  {}: {}\n", v->name, type_of(*v));
  for (const Value* v : g.outputs) out += fmt::format("output {}: {}\n", v->name, type_of(*v));
  out += hint;
  out += opsets_line(proto);
  out += describe_model(m);
  std::map<std::string, int> histogram;
  std::map<std::string, int64_t> flops;
  for (const auto& n : g.nodes) {
    histogram[n->op_type]++;
    flops[n->op_type] += node_flops(*n);
  }
  out += "ops:";
  for (const auto& [op, count] : histogram) out += fmt::format(" {}={}", op, count);
  out += "\nflops:";
  for (const auto& [op, count] : flops)
    if (count) out += fmt::format(" {}={}", op, count);
  size_t params = 0;
  for (const auto& v : g.values)
    if (v->is_constant()) params += v->bytes();
  out += fmt::format("\nflops_total {}\nnodes {}\nparameter_bytes {}\narena_bytes {}\n",
                     graph_flops(g), g.nodes.size(), params, m.memory.arena_bytes);
  return out;
}

// The memory report, saying which dims it assumed (a JSON report gets an "assumed_dims" key).
std::string memory_with_assumption(const Module& m, bool json, const std::vector<UnpinnedDim>& dims,
                                   const Module* unbanded) {
  std::string report = memory_report(m, json, unbanded);
  if (dims.empty()) return report;
  std::vector<std::string> names;
  for (const auto& d : dims) names.push_back(d.name.empty() ? "(unnamed)" : d.name);
  if (!json) return pinning_hint(dims, true) + report;
  std::vector<std::string> keys;
  for (const auto& n : names) keys.push_back(fmt::format("\"{}\": 1", escape_model_text(n)));
  const size_t open = report.find('{');
  return report.substr(0, open + 1) +
         fmt::format("\n  \"assumed_dims\": {{{}}},", fmt::join(keys, ", ")) +
         report.substr(open + 1);
}

bool write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

}  // namespace

int run_inspect(const InspectArgs& args) {
  // The dims left symbolic, read from the model before lowering; a model that does not load is
  // reported by lower_with_flags as for every other subcommand.
  onnx::ModelProto proto;
  ImportOptions pins;
  std::string error;
  std::vector<UnpinnedDim> dims;
  Diagnostics load_diag;
  const LoweringFlags& flags = args.lowering;
  const bool loaded = load_model(args.model, proto, load_diag) &&
                      parse_dim_flags(flags.dims, flags.shapes, pins, &error);
  if (loaded) dims = unpinned_dims(proto.graph(), pins);
  int rc = kExitOk;
  auto module =
      lower_with_flags(args.model, flags, {false, dims.empty() ? int64_t{-1} : 1, false}, &rc);
  if (!module) {
    if (dims.empty() || rc == kExitUsage) return rc;
    // The model is shown all the same, but the errors (above, on stderr) stand: exit 1.
    std::fputs((proto_summary(args.model, proto, pins) + pinning_hint(dims, false) +
                "arena and FLOPs: not computed (with those dims 1 the model does not lower: "
                "see the errors above)\n")
                   .c_str(),
               stdout);
    return rc;
  }
  if (args.ir) {
    std::fputs(print_module(*module).c_str(), stdout);
    return kExitOk;
  }
  if (args.memory) {
    if (!args.svg.empty() && !write_text_file(args.svg, memory_plan_svg(*module))) {
      std::fprintf(stderr, "onnxc: cannot write '%s'\n", escape_model_text(args.svg).c_str());
      return kExitUsage;
    }
    // With a RAM budget, the same model planned without row bands, for the report's comparison.
    std::unique_ptr<Module> unbanded;
    if (flags.max_arena) {
      LoweringFlags plain = flags;
      plain.max_arena = 0;
      unbanded =
          lower_with_flags(args.model, plain, {false, dims.empty() ? int64_t{-1} : 1, false}, &rc);
      if (!unbanded) return rc;
    }
    std::fputs(memory_with_assumption(*module, args.json, dims, unbanded.get()).c_str(), stdout);
    return kExitOk;
  }
  std::string out =
      module_summary(*module, proto, pins, dims.empty() ? "" : pinning_hint(dims, true));
  if (args.plan) out += print_memory_plan(*module);
  if (module->target->threads > 1) out += thread_report(*module);
  std::fputs(out.c_str(), stdout);
  return kExitOk;
}

}  // namespace onnxc
