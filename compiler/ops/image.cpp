// Sampling image ops: GridSample (16; N-D from 20, here 1-3 spatial dims) and AffineGrid (20).
#include "onnxc/image.h"

#include "ops/dispatch.h"
#include "ops/half_compute.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

bool float_like(DataType t) {
  return t == DataType::kFloat || t == DataType::kDouble || is_half(t);
}

// ---- GridSample --------------------------------------------------------------------------------

struct GridSampleState : OpState {
  GridSampleParams p{};
  HalfPlan half;
};

class GridSampleOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 2, 1, 1)) return false;
    const Value *x = ctx.input(0), *grid = ctx.input(1);
    if (!float_like(x->dtype))
      return ctx.fail("X type {} is not supported (float types only)", dtype_name(x->dtype));
    if (grid->dtype != x->dtype)
      return ctx.fail("grid type {} differs from X's {} (mixed types are not supported)",
                      dtype_name(grid->dtype), dtype_name(x->dtype));
    const Shape &xs = x->shape, &gs = grid->shape;
    const int64_t S = static_cast<int64_t>(xs.size()) - 2;
    if (S < 1 || S > 3)
      return ctx.fail("X has rank {}; only 1 to 3 spatial dims are supported", xs.size());
    if (ctx.opset() < 20 && S != 2) return ctx.fail("X must be 4-D before opset 20");
    if (static_cast<int64_t>(gs.size()) != S + 2 || gs[0] != xs[0] || gs.back() != S)
      return ctx.fail("grid has shape {}, expected {}x...x{} with {} spatial dims", shape_str(gs),
                      xs[0], S, S);
    auto& s = ctx.make_state<GridSampleState>();
    GridSampleParams& p = s.p;
    p.batch = xs[0];
    p.channels = xs[1];
    p.spatial = static_cast<int>(S);
    Shape out = {xs[0], xs[1]};
    for (int64_t d = 0; d < S; ++d) {
      p.in_dims[d] = xs[static_cast<size_t>(d + 2)];
      p.out_dims[d] = gs[static_cast<size_t>(d + 1)];
      out.push_back(gs[static_cast<size_t>(d + 1)]);
    }
    const std::string mode = ctx.attr_string("mode", ctx.opset() < 20 ? "bilinear" : "linear");
    if (mode == "nearest")
      p.mode = 0;
    else if (mode == "linear" || mode == "bilinear")
      p.mode = 1;
    else if (mode == "cubic" || mode == "bicubic")
      p.mode = 2;
    else
      return ctx.fail("mode '{}' is not one of nearest, linear, cubic", mode);
    const std::string padding = ctx.attr_string("padding_mode", "zeros");
    if (padding == "zeros")
      p.padding = 0;
    else if (padding == "border")
      p.padding = 1;
    else if (padding == "reflection")
      p.padding = 2;
    else
      return ctx.fail("padding_mode '{}' is not one of zeros, border, reflection", padding);
    p.align_corners = ctx.attr_int("align_corners", 0) != 0;
    ctx.set_output(0, x->dtype, out);
    s.half = plan_half(ctx, {0, 1}, {0});
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<GridSampleState>();
    return visit_dtype<kFloatTypes>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      grid_sample_ref(s.p, in[0]->as<T>(), in[1]->as<T>(), out[0].as<T>());
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<GridSampleState>();
    const GridSampleParams& p = s.p;
    ctx.include("onnxc/image.h");
    ctx.line(
        "static constexpr onnxc::GridSampleParams p = {{/*batch=*/{}, /*channels=*/{}, "
        "/*spatial=*/{}, /*in_dims=*/{}, /*out_dims=*/{}, /*mode=*/{}, /*padding=*/{}, "
        "/*align_corners=*/{}}};",
        p.batch, p.channels, p.spatial, cpp_ints({p.in_dims[0], p.in_dims[1], p.in_dims[2]}),
        cpp_ints({p.out_dims[0], p.out_dims[1], p.out_dims[2]}), p.mode, p.padding,
        p.align_corners);
    const HalfNames n = emit_widen(ctx, s.half);
    ctx.line("onnxc::grid_sample_ref(p, {}, {}, {});", n.in(0), n.in(1), n.out(0));
    emit_narrow(ctx, s.half, n);
  }
};

// ---- AffineGrid --------------------------------------------------------------------------------

struct AffineGridState : OpState {
  AffineGridParams p{};
  HalfPlan half;
};

class AffineGridOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 2, 1, 1)) return false;
    const Value* theta = ctx.input(0);
    if (!float_like(theta->dtype))
      return ctx.fail("theta type {} is not supported (float types only)",
                      dtype_name(theta->dtype));
    const Tensor* size = ctx.constant_input(1);
    if (!size) return ctx.fail("size input must be a constant (it decides the output shape)");
    const std::vector<int64_t> sz = size->to_ints();
    if (sz.size() != 4 && sz.size() != 5)
      return ctx.fail("size has {} values, expected 4 (N, C, H, W) or 5 (N, C, D, H, W)",
                      sz.size());
    const int S = static_cast<int>(sz.size()) - 2;
    if (theta->shape != Shape{sz[0], S, S + 1})
      return ctx.fail("theta has shape {}, expected {}x{}x{}", shape_str(theta->shape), sz[0], S,
                      S + 1);
    auto& s = ctx.make_state<AffineGridState>();
    s.p.batch = sz[0];
    s.p.spatial = S;
    Shape out = {sz[0]};
    for (int d = 0; d < S; ++d) {
      if (sz[static_cast<size_t>(d + 2)] <= 0)
        return ctx.fail("size {} is not positive", sz[static_cast<size_t>(d + 2)]);
      s.p.dims[d] = sz[static_cast<size_t>(d + 2)];
      out.push_back(sz[static_cast<size_t>(d + 2)]);
    }
    out.push_back(S);
    s.p.align_corners = ctx.attr_int("align_corners", 0) != 0;
    ctx.set_output(0, theta->dtype, out);
    s.half = plan_half(ctx, {0}, {0});
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<AffineGridState>();
    return visit_dtype<kFloatTypes>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      affine_grid_ref(s.p, in[0]->as<T>(), out[0].as<T>());
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<AffineGridState>();
    const AffineGridParams& p = s.p;
    ctx.include("onnxc/image.h");
    ctx.line(
        "static constexpr onnxc::AffineGridParams p = {{/*batch=*/{}, /*spatial=*/{}, "
        "/*dims=*/{}, /*align_corners=*/{}}};",
        p.batch, p.spatial, cpp_ints({p.dims[0], p.dims[1], p.dims[2]}), p.align_corners);
    const HalfNames n = emit_widen(ctx, s.half);
    ctx.line("onnxc::affine_grid_ref(p, {}, {});", n.in(0), n.out(0));
    emit_narrow(ctx, s.half, n);
  }
};

const GridSampleOp kGridSample;
const AffineGridOp kAffineGrid;

}  // namespace

std::vector<OpRegistration> image_ops() {
  return {{"", "GridSample", 16, kMaxOpset, &kGridSample},
          {"", "AffineGrid", 20, kMaxOpset, &kAffineGrid}};
}

}  // namespace onnxc
