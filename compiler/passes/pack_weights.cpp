// pack-weights: stores constant inputs in the layout their node's kernel variant reads them in.
// For every node whose handler reports packed inputs (OpHandler::packed_inputs: the variant that
// select-kernels chose reads, say, a Gemm's B as the panels of its register tiles, or an int8
// convolution's per-channel requantization constants), it adds each packed tensor as a new
// constant ("<name>_packed", or "<node>_input<i>_packed" for an absent optional input) and points
// the node at it; the original constant stays in the graph and reaches the weight blob only if
// another node still reads it.
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
    for (PackedInput& p : n->handler->packed_inputs(*n)) {
      if (p.input >= n->inputs.size()) n->inputs.resize(p.input + 1, nullptr);
      const std::string base = n->inputs[p.input] ? n->inputs[p.input]->name
                                                  : fmt::format("{}_input{}", n->name, p.input);
      const size_t bytes = p.tensor.data.size();
      n->inputs[p.input] = fusion::add_constant(g, base + "_packed", std::move(p.tensor));
      stats.count("weights packed");
      stats.count("packed bytes", static_cast<int64_t>(bytes));
      changed = true;
    }
  }
  return changed;
}

}  // namespace

bool run_pack_weights(Module& module, PassContext& ctx) {
  return pack_in(*module.graph, ctx);
}

}  // namespace onnxc
