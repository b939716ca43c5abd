// Type and shape inference over a graph's nodes (ops/inference.cpp); see infer_subgraph in
// ops/op.h for control-flow bodies.
#pragma once

#include <cstdint>

#include "base/diagnostics.h"
#include "ir/ir.h"
#include "ir/target.h"

namespace onnxc {

// Infers `graph`'s nodes in order, binding any node still unbound (bind-handlers binds only the
// main graph, so an If branch never taken needs no supported ops; nodes a rewrite inserted are
// unbound too). A node may replace itself (InferContext::replace_node): its replacement is
// inferred next. Folds producers on demand, counting them in `folded`. Stops at the first node
// that fails.
bool infer_nodes(Graph& graph, Diagnostics& diag, const Target& target, int64_t& folded);

}  // namespace onnxc
