// select-kernels: for every node whose handler describes it for kernel choice
// (OpHandler::describe_kernel_query: its families, dtype, shape, constant weights), picks the
// first row of the kernel-variant table (runtime/onnxc/variants.h) that fits it
// (kernel_fits: the row's shape predicate, weights, target class and ISA: `--target x86-64-v4`
// may use avx512f, avx2_fma, sse2 and scalar rows, `generic` only scalar ones, the "wide" tiles
// only AVX-512 targets, the "mcu" tiles only microcontrollers), and with --threads N the parts
// it runs in (kernel_parts: N when the node's work at the row's rate takes long enough to pay
// for a split). It records them on the node (Node::kernel and Node::kernel_tasks, shown by
// `--print-after`; the handler's state, which emit() prints, through use_kernel) and sets the
// node's scratch to what that variant needs (a slice per part). Control-flow subgraphs are
// handled the same way. Counts "kernels selected", "kernels split into parts" and one counter
// per ISA chosen.
// It does NOT: time or compare variants (the table's order is the preference, measured offline);
// change the graph; consult handlers about rows (handlers only describe nodes). Disabled, every
// node keeps the kernel infer() chose and runs whole (for a GEMM convolution, the first conv row
// that fits its weights as stored: the same table walk, first_fitting_variant).
#include "ops/kernel_variants.h"
#include "ops/op.h"
#include "passes/passes.h"

namespace onnxc {
namespace {

bool select_in(Graph& g, const Target& target, PassContext& stats) {
  bool changed = false;
  for (auto& n : g.nodes) {
    for (Graph* sub : subgraphs_of(*n)) changed |= select_in(*sub, target, stats);
    const KernelVariant* v = select_node_kernel(*n, target);
    if (!v) continue;
    stats.count("kernels selected");
    if (n->kernel_tasks > 1) stats.count("kernels split into parts");
    stats.count(fmt::format("{} kernels", isa_name(v->isa)));
    changed = true;
  }
  return changed;
}

}  // namespace

const KernelVariant* select_node_kernel(Node& n, const Target& target) {
  if (!n.handler || !n.state || n.elided) return nullptr;
  const KernelQuery q = n.handler->describe_kernel_query(n);
  if (q.families.empty()) return nullptr;
  const KernelVariant* v = first_fitting_variant(q, target);
  if (!v) return nullptr;
  n.scratch_bytes = n.handler->use_kernel(n, *v, kernel_parts(*v, q, target));
  n.kernel = v->name;
  n.kernel_tasks = n.handler->kernel_tasks(n);
  return v;
}

bool run_select_kernels(Module& module, PassContext& ctx) {
  return select_in(*module.graph, *module.target, ctx);
}

}  // namespace onnxc
