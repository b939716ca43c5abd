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
#include "ops/inference.h"
#include "ops/op.h"
#include "passes/passes.h"

namespace onnxc {
namespace {

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

namespace {}  // namespace

bool run_infer_shapes(Module& module, PassContext& ctx) {
  int64_t folded = 0;
  if (!infer_shapes(module, ctx.diag(), &folded)) {
    if (ctx.diag().ok()) ctx.diag().error("shape inference failed");
    return false;
  }
  ctx.count("nodes inferred", static_cast<int64_t>(module.graph->nodes.size()));
  if (folded) ctx.count("nodes folded for shapes", folded);
  return folded > 0;
}

}  // namespace onnxc
