// fuse-swish: x * Sigmoid(x), the SiLU activation exporters spell out (torch's nn.SiLU before
// opset 24, EfficientNet, YOLO), becomes one Swish(x) {alpha = 1} node (ai.onnx Swish, opset 24):
//   x -+-> Sigmoid -> s -+
//      +-----------------+-> Mul -> y      becomes      x -> Swish -> y
// One pass over memory in place of two (the Sigmoid writes s, the Mul reads x and s), and, after
// a Conv, Gemm or MatMul, fuse-epilogue (which runs next) folds the Swish into the kernel's
// epilogue, so the activation runs on the output tile while it is in cache.
// The Swish node is marked with opset 24, where the op was defined, whatever the model imports.
//
// It does NOT fuse: when s has another user or is a graph output; Mul(s, s) or a Mul of s by
// anything but the Sigmoid's own input; broadcasting Muls (impossible here: both operands are x's
// shape); non-float tensors; x * HardSigmoid(x) (exporters write HardSwish for that); patterns
// inside If/Loop/Scan bodies (it walks the top-level graph only).
#include "passes/fusion_util.h"
#include "passes/passes.h"

namespace onnxc {
namespace {

constexpr const char* kPass = "fuse-swish";
constexpr int kSwishOpset = 24;

// Rewrites Sigmoid node `sig` into Swish(x) writing the output of `mul`, and drops `mul`.
bool rewrite(Graph& g, Node& sig, Node& mul, const Target& target, PassContext& stats) {
  if (!fusion::retarget(sig, "Swish", kSwishOpset)) return false;
  sig.attributes.clear();
  Attribute alpha;
  alpha.kind = Attribute::Kind::kFloat;
  alpha.f = 1.0f;
  sig.attributes["alpha"] = alpha;
  fusion::take_output(sig, sig.output(0), mul.output(0));
  fusion::erase_nodes(g, {&mul});
  stats.count("Sigmoid * x fused into Swish");
  return fusion::reinfer(sig, target, stats.diag(), kPass);
}

}  // namespace

bool run_fuse_swish(Module& module, PassContext& stats) {
  Graph& g = *module.graph;
  bool changed = false;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& sig = *g.nodes[i];
    const Value* x = sig.input(0);
    const Value* s = sig.output(0);
    if (!fusion::is_op(&sig, "Sigmoid") || !x || !s || s->dtype != DataType::kFloat) continue;
    Node* mul = fusion::sole_user(g, s);
    if (!fusion::is_op(mul, "Mul") || fusion::other_operand(*mul, s) != x || !mul->output(0) ||
        mul->output(0)->shape != x->shape)
      continue;
    if (!rewrite(g, sig, *mul, *module.target, stats)) return changed;
    changed = true;
  }
  return changed;
}

}  // namespace onnxc
