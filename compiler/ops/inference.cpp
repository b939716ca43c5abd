// Type and shape inference, the engine: each node's handler infer(), in topological order, folding
// producers on demand (ops/folding.h) when a handler asks for an input's constant value. The
// infer-shapes pass (passes/infer_shapes.cpp) runs it over the main graph; control-flow handlers
// run it over their bodies through infer_subgraph() (ops/op.h), so ops never call up into passes.
#include "ops/inference.h"

#include <fmt/format.h>

#include "ops/containers.h"
#include "ops/folding.h"
#include "ops/op.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

bool check_outputs_typed(const Node& n, Diagnostics& diag) {
  for (const Value* v : n.outputs)
    if (v && !v->is_container() && (!v->has_shape || v->dtype == DataType::kUndefined)) {
      diag.node_error(n.name, n.op_type, "output '{}' was not given a type and shape", v->name);
      return false;
    }
  return true;
}

// Makes `v` constant if its producer's inputs are (or can be made) constant. Counts folds.
void fold_on_demand(const Value* v, int64_t& folded) {
  if (!v || v->is_constant() || !v->producer) return;
  Node& producer = *v->producer;
  for (const Value* in : producer.inputs) fold_on_demand(in, folded);
  bool before = v->is_constant();
  if (fold_node(producer) && !before && v->is_constant()) ++folded;
}

}  // namespace

bool infer_nodes(Graph& graph, Diagnostics& diag, const Target& target, int64_t& folded) {
  for (size_t i = 0; i < graph.nodes.size();) {
    Node* n = graph.nodes[i].get();
    if (!n->handler) {
      n->handler = OpRegistry::instance().find(n->domain, n->op_type, n->opset);
      if (!n->handler) {
        diag.node_error(n->name, n->op_type, "{}",
                        OpRegistry::instance().unsupported_reason(n->domain, n->op_type, n->opset));
        return false;
      }
    }
    // Containers: a tensor op reading a sequence/optional, an If or Loop building them.
    const OpHandler* handler = container_handler(*n);
    if (!handler) handler = n->handler;
    InferContext ctx(*n, diag, target);
    ctx.set_constant_demand([&folded](const Value* v) { fold_on_demand(v, folded); });
    ctx.set_graph(&graph);
    size_t before = diag.count();
    if (!handler->infer(ctx) || diag.count() != before) {
      if (diag.count() == before) diag.node_error(n->name, n->op_type, "inference failed");
      return false;
    }
    if (ctx.replaced()) {  // the node rewrote itself: infer its replacement next
      for (Value* out : n->outputs)
        if (out && out->producer == n) out->producer = nullptr;
      auto nodes = ctx.take_replacement();
      graph.nodes.erase(graph.nodes.begin() + static_cast<long>(i));
      graph.nodes.insert(graph.nodes.begin() + static_cast<long>(i),
                         std::make_move_iterator(nodes.begin()),
                         std::make_move_iterator(nodes.end()));
      continue;
    }
    if (!check_outputs_typed(*n, diag)) return false;
    ++i;
  }
  return true;
}

bool infer_subgraph(Graph& g, Diagnostics& diag, const Target& target) {
  int64_t folded = 0;
  // Errors inside a body name the body. A body node needing a compile-time value the body only
  // computes at run time (a Slice start from the iteration number) is a limit of static shapes.
  Diagnostics inner;
  bool ok = infer_nodes(g, inner, target, folded);
  for (const auto& e : inner.errors())
    diag.error("in subgraph '{}': {}{}", g.name, e,
               e.find("must be a constant") != std::string::npos
                   ? " (a value computed at run time inside a control-flow body: not supported)"
                   : "");
  if (!ok) return false;
  for (const Value* v : g.outputs)
    if (v->is_container()) {
      diag.error(
          "subgraph '{}': output '{}' is a {}: a control-flow body giving a sequence or optional "
          "is not supported unless it is unrolled or inlined (compile-time trip count or "
          "condition)",
          g.name, v->name, value_kind_name(v->kind));
      return false;
    }
  drop_container_values(g);
  // Fold what the body computes from constants alone, so an If with a constant condition can
  // hand constant results to later shape computations (fold-constants would do it later anyway).
  fold_constants(g);
  for (const Value* v : g.outputs)
    if (!v->has_shape || v->dtype == DataType::kUndefined) {
      diag.error("subgraph '{}': output '{}' has no inferred type and shape", g.name, v->name);
      return false;
    }
  return true;
}

}  // namespace onnxc
