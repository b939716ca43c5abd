// The recurrent members of the attention family (opset 27):
//   LinearAttention:     update rules linear, gated, delta, gated_delta over packed 3-D inputs,
//                        GQA/MQA, optional past_state; decay per key dim or per head, beta per
//                        head or shared. float, float16, bfloat16 (half types widened to float).
//   CausalConvWithState: depthwise causal 1-D convolution with a carried state, optional bias
//                        and fused silu/swish. float, float16, bfloat16.
#include <cmath>

#include "onnxc/attention.h"
#include "ops/half_compute.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

bool is_float_or_half(DataType t) {
  return t == DataType::kFloat || is_half(t);
}

// ---- CausalConvWithState -----------------------------------------------------------------------

struct CausalConvState : OpState {
  CausalConvParams p{};
  HalfPlan half;
};

class CausalConvWithStateOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 4, 1, 2)) return false;
    const Value *x = ctx.input(0), *w = ctx.input(1), *bias = ctx.input(2), *past = ctx.input(3);
    const DataType t = x->dtype;
    if (!is_float_or_half(t))
      return ctx.fail("type {} is not supported (float, float16, bfloat16)", dtype_name(t));
    for (const Value* in : {w, bias, past})
      if (in && in->dtype != t)
        return ctx.fail("all inputs must have the input's type {}, one is {}", dtype_name(t),
                        dtype_name(in->dtype));
    if (x->shape.size() != 3)
      return ctx.fail("input must be 3-D (batch, channels, length), has shape {}",
                      shape_str(x->shape));
    auto& s = ctx.make_state<CausalConvState>();
    CausalConvParams& p = s.p;
    p.batch = x->shape[0];
    p.channels = x->shape[1];
    p.length = x->shape[2];
    if (w->shape.size() != 3 || w->shape[0] != p.channels || w->shape[1] != 1 || w->shape[2] < 1)
      return ctx.fail("weight must be ({}, 1, k) with k >= 1, has shape {}", p.channels,
                      shape_str(w->shape));
    p.kernel = w->shape[2];
    if (bias && bias->shape != Shape{p.channels})
      return ctx.fail("bias must have shape ({}), has {}", p.channels, shape_str(bias->shape));
    const Shape state_shape = {p.batch, p.channels, p.kernel - 1};
    if (past && past->shape != state_shape)
      return ctx.fail("past_state must have shape {}, has {}", shape_str(state_shape),
                      shape_str(past->shape));
    const std::string act = ctx.attr_string("activation", "none");
    if (act != "none" && act != "silu" && act != "swish")
      return ctx.fail("activation '{}' is not one of none, silu, swish", act);
    p.silu = act != "none";
    ctx.set_output(0, t, x->shape);
    ctx.set_output(1, t, state_shape);
    s.half = plan_half(ctx, {0, 1, 2, 3}, {0, 1});
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    if (in[0]->dtype != DataType::kFloat) return false;
    auto f = [](const Tensor* t) { return t ? t->as<float>() : nullptr; };
    causal_conv_with_state_ref(
        n.state_as<CausalConvState>().p, f(in[0]), f(in[1]), f(in[2]), f(in[3]), out[0].as<float>(),
        out.size() > 1 && !out[1].data.empty() ? out[1].as<float>() : nullptr);
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<CausalConvState>();
    const CausalConvParams& p = s.p;
    ctx.include("onnxc/attention.h");
    ctx.line(
        "static constexpr onnxc::CausalConvParams p = {{/*batch, channels, length, kernel*/ {}, "
        "{}, {}, {}, /*silu*/ {}}};",
        p.batch, p.channels, p.length, p.kernel, p.silu);
    const HalfNames n = emit_widen(ctx, s.half);
    ctx.line("onnxc::causal_conv_with_state_ref<float>(p, {}, {}, {}, {}, {}, {});", n.in(0),
             n.in(1), n.in(2), n.in(3), n.out(0), n.out(1));
    emit_narrow(ctx, s.half, n);
  }
};

// ---- LinearAttention ---------------------------------------------------------------------------

struct LinearAttentionState : OpState {
  LinearAttentionParams p{};
  HalfPlan half;
  int64_t state_offset = -1;  // scratch offset of S when present_state is not an output
};

class LinearAttentionOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(3, 6, 1, 2)) return false;
    const Value *q = ctx.input(0), *k = ctx.input(1), *v = ctx.input(2);
    const Value *past = ctx.input(3), *decay = ctx.input(4), *beta = ctx.input(5);
    const DataType t = q->dtype;
    if (!is_float_or_half(t))
      return ctx.fail("type {} is not supported (float, float16, bfloat16)", dtype_name(t));
    for (const Value* in : {k, v, decay, beta})
      if (in && in->dtype != t)
        return ctx.fail("query, key, value, decay and beta must have one type {}, one is {}",
                        dtype_name(t), dtype_name(in->dtype));
    if (past && !is_float_or_half(past->dtype))
      return ctx.fail("past_state type {} is not supported (float, float16, bfloat16)",
                      dtype_name(past->dtype));
    if (!ctx.has_attr("q_num_heads") || !ctx.has_attr("kv_num_heads"))
      return ctx.fail("the q_num_heads and kv_num_heads attributes are required");
    auto& s = ctx.make_state<LinearAttentionState>();
    LinearAttentionParams& p = s.p;
    p.q_heads = ctx.attr_int("q_num_heads", 0);
    p.kv_heads = ctx.attr_int("kv_num_heads", 0);
    if (p.q_heads <= 0 || p.kv_heads <= 0 || p.q_heads % p.kv_heads != 0)
      return ctx.fail("q_num_heads {} must be a positive multiple of kv_num_heads {}", p.q_heads,
                      p.kv_heads);
    for (const Value* in : {q, k, v})
      if (in->shape.size() != 3)
        return ctx.fail("query, key and value must be 3-D (B, T, H*d), have shapes {}, {}, {}",
                        shape_str(q->shape), shape_str(k->shape), shape_str(v->shape));
    p.batch = q->shape[0];
    p.seq = q->shape[1];
    if (k->shape[0] != p.batch || v->shape[0] != p.batch || k->shape[1] != p.seq ||
        v->shape[1] != p.seq)
      return ctx.fail("query, key and value must share (B, T), have shapes {}, {}, {}",
                      shape_str(q->shape), shape_str(k->shape), shape_str(v->shape));
    if (q->shape[2] % p.q_heads || k->shape[2] % p.kv_heads || v->shape[2] % p.kv_heads)
      return ctx.fail("hidden sizes {}, {}, {} are not multiples of the head counts {}, {}",
                      q->shape[2], k->shape[2], v->shape[2], p.q_heads, p.kv_heads);
    p.dk = q->shape[2] / p.q_heads;
    p.dv = v->shape[2] / p.kv_heads;
    if (k->shape[2] / p.kv_heads != p.dk)
      return ctx.fail("key head size {} differs from query's {}", k->shape[2] / p.kv_heads, p.dk);
    const std::string rule = ctx.attr_string("update_rule", "gated_delta");
    if (rule == "linear")
      p.rule = 0;
    else if (rule == "gated")
      p.rule = 1;
    else if (rule == "delta")
      p.rule = 2;
    else if (rule == "gated_delta")
      p.rule = 3;
    else
      return ctx.fail("update_rule '{}' is not one of linear, gated, delta, gated_delta", rule);
    const bool gated = p.rule == 1 || p.rule == 3, delta = p.rule >= 2;
    if (gated) {
      if (!decay) return ctx.fail("update_rule '{}' needs the decay input", rule);
      if (decay->shape == Shape{p.batch, p.seq, p.kv_heads * p.dk})
        p.decay_per_key = 1;
      else if (decay->shape != Shape{p.batch, p.seq, p.kv_heads})
        return ctx.fail("decay must have shape {}x{}x{} or {}x{}x{}, has {}", p.batch, p.seq,
                        p.kv_heads * p.dk, p.batch, p.seq, p.kv_heads, shape_str(decay->shape));
    }
    if (delta) {
      if (!beta) return ctx.fail("update_rule '{}' needs the beta input", rule);
      if (beta->shape == Shape{p.batch, p.seq, p.kv_heads})
        p.beta_per_head = 1;
      else if (beta->shape != Shape{p.batch, p.seq, 1})
        return ctx.fail("beta must have shape {}x{}x{} or {}x{}x1, has {}", p.batch, p.seq,
                        p.kv_heads, p.batch, p.seq, shape_str(beta->shape));
    }
    const Shape state_shape = {p.batch, p.kv_heads, p.dk, p.dv};
    if (past && past->shape != state_shape)
      return ctx.fail("past_state must have shape {}, has {}", shape_str(state_shape),
                      shape_str(past->shape));
    const float scale = ctx.attr_float("scale", 0.0f);
    p.scale =
        scale != 0.0f ? static_cast<double>(scale) : 1.0 / std::sqrt(static_cast<double>(p.dk));
    ctx.set_output(0, t, {p.batch, p.seq, p.q_heads * p.dv});
    ctx.set_output(1, past ? past->dtype : t, state_shape);
    s.half = plan_half(ctx, {0, 1, 2, 3, 4, 5}, {0, 1});
    if (!ctx.has_output(1)) {  // S lives in scratch memory
      s.state_offset = static_cast<int64_t>(s.half.bytes);
      ctx.request_scratch(s.half.bytes +
                          static_cast<size_t>(shape_numel(state_shape)) * sizeof(float));
    }
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<LinearAttentionState>();
    const LinearAttentionParams& p = s.p;
    ctx.include("onnxc/attention.h");
    ctx.line(
        "static constexpr onnxc::LinearAttentionParams p = {{/*batch, seq, q_heads, kv_heads, "
        "dk, dv*/ {}, {}, {}, {}, {}, {}, /*rule*/ {}, /*decay_per_key*/ {}, /*beta_per_head*/ "
        "{}, /*scale*/ {}}};",
        p.batch, p.seq, p.q_heads, p.kv_heads, p.dk, p.dv, p.rule, p.decay_per_key, p.beta_per_head,
        cpp_double(p.scale));
    const HalfNames n = emit_widen(ctx, s.half);
    std::string state = n.out(1);
    if (s.state_offset >= 0) {
      state = "state";
      ctx.line("float* const state = reinterpret_cast<float*>({} + {});", ctx.scratch(),
               s.state_offset);
    }
    ctx.line("onnxc::linear_attention_ref<float>(p, {}, {}, {}, {}, {}, {}, {}, {});", n.in(0),
             n.in(1), n.in(2), n.in(3), n.in(4), n.in(5), n.out(0), state);
    emit_narrow(ctx, s.half, n);
  }
};

const CausalConvWithStateOp kCausalConvWithState;
const LinearAttentionOp kLinearAttention;

}  // namespace

std::vector<OpRegistration> linear_attention_ops() {
  return {{"", "CausalConvWithState", 27, kMaxOpset, &kCausalConvWithState},
          {"", "LinearAttention", 27, kMaxOpset, &kLinearAttention}};
}

}  // namespace onnxc
