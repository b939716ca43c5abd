// infer-shapes: type and shape inference, one node at a time in topological order, each node
// delegating to its op handler's infer(). It folds a node only on demand: when a later node's
// infer() asks for an input's constant value (Reshape's target shape, Slice's starts, Range's
// limits) and that input's producer has all-constant inputs, the producer (and, recursively, its
// own producers) are evaluated then. General constant folding is the fold-constants pass; removing
// folded nodes is dead-code's. It does not reorder or fuse nodes; the only nodes it replaces are
// those that rewrite themselves into tensor nodes: sequence and optional ops, and If/Loop nodes
// that build containers (inlined, unrolled; ops/containers.h). Sequence and optional graph
// outputs become tensor outputs at the end. Stops at the first node
// that fails, since later shapes would be meaningless. Control-flow handlers (If, Loop, Scan) run
// it over their subgraphs through infer_subgraph(), binding the subgraph's handlers there (so an
// If branch never taken needs none). Required: codegen needs every shape.
#include <fmt/format.h>

#include "ops/containers.h"
#include "ops/op.h"
#include "ops/registry.h"
#include "passes/pass_manager.h"
#include "passes/passes.h"

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

namespace {

// Infers `graph`'s nodes in order, binding any node still unbound (bind-handlers binds only the
// main graph, so an If branch never taken needs no supported ops; nodes a rewrite inserted are
// unbound too). A node may replace itself (InferContext::replace_node): its replacement is
// inferred next.
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

std::string declared_str(const Graph::DeclaredType& d) {
  if (!d.has_shape) return fmt::format("{}[?]", dtype_name(d.dtype));
  std::string dims;
  for (size_t i = 0; i < d.dims.size(); ++i)
    dims += (i ? "x" : "") + (d.dims[i] < 0 ? std::string("?") : std::to_string(d.dims[i]));
  return fmt::format("{}[{}]", dtype_name(d.dtype), dims.empty() ? "scalar" : dims);
}

// The model's declared outputs are the caller's contract: its buffers are sized from them. A
// declared type must be the inferred one; a declared static dim must be the inferred dim (a
// symbolic or absent dim agrees with anything; a declared rank must match).
bool outputs_match_declared(const Graph& graph, Diagnostics& diag) {
  bool ok = true;
  for (size_t i = 0; i < graph.outputs.size() && i < graph.declared_outputs.size(); ++i) {
    const Value& v = *graph.outputs[i];
    const Graph::DeclaredType& d = graph.declared_outputs[i];
    if (v.kind != ValueKind::kTensor || !v.has_shape) continue;  // containers: checked as built
    bool agrees = d.dtype == DataType::kUndefined || d.dtype == v.dtype;
    if (d.has_shape) {
      agrees &= d.dims.size() == v.shape.size();
      for (size_t k = 0; agrees && k < d.dims.size(); ++k)
        agrees = d.dims[k] < 0 || d.dims[k] == v.shape[k];
    }
    if (agrees) continue;
    diag.error(
        "graph output '{}' is declared {} but inference gives {}[{}]: the declared type and "
        "shape are what callers size buffers from",
        v.name, declared_str(d), dtype_name(v.dtype), shape_str(v.shape));
    ok = false;
  }
  return ok;
}

}  // namespace

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

bool infer_shapes(Module& module, Diagnostics& diag, int64_t* folded_on_demand) {
  Graph& graph = *module.graph;
  for (Value* in : graph.inputs)
    if (!in->has_shape) return false;  // the importer already reported the unresolved dims
  int64_t folded = 0;
  if (!infer_nodes(graph, diag, *module.target, folded)) return false;
  // Before containers become tensor outputs, so outputs still pair with the declared ones.
  if (!outputs_match_declared(graph, diag)) return false;
  if (!expose_container_outputs(graph, diag, *module.target)) return false;
  drop_container_values(graph);
  for (const Value* v : graph.outputs)
    if (!v->has_shape) {
      diag.error("graph output '{}' has no inferred shape", v->name);
      return false;
    }
  if (folded_on_demand) *folded_on_demand = folded;
  return true;
}

namespace {

class InferShapesPass final : public Pass {
 public:
  const char* name() const override { return "infer-shapes"; }
  const char* description() const override {
    return "types and static shapes for every value; folds only what later shapes need";
  }
  bool can_disable() const override { return false; }
  bool run(Module& module, PassContext& ctx) override {
    int64_t folded = 0;
    if (!infer_shapes(module, ctx.diag(), &folded)) {
      if (ctx.diag().ok()) ctx.diag().error("shape inference failed");
      return false;
    }
    ctx.count("nodes inferred", static_cast<int64_t>(module.graph->nodes.size()));
    if (folded) ctx.count("nodes folded for shapes", folded);
    return folded > 0;
  }
};

}  // namespace

std::unique_ptr<Pass> make_infer_shapes_pass() {
  return std::make_unique<InferShapesPass>();
}

}  // namespace onnxc
