// The fusion passes, in the order pass_list.h runs them (after fold-constants, before dead-code).
// Each returns whether it changed the graph and counts what it did in its PassContext (--stats).
// They rewrite float nodes only. Disable one with --disable-pass=NAME.
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
#pragma once

#include "ir/ir.h"
#include "passes/pass_manager.h"

namespace onnxc {

// Each reports a rewrite that breaks a node (an onnxc bug) to ctx.diag().
bool fuse_matmul_add(Module& module, PassContext& ctx);
bool fold_batchnorm(Module& module, PassContext& ctx);
bool fuse_epilogue(Module& module, PassContext& ctx);

}  // namespace onnxc
