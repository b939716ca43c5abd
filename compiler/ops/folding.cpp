#include "ops/folding.h"

#include "base/checked_math.h"
#include "ops/op.h"

namespace onnxc {

bool fold_node(Node& node) {
  bool all_constant_outputs = true;
  for (const Value* o : node.outputs) all_constant_outputs &= !o || o->is_constant();
  if (all_constant_outputs) return true;  // infer() already produced the values (Shape, Constant)
  std::vector<const Tensor*> inputs;
  for (const Value* v : node.inputs) {
    if (v && !v->is_constant()) return false;
    inputs.push_back(v ? v->constant.get() : nullptr);
  }
  size_t total = 0;  // checked before anything is allocated: ConstantOfShape [2^40] is legal
  for (const Value* o : node.outputs)
    if (o && (!checked_add(total, o->bytes(), &total) || total > kMaxFoldBytes)) return false;
  std::vector<Tensor> outputs(node.outputs.size());
  for (size_t i = 0; i < node.outputs.size(); ++i)
    if (const Value* o = node.outputs[i]) outputs[i] = Tensor::zeros(o->dtype, o->shape);
  if (!node.handler->evaluate(node, inputs, outputs)) return false;
  for (size_t i = 0; i < node.outputs.size(); ++i)
    if (node.outputs[i])
      node.outputs[i]->constant = std::make_shared<const Tensor>(std::move(outputs[i]));
  return true;
}

int64_t fold_constants(Graph& graph) {
  int64_t folded = 0;
  for (auto& n : graph.nodes) {
    bool was_constant = true;
    for (const Value* o : n->outputs) was_constant &= !o || o->is_constant();
    if (!was_constant && fold_node(*n)) ++folded;
  }
  // Control-flow subgraphs: their nodes too (a node reading a loop-carried value never folds).
  for (Node* n : nested_nodes(graph)) {
    bool was_constant = true;
    for (const Value* o : n->outputs) was_constant &= !o || o->is_constant();
    if (n->handler && !was_constant && fold_node(*n)) ++folded;
  }
  return folded;
}

}  // namespace onnxc
