// The typed SSA IR. Every Value has exactly one producer (a Node, a graph input or a constant) and
// carries an element type and, once inference has run, a static shape. Nodes keep their op, the
// opset version of their domain, attributes, and inputs/outputs. Subgraphs (If/Loop/Scan bodies)
// hang off graph-valued attributes. The IR never refers to protobuf.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/checked_math.h"
#include "ir/dtype.h"
#include "ir/target.h"

namespace onnxc {

using Shape = std::vector<int64_t>;
int64_t shape_numel(const Shape& s);
std::string shape_str(const Shape& s);  // "1x3x224x224", "scalar" for rank 0

// A constant tensor: little-endian raw bytes in ONNX layout (sub-byte types packed).
struct Tensor {
  DataType dtype = DataType::kUndefined;
  Shape shape;
  std::vector<uint8_t> data;         // dtype_bytes(dtype, numel) bytes, unless dtype is string
  std::vector<std::string> strings;  // only for DataType::kString

  int64_t numel() const { return shape_numel(shape); }
  template <typename T>
  const T* as() const {
    return reinterpret_cast<const T*>(data.data());
  }
  template <typename T>
  T* as() {
    return reinterpret_cast<T*>(data.data());
  }
  // Reads element i of an integer tensor (int8..int64, uint8..uint64, bool) as int64.
  int64_t int_at(int64_t i) const;
  std::vector<int64_t> to_ints() const;
  // Reads element i of a float/double/integer tensor as double.
  double double_at(int64_t i) const;
  static Tensor zeros(DataType dtype, Shape shape);
};

struct Graph;
struct Node;
struct Value;

// Where a value's bytes live at run time. assign-storage decides views and in-place writes,
// plan-memory gives arena offsets; codegen only prints the result.
struct Storage {
  enum class Kind {
    kUnplanned,    // no plan yet
    kArena,        // its own buffer in the arena at `offset`
    kView,         // the bytes of `alias_of` starting `offset` bytes in; its node emits no code
    kInPlace,      // its node writes it over `alias_of` (offset 0), which dies at that node
    kSlice,        // its node writes it into `alias_of` at `offset` (a Concat's output that then
                   // runs no code); it dies at that Concat
    kGraphInput,   // the caller's input buffer
    kGraphOutput,  // the caller's output buffer
    kConstant,     // the weights blob
  };
  Kind kind = Kind::kUnplanned;
  const Value* alias_of = nullptr;  // kView, kInPlace, kSlice
  size_t offset = 0;  // kArena: arena offset; kView, kSlice: byte offset into alias_of

  bool shares() const {
    return kind == Kind::kView || kind == Kind::kInPlace || kind == Kind::kSlice;
  }
};
const char* storage_kind_name(Storage::Kind k);

// What a value holds (the ONNX TypeProto it has): a tensor, or a container of tensors. Containers
// are compile-time facts: the sequence and optional ops (ops/control/sequence.cpp,
// ops/control/optional.cpp) resolve them during infer-shapes into the tensor values they hold, and
// replace their nodes by tensor nodes, so no node reads or writes a container after inference and
// codegen sees only tensors (sequence and optional graph inputs and outputs are flattened into
// tensors). A map (ai.onnx.ml's map(K, V)) is two 1-D tensors of one length, its keys and its
// values, with `dtype` the values' type; graph inputs and outputs show them as NAME.keys and
// NAME.values.
enum class ValueKind { kTensor, kSequence, kOptional, kMap };
const char* value_kind_name(ValueKind k);

struct Value {
  int id = -1;
  std::string name;
  DataType dtype = DataType::kUndefined;
  Shape shape;
  bool has_shape = false;                  // set by inference (or import) once static
  std::vector<std::string> dim_params;     // as declared on graph inputs/outputs; "" where numeric
  Node* producer = nullptr;                // null for graph inputs and constants
  std::shared_ptr<const Tensor> constant;  // initializers and folded values
  bool is_graph_input = false;
  bool is_graph_output = false;
  Storage storage;  // set by assign-storage and plan-memory
  // Containers (kind != kTensor; `dtype` is then the element type, `shape` unused): a sequence's
  // values in order (tensors, or maps); an optional's value (none when empty), a tensor or a
  // sequence, and for an empty one the kind it would hold; a map's keys and values tensors.
  ValueKind kind = ValueKind::kTensor;
  std::vector<Value*> elements;
  ValueKind contained = ValueKind::kTensor;
  // A sequence whose length is known only at run time (grown in a Loop that --max-trip-count
  // bounds, ops/control/unroll.cpp) has no `elements`: its tensors are the first `count` (int64[1])
  // rows of `rows`, a scan output of that Loop ([bound, element dims...], marked `sequence_rows`).
  Value* rows = nullptr;
  Value* count = nullptr;
  bool sequence_rows = false;

  // String tensors: the most bytes one element holds (its slot is that plus a NUL, see
  // runtime/onnxc/strings.h). Set by the importer (graph inputs) and by the handler that
  // writes the value; a constant's is its longest string.
  int64_t string_capacity = 0;
  // Main-graph inputs and outputs: the ValueInfoProto's doc_string (the generated header lists it).
  std::string doc_string;

  bool is_container() const { return kind != ValueKind::kTensor; }
  bool is_constant() const { return constant != nullptr; }
  // Makes this value the compile-time constant `t`, of t's type and shape.
  void set_constant(Tensor t);
  int64_t numel() const { return shape_numel(shape); }
  int64_t string_slot() const;  // bytes per string element: capacity + 1
  size_t bytes() const {
    return dtype == DataType::kString ? string_bytes(numel(), string_slot())
                                      : dtype_bytes(dtype, numel());
  }
};

// Attributes onnxc itself puts on nodes. No model can carry them: the validator refuses
// attributes an op's schema does not declare.
//   kMaxTripCountAttribute  a Loop's --max-trip-count bound (int)
//   kMapEntriesAttribute    a DictVectorizer/CastMap that reads a map's keys and values tensors
//                           (ops/ml/ml_map.cpp)
inline constexpr const char* kMaxTripCountAttribute = "onnxc.max_trip_count";
inline constexpr const char* kMapEntriesAttribute = "onnxc.map_entries";
//   kMeanOfSumsAttribute    a QLinearGlobalAveragePool that reads the sums a row pipeline added up
//                           (ops/quant/qpool.cpp): the count of elements each sum covers (int)
inline constexpr const char* kMeanOfSumsAttribute = "onnxc.mean_of_sums";
// The domain of the nodes onnxc makes itself and no model can name: RowPipeline (the patch-rows
// pass, ops/control/row_pipeline.cpp).
inline constexpr const char* kOnnxcDomain = "onnxc";
// The domain of SparseToDense, the node the importer makes for a sparse tensor that --keep-sparse
// keeps in COO form (ops/tensor/constant.cpp).
inline constexpr const char* kSparseDomain = "onnxc.sparse";

struct Attribute {
  enum class Kind {
    kUndefined,
    kFloat,
    kInt,
    kString,
    kTensor,
    kGraph,
    kFloats,
    kInts,
    kStrings,
    kTensors,
    kGraphs,
    kSparseTensor,
    kTypeProto,
    kSparseTensors,
    kTypeProtos
  };
  Kind kind = Kind::kUndefined;
  float f = 0;
  int64_t i = 0;
  std::string s;
  std::shared_ptr<const Tensor> t;
  std::shared_ptr<Graph> g;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<std::shared_ptr<const Tensor>> tensors;
  std::vector<std::shared_ptr<Graph>> graphs;
};
const char* attribute_kind_name(Attribute::Kind k);

struct OpHandler;

// Per-node state an op handler computes during inference (parsed attributes, derived sizes) and
// reads back when emitting. Handlers subclass it.
struct OpState {
  virtual ~OpState() = default;
};

struct Node {
  std::string name;  // never empty after import (a name is synthesized when the model has none)
  std::string op_type;
  std::string domain;           // "" for ai.onnx
  int opset = 0;                // opset version imported for `domain`
  std::vector<Value*> inputs;   // nullptr for an omitted optional input
  std::vector<Value*> outputs;  // nullptr for an omitted optional output
  std::map<std::string, Attribute> attributes;

  const OpHandler* handler = nullptr;  // bound by inference
  std::unique_ptr<OpState> state;      // set by the handler's infer()
  size_t scratch_bytes = 0;            // temporary workspace the kernel needs while it runs
  size_t scratch_offset = 0;           // its arena offset, set by plan-memory
  std::string kernel;                  // select-kernels: the kernel variant it calls ("" = none)
  int kernel_tasks = 1;                // select-kernels: the parts it runs in (--threads)
  bool elided = false;                 // assign-storage: its outputs already hold their values
                                       // (views, or a Concat whose inputs were written in place)

  const Attribute* attr(const std::string& n) const {
    auto it = attributes.find(n);
    return it == attributes.end() ? nullptr : &it->second;
  }
  Value* input(size_t i) const { return i < inputs.size() ? inputs[i] : nullptr; }
  Value* output(size_t i) const { return i < outputs.size() ? outputs[i] : nullptr; }
  template <typename S>
  const S& state_as() const {
    return static_cast<const S&>(*state);
  }
};

struct Graph {
  std::string name;
  // Subgraphs (If/Loop/Scan bodies) read enclosing graphs' values directly: a name a body does not
  // define resolves, at import, to the enclosing graph's Value (owned there). A subgraph's inputs
  // and outputs are not flagged is_graph_input/is_graph_output (those mean the caller's buffers).
  std::vector<std::unique_ptr<Value>> values;  // owns every value of this graph
  std::vector<std::unique_ptr<Node>> nodes;    // in topological order
  std::vector<Value*> inputs;
  std::vector<Value*> outputs;
  // A row pipeline's body (ops/control/row_pipeline.cpp): its inputs persist across iterations,
  // but each node's outputs are read only until the next node runs (its handler copies them out
  // right after the node), so the outputs and scratch of different nodes may share bytes.
  bool node_outputs_transient = false;
  // Main graph: each output's type and shape as the model declares them (parallel to `outputs`),
  // the contract a caller sizes buffers from; infer-shapes checks inference agrees with it.
  struct DeclaredType {
    DataType dtype = DataType::kUndefined;  // kUndefined: not declared
    bool has_shape = false;
    std::vector<int64_t> dims;  // -1 where the dim is symbolic or unknown
  };
  std::vector<DeclaredType> declared_outputs;

  Value* add_value(std::string name);
  Value* add_constant(std::string name, Tensor t);  // add_value + set_constant
  Node* add_node(std::unique_ptr<Node> n);
  Value* find_value(const std::string& name) const;
  // Removes nodes whose outputs are unused and are not graph outputs; drops unreferenced values.
  void remove_dead_nodes();
};

// ---- Nested graphs (control flow) ----------------------------------------------------------
// The graphs held by a node's graph-valued attributes (If branches, Loop/Scan bodies).
std::vector<Graph*> subgraphs_of(const Node& node);
// Values a node's subgraphs (at any depth) read but do not own: enclosing graphs' values (its
// "implicit inputs"). Passes treat them as extra inputs of the node: live until it runs.
std::vector<Value*> implicit_inputs(const Node& node);
// Every value of `graph` and, after them, of its subgraphs at any depth (depth-first, in node
// order): deterministic, for codegen and planning.
std::vector<Value*> all_values(const Graph& graph);
// Every node of the subgraphs of `graph`'s nodes, at any depth (not the graph's own nodes).
std::vector<Node*> nested_nodes(const Graph& graph);

// The arena plan of the main graph (plan-memory); per-value placement is in Value::storage.
struct MemorySummary {
  bool planned = false;
  size_t arena_bytes = 0;             // the workspace the generated run() needs
  size_t live_bytes_lower_bound = 0;  // max over nodes of the bytes live at once (views once)
  std::string planner;                // name of the placement heuristic
  // --check-bounds: plan-memory left `guard_bytes` after every arena buffer; codegen fills and
  // verifies these zones (see passes/plan_memory.cpp). Empty without the flag.
  struct Guard {
    size_t offset = 0;                 // arena offset of the zone (just past its buffer)
    const Value* root = nullptr;       // the buffer's storage-root value, or
    const Node* scratch_of = nullptr;  // the node whose scratch it follows, or
    const Node* region_of = nullptr;   // the control-flow node whose subgraph region it follows
  };
  size_t guard_bytes = 0;
  std::vector<Guard> guards;
};

struct Module {
  std::string model_name;  // file stem, for diagnostics and the default namespace
  std::string source_path;
  std::string model_hash;  // sha256 of the model file bytes
  int64_t ir_version = 0;
  std::string producer_name, producer_version;
  std::map<std::string, int> opsets;  // domain -> version ("" is ai.onnx)
  std::unique_ptr<Graph> graph;
  const Target* target = &default_target();  // --target
  // --max-bytes: no tensor, arena or weights blob may be larger (plan-memory refuses the model),
  // so every size the generated header states is proved to fit it.
  int64_t max_bytes = kMaxTensorBytes;
  bool check_bounds = false;  // --check-bounds: guard zones and checksums in the generated code
  // --max-arena: the RAM budget the patch-rows pass plans for (0: none) and what it did.
  size_t max_arena = 0;
  struct RowBands {
    bool applied = false;
    size_t bound_before = 0, bound_after = 0;  // predicted layer-by-layer bounds (no scratch)
    std::string stages;                        // the nodes run in bands
    int64_t band_rows = 0, iterations = 0;
    int64_t extra_macs = 0, chain_macs = 0;  // rows computed past the edges; the stages' MACs
  };
  RowBands rows;
  MemorySummary memory;

  // What the model says about itself, for the generated header (codegen/model_info.cpp) and
  // `inspect`: ModelProto's domain, model_version, doc_string and metadata_props, the main
  // graph's name, doc_string and metadata_props (IR >= 10); graph inputs' and outputs'
  // doc strings are on their Values.
  using KeyValues = std::vector<std::pair<std::string, std::string>>;
  std::string domain, doc_string, graph_name, graph_doc_string;
  int64_t model_version = 0;
  KeyValues metadata_props, graph_metadata_props;
  // Each TrainingInfoProto, validated (frontend/validator.cpp) but not compiled: the generated
  // code runs the inference graph. Kept so that the header and `inspect` report it.
  struct TrainingInfo {
    std::string algorithm;       // the algorithm graph's name
    size_t algorithm_nodes = 0;  // its node count
    std::string initialization;  // the initialization graph's name ("" when absent)
    size_t initialization_nodes = 0;
    KeyValues initialization_binding, update_binding;  // state variable -> graph output
  };
  std::vector<TrainingInfo> training_info;
};

}  // namespace onnxc
