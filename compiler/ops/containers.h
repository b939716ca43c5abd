// Sequences and optionals, resolved at compile time (ValueKind in ir/ir.h). A container value
// lists the tensor values it holds; the ops that build one (SequenceConstruct, Optional, ...)
// compute that list during infer-shapes and remove themselves, the ops that read one (SequenceAt,
// ConcatFromSequence, ...) replace themselves by tensor nodes (Identity, Concat, Slice, ...), so
// no container survives inference and codegen sees only tensors: no container storage at all.
// What cannot be known at compile time (a position computed at run time) is a compile error
// naming the node. One exception: a Loop that --max-trip-count bounds may grow the sequences it
// carries to a run-time length (Value::rows and Value::count; ops/control/unroll.cpp).
//
// Shared by ops/control/sequence.cpp, ops/control/optional.cpp, ops/control/unroll.cpp and the
// infer-shapes pass.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ops/op.h"

namespace onnxc {

// The handler infer-shapes runs instead of a node's own where containers need more than its
// tensor handler does (ops/control/unroll.cpp): Identity of a container; an If whose branches build
// containers (the taken branch is inlined: the condition must be a compile-time constant); a
// Loop carrying containers or building them in its body (unrolled: the trip count must be a
// compile-time constant). Null for every other node.
const OpHandler* container_handler(const Node& node);

// Main graph, after inference: each sequence/optional/map output is replaced by the tensors it
// holds, as graph outputs NAME.0, NAME.1, ... (a sequence; none when empty), NAME (a present
// optional tensor), nothing (an empty optional), NAME.keys and NAME.values (a map), nested as
// the types are (a sequence of maps: NAME.0.keys, ...). Each is an Identity of the element.
bool expose_container_outputs(Graph& graph, Diagnostics& diag, const Target& target);
// Drops `graph`'s container values (no node reads them once inference is done).
void drop_container_values(Graph& graph);

// ---- Rewriting helpers -------------------------------------------------------------------------
// A new ai.onnx node named "<from.name>/<suffix>" (unbound: infer-shapes binds it). Its outputs'
// producer is set to it.
std::unique_ptr<Node> make_node(const Node& from, const std::string& op, int opset,
                                const std::string& suffix, std::vector<Value*> inputs,
                                std::vector<Value*> outputs);
// A new int64 constant (a scalar when `scalar`, else 1-D).
Value* add_int64s(Graph& graph, const std::string& name, const std::vector<int64_t>& v,
                  bool scalar = false);
// Sets `v` to a sequence of `elements` with element type `dtype`.
void set_sequence(Value* v, DataType dtype, std::vector<Value*> elements);
// Sets `v` to a map whose keys and values are the 1-D tensors `keys` and `values`.
void set_map(Value* v, Value* keys, Value* values);
// Gives `to` the kind, type and elements of container `from`.
void copy_container(Value* to, const Value* from);

// Copies `body`'s nodes (nested subgraphs too) as new nodes whose values live in `into`: a body
// value found in `map` stands for what it maps to (the caller maps the body's inputs), other body
// values get fresh copies named NAME<tag> (added to `map`), enclosing graphs' values stay.
std::vector<std::unique_ptr<Node>> clone_nodes(const Graph& body, Graph& into,
                                               const std::string& tag,
                                               std::map<const Value*, Value*>& map);
// What `v`, a value of a body cloned by clone_nodes(), became in the copy.
Value* cloned(Value* v, Graph& into, const std::string& tag, std::map<const Value*, Value*>& map);

// How many times nodes of `g` (at any depth) read `v`.
int64_t reads(const Graph& g, const Value* v);
// True if `graph` (at any depth) has a sequence or optional op.
bool has_container_ops(const Graph& graph);
// Whether a Loop body's condition output is its condition input passed through (Identity
// chains) or a constant true: then the loop never ends early on its own
// (ops/control/control_flow.cpp).
bool loop_condition_stays(const Graph& body);

}  // namespace onnxc
