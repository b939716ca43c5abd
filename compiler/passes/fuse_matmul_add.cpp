// fuse-matmul-add: two rewrites around float MatMul and Gemm nodes.
//   1. Transpose folding: a Transpose whose perm swaps the last two axes (and keeps the others)
//      feeding operand A or B of a MatMul or Gemm is dropped, and the consumer reads the
//      Transpose's input with transA / transB toggled (the kernel reads the operand in its
//      stored order). The Transpose stays if something else still reads its output (dead-code
//      elimination removes it otherwise).
//   2. MatMul + Add: Add(MatMul(A, B), c) (either operand order), where c broadcasts along the
//      last axis only (right-aligned dims all 1 but the last, which is N or 1), becomes
//        - Gemm(A, B, c) when A and B are 2-D (alpha = beta = 1, transA / transB kept), or
//        - MatMul(A, B, bias) otherwise: the MatMul kernel adds the bias row in its tile.
//      A constant c is reshaped (and a size-1 c expanded) to [N]; a non-constant c must be [N].
// It does NOT: fuse when the MatMul output has another user or is a graph output; fuse Adds
// that broadcast along other axes or grow the output; fold other permutations, 1-D operands or
// Transposes feeding anything else; touch non-float nodes or nodes with a fused epilogue.
#include "ops/registry.h"
#include "passes/fusion_util.h"
#include "passes/passes.h"

namespace onnxc {
namespace {

constexpr const char* kPass = "fuse-matmul-add";

bool is_float(const Value* v) {
  return v && v->dtype == DataType::kFloat;
}

// perm of a Transpose node (default: reversed axes) swaps only the last two of `rank` axes.
bool swaps_last_two(const Node& t, size_t rank) {
  if (rank < 2) return false;
  std::vector<int64_t> perm;
  if (const Attribute* a = t.attr("perm")) {
    perm = a->ints;
  } else {
    for (size_t i = 0; i < rank; ++i) perm.push_back(static_cast<int64_t>(rank - 1 - i));
  }
  if (perm.size() != rank) return false;
  for (size_t i = 0; i + 2 < rank; ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return perm[rank - 2] == static_cast<int64_t>(rank - 1) &&
         perm[rank - 1] == static_cast<int64_t>(rank - 2);
}

void toggle_int_attr(Node& n, const char* name) {
  Attribute& a = n.attributes[name];
  a.kind = Attribute::Kind::kInt;
  a.i = a.i ? 0 : 1;
}

bool fold_transposes(Graph& g, Node& n, const Target& target, PassContext& stats, Diagnostics& diag,
                     bool& ok) {
  bool changed = false;
  for (size_t i = 0; i < 2; ++i) {
    const Value* v = n.input(i);
    const Node* t = v ? v->producer : nullptr;
    if (!t || t->op_type != "Transpose" || !t->domain.empty() || v->is_constant() ||
        !swaps_last_two(*t, v->shape.size()))
      continue;
    n.inputs[i] = t->input(0);
    toggle_int_attr(n, i == 0 ? "transA" : "transB");
    stats.count("Transposes folded");
    changed = true;
  }
  (void)g;
  if (changed) ok = fusion::reinfer(n, target, diag, kPass);
  return changed;
}

// The bias row of `c` for MatMul m's output of shape `out` (last axis N), or null if c is not one.
Value* bias_row(Graph& g, const Node* m, Value* c, const Shape& out, const std::string& base) {
  if (!is_float(c) || out.empty()) return nullptr;
  const int64_t n = out.back();
  if (!c->is_constant()) {  // used as it is: it must exist before the MatMul runs
    if (c->shape != Shape{n}) return nullptr;
    if (c->producer && fusion::position(g, c->producer) > fusion::position(g, m)) return nullptr;
    return c;
  }
  std::vector<double> row;
  if (!fusion::per_channel_constant(c, out, out.size() - 1, row)) return nullptr;
  if (c->shape == Shape{n}) return c;
  Tensor t = Tensor::zeros(DataType::kFloat, {n});
  for (int64_t j = 0; j < n; ++j)
    t.as<float>()[j] = static_cast<float>(row[static_cast<size_t>(j)]);
  return fusion::add_constant(g, base, std::move(t));
}

bool fuse_add(Graph& g, Node& m, const Target& target, PassContext& stats, Diagnostics& diag,
              bool& ok) {
  if (m.input(2) || m.input(3) || m.attr("fused_activation")) return false;
  Value* y = m.output(0);
  const Value *a = m.input(0), *b = m.input(1);
  if (!y || a->shape.empty() || b->shape.size() < 2) return false;  // Y's last axis must be N
  Node* u = fusion::sole_user(g, y);
  if (!u || u->op_type != "Add" || !u->domain.empty() || !u->output(0) ||
      u->output(0)->shape != y->shape)
    return false;
  Value* bias = bias_row(g, &m, fusion::other_operand(*u, y), y->shape, m.name + "_bias");
  if (!bias) return false;
  const bool to_gemm = a->shape.size() == 2 && b->shape.size() == 2;
  if (to_gemm) {
    const OpHandler* gemm = OpRegistry::instance().find("", "Gemm", m.opset);
    if (!gemm) return false;
    m.op_type = "Gemm";
    m.handler = gemm;
    if (m.opset < 7) {
      Attribute one;
      one.kind = Attribute::Kind::kInt;
      one.i = 1;
      m.attributes["broadcast"] = one;
    }
  }
  m.inputs.resize(3, nullptr);
  m.inputs[2] = bias;
  fusion::take_output(m, y, u->output(0));
  fusion::erase_nodes(g, {u});
  stats.count(to_gemm ? "MatMul+Add made Gemm" : "MatMul+Add made biased MatMul");
  ok = fusion::reinfer(m, target, diag, kPass);
  return true;
}

}  // namespace

bool run_fuse_matmul_add(Module& module, PassContext& stats) {
  Diagnostics& diag = stats.diag();
  Graph& g = *module.graph;
  bool changed = false, ok = true;
  for (size_t i = 0; i < g.nodes.size() && ok; ++i) {
    Node& n = *g.nodes[i];
    if ((n.op_type != "MatMul" && n.op_type != "Gemm") || !n.domain.empty() ||
        !is_float(n.output(0)) || n.input(3) || n.attr("fused_activation"))
      continue;
    changed |= fold_transposes(g, n, *module.target, stats, diag, ok);
    if (ok && n.op_type == "MatMul") changed |= fuse_add(g, n, *module.target, stats, diag, ok);
  }
  return changed;
}

}  // namespace onnxc
