// dead-code: removes nodes that no longer need to run: those whose outputs were all folded to
// constants and those no graph output depends on; values whose producer is gone become plain
// constants. It cleans control-flow subgraphs the same way (their outputs are the roots), and keeps
// enclosing-graph values a subgraph reads. It does not fold anything itself. Required: codegen
// cannot run a node whose outputs are constants (infer-shapes folds some on demand).
#include <set>

#include "passes/passes.h"

namespace onnxc {

int64_t eliminate_dead_code(Graph& graph) {
  int64_t nested = 0;
  for (auto& n : graph.nodes)
    for (Graph* sub : subgraphs_of(*n)) nested += eliminate_dead_code(*sub);
  size_t before = graph.nodes.size();
  std::vector<std::unique_ptr<Node>> kept;
  for (auto& n : graph.nodes) {
    bool all_constant = true;
    for (const Value* o : n->outputs) all_constant &= !o || o->is_constant();
    if (!all_constant) kept.push_back(std::move(n));
  }
  graph.nodes = std::move(kept);
  graph.remove_dead_nodes();
  // Values whose producer is gone are constants (or unused) from now on.
  std::set<const Node*> alive;
  for (const auto& n : graph.nodes) alive.insert(n.get());
  for (auto& v : graph.values)
    if (v->producer && !alive.count(v->producer)) v->producer = nullptr;
  return nested + static_cast<int64_t>(before - graph.nodes.size());
}

namespace {}  // namespace

bool run_dead_code(Module& module, PassContext& ctx) {
  int64_t removed = eliminate_dead_code(*module.graph);
  if (removed) ctx.count("nodes removed", removed);
  return removed > 0;
}

}  // namespace onnxc
