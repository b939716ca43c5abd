// Graph queries and edits shared by the fusion passes (fuse_*.cpp, fold_batchnorm.cpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/diagnostics.h"
#include "ir/ir.h"

namespace onnxc::fusion {

// Uses of v: node inputs (including nodes of subgraphs, by name, since bodies capture outer
// values by name) plus one if v is a graph output.
int count_uses(const Graph& g, const Value* v);

// The only node reading v, when v has exactly one use and is not a graph output; else null.
Node* sole_user(const Graph& g, const Value* v);

// Index of n in g.nodes (g.nodes.size() if absent).
size_t position(const Graph& g, const Node* n);

// Re-runs n's handler infer() after a rewrite; reports (as an onnxc bug) and returns false if
// the handler rejects the rewritten node.
bool reinfer(Node& n, const Target& target, Diagnostics& diag, const char* pass);

// A new value named after `base` (made unique in g), without type or producer yet.
Value* add_value(Graph& g, const std::string& base);

// A new constant value named after `base` (made unique in g).
Value* add_constant(Graph& g, const std::string& base, Tensor t);

// Makes `from`'s producer write `to` instead: `to` takes over the producer, and `from` is left
// without a producer (unused). Used when node B(A(x)) collapses into A writing B's output.
void take_output(Node& producer, Value* from, Value* to);

// A new node of n's op (name, op, domain, opset, attributes), reading n's inputs, with no
// outputs, handler, state or kernel yet: for a pass that reruns n elsewhere (in a scratch graph,
// in a body) on other inputs.
std::unique_ptr<Node> clone_op(const Node& n);

// Removes the given nodes from g (their outputs must be unused by then; they lose their producer).
void erase_nodes(Graph& g, const std::vector<const Node*>& dead);

// An int / float attribute of n, or `def` when n has none of that kind.
int64_t int_attr(const Node& n, const char* name, int64_t def);
float float_attr(const Node& n, const char* name, float def);

// Float data of a float constant (null if v is not a float constant).
const float* float_data(const Value* v);

// Whether n is the ai.onnx op `op` (null n: no).
bool is_op(const Node* n, const char* op);

// Makes n the op `op` of `domain` (ai.onnx by default) at `opset`: its handler, no kernel state,
// no scratch (the new handler's infer() sets them; call reinfer() once the inputs and attributes
// are in place). False, with n untouched, if no handler takes op at that opset.
bool retarget(Node& n, const char* op, int opset, const char* domain = "");

}  // namespace onnxc::fusion

namespace onnxc::fusion {

// When constant c, broadcast against a value of shape `out`, varies at most along `axis` (its
// right-aligned dims are all 1 except possibly out[axis]) and does not grow `out`, fills
// `per_channel` with its out[axis] values (a size-1 dim repeated) and returns true.
bool per_channel_constant(const Value* c, const Shape& out, size_t axis,
                          std::vector<double>& per_channel);

// The other operand of a binary node `n` reading `v` (input 0 or 1), or null if n reads v twice.
Value* other_operand(const Node& n, const Value* v);

}  // namespace onnxc::fusion
