// eliminate_dead_code: removes nodes that no longer need to run: those whose outputs were all
// folded to constants and those no graph output depends on. It does not touch subgraphs.
#include <set>

#include "passes/passes.h"

namespace onnxc {

void eliminate_dead_code(Graph& graph) {
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
}

}  // namespace onnxc
