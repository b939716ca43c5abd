// Constant folding, the engine: evaluates nodes whose inputs are all constant on the host with
// the op's evaluate() (which runs the same runtime kernels as the generated code). Used by
// inference on demand (ops/inference.cpp), by handlers that fold their own expansions, and by the
// fold-constants pass (passes/fold_constants.cpp), a thin wrapper over fold_constants().
#pragma once

#include <cstddef>
#include <cstdint>

#include "ir/ir.h"

namespace onnxc {

// Results larger than this are never folded: large splats such as ConstantOfShape fill the arena
// at run time instead of bloating the binary.
constexpr size_t kMaxFoldBytes = size_t{16} << 20;

// Evaluates one node whose inputs are all constant, turning its outputs into constants. Does
// nothing (returns false) when the handler cannot evaluate or the result would exceed
// kMaxFoldBytes. Does not remove the node: dead-code elimination does.
bool fold_node(Node& node);

// fold_node() on every node of `graph` in order, then on the nodes of its control-flow
// subgraphs; returns how many were folded.
int64_t fold_constants(Graph& graph);

}  // namespace onnxc
