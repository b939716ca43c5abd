// fold-batchnorm: folds a per-output-channel affine map that follows a Conv, Gemm or MatMul with
// constant weights into those weights and bias, at compile time:
//   BatchNormalization (inference form: training_mode=0, per-channel parameters, all constant)
//     y = x * s + t  with  s = scale / sqrt(var + epsilon), t = B - mean * s
//   Mul(x, c) / Mul(c, x) by a constant c varying only along the output channels:  s = c, t = 0
//   Add(x, c) / Add(c, x) likewise:                                                  s = 1, t = c
// The weights W become W * s per output channel and the bias b becomes b * s + t; chains
// (BN -> Mul -> Add) fold one node at a time. The output channel is axis 1 of a Conv, the
// last axis of a Gemm and of a MatMul (BatchNormalization after a MatMul: 2-D outputs only,
// where axis 1 is the last one). The folded node writes the last folded node's output.
//
// It does NOT fold: when the intermediate value has another user or is a graph output; when the
// weights (Conv W, Gemm B, MatMul B of rank 2) or the existing bias are not constants; when a
// constant would broadcast along another axis or grow the output; non-float nodes; Sub/Div;
// ConvTranspose; nodes that already carry a fused epilogue. New weights are new constants, so
// weights shared with other nodes are left as they are.
#include <cmath>

#include "passes/fusion_util.h"
#include "passes/passes.h"

namespace onnxc {
namespace {

using fusion::float_data;

constexpr const char* kPass = "fold-batchnorm";

// The affine map y = x * s + t of `u` (reading `y` of shape `out`, channel axis `axis`).
bool affine_of(const Node& u, const Value* y, size_t axis, std::vector<double>& s,
               std::vector<double>& t) {
  if (!u.output(0) || u.output(0)->dtype != DataType::kFloat || u.output(0)->shape != y->shape)
    return false;
  const Shape& out = y->shape;
  const int64_t channels = out[axis];
  if (u.op_type == "BatchNormalization") {
    if (axis != 1 || u.input(0) != y) return false;
    for (size_t i = 1; i < u.outputs.size(); ++i)
      if (u.outputs[i]) return false;
    const Attribute* training = u.attr("training_mode");
    const Attribute* spatial = u.attr("spatial");
    if ((training && training->i != 0) || (spatial && u.opset < 9 && spatial->i == 0)) return false;
    const float* p[4];
    for (size_t i = 0; i < 4; ++i) {
      const Value* v = u.input(i + 1);
      p[i] = float_data(v);
      if (!p[i] || v->numel() != channels) return false;
    }
    const Attribute* eps_attr = u.attr("epsilon");
    const double eps = eps_attr ? eps_attr->f : 1e-5f;
    s.resize(static_cast<size_t>(channels));
    t.resize(static_cast<size_t>(channels));
    for (size_t c = 0; c < s.size(); ++c) {  // as batch_norm_ref computes its per-channel a, b
      const double inv = 1.0 / std::sqrt(static_cast<double>(p[3][c]) + eps);
      s[c] = static_cast<double>(p[0][c]) * inv;
      t[c] = static_cast<double>(p[1][c]) - static_cast<double>(p[2][c]) * s[c];
    }
    return true;
  }
  if (u.op_type != "Mul" && u.op_type != "Add") return false;
  std::vector<double> c;
  if (!fusion::per_channel_constant(fusion::other_operand(u, y), out, axis, c)) return false;
  if (u.op_type == "Mul") {
    s = c;
    t.assign(c.size(), 0.0);
  } else {
    s.assign(c.size(), 1.0);
    t = c;
  }
  return true;
}

bool all_one(const std::vector<double>& s) {
  for (double v : s)
    if (v != 1.0) return false;
  return true;
}

// W' = W * s along output channels, where channel j of element i is channel_of(i).
template <typename ChannelOf>
Value* scaled_weights(Graph& g, const Value* w, const std::vector<double>& s,
                      ChannelOf channel_of) {
  Tensor t = *w->constant;
  float* d = t.as<float>();
  for (int64_t i = 0; i < t.numel(); ++i)
    d[i] = static_cast<float>(static_cast<double>(d[i]) * s[static_cast<size_t>(channel_of(i))]);
  return fusion::add_constant(g, w->name + "_folded", std::move(t));
}

Value* bias_vector(Graph& g, const std::string& base, const std::vector<double>& v) {
  Tensor t = Tensor::zeros(DataType::kFloat, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.as<float>()[i] = static_cast<float>(v[i]);
  return fusion::add_constant(g, base, std::move(t));
}

bool already_fused(const Node& n) {
  return n.input(3) || n.attr("fused_activation");
}

// Folds (s, t) into producer p (whose output has shape `out`). False if p's operands do not allow
// it.
bool fold_into(Graph& g, Node& p, const Shape& out, const std::vector<double>& s,
               const std::vector<double>& t) {
  const Value* w = p.input(1);
  const float* wd = float_data(w);
  if (!wd) return false;
  const int64_t channels = static_cast<int64_t>(s.size());
  const bool scale = !all_one(s);
  const std::string base = p.name;
  if (p.op_type == "Conv") {
    const Value* b = p.input(2);
    if (b && !float_data(b)) return false;
    const int64_t per = w->numel() / channels;  // W is [M, C/group, k...]
    Value* nw = scale ? scaled_weights(g, w, s, [&](int64_t i) { return i / per; }) : nullptr;
    std::vector<double> nb(s.size());
    for (size_t c = 0; c < s.size(); ++c)
      nb[c] = (b ? static_cast<double>(float_data(b)[c]) : 0.0) * s[c] + t[c];
    if (nw) p.inputs[1] = nw;
    if (p.inputs.size() < 3) p.inputs.resize(3, nullptr);
    p.inputs[2] = bias_vector(g, base + "_bias_folded", nb);
    return true;
  }
  if (p.op_type == "MatMul") {
    const Value* bias = p.input(2);
    if (w->shape.size() != 2 || (bias && !float_data(bias)) || p.attr("transA")) return false;
    const Attribute* tb = p.attr("transB");
    const bool trans_b = tb && tb->i != 0;
    const int64_t k = trans_b ? w->shape[1] : w->shape[0];
    Value* nw =
        scale ? scaled_weights(g, w, s, [&](int64_t i) { return trans_b ? i / k : i % channels; })
              : nullptr;
    std::vector<double> nb(s.size());
    for (size_t c = 0; c < s.size(); ++c)
      nb[c] = (bias ? static_cast<double>(float_data(bias)[c]) : 0.0) * s[c] + t[c];
    if (nw) p.inputs[1] = nw;
    if (p.inputs.size() < 3) p.inputs.resize(3, nullptr);
    p.inputs[2] = bias_vector(g, base + "_bias_folded", nb);
    return true;
  }
  if (p.op_type == "Gemm") {
    const Value* c = p.input(2);
    if (c && !float_data(c)) return false;
    const Attribute *tb = p.attr("transB"), *beta_attr = p.attr("beta");
    const bool trans_b = tb && tb->i != 0;
    const double beta = beta_attr ? beta_attr->f : 1.0;
    const int64_t k = trans_b ? w->shape[1] : w->shape[0];
    Value* nw =
        scale ? scaled_weights(g, w, s, [&](int64_t i) { return trans_b ? i / k : i % channels; })
              : nullptr;
    // C' = beta * C * s + t, as a row [N] when C does not vary along rows, else [M, N].
    const int64_t m = out[0];
    Shape cs = c ? c->shape : Shape{};
    while (cs.size() < 2) cs.insert(cs.begin(), 1);
    const bool rows_vary = c && cs[0] != 1 && m != 1;
    const int64_t rows = rows_vary ? m : 1;
    Tensor nc = Tensor::zeros(DataType::kFloat, rows_vary ? Shape{m, channels} : Shape{channels});
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < channels; ++j) {
        double cv = 0.0;
        if (c) cv = float_data(c)[(cs[0] == 1 ? 0 : i) * cs[1] + (cs[1] == 1 ? 0 : j)];
        nc.as<float>()[i * channels + j] =
            static_cast<float>(beta * cv * s[static_cast<size_t>(j)] + t[static_cast<size_t>(j)]);
      }
    if (nw) p.inputs[1] = nw;
    if (p.inputs.size() < 3) p.inputs.resize(3, nullptr);
    p.inputs[2] = fusion::add_constant(g, base + "_c_folded", std::move(nc));
    Attribute one;
    one.kind = Attribute::Kind::kFloat;
    one.f = 1.0f;
    p.attributes["beta"] = one;
    if (p.opset < 7) {  // C broadcasts only with broadcast=1 before opset 7
      Attribute b;
      b.kind = Attribute::Kind::kInt;
      b.i = 1;
      p.attributes["broadcast"] = b;
    }
    return true;
  }
  return false;
}

}  // namespace

bool run_fold_batchnorm(Module& module, PassContext& stats) {
  Diagnostics& diag = stats.diag();
  Graph& g = *module.graph;
  bool changed = false;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& p = *g.nodes[i];
    if ((p.op_type != "Conv" && p.op_type != "Gemm" && p.op_type != "MatMul") ||
        !p.domain.empty() || p.outputs.size() != 1 || !p.output(0) ||
        p.output(0)->dtype != DataType::kFloat || already_fused(p))
      continue;
    const Shape out = p.output(0)->shape;
    if (out.empty() || (p.op_type == "Conv" && out.size() < 2)) continue;
    const size_t axis = p.op_type == "Conv" ? 1 : out.size() - 1;
    // The chain of foldable nodes after p, composed into one map y = x * s + t.
    std::vector<const Node*> chain;
    std::vector<double> s(static_cast<size_t>(out[axis]), 1.0), t(s.size(), 0.0);
    Value* y = p.output(0);
    while (Node* u = fusion::sole_user(g, y)) {
      std::vector<double> us, ut;
      if (!u->domain.empty() || !affine_of(*u, y, axis, us, ut) || us.size() != s.size()) break;
      if (p.op_type == "MatMul" && u->op_type == "BatchNormalization" && out.size() != 2) break;
      for (size_t c = 0; c < s.size(); ++c) s[c] *= us[c], t[c] = t[c] * us[c] + ut[c];
      chain.push_back(u);
      y = u->output(0);
    }
    if (chain.empty() || !fold_into(g, p, out, s, t)) continue;
    fusion::take_output(p, p.output(0), y);
    for (const Node* u : chain) stats.count(u->op_type + " folded");
    fusion::erase_nodes(g, chain);
    if (!fusion::reinfer(p, *module.target, diag, kPass)) return changed;
    changed = true;
  }
  return changed;
}

}  // namespace onnxc
