// lower-gradients: replaces each Gradient node (ai.onnx.preview.training) by the nodes of its
// symbolic derivative, built by reverse-mode differentiation of the forward graph
// (lower_gradients() in ops/training/gradient.cpp, which knows the derivative of each supported
// op). It runs first, before handlers are bound, so the new nodes go through inference like any
// other. It does not differentiate through subgraphs and refuses ops it has no derivative for.
#include "ops/training/gradient.h"
#include "passes/passes.h"

namespace onnxc {
namespace {}  // namespace

bool run_lower_gradients(Module& module, PassContext& ctx) {
  const size_t before = module.graph->nodes.size();
  if (!lower_gradients(module, ctx.diag())) return false;
  const size_t after = module.graph->nodes.size();
  if (after != before)
    ctx.count("nodes added", static_cast<int64_t>(after) - static_cast<int64_t>(before));
  return after != before;
}

}  // namespace onnxc
