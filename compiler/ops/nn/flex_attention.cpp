// ai.onnx.preview FlexAttention (1): 4-D Q/K/V, GQA, scale, softmax_precision (float; double for
// double inputs), and the score_mod / prob_mod subgraphs. The compiler emits no subgraphs, so a
// modifier is compiled into an elementwise ModProgram: its nodes are inferred with the input's
// static shape, everything that does not depend on the scores is folded (Shape -> Range -> index
// grids, casts of constants), and the nodes left must be elementwise ops on the scores with
// constant operands, which become the program's constants (broadcast to the scores' shape).
#include <array>
#include <cmath>
#include <map>

#include "onnxc/attention.h"
#include "ops/dispatch.h"
#include "ops/folding.h"
#include "ops/half_compute.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

struct Modifier {
  bool present = false;
  ModProgram prog{};
  std::vector<std::vector<double>> consts;  // per constant: 1 value or one per score element
};

struct FlexState : OpState {
  AttentionParams p{};
  HalfPlan half;
  size_t scores_offset = 0;
  Modifier mods[2];  // score_mod, prob_mod
};

const std::map<std::string, int>& mod_ops() {
  static const std::map<std::string, int> ops = {
      {"Add", kModAdd},   {"Sub", kModSub},           {"Mul", kModMul},      {"Div", kModDiv},
      {"Neg", kModNeg},   {"Tanh", kModTanh},         {"Exp", kModExp},      {"Where", kModWhere},
      {"Abs", kModAbs},   {"Max", kModMax},           {"Min", kModMin},      {"Sqrt", kModSqrt},
      {"Relu", kModRelu}, {"Identity", kModIdentity}, {"Cast", kModIdentity}};
  return ops;
}

// Values of constant `t` broadcast to `full` (a single value stays single); false when `t` does
// not broadcast or is not a plain numeric/bool type.
bool broadcast_constant(const Tensor& t, const Shape& full, std::vector<double>& out) {
  if (!in_type_set(t.dtype, kAllPlain) || t.shape.size() > full.size()) return false;
  auto at = [&](int64_t i) {
    return t.dtype == DataType::kBool ? static_cast<double>(t.int_at(i)) : t.double_at(i);
  };
  if (t.numel() == 1) {
    out = {at(0)};
    return true;
  }
  const size_t off = full.size() - t.shape.size();
  for (size_t d = 0; d < t.shape.size(); ++d)
    if (t.shape[d] != 1 && t.shape[d] != full[off + d]) return false;
  const int64_t n = shape_numel(full);
  out.resize(static_cast<size_t>(n));
  for (int64_t e = 0; e < n; ++e) {
    int64_t rest = e, src = 0, stride = 1;
    for (size_t d = full.size(); d-- > 0;) {
      const int64_t idx = rest % full[d];
      rest /= full[d];
      if (d >= off) {
        const int64_t cd = t.shape[d - off];
        src += (cd == 1 ? 0 : idx) * stride;
        stride *= cd;
      }
    }
    out[static_cast<size_t>(e)] = at(src);
  }
  return true;
}

// Compiles modifier graph `g` on scores of type `ct` and shape `full` into `m`.
bool compile_modifier(InferContext& ctx, const char* name, Graph& g, DataType ct, const Shape& full,
                      Modifier& m) {
  if (g.inputs.size() != 1 || g.outputs.size() != 1)
    return ctx.fail("{} must have 1 input and 1 output, has {} and {}", name, g.inputs.size(),
                    g.outputs.size());
  Value* x = g.inputs[0];
  x->dtype = ct;
  x->shape = full;
  x->has_shape = true;
  // Operands before slot numbering: kind 0 the scores, 1 constant #k, 2 instruction #k.
  std::map<const Value*, std::pair<int, int>> dynamic = {{x, {0, 0}}};
  std::vector<std::array<std::pair<int, int>, 3>> operands;
  std::vector<int> ops;
  auto constant_operand = [&](const Value* v, std::pair<int, int>& slot) {
    std::vector<double> values;
    if (!broadcast_constant(*v->constant, full, values)) return false;
    m.consts.push_back(std::move(values));
    slot = {1, static_cast<int>(m.consts.size()) - 1};
    return true;
  };
  for (auto& up : g.nodes) {
    Node& n = *up;
    n.handler = OpRegistry::instance().find(n.domain, n.op_type, n.opset);
    if (!n.handler) return ctx.fail("{}: op {} is not supported", name, n.op_type);
    Diagnostics diag;
    InferContext sub(n, diag);
    if (!n.handler->infer(sub) || !diag.ok())
      return ctx.fail("{}: {}", name, diag.ok() ? "inference failed" : diag.errors()[0]);
    bool folded = true, all_constant = true;  // Shape, Size: constant from infer() already
    for (const Value* out : n.outputs)
      if (out && !out->is_constant()) folded = false;
    if (folded) continue;
    for (const Value* in : n.inputs)
      if (in && !in->is_constant()) all_constant = false;
    if (all_constant) {
      fold_node(n);
      for (const Value* out : n.outputs)
        if (out && !out->is_constant())
          return ctx.fail("{}: node '{}' ({}) could not be folded", name, n.name, n.op_type);
      continue;
    }
    auto op = mod_ops().find(n.op_type);
    if (op == mod_ops().end())
      return ctx.fail(
          "{}: op {} on the scores is not supported (elementwise arithmetic, Tanh, "
          "Exp, Where only)",
          name, n.op_type);
    const Value* out = n.output(0);
    if (n.outputs.size() != 1 || !out || out->shape != full || out->dtype != ct)
      return ctx.fail("{}: node '{}' ({}) must give {}[{}]", name, n.name, n.op_type,
                      dtype_name(ct), shape_str(full));
    std::array<std::pair<int, int>, 3> opd = {{{0, 0}, {0, 0}, {0, 0}}};
    if (n.inputs.size() > 3) return ctx.fail("{}: node '{}' has too many inputs", name, n.name);
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const Value* in = n.inputs[i];
      auto it = in ? dynamic.find(in) : dynamic.end();
      if (it != dynamic.end())
        opd[i] = it->second;
      else if (!in || !in->is_constant() || !constant_operand(in, opd[i]))
        return ctx.fail(
            "{}: input {} of node '{}' is neither the scores nor a constant that "
            "broadcasts to them",
            name, i, n.name);
    }
    if ((op->second == kModMax || op->second == kModMin) && n.inputs.size() != 2)
      return ctx.fail("{}: {} must have 2 inputs", name, n.op_type);
    ops.push_back(op->second);
    operands.push_back(opd);
    dynamic[out] = {2, static_cast<int>(ops.size()) - 1};
  }
  std::pair<int, int> result;
  const Value* y = g.outputs[0];
  auto it = dynamic.find(y);
  if (it != dynamic.end())
    result = it->second;
  else if (!y->is_constant() || !constant_operand(y, result))
    return ctx.fail("{}: the output is neither computed from the scores nor constant", name);
  if (m.consts.size() > static_cast<size_t>(kMaxModConsts) ||
      ops.size() > static_cast<size_t>(kMaxModInstrs))
    return ctx.fail("{}: {} constants and {} ops exceed the limits {} and {}", name,
                    m.consts.size(), ops.size(), kMaxModConsts, kMaxModInstrs);
  ModProgram& p = m.prog;
  p.n_consts = static_cast<int>(m.consts.size());
  p.n_instrs = static_cast<int>(ops.size());
  auto slot = [&](std::pair<int, int> o) {
    return o.first == 0 ? 0 : o.first == 1 ? 1 + o.second : 1 + p.n_consts + o.second;
  };
  for (int c = 0; c < p.n_consts; ++c)
    p.const_full[c] = m.consts[static_cast<size_t>(c)].size() > 1;
  for (int i = 0; i < p.n_instrs; ++i) {
    const auto& o = operands[static_cast<size_t>(i)];
    p.instrs[i] = {ops[static_cast<size_t>(i)], slot(o[0]), slot(o[1]), slot(o[2])};
  }
  p.result = slot(result);
  m.present = true;
  return true;
}

class FlexAttentionOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(3, 3, 1, 1)) return false;
    const Value *q = ctx.input(0), *k = ctx.input(1), *v = ctx.input(2);
    const DataType t = q->dtype;
    if (t != DataType::kFloat && t != DataType::kDouble && !is_half(t))
      return ctx.fail("Q must be float, double, float16 or bfloat16, is {}", dtype_name(t));
    if (k->dtype != t || v->dtype != t)
      return ctx.fail("Q, K and V must have one type, are {}, {}, {}", dtype_name(t),
                      dtype_name(k->dtype), dtype_name(v->dtype));
    if (q->shape.size() != 4 || k->shape.size() != 4 || v->shape.size() != 4)
      return ctx.fail("Q, K and V must be 4-D, have shapes {}, {}, {}", shape_str(q->shape),
                      shape_str(k->shape), shape_str(v->shape));
    const DataType ct = t == DataType::kDouble ? DataType::kDouble : DataType::kFloat;
    if (ctx.has_attr("softmax_precision") &&
        ctx.attr_int("softmax_precision", 1) != static_cast<int64_t>(ct))
      return ctx.fail("softmax_precision {} is not supported (float; double for double inputs)",
                      ctx.attr_int("softmax_precision", 1));
    auto& s = ctx.make_state<FlexState>();
    AttentionParams& p = s.p;
    p.batch = q->shape[0];
    p.q_heads = q->shape[1];
    p.q_len = q->shape[2];
    p.head_size = q->shape[3];
    p.kv_heads = k->shape[1];
    p.kv_len = k->shape[2];
    p.v_head_size = v->shape[3];
    if (k->shape[0] != p.batch || v->shape[0] != p.batch || k->shape[3] != p.head_size ||
        v->shape[1] != p.kv_heads || v->shape[2] != p.kv_len)
      return ctx.fail("Q, K, V shapes {}, {}, {} do not agree in batch, heads, lengths, head size",
                      shape_str(q->shape), shape_str(k->shape), shape_str(v->shape));
    if (p.kv_heads <= 0 || p.q_heads % p.kv_heads != 0)
      return ctx.fail("q heads {} must be a multiple of kv heads {}", p.q_heads, p.kv_heads);
    auto strides = [](int64_t heads, int64_t seq, int64_t d, index_t out[3]) {
      out[0] = heads * seq * d;
      out[1] = seq * d;
      out[2] = d;
    };
    strides(p.q_heads, p.q_len, p.head_size, p.q_strides);
    strides(p.kv_heads, p.kv_len, p.head_size, p.k_strides);
    strides(p.kv_heads, p.kv_len, p.v_head_size, p.v_strides);
    strides(p.q_heads, p.q_len, p.v_head_size, p.y_strides);
    p.left_window = p.right_window = -1;
    const double scale = ctx.has_attr("scale") ? static_cast<double>(ctx.attr_float("scale", 1.0f))
                                               : 1.0 / std::sqrt(static_cast<double>(p.head_size));
    if (!(scale >= 0)) return ctx.fail("scale must be >= 0, is {}", scale);
    p.sqrt_scale = std::sqrt(scale);
    const Shape full = {p.batch, p.q_heads, p.q_len, p.kv_len};
    const char* names[2] = {"score_mod", "prob_mod"};
    for (int i = 0; i < 2; ++i) {
      const Attribute* a = ctx.node().attr(names[i]);
      if (!a) continue;
      if (a->kind != Attribute::Kind::kGraph || !a->g)
        return ctx.fail("{} must be a graph attribute", names[i]);
      if (!compile_modifier(ctx, names[i], *a->g, ct, full, s.mods[i])) return false;
    }
    ctx.set_output(0, t, {p.batch, p.q_heads, p.q_len, p.v_head_size});
    s.half = plan_half(ctx, {0, 1, 2}, {0});
    s.scores_offset = s.half.bytes;
    const size_t elem = ct == DataType::kDouble ? sizeof(double) : sizeof(float);
    ctx.request_scratch(s.half.bytes + static_cast<size_t>(p.kv_len > 0 ? p.kv_len : 1) * elem);
    return true;
  }

  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<FlexState>();
    const AttentionParams& p = s.p;
    ctx.include("onnxc/attention.h");
    const char* t = kernel_cpp_type(ctx.input(0)->dtype);
    const bool dbl = ctx.input(0)->dtype == DataType::kDouble;
    ctx.line(
        "static constexpr onnxc::AttentionParams p = {{/*batch, q_heads, kv_heads*/ {}, {}, {}, "
        "/*q_len, kv_len, past_len*/ {}, {}, 0, /*head_size, v_head_size*/ {}, {}, "
        "/*q_strides*/ {{{}, {}, {}}}, /*k_strides*/ {{{}, {}, {}}}, /*v_strides*/ {{{}, {}, {}}}, "
        "/*y_strides*/ {{{}, {}, {}}}, /*mask (unused)*/ {{0, 0, 0}}, 0, 0, 0, 0, -1, -1, "
        "/*sqrt_scale*/ {}, /*softcap (unused)*/ 0.0, 0}};",
        p.batch, p.q_heads, p.kv_heads, p.q_len, p.kv_len, p.head_size, p.v_head_size,
        p.q_strides[0], p.q_strides[1], p.q_strides[2], p.k_strides[0], p.k_strides[1],
        p.k_strides[2], p.v_strides[0], p.v_strides[1], p.v_strides[2], p.y_strides[0],
        p.y_strides[1], p.y_strides[2], cpp_double(p.sqrt_scale));
    std::string prog[2] = {"nullptr", "nullptr"}, consts[2] = {"nullptr", "nullptr"};
    const char* tag[2] = {"score", "prob"};
    for (int i = 0; i < 2; ++i) {
      const Modifier& m = s.mods[i];
      if (!m.present) continue;
      std::string instrs, full;
      for (int k = 0; k < m.prog.n_instrs; ++k) {
        const ModInstr& in = m.prog.instrs[k];
        instrs += fmt::format("{}{{{}, {}, {}, {}}}", k ? ", " : "", in.op, in.a, in.b, in.c);
      }
      for (int c = 0; c < m.prog.n_consts; ++c)
        full += fmt::format("{}{}", c ? ", " : "", m.prog.const_full[c]);
      ctx.line(
          "static constexpr onnxc::ModProgram {}_mod = {{/*n_consts*/ {}, /*n_instrs*/ {}, "
          "/*const_full*/ {{{}}}, /*instrs {{op, a, b, c}}*/ {{{}}}, /*result*/ {}}};",
          tag[i], m.prog.n_consts, m.prog.n_instrs, full, instrs, m.prog.result);
      prog[i] = fmt::format("&{}_mod", tag[i]);
      if (m.prog.n_consts == 0) continue;
      std::string names;
      for (size_t c = 0; c < m.consts.size(); ++c) {
        std::string values;
        for (size_t e = 0; e < m.consts[c].size(); ++e)
          values += fmt::format("{}{}", e ? ", " : "",
                                dbl ? cpp_double(m.consts[c][e]) : cpp_float(m.consts[c][e]));
        ctx.line("static const {} {}_c{}[{}] = {{{}}};", t, tag[i], c, m.consts[c].size(), values);
        names += fmt::format("{}{}_c{}", c ? ", " : "", tag[i], c);
      }
      ctx.line("const {0}* const {1}_consts[] = {{{2}}};", t, tag[i], names);
      consts[i] = fmt::format("{}_consts", tag[i]);
    }
    const HalfNames n = emit_widen(ctx, s.half);
    ctx.line("{0}* const scores = reinterpret_cast<{0}*>({1} + {2});", t, ctx.scratch(),
             s.scores_offset);
    ctx.line("onnxc::flex_attention_ref<{}>(p, {}, {}, {}, {}, {}, {}, {}, {}, scores);", t,
             n.in(0), n.in(1), n.in(2), prog[0], consts[0], prog[1], consts[1], n.out(0));
    emit_narrow(ctx, s.half, n);
  }
};

const FlexAttentionOp kFlexAttention;

}  // namespace

std::vector<OpRegistration> flex_attention_ops() {
  return {{"ai.onnx.preview", "FlexAttention", 1, 1, &kFlexAttention}};
}

}  // namespace onnxc
