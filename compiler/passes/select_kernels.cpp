// select-kernels: picks, for every node whose handler offers kernel variants
// (OpHandler::kernel_candidates, rows of runtime_support/onnxc/variants.h that the node's shape
// allows, best first), the first variant the target's ISA allows (isa_allows: `--target
// x86-64-v4` may use avx512f, avx2_fma, sse2 and scalar variants; `generic` only scalar ones),
// records it on the node (Node::kernel, shown by `--print-after`, and the handler's state, which
// emit() prints) and sets the node's scratch to what that variant needs. With --threads N the
// handler also splits a variant expected to take 20 us or more into N parts (Node::kernel_tasks; a
// scratch slice each); "kernels split into parts" counts them. Control-flow subgraphs
// are handled the same way. Counts "kernels selected" and one counter per ISA chosen.
// It does NOT: time or compare variants (the table's order is the preference, measured offline);
// change the graph; pick for nodes without variants (their handler's infer() chose their
// kernel). Disabled, every node keeps the kernel infer() chose, as before this pass existed.
#include "ops/kernel_variants.h"
#include "ops/op.h"
#include "passes/passes.h"

namespace onnxc {
namespace {

bool select_in(Graph& g, const Target& target, PassContext& stats) {
  bool changed = false;
  for (auto& n : g.nodes) {
    for (Graph* sub : subgraphs_of(*n)) changed |= select_in(*sub, target, stats);
    if (!n->handler || !n->state || n->elided) continue;
    for (const KernelVariant* v : n->handler->kernel_candidates(*n)) {
      if (!isa_allows(target.isa, v->isa)) continue;
      n->scratch_bytes = n->handler->use_kernel(*n, *v, target.threads);
      n->kernel = v->name;
      n->kernel_tasks = n->handler->kernel_tasks(*n);
      stats.count("kernels selected");
      if (n->kernel_tasks > 1) stats.count("kernels split into parts");
      stats.count(fmt::format("{} kernels", isa_name(v->isa)));
      changed = true;
      break;
    }
  }
  return changed;
}

}  // namespace

bool run_select_kernels(Module& module, PassContext& ctx) {
  return select_in(*module.graph, *module.target, ctx);
}

}  // namespace onnxc
