#include "codegen/cpp_emitter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "codegen/weights.h"
#include "ops/op.h"
#include "support/version.h"

namespace onnxc {
namespace {

const std::set<std::string>& cpp_keywords() {
  static const std::set<std::string> k = {
      "alignas", "alignof", "and", "asm", "auto", "bool", "break", "case", "catch", "char",
      "class", "const", "continue", "default", "delete", "do", "double", "else", "enum",
      "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if", "inline",
      "int", "long", "namespace", "new", "not", "operator", "or", "private", "protected", "public",
      "register", "return", "short", "signed", "sizeof", "static", "struct", "switch", "template",
      "this", "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
      "virtual", "void", "volatile", "while", "xor", "inputs", "outputs", "workspace", "weights"};
  return k;
}

// Unique member names for the Inputs/Outputs structs.
std::vector<std::string> member_names(const std::vector<Value*>& values) {
  std::vector<std::string> names;
  std::set<std::string> taken;
  for (const Value* v : values) {
    std::string base = cpp_identifier(v->name), n = base;
    for (int k = 2; taken.count(n); ++k) n = fmt::format("{}_{}", base, k);
    taken.insert(n);
    names.push_back(n);
  }
  return names;
}

// Pastes a runtime_support header and, first, the onnxc/ headers it includes (once each).
void inline_header(const std::string& path, std::set<std::string>& done, std::string& out) {
  if (!done.insert(path).second) return;
  std::string text = runtime_header_text(path);
  std::string body;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    std::string line = text.substr(pos, eol - pos);
    pos = eol + 1;
    const std::string tag = "#include \"onnxc/";
    if (line.rfind(tag, 0) == 0) {
      inline_header(line.substr(10, line.size() - 11), done, out);
      continue;
    }
    body += line + "\n";
  }
  out += fmt::format("// ---- runtime_support/{} ----\n{}", path, body);
}

class Emitter {
 public:
  Emitter(const Module& m, const CodegenOptions& o, Diagnostics& d) : m_(m), g_(*m.graph), o_(o), diag_(d) {}

  bool run(GeneratedCode& out) {
    in_names_ = member_names(g_.inputs);
    out_names_ = member_names(g_.outputs);
    number_subgraph_values(g_, 0);
    if (!read_memory_plan()) return false;
    std::string body = emit_nodes();
    if (!diag_.ok()) return false;
    WeightBlob blob = layout_weights(g_, used_constants_);
    out.arena_bytes = m_.memory.arena_bytes;
    out.memory_plan = print_memory_plan(m_);
    out.header = header(blob.bytes.size());
    out.source = source(blob, body);
    out.weights = std::move(blob.bytes);
    return true;
  }

 private:
  // The plan-memory pass's decisions: arena offsets of values (views and in-place values at
  // their root's offset plus the view's) and of scratch; views of graph inputs.
  bool read_memory_plan() {
    if (!m_.memory.planned) {
      diag_.error("internal: no memory plan (the plan-memory pass did not run)");
      return false;
    }
    for (const Value* v : all_values(g_)) {  // control-flow subgraphs' values too
      const Value* root = storage_root(v);
      size_t off = 0;
      for (const Value* a = v; a != root; a = a->storage.alias_of)
        off += a->storage.kind == Storage::Kind::kView ? a->storage.offset : 0;
      if (root->storage.kind == Storage::Kind::kArena && !v->is_constant() && !v->is_graph_input &&
          !v->is_graph_output)
        arena_offset_[v] = root->storage.offset + off;
      else if (root != v && root->storage.kind == Storage::Kind::kGraphInput)
        input_view_[v] = {root, off};
    }
    for (const auto& n : g_.nodes)
      if (n->scratch_bytes) scratch_offset_[n.get()] = n->scratch_offset;
    for (const Node* n : nested_nodes(g_))
      if (n->scratch_bytes) scratch_offset_[n] = n->scratch_offset;
    return true;
  }

  // Control flow: values of the k-th subgraph (depth-first) are named "g<k>_t<id>"/"g<k>_c<id>"
  // (ids are per graph); the main graph's keep "t<id>"/"c<id>".
  int number_subgraph_values(const Graph& g, int next) {
    for (const auto& n : g.nodes)
      for (const Graph* sub : subgraphs_of(*n)) {
        int k = ++next;
        for (const auto& v : sub->values) value_prefix_[v.get()] = fmt::format("g{}_", k);
        next = number_subgraph_values(*sub, next);
      }
    return next;
  }
  std::string prefix(const Value* v) const {
    auto it = value_prefix_.find(v);
    return it == value_prefix_.end() ? "" : it->second;
  }

  // A node whose outputs are all views of its input runs no code.
  static bool is_view_node(const Node& n) {
    for (const Value* v : n.outputs)
      if (v && v->storage.kind != Storage::Kind::kView) return false;
    return !n.outputs.empty();
  }

  std::string banner() const {
    return fmt::format(
        "// Generated by onnxc {} (build {}). Do not edit.\n"
        "// Model: {} (sha256 {})\n// Command: {}\n",
        kOnnxcVersion, kOnnxcBuildId, m_.source_path, m_.model_hash, o_.command_line);
  }

  bool external() const { return o_.weights == WeightsMode::kExternal; }

  std::string run_signature() const {
    return fmt::format("int run(const Inputs& inputs, const Outputs& outputs, void* workspace{})",
                       external() ? ", const void* weights" : "");
  }
  std::string c_signature() const {
    return fmt::format("int {}_run(const void* const* inputs, void* const* outputs, void* workspace{})",
                       o_.name, external() ? ", const void* weights" : "");
  }

  std::string header(size_t weight_bytes) const {
    std::string s = banner();
    s += "#pragma once\n\n#include <cstddef>\n#include <cstdint>\n\n";
    if (o_.runtime == RuntimeMode::kInclude) {
      s += "#include \"onnxc/types.h\"\n\n";
    } else {
      std::set<std::string> done;
      inline_header("onnxc/types.h", done, s);
      s += "\n";
    }
    s += fmt::format("namespace {} {{\n\n", o_.name);
    s += fmt::format("// Bytes of scratch memory run() needs; pass a buffer aligned to kWorkspaceAlignment.\n"
                     "constexpr std::size_t kWorkspaceSize = {};\n"
                     "constexpr std::size_t kWorkspaceAlignment = {};\n", m_.memory.arena_bytes, kArenaAlignment);
    s += fmt::format("// No arena for this schedule can be smaller: the most bytes live at once.\n"
                     "constexpr std::size_t kLiveBytesLowerBound = {};\n",
                     m_.memory.live_bytes_lower_bound);
    s += fmt::format("// Bytes of constant data ({}).\nconstexpr std::size_t kWeightsSize = {};\n",
                     external() ? "the external .bin file; pass it to run() 64-byte aligned"
                                : "embedded in the .cpp", weight_bytes);
    s += fmt::format("constexpr std::size_t kNumInputs = {};\nconstexpr std::size_t kNumOutputs = {};\n",
                     g_.inputs.size(), g_.outputs.size());
    auto sizes = [](const std::vector<Value*>& vs) {
      std::vector<size_t> b;
      for (const Value* v : vs) b.push_back(v->bytes());
      b.push_back(0);  // keeps the array non-empty
      return fmt::format("{}", fmt::join(b, ", "));
    };
    s += fmt::format("// Byte size of each input and output, in order (a trailing 0 ends the list).\n"
                     "constexpr std::size_t kInputBytes[] = {{{}}};\n"
                     "constexpr std::size_t kOutputBytes[] = {{{}}};\n\n",
                     sizes(g_.inputs), sizes(g_.outputs));
    s += "struct Inputs {\n";
    for (size_t i = 0; i < g_.inputs.size(); ++i)
      s += fmt::format("  const {}* {};  // '{}' {}[{}]\n", dtype_cpp(g_.inputs[i]->dtype), in_names_[i],
                       g_.inputs[i]->name, dtype_name(g_.inputs[i]->dtype), shape_str(g_.inputs[i]->shape));
    s += "};\nstruct Outputs {\n";
    for (size_t i = 0; i < g_.outputs.size(); ++i)
      s += fmt::format("  {}* {};  // '{}' {}[{}]\n", dtype_cpp(g_.outputs[i]->dtype), out_names_[i],
                       g_.outputs[i]->name, dtype_name(g_.outputs[i]->dtype), shape_str(g_.outputs[i]->shape));
    s += "};\n\n// Runs one inference. Returns 0 on success.\n";
    s += run_signature() + ";\n\n";
    s += fmt::format("}}  // namespace {}\n\n", o_.name);
    s += "// C entry point: inputs and outputs as untyped pointers, in graph order.\n";
    s += "extern \"C\" " + c_signature() + ";\n";
    return s;
  }

  std::string source(const WeightBlob& blob, const std::string& body) const {
    std::string s = banner();
    s += fmt::format("#include \"{}\"\n\n", o_.header_file);
    if (o_.runtime == RuntimeMode::kInclude) {
      for (const auto& inc : includes_) s += fmt::format("#include \"{}\"\n", inc);
    } else {
      std::set<std::string> done = {"onnxc/types.h"};  // the header already includes it
      for (const auto& inc : includes_) inline_header(inc, done, s);
    }
    s += fmt::format("\nnamespace {} {{\nnamespace {{\n\n", o_.name);
    if (!external() && !used_constants_.empty()) {
      s += fmt::format("alignas(64) const unsigned char kWeights[{}] =\n", blob.bytes.size() + 1);
      append_string_literal(s, blob.bytes);
      s += ";\n\n";
    }
    s += "}  // namespace\n\n";
    s += run_signature() + " {\n";
    s += declarations(blob);
    s += body;
    s += "  return 0;\n}\n\n";
    s += fmt::format("}}  // namespace {}\n\n", o_.name);
    s += "extern \"C\" " + c_signature() + " {\n";
    std::vector<std::string> ins, outs;
    for (size_t i = 0; i < g_.inputs.size(); ++i)
      ins.push_back(fmt::format("static_cast<const {}*>(inputs[{}])", dtype_cpp(g_.inputs[i]->dtype), i));
    for (size_t i = 0; i < g_.outputs.size(); ++i)
      outs.push_back(fmt::format("static_cast<{}*>(outputs[{}])", dtype_cpp(g_.outputs[i]->dtype), i));
    if (ins.empty()) s += "  (void)inputs;\n";
    if (outs.empty()) s += "  (void)outputs;\n";
    s += fmt::format("  return {}::run({}::Inputs{{{}}}, {}::Outputs{{{}}}, workspace{});\n}}\n", o_.name,
                     o_.name, fmt::join(ins, ", "), o_.name, fmt::join(outs, ", "),
                     external() ? ", weights" : "");
    return s;
  }

  // Pointer declarations for every value the node statements use, in first-use order.
  std::string declarations(const WeightBlob& blob) const {
    std::string s = "  (void)inputs;  // unused when every output is a constant\n";
    bool uses_arena = false, uses_weights = !used_constants_.empty();
    for (const Value* v : decls_) uses_arena |= arena_offset_.count(v) > 0;
    uses_arena |= !scratch_offset_.empty();
    if (uses_arena) s += "  unsigned char* const arena = static_cast<unsigned char*>(workspace);\n";
    else s += "  (void)workspace;\n";
    if (uses_weights)
      s += external() ? "  const unsigned char* const blob = static_cast<const unsigned char*>(weights);\n"
                      : "  const unsigned char* const blob = kWeights;\n";
    else if (external())
      s += "  (void)weights;\n";
    for (const Value* v : decls_) {
      const char* t = dtype_cpp(v->dtype);
      std::string var = names_.at(v);
      if (v->is_constant())
        s += fmt::format("  const {0}* const {1} = reinterpret_cast<const {0}*>(blob + {2});\n", t, var,
                         blob.offsets.at(v));
      else if (arena_offset_.count(v))
        s += fmt::format("  {0}* const {1} = reinterpret_cast<{0}*>(arena + {2});\n", t, var,
                         arena_offset_.at(v));
      else if (input_view_.count(v))
        s += fmt::format("  const {0}* const {1} = reinterpret_cast<const {0}*>("
                         "reinterpret_cast<const unsigned char*>({2}) + {3});  // a view\n",
                         t, var, names_.at(input_view_.at(v).first), input_view_.at(v).second);
    }
    return s;
  }

  // The C++ expression naming value v, declaring it on first use.
  std::string ref(const Value* v) {
    if (!v) return "nullptr";
    auto it = names_.find(v);
    if (it != names_.end()) return it->second;
    std::string name;
    if (v->is_constant()) {
      name = fmt::format("{}c{}", prefix(v), v->id);
      used_constants_.push_back(v);
      decls_.push_back(v);
    } else if (v->is_graph_output && !v->is_graph_input) {
      auto pos = std::find(g_.outputs.begin(), g_.outputs.end(), v) - g_.outputs.begin();
      name = "outputs." + out_names_[static_cast<size_t>(pos)];
    } else if (v->is_graph_input) {
      auto pos = std::find(g_.inputs.begin(), g_.inputs.end(), v) - g_.inputs.begin();
      name = "inputs." + in_names_[static_cast<size_t>(pos)];
    } else {
      if (input_view_.count(v)) ref(input_view_.at(v).first);  // names the input first
      name = fmt::format("{}t{}", prefix(v), v->id);
      decls_.push_back(v);
    }
    names_[v] = name;
    return name;
  }

  std::string emit_nodes() {
    std::string body;
    emit_graph_nodes(g_, body);
    // Graph outputs no node writes directly: inputs, constants, or a value listed twice.
    std::set<const Value*> written;
    for (size_t i = 0; i < g_.outputs.size(); ++i) {
      const Value* v = g_.outputs[i];
      bool direct = v->producer && !v->is_constant() && written.insert(v).second;
      if (direct) continue;
      includes_.insert("onnxc/base.h");
      body += fmt::format("  onnxc::copy_bytes(outputs.{}, {}, {});\n", out_names_[i], ref(v), v->bytes());
    }
    return body;
  }

  // The statements of `g`'s nodes (the main graph, or a control-flow subgraph emitted by its
  // node's handler through EmitContext::emit_subgraph).
  void emit_graph_nodes(const Graph& g, std::string& body) {
    for (const auto& n : g.nodes) {
      std::vector<std::string> in_names, out_names;
      for (const Value* v : n->inputs) in_names.push_back(v ? v->name : "-");
      for (const Value* v : n->outputs) {
        out_names.push_back(v ? fmt::format("{} {}[{}]", v->name, dtype_name(v->dtype), shape_str(v->shape)) : "-");
      }
      if (is_view_node(*n)) {
        body += fmt::format("  // {} '{}': {} is a view of {}: no code\n", n->op_type, n->name,
                            n->output(0)->name, n->input(0)->name);
        continue;
      }
      std::string scratch = "nullptr";
      if (n->scratch_bytes) scratch = fmt::format("(arena + {})", scratch_offset_.at(n.get()));
      body += fmt::format("  // {} '{}': ({}) -> ({})\n  {{\n", n->op_type, n->name, fmt::join(in_names, ", "),
                          fmt::join(out_names, ", "));
      EmitContext ctx(*n, [this](const Value* v) { return ref(v); }, scratch, &body, &includes_,
                      [this](const Graph& sub, std::string* out) { emit_graph_nodes(sub, *out); });
      n->handler->emit(ctx);
      body += "  }\n";
    }
  }

  const Module& m_;
  const Graph& g_;
  const CodegenOptions& o_;
  Diagnostics& diag_;
  std::vector<std::string> in_names_, out_names_;
  std::map<const Value*, size_t> arena_offset_;
  std::map<const Value*, std::pair<const Value*, size_t>> input_view_;  // root input, byte offset
  std::map<const Node*, size_t> scratch_offset_;
  std::map<const Value*, std::string> names_;
  std::map<const Value*, std::string> value_prefix_;  // subgraph values: "g<k>_"
  std::vector<const Value*> decls_;
  std::vector<const Value*> used_constants_;
  std::set<std::string> includes_;
};

}  // namespace

std::string cpp_identifier(const std::string& name) {
  std::string id;
  for (char c : name) id += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0])) || id[0] == '_' ||
      cpp_keywords().count(id))
    id = "v_" + id;
  return id;
}

bool generate_cpp(const Module& module, const CodegenOptions& options, GeneratedCode& out,
                  Diagnostics& diag) {
  for (const auto& v : module.graph->values)
    if (v->dtype == DataType::kString) {
      diag.error("value '{}': string tensors are not supported by the C++ backend", v->name);
      return false;
    }
  return Emitter(module, options, diag).run(out);
}

}  // namespace onnxc
