// fold_node: evaluates a node on the host when every present input is constant, using the op's
// evaluate() (which runs the same runtime_support kernels as the generated code). It leaves
// non-constant nodes alone and never folds results larger than kMaxFoldBytes.
#include "passes/passes.h"
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
  std::vector<Tensor> outputs(node.outputs.size());
  size_t total = 0;
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    const Value* o = node.outputs[i];
    if (!o) continue;
    total += o->bytes();
    outputs[i] = Tensor::zeros(o->dtype, o->shape);
  }
  if (total > kMaxFoldBytes) return false;
  if (!node.handler->evaluate(node, inputs, outputs)) return false;
  for (size_t i = 0; i < node.outputs.size(); ++i)
    if (node.outputs[i]) node.outputs[i]->constant = std::make_shared<const Tensor>(std::move(outputs[i]));
  return true;
}

}  // namespace onnxc
