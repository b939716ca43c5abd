// infer_shapes: type and shape inference, one node at a time in topological order, each node
// delegating to its op handler. Folding happens inline because later shapes can depend on folded
// values (Reshape's target shape, Slice's starts). It does not reorder or fuse nodes.
#include <set>

#include "ops/registry.h"
#include "passes/passes.h"

namespace onnxc {

namespace {

// Every node whose (domain, op, opset) has no handler, reported together before any inference.
bool bind_handlers(Graph& graph, Diagnostics& diag) {
  const auto& registry = OpRegistry::instance();
  bool ok = true;
  for (auto& n : graph.nodes) {
    n->handler = registry.find(n->domain, n->op_type, n->opset);
    if (!n->handler) {
      diag.node_error(n->name, n->op_type, "{}",
                      registry.unsupported_reason(n->domain, n->op_type, n->opset));
      ok = false;
    }
  }
  return ok;
}

bool check_outputs_typed(const Node& n, Diagnostics& diag) {
  for (const Value* v : n.outputs)
    if (v && (!v->has_shape || v->dtype == DataType::kUndefined)) {
      diag.node_error(n.name, n.op_type, "output '{}' was not given a type and shape", v->name);
      return false;
    }
  return true;
}

}  // namespace

bool infer_shapes(Module& module, Diagnostics& diag) {
  Graph& graph = *module.graph;
  if (!bind_handlers(graph, diag)) return false;
  for (Value* in : graph.inputs)
    if (!in->has_shape) return false;  // the importer already reported the unresolved dims
  for (auto& n : graph.nodes) {
    InferContext ctx(*n, diag);
    size_t before = diag.count();
    if (!n->handler->infer(ctx) || diag.count() != before) {
      if (diag.count() == before) diag.node_error(n->name, n->op_type, "inference failed");
      return false;
    }
    if (!check_outputs_typed(*n, diag)) return false;
    fold_node(*n);
  }
  for (const Value* v : graph.outputs)
    if (!v->has_shape) {
      diag.error("graph output '{}' has no inferred shape", v->name);
      return false;
    }
  return true;
}

}  // namespace onnxc
