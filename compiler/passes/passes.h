// Entry points of the passes listed in pass_list.h: one run_<entry>(Module&, PassContext&) per
// row, defined in passes/<entry>.cpp, which the PassManager (pass_manager.h) runs in order; and
// the engines behind some of them, for callers and tests that want one step alone.
#pragma once

#include <cstdint>

#include "base/diagnostics.h"
#include "ir/ir.h"
#include "ops/kernel_variants.h"
#include "passes/pass_list.h"
#include "passes/pass_manager.h"

namespace onnxc {

#define ONNXC_DECLARE_PASS_ENTRY(name, entry, kind, stage, description) \
  bool run_##entry(Module& module, PassContext& ctx);
ONNXC_PASS_LIST(ONNXC_DECLARE_PASS_ENTRY)
#undef ONNXC_DECLARE_PASS_ENTRY

// The fusion passes (after fold-constants, before dead-code) rewrite float nodes only and count
// what they did in their PassContext (--stats). Disable one with --disable-pass=NAME.
//
//   fuse-matmul-add  MatMul + Add(bias row) -> Gemm (2-D) or MatMul with a bias input;
//                    Transpose(swap last two axes) -> MatMul/Gemm -> transA/transB.
//   fold-batchnorm   BatchNormalization (and Mul/Add by per-channel constants) after a Conv,
//                    Gemm or MatMul with constant weights -> folded into the weights and bias.
//   fuse-swish       x * Sigmoid(x) -> Swish(x) (SiLU), for fuse-epilogue to take next.
//   fuse-epilogue    Conv/Gemm/MatMul -> [Add residual] -> [activation] -> one node whose
//                    kernel applies them while its output tile is in cache (ops/epilogue.h).
//
// Shared rules: an intermediate value is only removed when it has no other user and is not a
// graph output; nodes are re-inferred after every rewrite (their handlers re-check them).

// bind-handlers: binds each node to its registry handler; reports every unsupported op.
bool bind_handlers(Graph& graph, Diagnostics& diag);

// infer-shapes: runs each node's infer(), giving every value a type and static shape (handlers
// must be bound). Folds producers on demand when a handler asks for an input's constant value;
// `folded_on_demand` receives how many. Stops at the first node that fails.
bool infer_shapes(Module& module, Diagnostics& diag, int64_t* folded_on_demand = nullptr);

// lower-gradients: lower_gradients() in ops/training/gradient.h. fold-constants: fold_constants()
// in ops/folding.h (the engine lives with the ops, which fold and infer their own expansions).

// dead-code: drops nodes whose outputs are all constant or unused; returns how many.
int64_t eliminate_dead_code(Graph& graph);

// select-kernels for one node (not its subgraphs): records the first fitting variant, its parts
// and its scratch on the node; null when the node runs no variant. patch-rows calls it for the
// nodes it makes after select-kernels ran.
const KernelVariant* select_node_kernel(Node& n, const Target& target);

}  // namespace onnxc
