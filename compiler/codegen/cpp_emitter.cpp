#include "codegen/cpp_emitter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "base/version.h"
#include "codegen/bounds_checks.h"
#include "codegen/identifiers.h"
#include "codegen/model_info.h"
#include "codegen/runtime_inliner.h"
#include "codegen/weights.h"
#include "ir/stack_bound.h"
#include "ops/op.h"

namespace onnxc {
namespace {

// Names the generated run() and its file declare; values never take them.
const char* const kEmitterNames[] = {"inputs", "outputs", "workspace", "weights",
                                     "arena",  "blob",    "kWeights",  "run",
                                     "Inputs", "Outputs", "parallel"};

// Unique member names for the Inputs/Outputs structs.
std::vector<std::string> member_names(const std::vector<Value*>& values) {
  IdentifierTable table;
  table.reserve("Inputs");  // a member may not share its struct's name
  table.reserve("Outputs");
  std::vector<std::string> names;
  for (const Value* v : values) names.push_back(table.unique(v->name));
  return names;
}

// The names emit() declares inside node blocks ("p", "lo", "half_in0"): the identifier before
// " = " of every statement that declares something.
void collect_declared_names(const std::string& text, std::set<std::string>& names) {
  size_t pos = 0;
  while ((pos = text.find(" = ", pos)) != std::string::npos) {
    size_t end = pos, begin = pos;
    while (begin > 0 &&
           (std::isalnum(static_cast<unsigned char>(text[begin - 1])) || text[begin - 1] == '_'))
      --begin;
    size_t line_start = text.rfind('\n', begin);
    line_start = line_start == std::string::npos ? 0 : line_start + 1;
    const std::string before = text.substr(line_start, begin - line_start);
    if (begin < end && before.find_first_not_of(' ') != std::string::npos)
      names.insert(text.substr(begin, end - begin));
    pos += 3;
  }
}

// Pastes a runtime header and, first, the onnxc/ headers it includes (once each).
void inline_header(const std::string& path, std::set<std::string>& done, std::string& out) {
  if (!done.insert(path).second) return;
  std::string text = embedded_runtime_header(path);
  std::string body;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    std::string line = text.substr(pos, eol - pos);
    pos = eol + 1;
    const std::string included = included_runtime_header(line);
    if (!included.empty()) {
      inline_header(included, done, out);
      continue;
    }
    body += line + "\n";
  }
  out += fmt::format("// ---- runtime/{} ----\n{}", path, body);
}

// With --profile only: per-node timing hooks the host may define (onnxc bench's driver does);
// `node` is the node's index in the top-level graph.
// What the header tells the user of a model whose code calls one of these runtime headers: the
// extra codes run() may return and what the build must add.
struct RuntimeNote {
  const char* header;
  const char* note;
};
const RuntimeNote kRuntimeNotes[] = {
    {"onnxc/image_decoder.h",
     "// ImageDecoder: run() returns onnxc::kErrorImageFormat (6) for an image it cannot decode\n"
     "// and onnxc::kErrorImageSize (7) for one of another size. BMP, PNM, PNG, TIFF and JPEG\n"
     "// need no library. WebP and JPEG 2000 decode only when the .cpp is built with\n"
     "// -DONNXC_IMAGE_LIBS and linked with libwebp and libopenjp2 (pkg-config libwebp\n"
     "// libopenjp2; onnxc_add_model's IMAGE_LIBS option); those two allocate on the heap.\n"},
    {"onnxc/ml_map.h",
     "// Maps: run() returns onnxc::kErrorMapKey (8) when a CastMap input repeats a key or, with\n"
     "// map_form SPARSE, has a key outside [0, max_map).\n"},
};

constexpr const char* kProfileHooks =
    "\n// --profile: define ONNXC_PROFILE_BEGIN/END(node) before this file to time each node.\n"
    "#ifndef ONNXC_PROFILE_BEGIN\n#define ONNXC_PROFILE_BEGIN(node) static_cast<void>(0)\n#endif\n"
    "#ifndef ONNXC_PROFILE_END\n#define ONNXC_PROFILE_END(node) static_cast<void>(0)\n#endif\n";

class Emitter {
 public:
  Emitter(const Module& m, const CodegenOptions& o, Diagnostics& d)
      : m_(m), g_(*m.graph), o_(o), diag_(d), bounds_(m, arena_offset_) {}

  bool run(GeneratedCode& out) {
    in_names_ = member_names(g_.inputs);
    out_names_ = member_names(g_.outputs);
    if (!read_memory_plan()) return false;
    reserve_names();
    planned_weights_ = layout_weights(g_, dry_run_constants_, external());
    std::string body = emit_nodes();
    if (!diag_.ok()) return false;
    WeightBlob blob = layout_weights(g_, used_constants_, external());
    if (blob.offsets != planned_weights_.offsets) {
      diag_.error("internal: emit() referenced different constants in its dry run");
      return false;
    }
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
    AliasChains chains;
    for (const Value* v : all_values(g_)) {  // control-flow subgraphs' values too
      const Value* root = chains.root(v);
      size_t off = chains.offset(v);
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

  // Names the model by file name and hash and lists the flags that shape the output: no paths,
  // no machine, no time, so the same model bytes and flags give the same files anywhere.
  std::string banner() const {
    return fmt::format(
        "// Generated by onnxc {} (build {}). Do not edit.\n"
        "// Model: {} (sha256 {})\n// Flags: {}\n",
        kOnnxcVersion, kOnnxcBuildId, escape_model_text(m_.source_path), m_.model_hash,
        o_.flags.empty() ? "(none)" : escape_model_text(o_.flags));
  }

  bool external() const { return o_.weights == WeightsMode::kExternal; }
  bool linked() const { return o_.weights == WeightsMode::kLinked; }

  // --weights linked: the array the LLVM backend defines from the blob, in the same byte order
  // and alignment as the embedded kWeights (one byte shorter: no string literal's NUL).
  std::string linked_weights_declaration(size_t bytes) const {
    return fmt::format(
        "// The weights: defined from onnxc's bytes by the LLVM backend (little-endian, in\n"
        "// section .rodata.onnxc_weights), not written here.\n"
        "extern \"C\" alignas(64) const unsigned char {}[{}];\n\n",
        linked_weights_symbol(o_.name), bytes);
  }

  // --threads N: run() takes the pool its kernels' parts run on (onnxc/parallel.h).
  bool threaded() const { return m_.target->threads > 1; }

  std::string run_signature() const {
    return fmt::format("int run(const Inputs& inputs, const Outputs& outputs, void* workspace{}{})",
                       external() ? ", const void* weights" : "",
                       threaded() ? ", const onnxc::Parallel& parallel" : "");
  }
  std::string c_signature() const {
    return fmt::format(
        "int {}_run(const void* const* inputs, void* const* outputs, void* workspace{}{})", o_.name,
        external() ? ", const void* weights" : "", threaded() ? ", const void* parallel" : "");
  }

  // The runtime headers the model's header pastes (--runtime inline): its API's types.
  std::vector<std::string> header_runtime() const {
    if (threaded()) return {"onnxc/types.h", "onnxc/parallel.h"};
    return {"onnxc/types.h"};
  }

  std::string header(size_t weight_bytes) const {
    std::string s = banner();
    s += "#pragma once\n\n#include <cstddef>\n#include <cstdint>\n\n";
    if (o_.runtime == RuntimeMode::kInclude) {
      s += "#include \"onnxc/types.h\"\n";
      if (threaded()) s += "#include \"onnxc/parallel.h\"\n";
      s += "\n";
    } else {
      std::set<std::string> done;
      for (const std::string& h : header_runtime()) inline_header(h, done, s);
      s += "\n";
    }
    s += fmt::format("namespace {} {{\n\n", o_.name);
    s += fmt::format(
        "// Bytes of scratch memory run() needs; pass a buffer aligned to kWorkspaceAlignment.\n"
        "constexpr std::size_t kWorkspaceSize = {};\n"
        "constexpr std::size_t kWorkspaceAlignment = {};\n",
        m_.memory.arena_bytes, kArenaAlignment);
    s += fmt::format(
        "// No arena for this schedule can be smaller: the most bytes live at once.\n"
        "constexpr std::size_t kLiveBytesLowerBound = {};\n",
        m_.memory.live_bytes_lower_bound);
    s += fmt::format(
        "// Most stack bytes one run() call uses on {}, library calls included: a bound from\n"
        "// onnxc's per-target table (ir/stack_bound.h), measured from -fcallgraph-info=su\n"
        "// call graphs and re-checked in CI by running on a stack of exactly this size.\n"
        "constexpr std::size_t kMaxStackBytes = {};\n",
        m_.target->name, max_stack_bytes(*m_.target));
    s += fmt::format("// Bytes of constant data ({}).\nconstexpr std::size_t kWeightsSize = {};\n",
                     external() ? "the external .bin file; pass it to run() 64-byte aligned"
                     : linked() ? "in the object file, section .rodata.onnxc_weights"
                                : "embedded in the .cpp",
                     weight_bytes);
    if (external())
      s += "// run() returns 0, or one of these (and computes nothing) when `weights` is not an "
           "onnxc\n"
           "// .bin, or is one whose byte order is not this CPU's (onnxc writes little-endian).\n"
           "constexpr int kErrorWeightsFormat = 1;\nconstexpr int kErrorWeightsByteOrder = 2;\n";
    for (const RuntimeNote& n : kRuntimeNotes)
      if (includes_.count(n.header)) s += n.note;
    s += fmt::format(
        "constexpr std::size_t kNumInputs = {};\nconstexpr std::size_t kNumOutputs = {};\n",
        g_.inputs.size(), g_.outputs.size());
    auto sizes = [](const std::vector<Value*>& vs) {
      std::vector<size_t> b;
      for (const Value* v : vs) b.push_back(v->bytes());
      b.push_back(0);  // keeps the array non-empty
      return fmt::format("{}", fmt::join(b, ", "));
    };
    s += fmt::format(
        "// Byte size of each input and output, in order (a trailing 0 ends the list).\n"
        "constexpr std::size_t kInputBytes[] = {{{}}};\n"
        "constexpr std::size_t kOutputBytes[] = {{{}}};\n",
        sizes(g_.inputs), sizes(g_.outputs));
    // plan-memory proved every size within --max-bytes; this proves them within this target's
    // size_t (the braced arrays above cannot narrow silently, these scalars could).
    s += fmt::format(
        "static_assert(kWorkspaceSize == {}ULL && kLiveBytesLowerBound == {}ULL && "
        "kWeightsSize == {}ULL,\n              \"a size of this model does not fit "
        "std::size_t\");\n\n",
        m_.memory.arena_bytes, m_.memory.live_bytes_lower_bound, weight_bytes);
    s += model_description(m_);
    s += "struct Inputs {\n";
    for (size_t i = 0; i < g_.inputs.size(); ++i)
      s += fmt::format("  const {}* {};  // '{}' {}[{}]{}\n", dtype_cpp(g_.inputs[i]->dtype),
                       in_names_[i], escape_model_text(g_.inputs[i]->name),
                       dtype_name(g_.inputs[i]->dtype), shape_str(g_.inputs[i]->shape),
                       slot_note(g_.inputs[i]));
    s += "};\nstruct Outputs {\n";
    for (size_t i = 0; i < g_.outputs.size(); ++i)
      s += fmt::format("  {}* {};  // '{}' {}[{}]{}\n", dtype_cpp(g_.outputs[i]->dtype),
                       out_names_[i], escape_model_text(g_.outputs[i]->name),
                       dtype_name(g_.outputs[i]->dtype), shape_str(g_.outputs[i]->shape),
                       slot_note(g_.outputs[i]));
    s += "};\n\n// Runs one inference. Returns 0 on success.\n";
    if (threaded())
      s += fmt::format(
          "// Compiled with --threads {0}: the heavy kernels run in {0} parts on `parallel` (an\n"
          "// onnxc::ThreadPool of onnxc/thread_pool.h, any pool behind onnxc::Parallel, or\n"
          "// onnxc::kSerial); the outputs are the same, bit for bit, whatever the pool.\n",
          m_.target->threads);
    s += run_signature() + ";\n\n";
    s += fmt::format("}}  // namespace {}\n\n", o_.name);
    s += "// C entry point: inputs and outputs as untyped pointers, in graph order.\n";
    s += "extern \"C\" " + c_signature() + ";\n";
    return s;
  }

  // String tensors: element i is the NUL-terminated string at p + i * slot (onnxc/strings.h).
  static std::string slot_note(const Value* v) {
    return v->dtype == DataType::kString
               ? fmt::format(", element i at +i*{} (NUL-terminated, onnxc/strings.h)",
                             v->string_slot())
               : "";
  }

  std::string source(const WeightBlob& blob, const std::string& body) const {
    std::string s = banner();
    s += fmt::format("#include \"{}\"\n\n", o_.header_file);
    if (o_.runtime == RuntimeMode::kInclude) {
      for (const auto& inc : includes_) s += fmt::format("#include \"{}\"\n", inc);
    } else {
      // What the code names: the statements, and the element types of the API in the header.
      std::string uses = body;
      for (const auto* list : {&g_.inputs, &g_.outputs})
        for (const Value* v : *list) uses += fmt::format(" {}", dtype_cpp(v->dtype));
      const std::vector<std::string> pasted = header_runtime();
      s += inline_runtime(includes_, uses, {pasted.begin(), pasted.end()});
    }
    if (o_.profile) s += kProfileHooks;
    s += bounds_.prelude();
    if (linked() && !used_constants_.empty())
      s += "\n" + linked_weights_declaration(blob.bytes.size());
    s += fmt::format("\nnamespace {} {{\nnamespace {{\n\n", o_.name);
    if (o_.weights == WeightsMode::kEmbedded && !used_constants_.empty()) {
      s += "// The weights are little-endian (ONNX's byte order): a big-endian target cannot use "
           "them.\n"
           "#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__\n"
           "#error \"onnxc: embedded weights are little-endian; this target is big-endian\"\n"
           "#endif\n";
      s += fmt::format("alignas(64) const unsigned char kWeights[{}] =\n", blob.bytes.size() + 1);
      append_string_literal(s, blob.bytes);
      s += ";\n\n";
    }
    s += "}  // namespace\n\n";
    s += run_signature() + " {\n";
    s += declarations();
    s += bounds_.entry();
    s += body;
    s += "  return 0;\n}\n\n";
    s += fmt::format("}}  // namespace {}\n\n", o_.name);
    s += "extern \"C\" " + c_signature() + " {\n";
    std::vector<std::string> ins, outs;
    for (size_t i = 0; i < g_.inputs.size(); ++i)
      ins.push_back(
          fmt::format("static_cast<const {}*>(inputs[{}])", dtype_cpp(g_.inputs[i]->dtype), i));
    for (size_t i = 0; i < g_.outputs.size(); ++i)
      outs.push_back(
          fmt::format("static_cast<{}*>(outputs[{}])", dtype_cpp(g_.outputs[i]->dtype), i));
    if (ins.empty()) s += "  (void)inputs;\n";
    if (outs.empty()) s += "  (void)outputs;\n";
    if (threaded())  // a null pool: the parts run one after another on the caller's thread
      s += "  const onnxc::Parallel& pool =\n"
           "      parallel ? *static_cast<const onnxc::Parallel*>(parallel) : onnxc::kSerial;\n";
    s += fmt::format("  return {}::run({}::Inputs{{{}}}, {}::Outputs{{{}}}, workspace{}{});\n}}\n",
                     o_.name, o_.name, fmt::join(ins, ", "), o_.name, fmt::join(outs, ", "),
                     external() ? ", weights" : "", threaded() ? ", pool" : "");
    return s;
  }

  // The base pointers at the top of run(); each value's pointer is declared before the first
  // node that uses it (see ref()).
  std::string declarations() const {
    std::string s = "  (void)inputs;  // unused when every output is a constant\n";
    if (threaded()) s += "  (void)parallel;  // unused when no kernel is worth splitting\n";
    bool uses_arena = false, uses_weights = !used_constants_.empty();
    for (const Value* v : decls_) uses_arena |= arena_offset_.count(v) > 0;
    uses_arena |= !scratch_offset_.empty() || bounds_.enabled();
    if (uses_arena)
      s += "  unsigned char* const arena = static_cast<unsigned char*>(workspace);\n";
    else
      s += "  (void)workspace;\n";
    if (external())
      s += "  const unsigned char* const blob = static_cast<const unsigned char*>(weights);\n" +
           weights_header_check();
    else if (uses_weights)
      s += fmt::format("  const unsigned char* const blob = {};\n",
                       linked() ? linked_weights_symbol(o_.name) : "kWeights");
    return s;
  }

  // Checks the external .bin's header (codegen/weights.h) before any weight is read: its magic,
  // and its byte-order mark against this CPU's order, so that a blob of the other byte order is
  // refused instead of computed with.
  static std::string weights_header_check() {
    std::string magic;
    for (char c : kWeightsMagic) magic += fmt::format("{}{}", magic.empty() ? "" : ", ", int{c});
    return fmt::format(
        "  {{\n"
        "    static constexpr unsigned char kMagic[{}] = {{{}}};\n"
        "    static constexpr std::uint32_t kByteOrderMark = 0x01020304u;\n"
        "    const unsigned char* const mark = reinterpret_cast<const unsigned "
        "char*>(&kByteOrderMark);\n"
        "    for (int i = 0; i < {}; ++i)\n"
        "      if (blob[i] != kMagic[i]) return kErrorWeightsFormat;\n"
        "    for (int i = 0; i < 4; ++i)\n"
        "      if (blob[{} + i] != mark[i]) return kErrorWeightsByteOrder;\n"
        "  }}\n",
        sizeof kWeightsMagic, magic, sizeof kWeightsMagic, sizeof kWeightsMagic);
  }

  // The dry run of emit() over `g` (and the bodies its control-flow nodes emit): notes the
  // constants it references and the locals it declares.
  void dry_run(const Graph& g, std::set<std::string>& declared, const Node* only = nullptr) {
    auto note = [this](const Value* v) {
      if (v && v->is_constant()) dry_run_constants_.push_back(v);
      return std::string(v ? "VALUE" : "nullptr");
    };
    for (const auto& n : g.nodes) {
      if (n->elided || (only && n.get() != only)) continue;  // elided: prints no code
      std::string text;
      std::set<std::string> includes;
      EmitContext ctx(*n, note, "SCRATCH", &text, &includes,
                      [this, &declared](const Graph& sub, const Node* only, std::string*) {
                        dry_run(sub, declared, only);
                      });
      n->handler->emit(ctx);
      collect_declared_names(text, declared);
    }
  }

  // Reserves the names generated code declares: the emitter's own, the model's namespace, and the
  // locals each node's emit() declares in its block (found by a dry run), so that no value's
  // identifier is shadowed by one of them.
  void reserve_names() {
    for (const char* n : kEmitterNames) locals_.reserve(n);
    if (bounds_.enabled()) locals_.reserve(BoundsChecks::local_name());
    locals_.reserve(o_.name);
    std::set<std::string> declared;
    dry_run(g_, declared);
    for (const Value* v : g_.outputs)
      if (v->is_constant()) dry_run_constants_.push_back(v);
    for (const auto& d : declared) locals_.reserve(d);
    // Identifiers in value order, so they do not depend on the order emit() asks for them.
    for (const Value* v : all_values(g_))
      if (v->is_constant() || !(v->is_graph_input || v->is_graph_output))
        identifier_[v] = locals_.unique(v->name);
  }

  // The C++ expression naming value v. On its first use, a constant or arena value gets an
  // identifier from its ONNX name and a pointer declaration, queued in pending_ to be printed
  // just before the node block that uses it.
  std::string ref(const Value* v) {
    if (!v) return "nullptr";
    auto it = names_.find(v);
    if (it != names_.end()) return it->second;
    std::string name;
    if (v->is_constant()) {
      name = identifier_.at(v);
      used_constants_.push_back(v);
      decls_.push_back(v);
      pending_.push_back(v);
    } else if (v->is_graph_output && !v->is_graph_input) {
      auto pos = std::find(g_.outputs.begin(), g_.outputs.end(), v) - g_.outputs.begin();
      name = "outputs." + out_names_[static_cast<size_t>(pos)];
    } else if (v->is_graph_input) {
      auto pos = std::find(g_.inputs.begin(), g_.inputs.end(), v) - g_.inputs.begin();
      name = "inputs." + in_names_[static_cast<size_t>(pos)];
    } else {
      if (input_view_.count(v)) ref(input_view_.at(v).first);  // names the input first
      name = identifier_.at(v);
      decls_.push_back(v);
      if (arena_offset_.count(v) || input_view_.count(v)) pending_.push_back(v);
    }
    names_[v] = name;
    return name;
  }

  size_t weight_offset(const Value* v) const { return planned_weights_.offsets.at(v); }

  // Declarations of the pointers queued by ref() since the last call, in the order of node n's
  // inputs and outputs.
  std::string flush_pending(const Node* n = nullptr) {
    auto rank = [n](const Value* v) {
      if (!n) return size_t{0};
      auto i = std::find(n->inputs.begin(), n->inputs.end(), v);
      if (i != n->inputs.end()) return static_cast<size_t>(i - n->inputs.begin());
      auto o = std::find(n->outputs.begin(), n->outputs.end(), v);
      return n->inputs.size() + static_cast<size_t>(o - n->outputs.begin());
    };
    std::stable_sort(pending_.begin(), pending_.end(),
                     [&](const Value* a, const Value* b) { return rank(a) < rank(b); });
    std::string s;
    // Typed pointers through void*: the planner aligns every offset (and the caller the arena
    // and blob) to kArenaAlignment, and the casts stay clean under -Wcast-align=strict.
    for (const Value* v : pending_) {
      const char* t = dtype_cpp(v->dtype);
      if (v->is_constant())
        s += fmt::format(
            "  const {0}* const {1} = static_cast<const {0}*>(static_cast<const void*>(blob + "
            "{2}));"
            "  // '{3}' {4}[{5}]\n",
            t, names_.at(v), weight_offset(v), escape_model_text(v->name), dtype_name(v->dtype),
            shape_str(v->shape));
      else if (input_view_.count(v))
        s += fmt::format(
            "  const {0}* const {1} = static_cast<const {0}*>(static_cast<const void*>("
            "static_cast<const unsigned char*>(static_cast<const void*>({2})) + {3}));  // a "
            "view\n",
            t, names_.at(v), names_.at(input_view_.at(v).first), input_view_.at(v).second);
      else
        s += fmt::format("  {0}* const {1} = static_cast<{0}*>(static_cast<void*>(arena + {2}));\n",
                         t, names_.at(v), arena_offset_.at(v));
    }
    pending_.clear();
    return s;
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
      const std::string src = ref(v);
      body += flush_pending();
      body += fmt::format("  onnxc::copy_bytes(outputs.{}, {}, /*bytes=*/{});\n", out_names_[i],
                          src, v->bytes());
    }
    return body;
  }

  // The statements of `g`'s nodes (the main graph, or a control-flow subgraph emitted by its
  // node's handler through EmitContext::emit_subgraph).
  void emit_graph_nodes(const Graph& g, std::string& body, const Node* only = nullptr) {
    for (size_t index = 0; index < g.nodes.size(); ++index) {
      const auto& n = g.nodes[index];
      if (only && n.get() != only) continue;
      std::vector<std::string> in_names, out_names;
      for (const Value* v : n->inputs) in_names.push_back(v ? escape_model_text(v->name) : "-");
      for (const Value* v : n->outputs) {
        out_names.push_back(v ? fmt::format("{} {}[{}]", escape_model_text(v->name),
                                            dtype_name(v->dtype), shape_str(v->shape))
                              : "-");
      }
      if (n->elided) {  // assign-storage: its output already holds its value
        body += fmt::format("  // {} '{}': {} {}: no code\n", escape_model_text(n->op_type),
                            escape_model_text(n->name), escape_model_text(n->output(0)->name),
                            n->output(0)->storage.kind == Storage::Kind::kView
                                ? "is a view of " + escape_model_text(n->input(0)->name)
                                : "was written in place by its inputs' producers");
        if (nesting_ == 0) body += bounds_.after_node(*n);
        continue;
      }
      std::string scratch = "nullptr";
      if (n->scratch_bytes) scratch = fmt::format("(arena + {})", scratch_offset_.at(n.get()));
      std::string block;
      EmitContext ctx(
          *n, [this](const Value* v) { return ref(v); }, scratch, &block, &includes_,
          [this](const Graph& sub, const Node* only, std::string* text) {
            ++nesting_;
            emit_graph_nodes(sub, *text, only);
            --nesting_;
          });
      n->handler->emit(ctx);
      body += fmt::format("  // {}{}: ({}) -> ({})\n", escape_model_text(n->op_type),
                          n->name.empty() ? "" : fmt::format(" '{}'", escape_model_text(n->name)),
                          fmt::join(in_names, ", "), fmt::join(out_names, ", "));
      // Inside a control-flow body, pointers stay queued: they are declared before the outermost
      // control-flow node's block, so each is in scope wherever that node's code uses it.
      if (nesting_ == 0) body += flush_pending(n.get());
      const bool timed = o_.profile && nesting_ == 0;  // a body is timed with its node
      if (nesting_ == 0) body += bounds_.before_node(*n);
      if (timed) body += fmt::format("  ONNXC_PROFILE_BEGIN({});\n", index);
      body += "  {\n" + block + "  }\n";
      if (timed) body += fmt::format("  ONNXC_PROFILE_END({});\n", index);
      if (nesting_ == 0) body += bounds_.after_node(*n);
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
  std::vector<const Value*> decls_;
  std::vector<const Value*> used_constants_;
  std::vector<const Value*> dry_run_constants_;
  WeightBlob planned_weights_;         // laid out from the dry run, before emission
  std::vector<const Value*> pending_;  // pointers to declare before the next node block
  int nesting_ = 0;                    // depth of control-flow bodies being emitted
  IdentifierTable locals_;             // identifiers in run()'s scope
  std::map<const Value*, std::string> identifier_;
  std::set<std::string> includes_;
  BoundsChecks bounds_;  // --check-bounds statements (all empty without the flag)
};

}  // namespace

std::string linked_weights_symbol(const std::string& name) {
  return name + "_onnxc_weights";
}

std::string cpp_identifier(const std::string& name) {
  return sanitize_namespace_name(name);  // the generated namespace: clear of global names too
}

bool generate_cpp(const Module& module, const CodegenOptions& options, GeneratedCode& out,
                  Diagnostics& diag) {
  return Emitter(module, options, diag).run(out);
}

}  // namespace onnxc
