// Gemm (1, 6, 7, 9, 11, 13) and MatMul (1, 9, 13): transposes, alpha/beta, C broadcast to
// (M, N); MatMul with numpy semantics (1-D operands, broadcast batch dims).
#include <fmt/format.h>

#include "ops/broadcast.h"
#include "ops/dispatch.h"
#include "ops/registry.h"
#include "onnxc/gemm.h"

namespace onnxc {
namespace {

std::string gemm_params_decl(const GemmParams& p) {
  return fmt::format("static constexpr onnxc::GemmParams p = {{{}, {}, {}, {}, {}, {}, {}, {}, {}}};", p.m,
                     p.n, p.k, p.trans_a, p.trans_b, cpp_double(p.alpha), cpp_double(p.beta), p.c_row_stride,
                     p.c_col_stride);
}

struct GemmState : OpState {
  GemmParams p;
};

class GemmOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 3, 1, 1) || !ctx.check_dtype(0, {DataType::kFloat, DataType::kDouble})) return false;
    const Value *a = ctx.input(0), *b = ctx.input(1), *c = ctx.input(2);
    if (ctx.opset() < 11 && !c) return ctx.fail("input C is required before opset 11");
    if (b->dtype != a->dtype || (c && c->dtype != a->dtype)) return ctx.fail("A, B and C must have one type");
    if (a->shape.size() != 2 || b->shape.size() != 2)
      return ctx.fail("A and B must be 2-D, are {} and {}", shape_str(a->shape), shape_str(b->shape));
    auto& s = ctx.make_state<GemmState>();
    GemmParams& p = s.p;
    p.trans_a = static_cast<int>(ctx.attr_int("transA", 0));
    p.trans_b = static_cast<int>(ctx.attr_int("transB", 0));
    p.alpha = ctx.attr_float("alpha", 1.0f);
    p.beta = ctx.attr_float("beta", 1.0f);
    p.m = a->shape[p.trans_a ? 1 : 0];
    p.k = a->shape[p.trans_a ? 0 : 1];
    p.n = b->shape[p.trans_b ? 0 : 1];
    if (b->shape[p.trans_b ? 1 : 0] != p.k)
      return ctx.fail("inner dims differ: A is {}, B is {} (transA={}, transB={})", shape_str(a->shape),
                      shape_str(b->shape), p.trans_a, p.trans_b);
    if (c) {
      Shape out;
      // C broadcasts unidirectionally to (M, N).
      if (!broadcast_shapes({{p.m, p.n}, c->shape}, out) || out != Shape{p.m, p.n} || c->shape.size() > 2)
        return ctx.fail("C of shape {} does not broadcast to {}x{}", shape_str(c->shape), p.m, p.n);
      BroadcastParams bp = make_broadcast_params({p.m, p.n}, {p.m, p.n}, c->shape);
      p.c_row_stride = bp.b_strides[0];
      p.c_col_stride = bp.b_strides[1];
    }
    ctx.set_output(0, a->dtype, {p.m, p.n});
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in, std::vector<Tensor>& out) const override {
    const auto& p = n.state_as<GemmState>().p;
    return visit_dtype<kFloatTypes>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      gemm_ref(p, in[0]->as<T>(), in[1]->as<T>(), in.size() > 2 && in[2] ? in[2]->as<T>() : nullptr, out[0].as<T>());
    });
  }
  void emit(EmitContext& ctx) const override {
    ctx.include("onnxc/gemm.h");
    ctx.line("{}", gemm_params_decl(ctx.node().state_as<GemmState>().p));
    ctx.line("onnxc::gemm_ref<{}>(p, {}, {}, {}, {});", dtype_cpp(ctx.input(0)->dtype), ctx.in(0), ctx.in(1),
             ctx.input(2) ? ctx.in(2) : "nullptr", ctx.out(0));
  }
};

struct MatMulState : OpState {
  MatMulParams p;
};

class MatMulOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 2, 1, 1)) return false;
    const Value *a = ctx.input(0), *b = ctx.input(1);
    if (!in_type_set(a->dtype, kNumeric) || a->dtype != b->dtype)
      return ctx.fail("A and B must have one numeric type, have {} and {}", dtype_name(a->dtype), dtype_name(b->dtype));
    Shape as = a->shape, bs = b->shape;
    if (as.empty() || bs.empty()) return ctx.fail("operands must have rank >= 1");
    bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
    if (a_vec) as.insert(as.begin(), 1);  // numpy: promote 1-D operands, then drop the added dim
    if (b_vec) bs.push_back(1);
    int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
    if (bs[bs.size() - 2] != k) return ctx.fail("inner dims differ: {} and {}", shape_str(a->shape), shape_str(b->shape));
    Shape a_batch(as.begin(), as.end() - 2), b_batch(bs.begin(), bs.end() - 2), batch;
    if (!broadcast_shapes({a_batch, b_batch}, batch)) return ctx.fail("batch dims do not broadcast");
    if (batch.size() > kMaxRank) return ctx.fail("too many batch dims");
    auto& s = ctx.make_state<MatMulState>();
    MatMulParams& p = s.p;
    p = MatMulParams{};
    p.batch_rank = static_cast<int>(batch.size());
    BroadcastParams bp = make_broadcast_params(batch, a_batch, b_batch);
    for (size_t i = 0; i < batch.size(); ++i) {
      p.batch_dims[i] = batch[i];
      p.a_strides[i] = bp.a_strides[i] * m * k;
      p.b_strides[i] = bp.b_strides[i] * k * n;
    }
    p.batch_count = shape_numel(batch);
    p.m = m;
    p.n = n;
    p.k = k;
    Shape out = batch;
    if (!a_vec) out.push_back(m);
    if (!b_vec) out.push_back(n);
    ctx.set_output(0, a->dtype, out);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in, std::vector<Tensor>& out) const override {
    const auto& p = n.state_as<MatMulState>().p;
    return visit_dtype<kNumeric>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      matmul_ref(p, in[0]->as<T>(), in[1]->as<T>(), out[0].as<T>());
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& p = ctx.node().state_as<MatMulState>().p;
    ctx.include("onnxc/gemm.h");
    auto arr = [&](const index_t* v) { return fmt::format("{{{}}}", fmt::join(v, v + p.batch_rank, ", ")); };
    ctx.line("static constexpr onnxc::MatMulParams p = {{{}, {}, {}, {}, {}, {}, {}, {}}};", p.batch_rank,
             arr(p.batch_dims), arr(p.a_strides), arr(p.b_strides), p.batch_count, p.m, p.n, p.k);
    ctx.line("onnxc::matmul_ref(p, {}, {}, {});", ctx.in(0), ctx.in(1), ctx.out(0));
  }
};

const GemmOp kGemm;
const MatMulOp kMatMul;

}  // namespace

std::vector<OpRegistration> matmul_ops() {
  return {{"", "Gemm", 1, kMaxOpset, &kGemm}, {"", "MatMul", 1, kMaxOpset, &kMatMul}};
}

}  // namespace onnxc
