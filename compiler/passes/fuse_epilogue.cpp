// fuse-epilogue: folds what follows a float Conv, Gemm or MatMul into the node's epilogue, so its
// kernel finishes each output tile while it is still in cache (see ops/epilogue.h):
//   P -> Add(P, R) -> activation  becomes  P(..., residual R) {fused_activation}
// in the graph's own order: the residual Add first (both operands of the same shape, no
// broadcasting), then one activation: Relu, Clip (constant bounds), LeakyRelu, Sigmoid,
// HardSigmoid, HardSwish, Tanh, Gelu (both approximations). The bias is already the kernels'
// (Conv B, Gemm C, MatMul's bias input from fuse-matmul-add; constant per-channel Adds after
// constant weights are folded into it by fold-batchnorm), and is applied first.
// When R is computed after P, P moves down to the Add's place (P's own inputs are older).
//
// It does NOT fuse: when an intermediate value has another user or is a graph output; an Add
// that broadcasts, adds P to itself, or is not float; an activation followed by an Add (only
// acc + bias -> + residual -> activation is fused, the order the kernels apply); a second
// activation; Clip with bounds computed at run time; ConvTranspose; non-float nodes.
#include <limits>

#include "ops/epilogue.h"
#include "passes/fusion.h"
#include "passes/fusion_util.h"

namespace onnxc {
namespace {

constexpr const char* kPass = "fuse-epilogue";

float attr_or(const Node& n, const char* name, float def) {
  const Attribute* a = n.attr(name);
  return a && a->kind == Attribute::Kind::kFloat ? a->f : def;
}

// The fused activation name and parameters of node a (reading `y` as its input 0), if fusible.
bool activation_of(const Node& a, const Value* y, std::string& name, float& alpha, float& beta) {
  if (!a.domain.empty() || a.input(0) != y || a.outputs.size() != 1 || !a.output(0) ||
      a.output(0)->dtype != DataType::kFloat)
    return false;
  alpha = beta = 0.0f;
  name = a.op_type;
  if (name == "Relu" || name == "Sigmoid" || name == "HardSwish" || name == "Tanh")
    return a.inputs.size() == 1;
  if (name == "LeakyRelu") return alpha = attr_or(a, "alpha", 0.01f), true;
  if (name == "HardSigmoid")
    return alpha = attr_or(a, "alpha", 0.2f), beta = attr_or(a, "beta", 0.5f), true;
  if (name == "Gelu") {
    const Attribute* approx = a.attr("approximate");
    if (!approx || approx->s == "none") return true;
    if (approx->s == "tanh") return name = "GeluTanh", true;
    return false;
  }
  if (name == "Clip") {
    constexpr float kInf = std::numeric_limits<float>::infinity();
    if (a.opset < 11) {  // bounds are attributes; from opset 6 they default to -+FLT_MAX
      constexpr float kMax = std::numeric_limits<float>::max();
      const bool defaults = a.opset >= 6;
      alpha = attr_or(a, "min", defaults ? -kMax : -kInf);
      beta = attr_or(a, "max", defaults ? kMax : kInf);
      return true;
    }
    alpha = -kInf, beta = kInf;
    for (size_t i = 1; i < a.inputs.size(); ++i) {
      const Value* b = a.input(i);
      if (!b) continue;
      if (!b->is_constant() || b->dtype != DataType::kFloat || b->numel() != 1) return false;
      (i == 1 ? alpha : beta) = b->constant->as<float>()[0];
    }
    return true;
  }
  return false;
}

// Fuses the residual Add reading p's output, if there is one. p may move down to the Add.
bool fuse_residual(Graph& g, Node& p, FusionStats& stats) {
  Value* y = p.output(0);
  Node* u = fusion::sole_user(g, y);
  if (!u || u->op_type != "Add" || !u->domain.empty() || !u->output(0)) return false;
  Value* r = fusion::other_operand(*u, y);
  if (!r || r->dtype != DataType::kFloat || r->shape != y->shape || u->output(0)->shape != y->shape)
    return false;
  const size_t at = fusion::position(g, &p), add_at = fusion::position(g, u);
  if (r->producer && fusion::position(g, r->producer) > at) {
    // R is computed between P and the Add: run P at the Add's place instead.
    std::rotate(g.nodes.begin() + static_cast<std::ptrdiff_t>(at),
                g.nodes.begin() + static_cast<std::ptrdiff_t>(at) + 1,
                g.nodes.begin() + static_cast<std::ptrdiff_t>(add_at) + 1);
    stats.add(std::string(kPass) + ".moved");
  }
  p.inputs.resize(kResidualInput + 1, nullptr);
  p.inputs[kResidualInput] = r;
  fusion::take_output(p, y, u->output(0));
  fusion::erase_nodes(g, {u});
  stats.add(std::string(kPass) + ".residual");
  return true;
}

bool fuse_activation(Graph& g, Node& p, FusionStats& stats) {
  Value* y = p.output(0);
  Node* a = fusion::sole_user(g, y);
  std::string name;
  float alpha, beta;
  if (!a || !activation_of(*a, y, name, alpha, beta)) return false;
  Attribute act;
  act.kind = Attribute::Kind::kString;
  act.s = name;
  p.attributes[kFusedActivation] = act;
  Attribute f;
  f.kind = Attribute::Kind::kFloat;
  if (alpha != 0.0f) f.f = alpha, p.attributes[kFusedAlpha] = f;
  if (beta != 0.0f) f.f = beta, p.attributes[kFusedBeta] = f;
  fusion::take_output(p, y, a->output(0));
  fusion::erase_nodes(g, {a});
  stats.add(std::string(kPass) + "." + name);
  return true;
}

}  // namespace

bool fuse_epilogue(Module& module, FusionStats& stats, Diagnostics& diag) {
  Graph& g = *module.graph;
  // Candidates first: fusing moves nodes, so walk a snapshot.
  std::vector<Node*> candidates;
  for (const auto& n : g.nodes)
    if ((n->op_type == "Conv" || n->op_type == "Gemm" || n->op_type == "MatMul") &&
        n->domain.empty() && n->outputs.size() == 1 && n->output(0) &&
        n->output(0)->dtype == DataType::kFloat && n->input(0)->dtype == DataType::kFloat &&
        !n->input(kResidualInput) && !n->attr(kFusedActivation))
      candidates.push_back(n.get());
  bool changed = false;
  for (Node* p : candidates) {
    const bool residual = fuse_residual(g, *p, stats);
    const bool activation = fuse_activation(g, *p, stats);
    if (!residual && !activation) continue;
    changed = true;
    if (!fusion::reinfer(*p, diag, kPass)) return changed;
  }
  return changed;
}

}  // namespace onnxc
