// The interface every op family implements. A handler, bound to a node by the registry:
//   1. infer():    parses and checks attributes and inputs, sets output types and static shapes,
//                  stores what emit() needs in the node's OpState. Every error names the node.
//   2. evaluate(): optional; computes outputs on the host when all inputs are constant, so shape
//                  subgraphs and weight transforms fold away. Uses the same runtime kernels
//                  as the generated code.
//   3. emit():     writes the C++ statements that run the node. It never validates: infer() did.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "base/checked_math.h"
#include "base/diagnostics.h"
#include "ir/ir.h"
#include "ir/target.h"
#include "onnxc/base.h"  // kMaxRank, index_t: limits of the runtime kernels
#include "ops/kernel_variants.h"

namespace onnxc {

// Binds every node of a control-flow subgraph to its handler and runs inference over it, in
// order, folding on demand as for the main graph; the subgraph's inputs must already carry their
// types and shapes. Values of enclosing graphs it reads are already inferred. Defined with the
// inference engine (ops/inference.cpp).
bool infer_subgraph(Graph& g, Diagnostics& diag, const Target& target);

class InferContext {
 public:
  InferContext(Node& node, Diagnostics& diag, const Target& target = default_target())
      : node_(node), diag_(diag), target_(target) {}

  Node& node() { return node_; }
  const Node& node() const { return node_; }
  int opset() const { return node_.opset; }
  // The target the code is generated for (--target): tile and scratch sizes follow its memory.
  const Target& target() const { return target_; }

  size_t num_inputs() const { return node_.inputs.size(); }
  size_t num_outputs() const { return node_.outputs.size(); }
  bool has_input(size_t i) const { return node_.input(i) != nullptr; }
  bool has_output(size_t i) const { return node_.output(i) != nullptr; }
  const Value* input(size_t i) const { return node_.input(i); }
  // The constant value of input i, or nullptr if it is absent or only known at run time. Asking
  // may fold the input's producer (the infer-shapes pass folds on demand).
  const Tensor* constant_input(size_t i) const;
  // Called by constant_input() on a non-constant input before giving up (see infer-shapes).
  void set_constant_demand(std::function<void(const Value*)> f) { demand_ = std::move(f); }
  // Checks the input/output counts against [min, max]; reports and returns false otherwise.
  bool check_arity(size_t min_in, size_t max_in, size_t min_out, size_t max_out);
  // Checks input i has one of `allowed` dtypes; reports and returns false otherwise.
  bool check_dtype(size_t i, std::initializer_list<DataType> allowed);

  bool has_attr(const std::string& name) const { return node_.attr(name) != nullptr; }
  // Typed attribute getters: return `def` when absent; report a kind mismatch as an error.
  int64_t attr_int(const std::string& name, int64_t def);
  float attr_float(const std::string& name, float def);
  std::string attr_string(const std::string& name, const std::string& def);
  std::vector<int64_t> attr_ints(const std::string& name, std::vector<int64_t> def = {});
  std::vector<float> attr_floats(const std::string& name, std::vector<float> def = {});
  const Tensor* attr_tensor(const std::string& name);

  // Records "node 'N' (Op): message" and returns false, so handlers can `return ctx.fail(...)`.
  template <typename... Args>
  bool fail(fmt::format_string<Args...> f, Args&&... args) {
    diag_.node_error(node_.name, node_.op_type, f, std::forward<Args>(args)...);
    return false;
  }
  // Normalizes a possibly negative axis against `rank`; reports out-of-range axes.
  bool normalize_axis(int64_t& axis, int64_t rank, const char* what = "axis");

  // Refuses (reports and returns false) a shape with a negative dim, or whose element count or
  // byte size overflows int64 or exceeds kMaxTensorBytes (base/checked_math.h).
  bool set_output(size_t i, DataType dtype, Shape shape);
  // Sets an output whose value is known at compile time (it is folded: no code is emitted for it).
  void set_output_constant(size_t i, Tensor value);
  void request_scratch(size_t bytes) { node_.scratch_bytes = bytes; }
  // Control flow: binds handlers in and infers a subgraph of this node whose inputs' types and
  // shapes the caller has set (see infer_subgraph). Errors name the subgraph's nodes.
  bool infer_subgraph(Graph& g) { return onnxc::infer_subgraph(g, diag_, target_); }
  template <typename S>
  S& make_state() {
    node_.state = std::make_unique<S>();
    return static_cast<S&>(*node_.state);
  }

  // Rewriting during inference (sequences, optionals, unrolled loops; see ops/containers.h). The
  // graph that owns the node (set by infer-shapes; null elsewhere, where nothing may rewrite).
  void set_graph(Graph* g) { graph_ = g; }
  Graph* graph() const { return graph_; }
  // Once infer() returns true, the node is replaced by `nodes` (new nodes of graph(), possibly
  // none), which infer-shapes infers next. The node's output values stay: a replacement node may
  // produce them, a container output keeps its elements, a constant output its value.
  void replace_node(std::vector<std::unique_ptr<Node>> nodes) {
    replacement_ = std::move(nodes);
    replaced_ = true;
  }
  bool replaced() const { return replaced_; }
  std::vector<std::unique_ptr<Node>> take_replacement() { return std::move(replacement_); }

 private:
  const Attribute* attr_of_kind(const std::string& name, Attribute::Kind kind);
  Node& node_;
  Diagnostics& diag_;
  const Target& target_;
  std::function<void(const Value*)> demand_;
  Graph* graph_ = nullptr;
  bool replaced_ = false;
  std::vector<std::unique_ptr<Node>> replacement_;
};

// Writes the statements for one node. Tensor expressions name typed pointers that the code
// generator declared before the node (arena slices, weights, graph inputs and outputs).
class EmitContext {
 public:
  // `ref` names a value's typed pointer, declaring it the first time it is asked for.
  using ValueRef = std::function<std::string(const Value*)>;
  // Emits the statements of a control-flow node's subgraph into `body`: its nodes in order, or
  // only `only` (one of its nodes) when that is not null.
  using SubgraphEmitter = std::function<void(const Graph&, const Node* only, std::string* body)>;
  EmitContext(const Node& node, ValueRef ref, std::string scratch, std::string* body,
              std::set<std::string>* includes, SubgraphEmitter subgraph = nullptr)
      : node_(node),
        ref_(std::move(ref)),
        scratch_(std::move(scratch)),
        body_(body),
        includes_(includes),
        subgraph_(std::move(subgraph)) {}
  // Control flow: the statements of subgraph `g` of this node, inline at this point.
  void emit_subgraph(const Graph& g) { subgraph_(g, nullptr, body_); }
  // Control flow: the statements of one node of subgraph `g`, for a handler that interleaves
  // its own statements between the body's nodes (a row pipeline).
  void emit_subgraph_node(const Graph& g, const Node& node) { subgraph_(g, &node, body_); }
  // `T*` (or `const T*`) expression for any value: a subgraph's inputs and outputs, outer values.
  std::string ref(const Value* v) const { return ref_(v); }

  const Node& node() const { return node_; }
  const Value* input(size_t i) const { return node_.input(i); }
  const Value* output(size_t i) const { return node_.output(i); }
  // `const T*` expression for input i ("nullptr" when the optional input is absent).
  std::string in(size_t i) const { return ref_(node_.input(i)); }
  // `T*` expression for output i ("nullptr" when the optional output is absent).
  std::string out(size_t i) const { return ref_(node_.output(i)); }
  // `unsigned char*` expression for the node's scratch workspace (see request_scratch).
  const std::string& scratch() const { return scratch_; }
  // Requests a runtime header, e.g. include("onnxc/conv.h").
  void include(const std::string& header) { includes_->insert(header); }

  template <typename... Args>
  void line(fmt::format_string<Args...> f, Args&&... args) {
    *body_ += "    ";
    *body_ += fmt::format(f, std::forward<Args>(args)...);
    *body_ += '\n';
  }

 private:
  const Node& node_;
  ValueRef ref_;
  std::string scratch_;
  std::string* body_;
  std::set<std::string>* includes_;
  SubgraphEmitter subgraph_;
};

// C++ literal helpers for emit(): "{1, 3, 224, 224}", "1.5f", etc.
std::string cpp_int64(int64_t v);  // INT64_MIN, which has no literal, as (-9223372036854775807 - 1)
std::string cpp_ints(const std::vector<int64_t>& v);
std::string cpp_float(double v);   // exact, round-trippable float literal ("1.0f", "INFINITY")
std::string cpp_double(double v);  // as above, for double
std::string cpp_scalar(DataType dtype, double v);  // a literal of the element type

// How a node's output 0 may share memory with its inputs (see OpHandler::alias). The
// assign-storage pass decides whether it does; codegen prints no code for a node made a view.
enum class AliasKind {
  kNone,
  kView,  // output 0 is input 0's bytes from AliasInfo::byte_offset on (Reshape, contiguous Slice)
  kInPlace,  // output 0 may overwrite any input of its dtype and shape: element i of each input
             // is read before element i of the output is written (elementwise ops)
  kConcat,   // output 0 is the inputs end to end (Concat of outer size 1): when each input's
             // producer writes straight into its slice, the node has nothing left to do
};
struct AliasInfo {
  AliasKind kind = AliasKind::kNone;
  size_t byte_offset = 0;  // kView only
};

// A braced initializer whose values say which field they fill, so generated code documents its
// kernel parameters: labeled({{"batch", "1"}, {"dims", cpp_ints(d)}}) gives
// "{/*batch=*/1, /*dims=*/{2, 3}}", wrapped over indented lines when long.
struct Field {
  const char* name;
  std::string value;
};
std::string labeled(const std::vector<Field>& fields);

// What a random op guarantees of one output (ops/tensor/random.cpp). Its values come from onnxc's
// own generator, not the reference's, so `onnxc test` checks these instead of the expected values.
struct RandomRange {
  bool random = false;                      // the output is drawn at random
  double low = -HUGE_VAL, high = HUGE_VAL;  // every value lies in [low, high] (finite if unbounded)
  bool integral = false;                    // every value is a whole number
};

// One input of a node as its kernel variant reads it (OpHandler::packed_inputs).
struct PackedInput {
  size_t input;
  Tensor tensor;
};

// How a node split into kernel_tasks() parts divides its work (`onnxc inspect --threads`): the
// grid its parallel form runs, and its largest part's share of the serial work (above 1 / parts
// where the parts are unequal, or repeat work as a convolution's packing does).
struct PartsPlan {
  std::string grid;
  double largest_share = 1.0;
};

struct OpHandler {
  virtual ~OpHandler() = default;
  // Random ops override this; the default says "not random".
  virtual RandomRange random_range(const Node& /*node*/, size_t /*output*/) const { return {}; }
  // Memory sharing the op allows for this (inferred) node; none by default.
  virtual AliasInfo alias(const Node& /*node*/) const { return {}; }
  virtual bool infer(InferContext& ctx) const = 0;
  // Fills `outputs` (already sized to the node's outputs, typed and shaped by infer) from
  // constant `inputs` (nullptr for absent ones). Returns false when the handler cannot fold.
  virtual bool evaluate(const Node& /*node*/, const std::vector<const Tensor*>& /*inputs*/,
                        std::vector<Tensor>& /*outputs*/) const {
    return false;
  }
  virtual void emit(EmitContext& ctx) const = 0;
  // Kernel variants (ops/kernel_variants.h): what this inferred node is, for the rows of
  // onnxc/variants.h to be matched against (its families, dtype, shape, constant weights); an
  // empty `families` when the handler runs no variants. The handler describes; select-kernels
  // picks the first row that fits (kernel_fits) and its parts (kernel_parts), then calls
  // use_kernel(): the handler records the variant and the parts (it may lower them) in the
  // node's state for emit() and returns the scratch bytes it needs.
  virtual KernelQuery describe_kernel_query(const Node& /*node*/) const { return {}; }
  virtual size_t use_kernel(Node& /*node*/, const KernelVariant& /*variant*/, int /*tasks*/) const {
    return 0;
  }
  // After use_kernel: the parts (--threads) the chosen variant runs in, 1 when it stays whole.
  virtual int kernel_tasks(const Node& /*node*/) const { return 1; }
  // After use_kernel: how those parts divide the work. The default: kernel_tasks() parts of the
  // query's max_parts units (channels, columns) in whole units, else equal parts.
  virtual PartsPlan parts_plan(const Node& node) const;
  // The constant inputs the chosen variant reads in a layout of its own (weights packed into the
  // panels its register tiles load, per-channel constants computed at compile time):
  // pack-weights replaces input `input` by `tensor` (an absent optional input is added). Empty
  // when the node's kernel reads every input as ONNX lays it out (the default).
  virtual std::vector<PackedInput> packed_inputs(const Node& /*node*/) const { return {}; }
};

}  // namespace onnxc
