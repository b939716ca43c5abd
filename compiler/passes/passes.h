// Entry points of the passes that run between import and codegen, in pipeline order.
#pragma once

#include <cstdint>

#include "ir/ir.h"
#include "support/diagnostics.h"

namespace onnxc {

// infer_shapes: binds each node to its registry handler and runs its infer(), giving every value a
// type and static shape; nodes whose inputs are all constant are folded as they are reached (so
// Shape -> Gather -> Concat -> Reshape chains become constants). Stops at the first node that
// fails, since later shapes would be meaningless; unsupported ops are all listed first.
bool infer_shapes(Module& module, Diagnostics& diag);

// lower_gradients (ops/gradient.cpp): runs before infer_shapes; replaces each Gradient node
// (ai.onnx.preview.training) by the nodes of its symbolic derivative, or reports why it cannot.
bool lower_gradients(Module& module, Diagnostics& diag);

// fold_node: evaluates one node whose inputs are all constant, turning its outputs into constants.
// Does nothing (returns false) when the handler cannot evaluate or the result would exceed
// kMaxFoldBytes: large splats such as ConstantOfShape weights then fill the arena at run time
// instead of bloating the binary. Does not remove the node: dead-code elimination does.
constexpr size_t kMaxFoldBytes = size_t{16} << 20;
bool fold_node(Node& node);

// eliminate_dead_code: drops nodes whose outputs are all constant or unused.
void eliminate_dead_code(Graph& graph);

}  // namespace onnxc
