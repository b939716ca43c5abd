// The smaller members of the attention family:
//   RotaryEmbedding (23): 3-D or 4-D input, position_ids or per-token caches, interleaved,
//                         partial rotation (rotary_embedding_dim); float, float16, bfloat16.
//   SwiGLU (28):          y = a * sigmoid(alpha * a) * b; float, double, float16, bfloat16.
//   TensorScatter (24):   KV-cache update along `axis`, linear or circular; any byte-sized type.
#include <algorithm>

#include "onnxc/attention.h"
#include "ops/dispatch.h"
#include "ops/half_compute.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

// ---- RotaryEmbedding ---------------------------------------------------------------------------

struct RotaryState : OpState {
  RotaryParams p{};
  HalfPlan half;
};

class RotaryEmbeddingOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(3, 4, 1, 1)) return false;
    const Value *x = ctx.input(0), *cos = ctx.input(1), *sin = ctx.input(2), *pos = ctx.input(3);
    const DataType t = x->dtype;
    if (t != DataType::kFloat && !is_half(t))
      return ctx.fail("type {} is not supported (float, float16, bfloat16)", dtype_name(t));
    if (cos->dtype != t || sin->dtype != t)
      return ctx.fail("cos_cache and sin_cache must have the input's type {}", dtype_name(t));
    const Shape& xs = x->shape;
    if (xs.size() != 3 && xs.size() != 4)
      return ctx.fail("input must be 3-D or 4-D, has shape {}", shape_str(xs));
    auto& s = ctx.make_state<RotaryState>();
    RotaryParams& p = s.p;
    p.batch = xs[0];
    if (xs.size() == 4) {
      p.heads = xs[1];
      p.seq = xs[2];
      p.head_size = xs[3];
      p.strides[0] = p.heads * p.seq * p.head_size;
      p.strides[1] = p.head_size;
      p.strides[2] = p.seq * p.head_size;
    } else {
      p.heads = ctx.attr_int("num_heads", 0);
      if (p.heads <= 0 || xs[2] % p.heads != 0)
        return ctx.fail("3-D input needs num_heads > 0 dividing the hidden size {}, has {}", xs[2],
                        p.heads);
      p.seq = xs[1];
      p.head_size = xs[2] / p.heads;
      p.strides[0] = p.seq * xs[2];
      p.strides[1] = xs[2];
      p.strides[2] = p.head_size;
    }
    p.rot_dim = ctx.attr_int("rotary_embedding_dim", 0);
    if (p.rot_dim == 0) p.rot_dim = p.head_size;
    if (p.rot_dim < 0 || p.rot_dim > p.head_size || p.rot_dim % 2 != 0)
      return ctx.fail("rotary_embedding_dim {} must be even and at most the head size {}",
                      p.rot_dim, p.head_size);
    p.interleaved = ctx.attr_int("interleaved", 0) != 0;
    const int64_t half = p.rot_dim / 2;
    if (pos) {
      if (pos->dtype != DataType::kInt64 || pos->shape != Shape{p.batch, p.seq})
        return ctx.fail("position_ids must be int64[{}x{}], is {}[{}]", p.batch, p.seq,
                        dtype_name(pos->dtype), shape_str(pos->shape));
      if (cos->shape.size() != 2 || cos->shape[1] != half || sin->shape != cos->shape)
        return ctx.fail("with position_ids the caches must be [rows, {}], are {} and {}", half,
                        shape_str(cos->shape), shape_str(sin->shape));
      p.has_positions = 1;
      p.cache_rows = cos->shape[0];
    } else {
      const Shape want = {p.batch, p.seq, half};
      if (cos->shape != want || sin->shape != want)
        return ctx.fail("without position_ids the caches must be {}, are {} and {}",
                        shape_str(want), shape_str(cos->shape), shape_str(sin->shape));
      p.cache_rows = p.batch * p.seq;
    }
    ctx.set_output(0, t, xs);
    s.half = plan_half(ctx, {0, 1, 2}, {0});
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    if (in[0]->dtype != DataType::kFloat) return false;
    rotary_embedding_ref(n.state_as<RotaryState>().p, in[0]->as<float>(), in[1]->as<float>(),
                         in[2]->as<float>(), in[3] ? in[3]->as<int64_t>() : nullptr,
                         out[0].as<float>());
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<RotaryState>();
    const RotaryParams& p = s.p;
    ctx.include("onnxc/attention.h");
    ctx.line(
        "static constexpr onnxc::RotaryParams p = {{/*batch, seq, heads, head_size*/ {}, {}, {}, "
        "{}, /*rot_dim*/ {}, /*strides*/ {{{}, {}, {}}}, /*interleaved*/ {}, /*has_positions*/ "
        "{}, /*cache_rows*/ {}}};",
        p.batch, p.seq, p.heads, p.head_size, p.rot_dim, p.strides[0], p.strides[1], p.strides[2],
        p.interleaved, p.has_positions, p.cache_rows);
    const HalfNames n = emit_widen(ctx, s.half);
    ctx.line("onnxc::rotary_embedding_ref<float>(p, {}, {}, {}, {}, {});", n.in(0), n.in(1),
             n.in(2), ctx.input(3) ? ctx.in(3) : "nullptr", n.out(0));
    emit_narrow(ctx, s.half, n);
  }
};

// ---- SwiGLU ------------------------------------------------------------------------------------

struct SwiGluState : OpState {
  double alpha = 1.0;
  HalfPlan half;
};

class SwiGluOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 2, 1, 1)) return false;
    const Value *a = ctx.input(0), *b = ctx.input(1);
    const DataType t = a->dtype;
    if (t != DataType::kFloat && t != DataType::kDouble && !is_half(t))
      return ctx.fail("type {} is not supported (float, double, float16, bfloat16)", dtype_name(t));
    if (b->dtype != t || b->shape != a->shape)
      return ctx.fail(
          "A and B must have one type and shape (no broadcasting), are {}[{}] and "
          "{}[{}]",
          dtype_name(t), shape_str(a->shape), dtype_name(b->dtype), shape_str(b->shape));
    auto& s = ctx.make_state<SwiGluState>();
    s.alpha = ctx.attr_float("alpha", 1.0f);
    ctx.set_output(0, t, a->shape);
    s.half = plan_half(ctx, {0, 1}, {0});
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const double alpha = n.state_as<SwiGluState>().alpha;
    return visit_dtype<kFloatTypes>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      swiglu_ref(in[0]->as<T>(), in[1]->as<T>(), out[0].as<T>(), in[0]->numel(), alpha);
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<SwiGluState>();
    ctx.include("onnxc/attention.h");
    const HalfNames n = emit_widen(ctx, s.half);
    ctx.line("onnxc::swiglu_ref<{}>({}, {}, {}, {}, /*alpha*/ {});",
             kernel_cpp_type(ctx.input(0)->dtype), n.in(0), n.in(1), n.out(0),
             ctx.input(0)->numel(), cpp_double(s.alpha));
    emit_narrow(ctx, s.half, n);
  }
};

// ---- TensorScatter -----------------------------------------------------------------------------

struct TensorScatterState : OpState {
  TensorScatterParams p{};
};

class TensorScatterOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 3, 1, 1)) return false;
    const Value *past = ctx.input(0), *update = ctx.input(1), *wi = ctx.input(2);
    const DataType t = past->dtype;
    if (t == DataType::kString || dtype_info(t).bits % 8 != 0)
      return ctx.fail("type {} is not supported (byte-sized types only)", dtype_name(t));
    if (update->dtype != t)
      return ctx.fail("update must have past_cache's type {}, is {}", dtype_name(t),
                      dtype_name(update->dtype));
    const Shape &ps = past->shape, &us = update->shape;
    const int64_t rank = static_cast<int64_t>(ps.size());
    if (rank < 2) return ctx.fail("past_cache must have rank >= 2, has shape {}", shape_str(ps));
    int64_t axis = ctx.attr_int("axis", -2);
    if (!ctx.normalize_axis(axis, rank)) return false;
    if (axis == 0) return ctx.fail("axis cannot be 0 (the batch dimension)");
    bool match = us.size() == ps.size();
    for (size_t d = 0; match && d < ps.size(); ++d)
      if (static_cast<int64_t>(d) != axis && us[d] != ps[d]) match = false;
    const size_t ax = static_cast<size_t>(axis);
    if (!match || us[ax] > ps[ax])
      return ctx.fail("update shape {} must equal past_cache shape {} except a shorter axis {}",
                      shape_str(us), shape_str(ps), axis);
    if (wi && (wi->dtype != DataType::kInt64 || wi->shape != Shape{ps[0]}))
      return ctx.fail("write_indices must be int64[{}], is {}[{}]", ps[0], dtype_name(wi->dtype),
                      shape_str(wi->shape));
    const std::string mode = ctx.attr_string("mode", "linear");
    if (mode != "linear" && mode != "circular")
      return ctx.fail("mode '{}' is not linear or circular", mode);
    auto& s = ctx.make_state<TensorScatterState>();
    TensorScatterParams& p = s.p;
    p.outer = shape_numel(Shape(ps.begin(), ps.begin() + axis));
    p.per_batch = ps[0] > 0 ? p.outer / ps[0] : 1;
    p.max_seq = ps[ax];
    p.seq = us[ax];
    p.inner_bytes =
        static_cast<index_t>(dtype_bytes(t, shape_numel(Shape(ps.begin() + axis + 1, ps.end()))));
    p.circular = mode == "circular";
    ctx.set_output(0, t, ps);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    tensor_scatter_ref(n.state_as<TensorScatterState>().p, in[0]->data.data(), in[1]->data.data(),
                       in[2] ? in[2]->as<int64_t>() : nullptr, out[0].data.data());
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const TensorScatterParams& p = ctx.node().state_as<TensorScatterState>().p;
    ctx.include("onnxc/attention.h");
    ctx.line(
        "static constexpr onnxc::TensorScatterParams p = {{/*outer*/ {}, /*per_batch*/ {}, "
        "/*max_seq*/ {}, /*seq*/ {}, /*inner_bytes*/ {}, /*circular*/ {}}};",
        p.outer, p.per_batch, p.max_seq, p.seq, p.inner_bytes, p.circular);
    ctx.line("onnxc::tensor_scatter_ref(p, {}, {}, {}, {});", ctx.in(0), ctx.in(1),
             ctx.input(2) ? ctx.in(2) : "nullptr", ctx.out(0));
  }
};

const RotaryEmbeddingOp kRotaryEmbedding;
const SwiGluOp kSwiGlu;
const TensorScatterOp kTensorScatter;

}  // namespace

std::vector<OpRegistration> rotary_ops() {
  return {{"", "RotaryEmbedding", 23, kMaxOpset, &kRotaryEmbedding},
          {"", "SwiGLU", 28, kMaxOpset, &kSwiGlu},
          {"", "TensorScatter", 24, kMaxOpset, &kTensorScatter}};
}

}  // namespace onnxc
