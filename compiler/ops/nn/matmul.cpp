// Gemm (opsets 1, 6, 7, 9, 11, 13) and MatMul (1, 9, 13), both lowered to onnxc::gemm.
//   Gemm:   Y = alpha * op(A) op(B) + beta * C; C broadcasts unidirectionally to (M, N)
//           (before opset 7 only when broadcast=1), is optional from opset 11; integer types
//           from opset 9.
//   MatMul: numpy matmul: 1-D operands are promoted and the added dim dropped, batch dims
//           broadcast; integer types from opset 9.
// Set by passes, not by ONNX (see ops/epilogue.h): float nodes may carry a fused epilogue
// (residual input 3, fused_activation); a MatMul may carry a bias row as input 2 and transA /
// transB (an operand stored with its last two axes swapped: a folded Transpose).
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "onnxc/gemm.h"
#include "onnxc/variants.h"
#include "ops/broadcast.h"
#include "ops/dispatch.h"
#include "ops/epilogue.h"
#include "ops/half_compute.h"
#include "ops/kernel_variants.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

// Element types of both ops: float/double/float16 always, 32/64-bit integers from opset 9,
// bfloat16 from 13. Half types compute in float (see half_compute.h).
bool check_matmul_types(InferContext& ctx, const char* names) {
  const DataType t = ctx.input(0)->dtype;
  const bool ints = t == DataType::kInt32 || t == DataType::kInt64 || t == DataType::kUint32 ||
                    t == DataType::kUint64;
  const bool ok = t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 ||
                  (ints && ctx.opset() >= 9) || (t == DataType::kBFloat16 && ctx.opset() >= 13);
  if (!ok)
    return ctx.fail(
        "type {} is not supported at opset {} (float, double, float16; int32, int64, uint32, "
        "uint64 from opset 9; bfloat16 from 13)",
        dtype_name(t), ctx.opset());
  for (size_t i = 1; i < ctx.num_inputs(); ++i)
    if (ctx.input(i) && ctx.input(i)->dtype != t)
      return ctx.fail("{} must have one type, input {} is {} and input 0 is {}", names, i,
                      dtype_name(ctx.input(i)->dtype), dtype_name(t));
  return true;
}

// `expr`, or "static_cast<const T*>(nullptr)" for an absent input, so templates deduce T.
std::string typed_input(const EmitContext& ctx, size_t i, const std::string& expr) {
  if (ctx.input(i)) return expr;
  return fmt::format("static_cast<const {}*>(nullptr)", kernel_cpp_type(ctx.input(0)->dtype));
}

// The aggregate initializers of the params structs, in declaration order, a comment per field.
std::string gemm_params_literal(const GemmParams& p) {
  return fmt::format(
      "{{/*m=*/{}, /*n=*/{}, /*k=*/{}, /*trans_a=*/{}, /*trans_b=*/{}, /*lda=*/{}, /*ldb=*/{}, "
      "/*ldy=*/{}, /*alpha=*/{}, /*beta=*/{}, /*c_row_stride=*/{}, /*c_col_stride=*/{}}}",
      p.m, p.n, p.k, p.trans_a, p.trans_b, p.lda, p.ldb, p.ldy, cpp_float(p.alpha),
      cpp_float(p.beta), p.c_row_stride, p.c_col_stride);
}

std::string matmul_params_literal(const MatMulParams& p) {
  auto arr = [&](const index_t* v) {
    return fmt::format("{{{}}}", fmt::join(v, v + p.batch_rank, ", "));
  };
  return fmt::format(
      "{{/*batch_rank=*/{}, /*batch_dims=*/{}, /*a_strides=*/{}, /*b_strides=*/{}, "
      "/*batch_count=*/{}, /*m=*/{}, /*n=*/{}, /*k=*/{}, /*trans_a=*/{}, /*trans_b=*/{}}}",
      p.batch_rank, arr(p.batch_dims), arr(p.a_strides), arr(p.b_strides), p.batch_count, p.m, p.n,
      p.k, p.trans_a, p.trans_b);
}

// The residual operand of a fused (float-only) node: its expression, or a typed null.
std::string residual_arg(const EmitContext& ctx) {
  return typed_input(ctx, kResidualInput, ctx.in(kResidualInput));
}

// Bytes a GEMM's packed B panels may take: about an L1 (an eighth of the target's cache
// budget, 32 KiB on desktops), at least 4 KiB (a few dozen panel rows), never over --max-scratch.
index_t kernel_scratch_budget(const InferContext& ctx) {
  const size_t budget = ctx.target().scratch_budget();
  const size_t l1 = std::max<size_t>(budget / 8, 4096);
  return static_cast<index_t>(std::min(l1, budget));
}

// The GEMM's packing workspace in the node's scratch, after the float copies of half operands.
struct GemmWorkspace {
  size_t offset = 0, bytes = 0;
};

// Reserves `bytes` (0: none) at the end of the node's scratch; float kernels only.
GemmWorkspace plan_workspace(InferContext& ctx, const HalfPlan& half, index_t bytes) {
  const DataType t = ctx.input(0)->dtype;
  if (bytes <= 0 || !(t == DataType::kFloat || is_half(t))) return {};
  const GemmWorkspace ws{half.bytes, static_cast<size_t>(bytes)};
  ctx.request_scratch(ws.offset + ws.bytes);
  return ws;
}

// ", onnxc::Workspace{scratch + offset, bytes}", or "" when the kernel needs none.
std::string workspace_arg(const EmitContext& ctx, const GemmWorkspace& ws) {
  if (!ws.bytes) return "";
  return fmt::format(", onnxc::Workspace{{{} + {}, {}}}", ctx.scratch(), ws.offset, ws.bytes);
}

// Runs `kernel(Workspace)` on a host buffer of the node's workspace (constant folding).
template <typename F>
bool with_workspace(const GemmWorkspace& plan, F&& kernel) {
  std::vector<float> buffer((plan.bytes + sizeof(float) - 1) / sizeof(float));
  return kernel(Workspace{buffer.data(), static_cast<index_t>(plan.bytes)});
}

struct GemmState : OpState {
  GemmParams p{};
  HalfPlan half;
  EpilogueSpec epilogue{};
  GemmWorkspace ws;
  bool float_kernel = false;  // float, or a half type computed in float: the f32 variants apply
  const KernelVariant* variant = nullptr;  // chosen by select-kernels; null: onnxc::gemm<tile>
  const KernelVariant* tile = nullptr;     // the target's blocked GEMM row (infer)
  int tasks = 1;  // parts a packed variant runs in (onnxc/parallel.h); set with the variant
};

// A packed-GEMM row's functions, from its tile and panel columns (onnxc/variants.h): the
// packing of B into panel-wide strips (pack-weights) and the kernel every
// f32_gemm_packed_MRxNR__* calls (constant folding after pack-weights), the activation picked at
// run time.
using PackedGemmFn = void (*)(const GemmParams&, const float*, const float*, const float*, float*,
                              const EpilogueSpec&, const float*);
struct PackedGemm {
  void (*pack)(const GemmParams&, const float*, float*);
  PackedGemmFn run;
};
template <index_t MR, index_t NR>
void gemm_packed_fused(const GemmParams& p, const float* a, const float* packed_b, const float* c,
                       float* y, const EpilogueSpec& e, const float* residual) {
  with_epilogue(e, [&](const auto& typed) {
    gemm_detail::f32_gemm_packed<MR, NR>(p, a, packed_b, c, y, typed, residual);
  });
}
// One entry per table row, in table order; rows without a panel (not packed GEMMs) get none.
template <index_t MR, index_t NR>
constexpr PackedGemm packed_gemm_of() {
  if constexpr (NR > 0 && MR > 0)
    return {pack_gemm_b<NR>, gemm_packed_fused<MR, NR>};
  else
    return {nullptr, nullptr};
}
#define ONNXC_PACKED_ROW(dtype, op, tile, isa, header, fits, weights, targets, panel, gflops) \
  packed_gemm_of<tile_rows(#tile), panel>(),
constexpr PackedGemm kPackedByRow[] = {ONNXC_KERNEL_VARIANTS(ONNXC_PACKED_ROW)};
#undef ONNXC_PACKED_ROW

// The chosen row's packing and kernel, or null when it reads B as stored (no panel).
const PackedGemm* find_packed_gemm(const KernelVariant* v) {
  if (!v || v->panel == 0) return nullptr;
  return &kPackedByRow[v - all_kernel_variants().data()];
}

class GemmOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 4, 1, 1) || !check_matmul_types(ctx, "A, B and C")) return false;
    const Value *a = ctx.input(0), *b = ctx.input(1), *c = ctx.input(2);
    if (!c && ctx.opset() < 11) return ctx.fail("input C is required before opset 11");
    if (a->shape.size() != 2 || b->shape.size() != 2)
      return ctx.fail("A and B must be 2-D, are {} and {}", shape_str(a->shape),
                      shape_str(b->shape));
    GemmParams p{};
    p.trans_a = ctx.attr_int("transA", 0) != 0;
    p.trans_b = ctx.attr_int("transB", 0) != 0;
    p.alpha = ctx.attr_float("alpha", 1.0f);
    p.beta = ctx.attr_float("beta", 1.0f);
    p.m = a->shape[p.trans_a ? 1 : 0];
    p.k = a->shape[p.trans_a ? 0 : 1];
    p.n = b->shape[p.trans_b ? 0 : 1];
    p.lda = a->shape[1];
    p.ldb = b->shape[1];
    p.ldy = p.n;
    if (b->shape[p.trans_b ? 1 : 0] != p.k)
      return ctx.fail("inner dims differ: A is {}, B is {} (transA={}, transB={})",
                      shape_str(a->shape), shape_str(b->shape), p.trans_a, p.trans_b);
    if (c) {
      const Shape mn = {p.m, p.n};
      if (ctx.opset() < 7 && ctx.attr_int("broadcast", 0) == 0 && c->shape != mn)
        return ctx.fail("C has shape {} but must be {} when broadcast=0 (before opset 7)",
                        shape_str(c->shape), shape_str(mn));
      Shape out;
      if (c->shape.size() > 2 || !broadcast_shapes({mn, c->shape}, out) || out != mn)
        return ctx.fail("C of shape {} does not broadcast unidirectionally to {}",
                        shape_str(c->shape), shape_str(mn));
      const BroadcastParams bp = make_broadcast_params(mn, mn, c->shape);
      p.c_row_stride = bp.b_strides[0];
      p.c_col_stride = bp.b_strides[1];
    }
    auto& s = ctx.make_state<GemmState>();
    s.p = p;
    if (!infer_epilogue(ctx, {p.m, p.n}, s.epilogue)) return false;
    ctx.set_output(0, a->dtype, {p.m, p.n});
    s.half = plan_half(ctx, {0, 1, 2}, {0});
    s.ws = plan_workspace(ctx, s.half, gemm_workspace_bytes(p, kernel_scratch_budget(ctx)));
    s.float_kernel = a->dtype == DataType::kFloat || is_half(a->dtype);
    s.tile = &blocked_gemm_variant(ctx.target());
    return true;
  }
  // Float products (half types computed in float) run the rows of families "gemm_packed" (B
  // constant and read as stored: no half copy) and "gemm"; onnxc/variants.h says which row
  // takes which product and target.
  KernelQuery describe_kernel_query(const Node& node) const override {
    const auto& s = node.state_as<GemmState>();
    KernelQuery q;
    if (!s.float_kernel) return q;
    q.families = {"gemm_packed", "gemm"};
    q.gemm = &s.p;
    q.constant_weights = node.inputs[1]->is_constant() && !s.half.bytes;
    q.flops =
        2.0 * static_cast<double>(s.p.m) * static_cast<double>(s.p.n) * static_cast<double>(s.p.k);
    // Parts: the packed rows' products (constant B, at least 4 rows, packed panels), and row
    // products (batch-1 classifiers), which the plain rows split by columns without scratch.
    const bool packed = q.constant_weights && s.p.m >= 4 && gemm_detail::packs_panels(s.p);
    if (!packed && !gemm_detail::runs_row_products(s.p)) q.max_parts = 1;
    return q;
  }
  // The plain variants take the workspace infer() planned (none below gemm_prefers_blocked());
  // the packed ones none: their B panels are in the weights. The packed forms split by column
  // panels or rows (no scratch), the plain ones row products by columns
  // (gemm_columns_parallel).
  int kernel_tasks(const Node& node) const override { return node.state_as<GemmState>().tasks; }
  size_t use_kernel(Node& node, const KernelVariant& v, int tasks) const override {
    auto& s = static_cast<GemmState&>(*node.state);
    s.variant = &v;
    s.tasks = tasks;
    if (find_packed_gemm(&v)) s.ws = {};
    return s.ws.bytes ? node.scratch_bytes : s.half.bytes;
  }
  std::vector<PackedInput> packed_inputs(const Node& node) const override {
    const auto& s = node.state_as<GemmState>();
    const PackedGemm* g = find_packed_gemm(s.variant);
    if (!g) return {};
    const index_t nr = s.variant->panel;
    Tensor packed = Tensor::zeros(DataType::kFloat, {(s.p.n + nr - 1) / nr, s.p.k, nr});
    g->pack(s.p, node.inputs[1]->constant->as<float>(), packed.as<float>());
    return {{1, std::move(packed)}};
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<GemmState>();
    if (const PackedGemm* g = find_packed_gemm(s.variant)) {  // B is packed (pack-weights)
      const float* c = in.size() > 2 && in[2] ? in[2]->as<float>() : nullptr;
      const float* r = in.size() > kResidualInput && in[kResidualInput]
                           ? in[kResidualInput]->as<float>()
                           : nullptr;
      g->run(s.p, in[0]->as<float>(), in[1]->as<float>(), c, out[0].as<float>(), s.epilogue, r);
      return true;
    }
    return with_workspace(s.ws, [&](const Workspace& ws) {
      return visit_dtype<kNumeric>(in[0]->dtype, [&](auto tag) {
        using T = decltype(tag);
        const T* c = in.size() > 2 && in[2] ? in[2]->as<T>() : nullptr;
        const T* r = in.size() > kResidualInput && in[kResidualInput] ? in[kResidualInput]->as<T>()
                                                                      : nullptr;
        if constexpr (std::is_same_v<T, float>)  // infer() accepts epilogues on float only
          with_epilogue(s.epilogue, [&](const auto& e) {
            gemm<EvaluateGemmTile>(s.p, in[0]->as<T>(), in[1]->as<T>(), c, out[0].as<T>(), e, r,
                                   ws);
          });
        else
          gemm<EvaluateGemmTile>(s.p, in[0]->as<T>(), in[1]->as<T>(), c, out[0].as<T>(), ws);
      });
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<GemmState>();
    ctx.include("onnxc/gemm.h");
    if (s.tasks > 1) ctx.include("onnxc/kernels_parallel.h");
    ctx.line("static constexpr onnxc::GemmParams p = {};", gemm_params_literal(s.p));
    const HalfNames n = emit_widen(ctx, s.half);
    // A chosen variant always takes its workspace argument; onnxc::gemm has overloads without.
    const std::string kernel =
        s.variant ? "onnxc::" + s.variant->name : "onnxc::gemm<" + gemm_tile_type(*s.tile) + ">";
    std::string ws = workspace_arg(ctx, s.ws);  // packed variants take none
    if (s.variant && ws.empty() && !find_packed_gemm(s.variant))
      ws = ", onnxc::Workspace{nullptr, 0}";
    if (has_epilogue(s.epilogue) || s.tasks > 1) {  // the parallel form takes an epilogue
      ctx.line("{}", epilogue_declaration(ctx, s.epilogue));
      ctx.line("{}(p, {}, {}, {}, {}, e, {}{}{});", kernel, n.in(0), n.in(1),
               typed_input(ctx, 2, n.in(2)), n.out(0), residual_arg(ctx), ws,
               s.tasks > 1 ? parallel_args(s.tasks) : "");
    } else {
      ctx.line("{}(p, {}, {}, {}, {}{});", kernel, n.in(0), n.in(1), typed_input(ctx, 2, n.in(2)),
               n.out(0), ws);
    }
    emit_narrow(ctx, s.half, n);
  }
};

struct MatMulState : OpState {
  MatMulParams p{};
  HalfPlan half;
  EpilogueSpec epilogue{};
  GemmWorkspace ws;
  const KernelVariant* tile = nullptr;  // the target's blocked GEMM row (each batch's product)
};

class MatMulOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    // Inputs 2 (bias) and 3 (residual) and transA / transB come from fusion passes.
    if (!ctx.check_arity(2, 4, 1, 1) || !check_matmul_types(ctx, "A and B")) return false;
    const Value *a = ctx.input(0), *b = ctx.input(1);
    Shape as = a->shape, bs = b->shape;
    if (as.empty() || bs.empty()) return ctx.fail("operands must have rank >= 1 (no scalars)");
    const bool trans_a = ctx.attr_int("transA", 0) != 0, trans_b = ctx.attr_int("transB", 0) != 0;
    if ((trans_a && as.size() < 2) || (trans_b && bs.size() < 2))
      return ctx.fail("transA / transB need an operand of rank >= 2");
    if (trans_a) std::swap(as[as.size() - 1], as[as.size() - 2]);
    if (trans_b) std::swap(bs[bs.size() - 1], bs[bs.size() - 2]);
    const bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
    if (a_vec) as.insert(as.begin(), 1);  // numpy: promote 1-D operands, then drop the added dim
    if (b_vec) bs.push_back(1);
    const int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
    if (bs[bs.size() - 2] != k)
      return ctx.fail("inner dims differ: A is {}, B is {}", shape_str(a->shape),
                      shape_str(b->shape));
    const Shape a_batch(as.begin(), as.end() - 2), b_batch(bs.begin(), bs.end() - 2);
    Shape batch;
    if (!broadcast_shapes({a_batch, b_batch}, batch))
      return ctx.fail("batch dims of {} and {} do not broadcast", shape_str(a->shape),
                      shape_str(b->shape));
    if (batch.size() > static_cast<size_t>(kMaxRank))
      return ctx.fail("{} batch dims exceed the supported {}", batch.size(), kMaxRank);
    auto& s = ctx.make_state<MatMulState>();
    MatMulParams& p = s.p;
    p.m = m;
    p.n = n;
    p.k = k;
    p.batch_count = shape_numel(batch);
    const BroadcastParams bp = make_broadcast_params(batch, a_batch, b_batch);
    p.trans_a = trans_a;
    p.trans_b = trans_b;
    bool b_shared = true;  // one B for every batch: fold the batch into M, one larger GEMM
    for (size_t i = 0; i < batch.size(); ++i) b_shared &= bp.b_strides[i] == 0 || batch[i] == 1;
    if (b_shared && a_batch == batch && !trans_a) {
      p.m = m * p.batch_count;
      p.batch_count = 1;
    } else {
      p.batch_rank = static_cast<int>(batch.size());
      for (size_t i = 0; i < batch.size(); ++i) {
        p.batch_dims[i] = batch[i];
        p.a_strides[i] = bp.a_strides[i] * m * k;
        p.b_strides[i] = bp.b_strides[i] * k * n;
      }
    }
    Shape out = batch;
    if (!a_vec) out.push_back(m);
    if (!b_vec) out.push_back(n);
    if (const Value* bias = ctx.input(2)) {
      if (bias->dtype != DataType::kFloat || bias->shape != Shape{n})
        return ctx.fail("fused bias '{}' is {}[{}]; it must be float[{}]", bias->name,
                        dtype_name(bias->dtype), shape_str(bias->shape), n);
    }
    if (!infer_epilogue(ctx, out, s.epilogue)) return false;
    if (ctx.input(2) && a->dtype != DataType::kFloat)
      return ctx.fail("a fused bias needs float tensors");
    ctx.set_output(0, a->dtype, out);
    s.half = plan_half(ctx, {0, 1}, {0});
    s.ws = plan_workspace(ctx, s.half,
                          matmul_workspace_bytes(p, ctx.input(2), kernel_scratch_budget(ctx)));
    s.tile = &blocked_gemm_variant(ctx.target());
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<MatMulState>();
    return with_workspace(s.ws, [&](const Workspace& ws) {
      return visit_dtype<kNumeric>(in[0]->dtype, [&](auto tag) {
        using T = decltype(tag);
        auto opt = [&](size_t i) { return in.size() > i && in[i] ? in[i]->as<T>() : nullptr; };
        if constexpr (std::is_same_v<T, float>)  // infer() accepts epilogues on float only
          with_epilogue(s.epilogue, [&](const auto& e) {
            matmul<EvaluateGemmTile>(s.p, in[0]->as<T>(), in[1]->as<T>(), opt(2), out[0].as<T>(), e,
                                     opt(kResidualInput), ws);
          });
        else
          matmul<EvaluateGemmTile>(s.p, in[0]->as<T>(), in[1]->as<T>(), opt(2), out[0].as<T>(),
                                   Epilogue<>{}, static_cast<const T*>(nullptr), ws);
      });
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<MatMulState>();
    ctx.include("onnxc/gemm.h");
    ctx.line("static constexpr onnxc::MatMulParams p = {};", matmul_params_literal(s.p));
    const HalfNames n = emit_widen(ctx, s.half);
    if (has_epilogue(s.epilogue) || ctx.input(2)) {
      ctx.line("{}", epilogue_declaration(ctx, s.epilogue));
      ctx.line("onnxc::matmul<{}>(p, {}, {}, {}, {}, e, {}{});", gemm_tile_type(*s.tile), n.in(0),
               n.in(1), typed_input(ctx, 2, ctx.in(2)), n.out(0), residual_arg(ctx),
               workspace_arg(ctx, s.ws));
    } else {
      ctx.line("onnxc::matmul<{}>(p, {}, {}, {}{});", gemm_tile_type(*s.tile), n.in(0), n.in(1),
               n.out(0), workspace_arg(ctx, s.ws));
    }
    emit_narrow(ctx, s.half, n);
  }
};

const GemmOp kGemm;
const MatMulOp kMatMul;

}  // namespace

std::vector<OpRegistration> matmul_ops() {
  return {{"", "Gemm", 1, kMaxOpset, &kGemm}, {"", "MatMul", 1, kMaxOpset, &kMatMul}};
}

}  // namespace onnxc
