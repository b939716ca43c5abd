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

// lower-gradients: lower_gradients() in ops/gradient.h. fold-constants: fold_constants() in
// ops/folding.h (the engine lives with the ops, which fold and infer their own expansions).

// dead-code: drops nodes whose outputs are all constant or unused; returns how many.
int64_t eliminate_dead_code(Graph& graph);

}  // namespace onnxc
