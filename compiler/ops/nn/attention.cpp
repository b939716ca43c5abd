// Attention (23, 24, 25+): scaled dot-product attention over 3-D or 4-D Q/K/V, MHA/GQA/MQA,
// boolean or additive attn_mask (its key dim may be shorter: the rest is masked), is_causal with
// the offset-aware frontier, past/present KV caches, nonpad_kv_seqlen (24), sliding windows (25),
// scale, softcap, the qk_matmul_output modes 0-3 and softmax_precision. A fully-masked query row
// gives zeros. Float and double run attention_ref; float16/bfloat16 run the float kernel on
// widened copies (softmax_precision is then float, at least as precise as asked).
#include "onnxc/attention.h"

#include <cmath>

#include "ops/dispatch.h"
#include "ops/half_compute.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

bool is_attention_float(DataType t) {
  return t == DataType::kFloat || t == DataType::kDouble || is_half(t);
}

struct AttentionState : OpState {
  AttentionParams p{};
  HalfPlan half;
  size_t scores_offset = 0;  // the score row in scratch, after the half copies
};

// Strides (batch, head, sequence) of a 4-D (b, h, s, d) or 3-D (b, s, h * d) tensor.
void layout_strides(bool four_d, int64_t heads, int64_t seq, int64_t d, index_t out[3]) {
  out[0] = heads * seq * d;
  out[1] = four_d ? seq * d : d;
  out[2] = four_d ? d : heads * d;
}

void emit_attention(EmitContext& ctx);

// Heads, sequence lengths and head sizes: from the dims of 4-D (batch, heads, seq, size)
// inputs, or from q_num_heads and kv_num_heads for 3-D (batch, seq, heads * size) ones.
bool head_layout(InferContext& ctx, const Value* q, const Value* k, const Value* v, bool four_d,
                 AttentionParams& p) {
  if (four_d) {
    p.q_heads = q->shape[1];
    p.kv_heads = k->shape[1];
    p.q_len = q->shape[2];
    p.kv_len = k->shape[2];
    p.head_size = q->shape[3];
    p.v_head_size = v->shape[3];
    if (k->shape[3] != p.head_size)
      return ctx.fail("K head size {} differs from Q's {}", k->shape[3], p.head_size);
    if (v->shape[1] != p.kv_heads || v->shape[2] != p.kv_len)
      return ctx.fail("V shape {} does not match K shape {} in heads and sequence",
                      shape_str(v->shape), shape_str(k->shape));
  } else {
    if (!ctx.has_attr("q_num_heads") || !ctx.has_attr("kv_num_heads"))
      return ctx.fail("3-D inputs need the q_num_heads and kv_num_heads attributes");
    p.q_heads = ctx.attr_int("q_num_heads", 0);
    p.kv_heads = ctx.attr_int("kv_num_heads", 0);
    if (p.q_heads <= 0 || p.kv_heads <= 0)
      return ctx.fail("q_num_heads ({}) and kv_num_heads ({}) must be positive", p.q_heads,
                      p.kv_heads);
    if (q->shape[2] % p.q_heads || k->shape[2] % p.kv_heads || v->shape[2] % p.kv_heads)
      return ctx.fail(
          "hidden sizes {}, {}, {} are not multiples of q_num_heads {} / "
          "kv_num_heads {}",
          q->shape[2], k->shape[2], v->shape[2], p.q_heads, p.kv_heads);
    p.q_len = q->shape[1];
    p.kv_len = k->shape[1];
    p.head_size = q->shape[2] / p.q_heads;
    p.v_head_size = v->shape[2] / p.kv_heads;
    if (k->shape[2] / p.kv_heads != p.head_size)
      return ctx.fail("K head size {} differs from Q's {}", k->shape[2] / p.kv_heads, p.head_size);
    if (v->shape[1] != p.kv_len)
      return ctx.fail("V sequence length {} differs from K's {}", v->shape[1], p.kv_len);
  }
  return true;
}

// The KV cache (past_key, past_value) and nonpad_kv_seqlen, which excludes it.
bool past_and_nonpad(InferContext& ctx, DataType t, const Value* past_k, const Value* past_v,
                     const Value* nonpad, AttentionParams& p) {
  if ((past_k == nullptr) != (past_v == nullptr))
    return ctx.fail("past_key and past_value must be given together");
  if (past_k) {
    if (past_k->dtype != t || past_v->dtype != t)
      return ctx.fail("past_key and past_value must have Q's type {}", dtype_name(t));
    if (past_k->shape.size() != 4 || past_k->shape[0] != p.batch ||
        past_k->shape[1] != p.kv_heads || past_k->shape[3] != p.head_size)
      return ctx.fail("past_key has shape {}, expected {}x{}xPx{}", shape_str(past_k->shape),
                      p.batch, p.kv_heads, p.head_size);
    p.past_len = past_k->shape[2];
    if (past_v->shape != Shape{p.batch, p.kv_heads, p.past_len, p.v_head_size})
      return ctx.fail("past_value has shape {}, expected {}x{}x{}x{}", shape_str(past_v->shape),
                      p.batch, p.kv_heads, p.past_len, p.v_head_size);
  }
  if (nonpad) {
    if (past_k) return ctx.fail("nonpad_kv_seqlen cannot be used with past_key/past_value");
    if (nonpad->dtype != DataType::kInt64 || nonpad->shape != Shape{p.batch})
      return ctx.fail("nonpad_kv_seqlen must be int64[{}], is {}[{}]", p.batch,
                      dtype_name(nonpad->dtype), shape_str(nonpad->shape));
    p.has_nonpad = 1;
  }
  return true;
}

// attn_mask: bool (masked where false) or additive in Q's type, broadcast to (batch, q heads,
// q len, keys); its key dim may be shorter than the `total` keys (the rest is masked).
bool mask_layout(InferContext& ctx, DataType t, const Value* mask, int64_t total,
                 AttentionParams& p) {
  if (mask) {
    if (mask->dtype == DataType::kBool)
      p.mask_kind = 1;
    else if (mask->dtype == t)
      p.mask_kind = 2;
    else
      return ctx.fail("attn_mask must be bool or Q's type {}, is {}", dtype_name(t),
                      dtype_name(mask->dtype));
    const Shape& ms = mask->shape;
    if (ms.empty() || ms.size() > 4)
      return ctx.fail("attn_mask must have rank 1 to 4, has shape {}", shape_str(ms));
    p.mask_len = ms.back();
    if (p.mask_len > total)
      return ctx.fail("attn_mask has {} key columns, more than the {} keys", p.mask_len, total);
    const int64_t want[3] = {p.batch, p.q_heads, p.q_len};
    int64_t stride = p.mask_len;
    for (int d = 2; d >= 0; --d) {
      const int64_t md = static_cast<int64_t>(ms.size()) - 4 + d;  // mask dim aligned to d
      const int64_t size = md >= 0 ? ms[static_cast<size_t>(md)] : 1;
      if (size != 1 && size != want[d])
        return ctx.fail("attn_mask shape {} does not broadcast to {}x{}x{}x{}", shape_str(ms),
                        p.batch, p.q_heads, p.q_len, total);
      p.mask_strides[d] = size == 1 ? 0 : stride;
      stride *= size;
    }
  }
  return true;
}

// is_causal, the sliding windows, scale, softcap, qk_matmul_output_mode and softmax_precision.
bool scalar_attributes(InferContext& ctx, DataType t, AttentionParams& p) {
  p.is_causal = static_cast<int>(ctx.attr_int("is_causal", 0));
  if (p.is_causal != 0 && p.is_causal != 1)
    return ctx.fail("is_causal must be 0 or 1, is {}", p.is_causal);
  p.left_window = ctx.attr_int("left_window_size", -1);
  p.right_window = ctx.attr_int("right_window_size", -1);
  if (p.left_window < -1 || p.right_window < -1)
    return ctx.fail("window sizes must be >= -1, are {} and {}", p.left_window, p.right_window);
  const double scale = ctx.has_attr("scale") ? static_cast<double>(ctx.attr_float("scale", 1.0f))
                                             : 1.0 / std::sqrt(static_cast<double>(p.head_size));
  if (!(scale >= 0)) return ctx.fail("scale must be >= 0, is {}", scale);
  p.sqrt_scale = std::sqrt(scale);
  p.softcap = ctx.attr_float("softcap", 0.0f);
  if (!(p.softcap >= 0)) return ctx.fail("softcap must be >= 0, is {}", p.softcap);
  p.qk_mode = static_cast<int>(ctx.attr_int("qk_matmul_output_mode", 0));
  if (p.qk_mode < 0 || p.qk_mode > 3)
    return ctx.fail("qk_matmul_output_mode must be 0 to 3, is {}", p.qk_mode);
  if (ctx.has_attr("softmax_precision")) {
    const int64_t sp = ctx.attr_int("softmax_precision", 1);
    if (sp != 1 && sp != 10 && sp != 11 && sp != 16)
      return ctx.fail("softmax_precision {} is not 1, 10, 11 or 16", sp);
    if (sp == 11 && t != DataType::kDouble)
      return ctx.fail("softmax_precision double is only supported for double inputs");
  }

  return true;
}

class AttentionOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    const size_t max_in = ctx.opset() >= 24 ? 7 : 6;
    if (!ctx.check_arity(3, max_in, 1, 4)) return false;
    const Value *q = ctx.input(0), *k = ctx.input(1), *v = ctx.input(2), *mask = ctx.input(3);
    const Value *past_k = ctx.input(4), *past_v = ctx.input(5), *nonpad = ctx.input(6);
    const DataType t = q->dtype;
    if (!is_attention_float(t))
      return ctx.fail("Q must be float, double, float16 or bfloat16, is {}", dtype_name(t));
    if (k->dtype != t || v->dtype != t)
      return ctx.fail("Q, K and V must have one type, are {}, {}, {}", dtype_name(t),
                      dtype_name(k->dtype), dtype_name(v->dtype));
    const size_t rank = q->shape.size();
    if ((rank != 3 && rank != 4) || k->shape.size() != rank || v->shape.size() != rank)
      return ctx.fail("Q, K and V must all be 3-D or all 4-D, have shapes {}, {}, {}",
                      shape_str(q->shape), shape_str(k->shape), shape_str(v->shape));
    const bool four_d = rank == 4;
    auto& s = ctx.make_state<AttentionState>();
    AttentionParams& p = s.p;
    p.batch = q->shape[0];
    if (k->shape[0] != p.batch || v->shape[0] != p.batch)
      return ctx.fail("Q, K and V must have one batch size, have shapes {}, {}, {}",
                      shape_str(q->shape), shape_str(k->shape), shape_str(v->shape));
    if (!head_layout(ctx, q, k, v, four_d, p)) return false;
    if (p.kv_heads <= 0 || p.q_heads % p.kv_heads != 0)
      return ctx.fail("q heads {} must be a multiple of kv heads {}", p.q_heads, p.kv_heads);
    layout_strides(four_d, p.q_heads, p.q_len, p.head_size, p.q_strides);
    layout_strides(four_d, p.kv_heads, p.kv_len, p.head_size, p.k_strides);
    layout_strides(four_d, p.kv_heads, p.kv_len, p.v_head_size, p.v_strides);
    layout_strides(four_d, p.q_heads, p.q_len, p.v_head_size, p.y_strides);

    if (!past_and_nonpad(ctx, t, past_k, past_v, nonpad, p)) return false;
    const int64_t total = p.past_len + p.kv_len;  // keys: the cache, then the new ones
    if (!mask_layout(ctx, t, mask, total, p) || !scalar_attributes(ctx, t, p)) return false;

    Shape y_shape = four_d ? Shape{p.batch, p.q_heads, p.q_len, p.v_head_size}
                           : Shape{p.batch, p.q_len, p.q_heads * p.v_head_size};
    ctx.set_output(0, t, y_shape);
    ctx.set_output(1, t, {p.batch, p.kv_heads, total, p.head_size});
    ctx.set_output(2, t, {p.batch, p.kv_heads, total, p.v_head_size});
    ctx.set_output(3, t, {p.batch, p.q_heads, p.q_len, total});
    s.half = plan_half(ctx, {0, 1, 2, 3, 4, 5}, {0, 1, 2, 3});
    const size_t elem = t == DataType::kDouble ? sizeof(double) : sizeof(float);
    s.scores_offset = s.half.bytes;
    ctx.request_scratch(s.half.bytes + static_cast<size_t>(total > 0 ? total : 1) * elem);
    return true;
  }

  // Folds float and double attention (half types are not folded).
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const AttentionParams& p = n.state_as<AttentionState>().p;
    auto ptr = [](auto tag, const Tensor* t) { return t ? t->as<decltype(tag)>() : nullptr; };
    auto out_ptr = [&](auto tag, size_t i) {
      return i < out.size() && n.output(i) ? out[i].as<decltype(tag)>() : nullptr;
    };
    return visit_dtype<kFloatTypes>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      std::vector<T> scores(static_cast<size_t>(p.past_len + p.kv_len) + 1);
      const int64_t* nonpad = in.size() > 6 && in[6] ? in[6]->as<int64_t>() : nullptr;
      const Tensor* mask = in.size() > 3 ? in[3] : nullptr;
      const Tensor* pk = in.size() > 4 ? in[4] : nullptr;
      const Tensor* pv = in.size() > 5 ? in[5] : nullptr;
      if (p.mask_kind == 1)
        attention_ref<T, bool>(p, ptr(tag, in[0]), ptr(tag, in[1]), ptr(tag, in[2]),
                               mask->as<bool>(), ptr(tag, pk), ptr(tag, pv), nonpad,
                               out_ptr(tag, 0), out_ptr(tag, 1), out_ptr(tag, 2), out_ptr(tag, 3),
                               scores.data());
      else
        attention_ref<T, T>(p, ptr(tag, in[0]), ptr(tag, in[1]), ptr(tag, in[2]), ptr(tag, mask),
                            ptr(tag, pk), ptr(tag, pv), nonpad, out_ptr(tag, 0), out_ptr(tag, 1),
                            out_ptr(tag, 2), out_ptr(tag, 3), scores.data());
    });
  }
  void emit(EmitContext& ctx) const override { emit_attention(ctx); }
};

// The kernel call of Attention (absent inputs and outputs are null).
void emit_attention(EmitContext& ctx) {
  const auto& s = ctx.node().state_as<AttentionState>();
  const AttentionParams& p = s.p;
  ctx.include("onnxc/attention.h");
  ctx.line(
      "static constexpr onnxc::AttentionParams p = {{/*batch, q_heads, kv_heads*/ {}, {}, {}, "
      "/*q_len, kv_len, past_len*/ {}, {}, {}, /*head_size, v_head_size*/ {}, {}, "
      "/*q_strides*/ {{{}, {}, {}}}, /*k_strides*/ {{{}, {}, {}}}, /*v_strides*/ {{{}, {}, {}}}, "
      "/*y_strides*/ {{{}, {}, {}}}, /*mask_strides*/ {{{}, {}, {}}}, /*mask_len*/ {}, "
      "/*mask_kind*/ {}, /*is_causal*/ {}, /*has_nonpad*/ {}, /*left_window*/ {}, "
      "/*right_window*/ {}, /*sqrt_scale*/ {}, /*softcap*/ {}, /*qk_mode*/ {}}};",
      p.batch, p.q_heads, p.kv_heads, p.q_len, p.kv_len, p.past_len, p.head_size, p.v_head_size,
      p.q_strides[0], p.q_strides[1], p.q_strides[2], p.k_strides[0], p.k_strides[1],
      p.k_strides[2], p.v_strides[0], p.v_strides[1], p.v_strides[2], p.y_strides[0],
      p.y_strides[1], p.y_strides[2], p.mask_strides[0], p.mask_strides[1], p.mask_strides[2],
      p.mask_len, p.mask_kind, p.is_causal, p.has_nonpad, p.left_window, p.right_window,
      cpp_double(p.sqrt_scale), cpp_double(p.softcap), p.qk_mode);
  const HalfNames n = emit_widen(ctx, s.half);
  const char* t = kernel_cpp_type(ctx.input(0)->dtype);
  const char* m = p.mask_kind == 1 ? "bool" : t;
  ctx.line("{0}* const scores = reinterpret_cast<{0}*>({1} + {2});", t, ctx.scratch(),
           s.scores_offset);
  const std::string mask = p.mask_kind == 1 ? ctx.in(3) : n.in(3);
  const std::string nonpad = ctx.input(6) ? ctx.in(6) : "nullptr";
  ctx.line("onnxc::attention_ref<{}, {}>(p, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, scores);",
           t, m, n.in(0), n.in(1), n.in(2), mask, n.in(4), n.in(5), nonpad, n.out(0), n.out(1),
           n.out(2), n.out(3));
  emit_narrow(ctx, s.half, n);
}

const AttentionOp kAttention;

}  // namespace

std::vector<OpRegistration> attention_ops() {
  return {{"", "Attention", 23, kMaxOpset, &kAttention}};
}

}  // namespace onnxc
