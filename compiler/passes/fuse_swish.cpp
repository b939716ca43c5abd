// fuse-swish: x * gate(x), the gated activations exporters spell out, becomes one node:
//   x * Sigmoid(x)                          -> Swish(x) {alpha = 1}  (SiLU: torch's nn.SiLU before
//                                              opset 24, EfficientNet, YOLO; ai.onnx Swish, 24)
//   x * HardSigmoid(x) {alpha 1/6, beta 1/2} -> HardSwish(x)         (torch's nn.Hardswish before
//                                              opset 14: MobileNetV3; ai.onnx HardSwish, 14)
//   x -+-> gate -> s -+
//      +--------------+-> Mul -> y      becomes      x -> Swish|HardSwish -> y
// One pass over memory in place of two (the gate writes s, the Mul reads x and s), and, after a
// Conv, Gemm or MatMul, fuse-epilogue (which runs next) folds the activation into the kernel's
// epilogue, so it runs on the output tile while it is in cache (a Conv whose output feeds both
// the gate and the Mul has two users and fuses nothing without this pass). HardSwish computes
// x * clamp(float(1/6) x + 1/2) as that HardSigmoid does, so the rewrite keeps every bit.
// The new node is marked with the opset that defined its op, whatever the model imports.
//
// It does NOT fuse: when s has another user or is a graph output; Mul(s, s) or a Mul of s by
// anything but the gate's own input; a HardSigmoid of other alpha or beta (the SE blocks' gates
// multiply other tensors anyway); broadcasting Muls (impossible here: both operands are x's
// shape); non-float tensors; patterns inside If/Loop/Scan bodies (it walks the top-level graph
// only).
#include "passes/fusion_util.h"
#include "passes/passes.h"

namespace onnxc {
namespace {

constexpr const char* kPass = "fuse-swish";

// One gated activation: x * gate(x) with the gate's attributes as `fits` requires is `fused`,
// defined at `opset`, with attribute alpha = `alpha` (0: none).
struct GatedActivation {
  const char* gate;
  const char* fused;
  int opset;
  bool (*fits)(const Node& gate);
  float alpha;
  const char* stat;
};

bool any_sigmoid(const Node& /*gate*/) {
  return true;
}

bool hard_swish_gate(const Node& gate) {
  return fusion::float_attr(gate, "alpha", 0.2f) == static_cast<float>(1.0 / 6) &&
         fusion::float_attr(gate, "beta", 0.5f) == 0.5f;
}

constexpr GatedActivation kGated[] = {
    {"Sigmoid", "Swish", 24, any_sigmoid, 1.0f, "Sigmoid * x fused into Swish"},
    {"HardSigmoid", "HardSwish", 14, hard_swish_gate, 0.0f, "HardSigmoid * x fused into HardSwish"},
};

const GatedActivation* gated_activation_of(const Node& n) {
  for (const GatedActivation& a : kGated)
    if (fusion::is_op(&n, a.gate) && a.fits(n)) return &a;
  return nullptr;
}

// Rewrites gate node `gate` into a.fused(x) writing the output of `mul`, and drops `mul`.
bool rewrite(Graph& g, Node& gate, Node& mul, const GatedActivation& a, const Target& target,
             PassContext& stats) {
  if (!fusion::retarget(gate, a.fused, a.opset)) return false;
  gate.attributes.clear();
  if (a.alpha != 0.0f) {
    Attribute alpha;
    alpha.kind = Attribute::Kind::kFloat;
    alpha.f = a.alpha;
    gate.attributes["alpha"] = alpha;
  }
  fusion::take_output(gate, gate.output(0), mul.output(0));
  fusion::erase_nodes(g, {&mul});
  stats.count(a.stat);
  return fusion::reinfer(gate, target, stats.diag(), kPass);
}

}  // namespace

bool run_fuse_swish(Module& module, PassContext& stats) {
  Graph& g = *module.graph;
  bool changed = false;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& gate = *g.nodes[i];
    const Value* x = gate.input(0);
    const Value* s = gate.output(0);
    const GatedActivation* a = gated_activation_of(gate);
    if (!a || !x || !s || s->dtype != DataType::kFloat) continue;
    Node* mul = fusion::sole_user(g, s);
    if (!fusion::is_op(mul, "Mul") || fusion::other_operand(*mul, s) != x || !mul->output(0) ||
        mul->output(0)->shape != x->shape)
      continue;
    if (!rewrite(g, gate, *mul, *a, *module.target, stats)) return changed;
    changed = true;
  }
  return changed;
}

}  // namespace onnxc
