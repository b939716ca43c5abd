// bind-handlers: looks up the op handler of every node by (domain, op, opset) in the registry and
// stores it in Node::handler. Every node with no handler is reported, all together, so one run
// lists everything a model needs. It does not look at types or shapes and never changes the graph.
// Required: every later pass consults the handlers.
#include "ops/registry.h"
#include "passes/passes.h"

namespace onnxc {

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

namespace {}  // namespace

bool run_bind_handlers(Module& module, PassContext& ctx) {
  if (bind_handlers(*module.graph, ctx.diag()))
    ctx.count("handlers bound", static_cast<int64_t>(module.graph->nodes.size()));
  return false;
}

}  // namespace onnxc
