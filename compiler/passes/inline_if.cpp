// inline-if: replaces every If whose condition is a compile-time constant (exporters leave many,
// with folded conditions) by the nodes of the branch it takes, spliced into the enclosing graph at
// the If's place; each If output becomes an Identity of the branch's output (assign-storage then
// makes it a view where it can). Works in control-flow subgraphs too. Inference already typed only
// the taken branch (the If handler drops the other). It does not fold, evaluate the condition
// itself, or touch an If whose condition is known only at run time.
#include "ops/registry.h"
#include "passes/passes.h"

namespace onnxc {
namespace {

int64_t inline_ifs(Graph& graph, const Target& target, Diagnostics& diag) {
  int64_t inlined = 0;
  for (auto& n : graph.nodes)
    for (Graph* sub : subgraphs_of(*n)) inlined += inline_ifs(*sub, target, diag);
  std::vector<std::unique_ptr<Node>> nodes;
  for (auto& n : graph.nodes) {
    const Value* cond = n->input(0);
    if (n->op_type != "If" || !n->domain.empty() || !cond || !cond->is_constant() ||
        !n->attr("then_branch") || !n->attr("else_branch")) {
      nodes.push_back(std::move(n));
      continue;
    }
    std::shared_ptr<Graph> branch =
        n->attr(cond->constant->int_at(0) ? "then_branch" : "else_branch")->g;
    // The branch's values and nodes move into this graph (value ids renumbered to stay unique).
    for (auto& v : branch->values) {
      v->id = static_cast<int>(graph.values.size());
      graph.values.push_back(std::move(v));
    }
    for (auto& m : branch->nodes) nodes.push_back(std::move(m));
    const OpHandler* identity = OpRegistry::instance().find("", "Identity", n->opset);
    for (size_t i = 0; i < n->outputs.size(); ++i) {
      Value* out = n->outputs[i];
      if (!out) continue;
      auto id = std::make_unique<Node>();
      id->name = fmt::format("{}/out{}", n->name, i);
      id->op_type = "Identity";
      id->opset = n->opset;
      id->handler = identity;
      id->inputs = {branch->outputs[i]};
      id->outputs = {out};
      out->producer = id.get();
      InferContext ctx(*id, diag, target);
      if (!identity || !identity->infer(ctx)) {
        diag.node_error(n->name, n->op_type, "internal: cannot inline the taken branch");
        return inlined;
      }
      nodes.push_back(std::move(id));
    }
    ++inlined;
  }
  graph.nodes = std::move(nodes);
  return inlined;
}

}  // namespace

bool run_inline_if(Module& module, PassContext& ctx) {
  int64_t inlined = inline_ifs(*module.graph, *module.target, ctx.diag());
  if (inlined) ctx.count("Ifs inlined", inlined);
  return inlined > 0;
}

}  // namespace onnxc
