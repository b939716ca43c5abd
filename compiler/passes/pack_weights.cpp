// pack-weights: stores constant inputs in the layout their node's kernel variant reads them in.
// For every node whose handler reports a packed input (OpHandler::packed_input: the variant that
// select-kernels chose reads, say, a Gemm's B as the panels of its register tiles), it adds the
// packed tensor as a new constant ("<name>_packed") and points the node at it; the original
// constant stays in the graph and reaches the weight blob only if another node still reads it.
// Counts "weights packed" and "packed bytes". Control-flow subgraphs are handled the same way.
// It does NOT: choose kernels (select-kernels did; a node keeps its variant), pack run-time
// values, or change any value's contents as ONNX defines them: only the order of its bytes.
// It cannot be disabled (the chosen variants read only the packed layout); disabling
// select-kernels keeps every constant as ONNX lays it out.
#include "ops/op.h"
#include "passes/fusion_util.h"
#include "passes/passes.h"

namespace onnxc {
namespace {

bool pack_in(Graph& g, PassContext& stats) {
  bool changed = false;
  for (auto& n : g.nodes) {
    for (Graph* sub : subgraphs_of(*n)) changed |= pack_in(*sub, stats);
    if (!n->handler || !n->state || n->elided) continue;
    size_t input = 0;
    Tensor packed;
    if (!n->handler->packed_input(*n, &input, &packed)) continue;
    const size_t bytes = packed.data.size();
    n->inputs[input] =
        fusion::add_constant(g, n->inputs[input]->name + "_packed", std::move(packed));
    stats.count("weights packed");
    stats.count("packed bytes", static_cast<int64_t>(bytes));
    changed = true;
  }
  return changed;
}

}  // namespace

bool run_pack_weights(Module& module, PassContext& ctx) {
  return pack_in(*module.graph, ctx);
}

}  // namespace onnxc
