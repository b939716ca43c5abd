// Entry points of the passes listed in pass_list.h, for callers and tests that run one directly.
// The pipeline itself runs them through the PassManager (pass_manager.h).
#pragma once

#include <cstdint>

#include "ir/ir.h"
#include "support/diagnostics.h"

namespace onnxc {

// bind-handlers: binds each node to its registry handler; reports every unsupported op.
bool bind_handlers(Graph& graph, Diagnostics& diag);

// infer-shapes: runs each node's infer(), giving every value a type and static shape (handlers
// must be bound). Folds producers on demand when a handler asks for an input's constant value;
// `folded_on_demand` receives how many. Stops at the first node that fails.
bool infer_shapes(Module& module, Diagnostics& diag, int64_t* folded_on_demand = nullptr);

// lower_gradients (ops/gradient.cpp, run by the lower-gradients pass): runs before inference;
// replaces each Gradient node (ai.onnx.preview.training) by the nodes of its symbolic derivative,
// or reports why it cannot.
bool lower_gradients(Module& module, Diagnostics& diag);

// fold_node: evaluates one node whose inputs are all constant, turning its outputs into constants.
// Does nothing (returns false) when the handler cannot evaluate or the result would exceed
// kMaxFoldBytes. Does not remove the node: dead-code elimination does.
constexpr size_t kMaxFoldBytes = size_t{16} << 20;
bool fold_node(Node& node);
// fold-constants: fold_node() on every node in order; returns how many were folded.
int64_t fold_constants(Graph& graph);

// dead-code: drops nodes whose outputs are all constant or unused; returns how many.
int64_t eliminate_dead_code(Graph& graph);

}  // namespace onnxc
