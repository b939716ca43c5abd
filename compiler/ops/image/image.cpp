// Image ops: GridSample (16; N-D from 20, here 1-3 spatial dims), AffineGrid (20),
// CenterCropPad (18), Col2Im (18) and MaxUnpool (9, 11, 22). Shapes that decide the output
// (AffineGrid's size, CenterCropPad's shape, Col2Im's image and block shapes, MaxUnpool's
// output_shape) must be compile-time constants.
#include "onnxc/image.h"

#include "ops/checked_window.h"
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

// ---- CenterCropPad -----------------------------------------------------------------------------

struct CropPadState : OpState {
  CropPadParams p{};
};

class CenterCropPadOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 2, 1, 1)) return false;
    const Value* x = ctx.input(0);
    if (x->dtype == DataType::kString) return ctx.fail("string tensors are not supported");
    const int64_t rank = static_cast<int64_t>(x->shape.size());
    if (rank > kMaxRank) return ctx.fail("rank {} exceeds {}", rank, kMaxRank);
    const Tensor* shape = ctx.constant_input(1);
    if (!shape) return ctx.fail("shape input must be a constant (it decides the output shape)");
    const std::vector<int64_t> sh = shape->to_ints();
    std::vector<int64_t> axes = ctx.attr_ints("axes");
    if (axes.empty())
      for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
    if (sh.size() != axes.size())
      return ctx.fail("shape has {} values, expected {} (one per axis)", sh.size(), axes.size());
    auto& s = ctx.make_state<CropPadState>();
    s.p.rank = static_cast<int>(rank);
    Shape out = x->shape;
    for (int64_t d = 0; d < rank; ++d)
      s.p.in_dims[d] = s.p.out_dims[d] = x->shape[static_cast<size_t>(d)];
    for (size_t i = 0; i < axes.size(); ++i) {
      int64_t a = axes[i];
      if (!ctx.normalize_axis(a, rank, "axes")) return false;
      if (sh[i] < 0) return ctx.fail("shape value {} is negative", sh[i]);
      const int64_t dim = x->shape[static_cast<size_t>(a)];
      out[static_cast<size_t>(a)] = sh[i];
      s.p.out_dims[a] = sh[i];
      // Crop starts at floor((dim - size) / 2); padding puts floor((size - dim) / 2) zeros first.
      s.p.shift[a] = sh[i] < dim ? (dim - sh[i]) / 2 : -((sh[i] - dim) / 2);
    }
    ctx.set_output(0, x->dtype, out);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<CropPadState>();
    return visit_dtype<kAllPlain>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      center_crop_pad_ref(s.p, in[0]->as<T>(), out[0].as<T>());
    });
  }
  void emit(EmitContext& ctx) const override {
    const CropPadParams& p = ctx.node().state_as<CropPadState>().p;
    ctx.include("onnxc/image.h");
    ctx.line(
        "static constexpr onnxc::CropPadParams p = {{/*rank=*/{}, /*in_dims=*/{}, "
        "/*out_dims=*/{}, /*shift=*/{}}};",
        p.rank, cpp_ints(std::vector<int64_t>(p.in_dims, p.in_dims + p.rank)),
        cpp_ints(std::vector<int64_t>(p.out_dims, p.out_dims + p.rank)),
        cpp_ints(std::vector<int64_t>(p.shift, p.shift + p.rank)));
    ctx.line("onnxc::center_crop_pad_ref(p, {}, {});", ctx.in(0), ctx.out(0));
  }
};

// ---- Col2Im ------------------------------------------------------------------------------------

struct Col2ImState : OpState {
  Col2ImParams p{};
  HalfPlan half;
};

class Col2ImOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(3, 3, 1, 1)) return false;
    const Value* x = ctx.input(0);
    if (!float_like(x->dtype) && !in_type_set(x->dtype, kIntTypes))
      return ctx.fail("type {} is not supported", dtype_name(x->dtype));
    const Tensor *image = ctx.constant_input(1), *block = ctx.constant_input(2);
    if (!image)
      return ctx.fail("image_shape input must be a constant (it decides the output shape)");
    if (!block)
      return ctx.fail("block_shape input must be a constant (it decides the output shape)");
    const std::vector<int64_t> img = image->to_ints(), blk = block->to_ints();
    const size_t S = img.size();
    if (S < 1 || S > static_cast<size_t>(kMaxRank - 2) || blk.size() != S)
      return ctx.fail("image_shape and block_shape must have the same 1 to {} values",
                      kMaxRank - 2);
    const std::vector<int64_t> dil = ctx.attr_ints("dilations", std::vector<int64_t>(S, 1));
    const std::vector<int64_t> str = ctx.attr_ints("strides", std::vector<int64_t>(S, 1));
    const std::vector<int64_t> pads = ctx.attr_ints("pads", std::vector<int64_t>(2 * S, 0));
    if (dil.size() != S || str.size() != S || pads.size() != 2 * S)
      return ctx.fail("dilations, strides and pads must have {}, {} and {} values", S, S, 2 * S);
    if (x->shape.size() != 3) return ctx.fail("input must be 3-D (N, C * prod(block_shape), L)");
    auto& s = ctx.make_state<Col2ImState>();
    Col2ImParams& p = s.p;
    p.spatial = static_cast<int>(S);
    int64_t block_size = 1, positions = 1;
    for (size_t d = 0; d < S; ++d) {
      if (img[d] <= 0 || blk[d] <= 0 || dil[d] <= 0 || str[d] <= 0)
        return ctx.fail("image, block, dilation and stride values must be positive");
      p.image[d] = img[d];
      p.block[d] = blk[d];
      p.stride[d] = str[d];
      p.dilation[d] = dil[d];
      p.pad_begin[d] = pads[d];
      const std::optional<int64_t> span =
          checked_window_span(img[d], pads[d], pads[d + S], blk[d], dil[d]);
      if (!span) return ctx.fail("the padded image or the dilated block on axis {} overflows", d);
      if (*span < 0) return ctx.fail("the block does not fit the padded image on axis {}", d);
      p.blocks[d] = *span / str[d] + 1;
      if (!checked_mul(block_size, blk[d], &block_size) ||
          !checked_mul(positions, p.blocks[d], &positions))
        return ctx.fail("the block count or size overflows int64");
    }
    const Shape& xs = x->shape;
    if (xs[1] % block_size != 0 || xs[2] != positions)
      return ctx.fail("input has shape {}; expected N x (C * {}) x {}", shape_str(xs), block_size,
                      positions);
    p.batch = xs[0];
    p.channels = xs[1] / block_size;
    Shape out = {xs[0], p.channels};
    out.insert(out.end(), img.begin(), img.end());
    ctx.set_output(0, x->dtype, out);
    s.half = plan_half(ctx, {0}, {0});
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<Col2ImState>();
    return visit_dtype<kNumeric>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      col2im_ref(s.p, in[0]->as<T>(), out[0].as<T>());
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<Col2ImState>();
    const Col2ImParams& p = s.p;
    auto v = [&](const index_t* a) { return cpp_ints(std::vector<int64_t>(a, a + p.spatial)); };
    ctx.include("onnxc/image.h");
    ctx.line(
        "static constexpr onnxc::Col2ImParams p = {{/*batch=*/{}, /*channels=*/{}, "
        "/*spatial=*/{}, /*image=*/{}, /*block=*/{}, /*blocks=*/{}, /*stride=*/{}, "
        "/*dilation=*/{}, /*pad_begin=*/{}}};",
        p.batch, p.channels, p.spatial, v(p.image), v(p.block), v(p.blocks), v(p.stride),
        v(p.dilation), v(p.pad_begin));
    const HalfNames n = emit_widen(ctx, s.half);
    ctx.line("onnxc::col2im_ref(p, {}, {});", n.in(0), n.out(0));
    emit_narrow(ctx, s.half, n);
  }
};

// ---- MaxUnpool ---------------------------------------------------------------------------------

struct MaxUnpoolState : OpState {
  MaxUnpoolParams p{};
  HalfPlan half;
};

class MaxUnpoolOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 3, 1, 1)) return false;
    const Value *x = ctx.input(0), *idx = ctx.input(1);
    if (!float_like(x->dtype))
      return ctx.fail("type {} is not supported (float types only)", dtype_name(x->dtype));
    if (idx->dtype != DataType::kInt64) return ctx.fail("indices must be int64");
    if (idx->shape != x->shape)
      return ctx.fail("indices shape {} differs from X's {}", shape_str(idx->shape),
                      shape_str(x->shape));
    const Shape& xs = x->shape;
    const size_t rank = xs.size();
    if (rank < 3 || rank > static_cast<size_t>(kMaxRank))
      return ctx.fail("X must have rank 3 to {}", kMaxRank);
    const size_t S = rank - 2;
    const std::vector<int64_t> kernel = ctx.attr_ints("kernel_shape");
    if (kernel.size() != S) return ctx.fail("kernel_shape must have {} values", S);
    const std::vector<int64_t> str = ctx.attr_ints("strides", std::vector<int64_t>(S, 1));
    const std::vector<int64_t> pads = ctx.attr_ints("pads", std::vector<int64_t>(2 * S, 0));
    if (str.size() != S || pads.size() != 2 * S)
      return ctx.fail("strides and pads must have {} and {} values", S, 2 * S);
    auto& s = ctx.make_state<MaxUnpoolState>();
    MaxUnpoolParams& p = s.p;
    p.rank = static_cast<int>(rank);
    p.count = x->numel();
    Shape unpooled = {xs[0], xs[1]};
    for (size_t d = 0; d < S; ++d) {
      // (x - 1) * stride - pad_begin - pad_end + kernel, checked: the attributes are any int64.
      int64_t size;
      if (!checked_mul(xs[d + 2] - 1, str[d], &size) || !checked_sub(size, pads[d], &size) ||
          !checked_sub(size, pads[d + S], &size) || !checked_add(size, kernel[d], &size))
        return ctx.fail("the unpooled size on axis {} overflows int64", d + 2);
      unpooled.push_back(size);
    }
    Shape out = unpooled;
    if (ctx.has_input(2)) {
      const Tensor* os = ctx.constant_input(2);
      if (!os)
        return ctx.fail("output_shape input must be a constant (it decides the output shape)");
      out = os->to_ints();
      if (out.size() != rank)
        return ctx.fail("output_shape has {} values, expected {}", out.size(), rank);
    }
    for (size_t d = 0; d < rank; ++d) {
      if (unpooled[d] < 0) return ctx.fail("the unpooled size on axis {} is negative", d);
      if (out[d] < unpooled[d])
        return ctx.fail("output_shape {} is smaller than the unpooled shape {}", shape_str(out),
                        shape_str(unpooled));
      p.unpooled[d] = unpooled[d];
      p.out_dims[d] = out[d];
    }
    ctx.set_output(0, x->dtype, out);
    s.half = plan_half(ctx, {0}, {0});
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<MaxUnpoolState>();
    return visit_dtype<kFloatTypes>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      max_unpool_ref(s.p, in[0]->as<T>(), in[1]->as<int64_t>(), out[0].as<T>());
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<MaxUnpoolState>();
    const MaxUnpoolParams& p = s.p;
    ctx.include("onnxc/image.h");
    ctx.line(
        "static constexpr onnxc::MaxUnpoolParams p = {{/*rank=*/{}, /*count=*/{}, /*unpooled=*/{}, "
        "/*out_dims=*/{}}};",
        p.rank, p.count, cpp_ints(std::vector<int64_t>(p.unpooled, p.unpooled + p.rank)),
        cpp_ints(std::vector<int64_t>(p.out_dims, p.out_dims + p.rank)));
    const HalfNames n = emit_widen(ctx, s.half);
    ctx.line("onnxc::max_unpool_ref(p, {}, {}, {});", n.in(0), ctx.in(1), n.out(0));
    emit_narrow(ctx, s.half, n);
  }
};

const GridSampleOp kGridSample;
const AffineGridOp kAffineGrid;
const CenterCropPadOp kCenterCropPad;
const Col2ImOp kCol2Im;
const MaxUnpoolOp kMaxUnpool;

}  // namespace

std::vector<OpRegistration> image_ops() {
  return {{"", "GridSample", 16, kMaxOpset, &kGridSample},
          {"", "AffineGrid", 20, kMaxOpset, &kAffineGrid},
          {"", "CenterCropPad", 18, kMaxOpset, &kCenterCropPad},
          {"", "Col2Im", 18, kMaxOpset, &kCol2Im},
          {"", "MaxUnpool", 9, kMaxOpset, &kMaxUnpool}};
}

}  // namespace onnxc
