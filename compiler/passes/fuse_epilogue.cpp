// fuse-epilogue: folds what follows a float Conv, Gemm or MatMul into the node's epilogue, so its
// kernel finishes each output tile while it is still in cache (see ops/epilogue.h):
//   P -> [Add(P, bias row)] -> [Add(P, R)] -> [activation]
//     becomes  P(..., bias', residual R) {fused_activation}
// in the graph's own order: an Add of a constant per-output-channel row (Conv, Gemm) goes into
// the bias input the kernels already start from (Conv B, Gemm C with beta = 1; MatMul's bias
// comes from fuse-matmul-add, and fold-batchnorm already folded such Adds after constant
// weights); then the residual Add (both operands of the same shape, no broadcasting); then one
// activation: Relu, Clip (constant bounds), LeakyRelu, Sigmoid, HardSigmoid, HardSwish, Tanh,
// Gelu (both approximations), Swish (fuse-swish makes it from x * Sigmoid(x)).
// When R is computed after P, P moves down to the Add's place (P's own inputs are older).
// When R's producer Q could take the residual as well (a ResNet block's main branch and its
// downsampling conv), the deeper of the two (the longer path from the graph's inputs; on a tie the
// producer of the Add's first operand) takes it, whatever the node order: the shallow one then
// runs first, next to the other readers of its input, and a model saved by a tool in another
// topological order (ONNX Runtime at `extended`) compiles to the same schedule as the export.
//
// It does NOT fuse: when an intermediate value has another user or is a graph output; an Add
// that broadcasts (other than a constant bias row), adds P to itself, or is not float; a bias
// into a Gemm whose C varies along rows or is computed at run time; an activation followed by an
// Add (only acc + bias -> + residual -> activation is fused, the order the kernels apply); a second
// activation; Clip with bounds computed at run time; ConvTranspose; non-float nodes.
#include <algorithm>
#include <limits>
#include <unordered_map>

#include "ops/epilogue.h"
#include "passes/fusion_util.h"
#include "passes/passes.h"

namespace onnxc {
namespace {

constexpr const char* kPass = "fuse-epilogue";

// The fused activation name and parameters of node a (reading `y` as its input 0), if fusible.
bool activation_of(const Node& a, const Value* y, std::string& name, float& alpha, float& beta) {
  if (!a.domain.empty() || a.input(0) != y || a.outputs.size() != 1 || !a.output(0) ||
      a.output(0)->dtype != DataType::kFloat)
    return false;
  alpha = beta = 0.0f;
  name = a.op_type;
  if (name == "Relu" || name == "Sigmoid" || name == "HardSwish" || name == "Tanh")
    return a.inputs.size() == 1;
  if (name == "LeakyRelu") return alpha = fusion::float_attr(a, "alpha", 0.01f), true;
  if (name == "Swish") return alpha = fusion::float_attr(a, "alpha", 1.0f), true;
  if (name == "HardSigmoid")
    return alpha = fusion::float_attr(a, "alpha", 0.2f), beta = fusion::float_attr(a, "beta", 0.5f),
           true;
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
      alpha = fusion::float_attr(a, "min", defaults ? -kMax : -kInf);
      beta = fusion::float_attr(a, "max", defaults ? kMax : kInf);
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

// Fuses an Add of a constant per-output-channel row into p's bias (Conv B, Gemm C), for
// weights fold-batchnorm could not fold into (computed at run time).
bool fuse_bias(Graph& g, Node& p, PassContext& stats) {
  Value* y = p.output(0);
  Node* u = fusion::sole_user(g, y);
  if (!u || u->op_type != "Add" || !u->domain.empty() || !u->output(0) ||
      u->output(0)->shape != y->shape || (p.op_type != "Conv" && p.op_type != "Gemm"))
    return false;
  const size_t axis = 1;  // Conv: the channels; Gemm [M, N]: the columns
  std::vector<double> row;
  if (y->shape.size() <= axis ||
      !fusion::per_channel_constant(fusion::other_operand(*u, y), y->shape, axis, row))
    return false;
  const Value* old = p.input(2);
  if (old && !fusion::float_data(old)) return false;
  if (p.op_type == "Gemm") {  // C' = beta * C + row, beta = 1; C must not vary along rows
    if (old && old->shape.size() == 2 && old->shape[0] != 1) return false;
    const Attribute* beta_attr = p.attr("beta");
    const double beta = beta_attr ? beta_attr->f : 1.0;
    const bool scalar = old && old->numel() == 1;
    for (size_t j = 0; j < row.size(); ++j)
      if (old) row[j] += beta * fusion::float_data(old)[scalar ? 0 : j];
    Attribute one;
    one.kind = Attribute::Kind::kFloat;
    one.f = 1.0f;
    p.attributes["beta"] = one;
    if (p.opset < 7) {
      Attribute b;
      b.kind = Attribute::Kind::kInt;
      b.i = 1;
      p.attributes["broadcast"] = b;
    }
  } else {
    for (size_t c = 0; c < row.size(); ++c)
      if (old) row[c] += fusion::float_data(old)[c];
  }
  Tensor t = Tensor::zeros(DataType::kFloat, {static_cast<int64_t>(row.size())});
  for (size_t i = 0; i < row.size(); ++i) t.as<float>()[i] = static_cast<float>(row[i]);
  if (p.inputs.size() < 3) p.inputs.resize(3, nullptr);
  p.inputs[2] = fusion::add_constant(g, p.name + "_bias", std::move(t));
  fusion::take_output(p, y, u->output(0));
  fusion::erase_nodes(g, {u});
  stats.count("bias Adds fused");
  return true;
}

// A float Conv, Gemm or MatMul whose epilogue is still free: it may take a bias, a residual and
// an activation.
bool is_candidate(const Node& n) {
  return (n.op_type == "Conv" || n.op_type == "Gemm" || n.op_type == "MatMul") &&
         n.domain.empty() && n.outputs.size() == 1 && n.output(0) &&
         n.output(0)->dtype == DataType::kFloat && n.input(0) &&
         n.input(0)->dtype == DataType::kFloat && !n.input(kResidualInput) &&
         !n.attr(kFusedActivation);
}

// Each node's depth: the most nodes on a path from the graph's inputs and constants to it.
// The graph is in topological order, so one sweep sets every producer's depth before its users'.
using Depths = std::unordered_map<const Node*, size_t>;
Depths node_depths(const Graph& g) {
  Depths depth;
  for (const auto& n : g.nodes) {
    size_t d = 1;
    for (const Value* v : n->inputs)
      if (v && v->producer) d = std::max(d, depth[v->producer] + 1);
    depth[n.get()] = d;
  }
  return depth;
}

// Whether the residual Add u = Add(y, r) of p's output y goes to r's producer instead: when that
// producer is a candidate too and is deeper than p, or as deep and produces u's first operand.
bool residual_goes_to_other(const Graph& g, const Node& p, const Node& u, const Value* r,
                            const Depths& depth) {
  const Node* q = r->producer;
  if (!q || q == &p || !is_candidate(*q) || fusion::sole_user(g, r) != &u) return false;
  const size_t dp = depth.at(&p), dq = depth.at(q);
  return dq > dp || (dq == dp && u.input(0) == r);
}

// Fuses the residual Add reading p's output, if there is one. p may move down to the Add.
bool fuse_residual(Graph& g, Node& p, const Depths& depth, PassContext& stats) {
  Value* y = p.output(0);
  Node* u = fusion::sole_user(g, y);
  if (!u || u->op_type != "Add" || !u->domain.empty() || !u->output(0)) return false;
  Value* r = fusion::other_operand(*u, y);
  if (!r || r->dtype != DataType::kFloat || r->shape != y->shape ||
      u->output(0)->shape != y->shape || residual_goes_to_other(g, p, *u, r, depth))
    return false;
  const size_t at = fusion::position(g, &p), add_at = fusion::position(g, u);
  if (r->producer && fusion::position(g, r->producer) > at) {
    // R is computed between P and the Add: run P at the Add's place instead.
    std::rotate(g.nodes.begin() + static_cast<std::ptrdiff_t>(at),
                g.nodes.begin() + static_cast<std::ptrdiff_t>(at) + 1,
                g.nodes.begin() + static_cast<std::ptrdiff_t>(add_at) + 1);
    stats.count("nodes moved to their residual Add");
  }
  p.inputs.resize(kResidualInput + 1, nullptr);
  p.inputs[kResidualInput] = r;
  fusion::take_output(p, y, u->output(0));
  fusion::erase_nodes(g, {u});
  stats.count("residual Adds fused");
  return true;
}

bool fuse_activation(Graph& g, Node& p, PassContext& stats) {
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
  stats.count(name + " fused");
  return true;
}

}  // namespace

bool run_fuse_epilogue(Module& module, PassContext& stats) {
  Diagnostics& diag = stats.diag();
  Graph& g = *module.graph;
  // Candidates first: fusing moves nodes, so walk a snapshot. Fusing erases only Adds and
  // activations after candidates, so the candidates' depths stay as computed here.
  std::vector<Node*> candidates;
  for (const auto& n : g.nodes)
    if (is_candidate(*n)) candidates.push_back(n.get());
  const Depths depth = node_depths(g);
  bool changed = false;
  for (Node* p : candidates) {
    const bool bias = fuse_bias(g, *p, stats);
    const bool residual = fuse_residual(g, *p, depth, stats);
    const bool activation = fuse_activation(g, *p, stats);
    if (!bias && !residual && !activation) continue;
    changed = true;
    if (!fusion::reinfer(*p, *module.target, diag, kPass)) return changed;
  }
  return changed;
}

}  // namespace onnxc
