// The fusion passes, in the order the pipeline runs them (after inference and folding, before
// dead-code elimination). Each returns whether it changed the graph and adds what it did to
// `stats` ("name: count" lines for --stats). They rewrite float nodes only.
//
//   fuse-matmul-add  MatMul + Add(bias row) -> Gemm (2-D) or MatMul with a bias input;
//                    Transpose(swap last two axes) -> MatMul/Gemm -> transA/transB.
//   fold-batchnorm   BatchNormalization (and Mul/Add by per-channel constants) after a Conv,
//                    Gemm or MatMul with constant weights -> folded into the weights and bias.
//   fuse-epilogue    Conv/Gemm/MatMul -> [Add residual] -> [activation] -> one node whose
//                    kernel applies them while its output tile is in cache (ops/epilogue.h).
//
// Shared rules: an intermediate value is only removed when it has no other user and is not a
// graph output; nodes are re-inferred after every rewrite (their handlers re-check them).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "ir/ir.h"
#include "support/diagnostics.h"

namespace onnxc {

struct FusionStats {
  std::map<std::string, int64_t> counts;  // e.g. "fold-batchnorm.batchnorm" -> 20
  void add(const std::string& what, int64_t n = 1) { counts[what] += n; }
};

bool fuse_matmul_add(Module& module, FusionStats& stats, Diagnostics& diag);
bool fold_batchnorm(Module& module, FusionStats& stats, Diagnostics& diag);
bool fuse_epilogue(Module& module, FusionStats& stats, Diagnostics& diag);

// All three, in order (driver/pipeline.cpp). Returns false if a rewrite broke a node (reported).
bool run_fusion_passes(Module& module, Diagnostics& diag, FusionStats& stats);

}  // namespace onnxc
