// fold-constants: evaluates on the host every node whose present inputs are all constant, using
// the op's evaluate() (which runs the same runtime kernels as the generated code), so
// shape subgraphs and weight transforms become constants. It leaves nodes alone whose handler
// cannot evaluate and never folds results larger than kMaxFoldBytes (large splats such as
// ConstantOfShape then fill the arena at run time instead of bloating the binary). It does not
// remove the folded nodes: dead-code does. Nodes of control-flow subgraphs are folded too. The
// engine is ops/folding.cpp (inference folds on demand through it too); this is the pass.
#include "ops/folding.h"
#include "passes/passes.h"

namespace onnxc {

namespace {}  // namespace

bool run_fold_constants(Module& module, PassContext& ctx) {
  int64_t folded = fold_constants(*module.graph);
  if (folded) ctx.count("nodes folded", folded);
  return folded > 0;
}

}  // namespace onnxc
