// Detection ops: RoiAlign (10, 16, 22), NonMaxSuppression (10, 11) and DeformConv (19, 22).
// NonMaxSuppression's output shape is the number of boxes it keeps, so it is only supported
// when every input is a compile-time constant: infer() runs the kernel on the host and the
// result becomes a constant.
#include <algorithm>

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

// ---- RoiAlign ----------------------------------------------------------------------------------

struct RoiAlignState : OpState {
  RoiAlignParams p{};
  HalfPlan half;
};

class RoiAlignOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(3, 3, 1, 1)) return false;
    const Value *x = ctx.input(0), *rois = ctx.input(1), *idx = ctx.input(2);
    if (!float_like(x->dtype))
      return ctx.fail("X type {} is not supported (float types only)", dtype_name(x->dtype));
    if (rois->dtype != x->dtype)
      return ctx.fail("rois type {} differs from X's {}", dtype_name(rois->dtype),
                      dtype_name(x->dtype));
    if (idx->dtype != DataType::kInt64 && idx->dtype != DataType::kInt32)
      return ctx.fail("batch_indices must be int64");
    if (x->shape.size() != 4)
      return ctx.fail("X must be 4-D (N, C, H, W), is {}", shape_str(x->shape));
    if (rois->shape.size() != 2 || rois->shape[1] != 4)
      return ctx.fail("rois must be num_rois x 4, is {}", shape_str(rois->shape));
    if (idx->shape != Shape{rois->shape[0]})
      return ctx.fail("batch_indices must have shape {}, is {}", rois->shape[0],
                      shape_str(idx->shape));
    auto& s = ctx.make_state<RoiAlignState>();
    RoiAlignParams& p = s.p;
    p.rois = rois->shape[0];
    p.batch = x->shape[0];
    p.channels = x->shape[1];
    p.height = x->shape[2];
    p.width = x->shape[3];
    p.out_h = ctx.attr_int("output_height", 1);
    p.out_w = ctx.attr_int("output_width", 1);
    if (p.out_h <= 0 || p.out_w <= 0)
      return ctx.fail("output_height and output_width must be positive");
    p.sampling_ratio = ctx.attr_int("sampling_ratio", 0);
    if (p.sampling_ratio < 0) return ctx.fail("sampling_ratio must not be negative");
    p.spatial_scale = ctx.attr_float("spatial_scale", 1.0f);
    const std::string mode = ctx.attr_string("mode", "avg");
    if (mode != "avg" && mode != "max") return ctx.fail("mode '{}' is not one of avg, max", mode);
    p.max_mode = mode == "max";
    const std::string coord = ctx.opset() >= 16
                                  ? ctx.attr_string("coordinate_transformation_mode", "half_pixel")
                                  : "output_half_pixel";
    if (coord != "half_pixel" && coord != "output_half_pixel")
      return ctx.fail(
          "coordinate_transformation_mode '{}' is not one of half_pixel, output_half_pixel", coord);
    p.half_pixel = coord == "half_pixel";
    ctx.set_output(0, x->dtype, {p.rois, p.channels, p.out_h, p.out_w});
    s.half = plan_half(ctx, {0, 1}, {0});
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<RoiAlignState>();
    return visit_dtype<kFloatTypes>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      if (in[2]->dtype == DataType::kInt64)
        roi_align_ref(s.p, in[0]->as<T>(), in[1]->as<T>(), in[2]->as<int64_t>(), out[0].as<T>());
      else
        roi_align_ref(s.p, in[0]->as<T>(), in[1]->as<T>(), in[2]->as<int32_t>(), out[0].as<T>());
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<RoiAlignState>();
    const RoiAlignParams& p = s.p;
    ctx.include("onnxc/image.h");
    ctx.line(
        "static constexpr onnxc::RoiAlignParams p = {{/*rois=*/{}, /*channels=*/{}, /*height=*/{}, "
        "/*width=*/{}, /*batch=*/{}, /*out_h=*/{}, /*out_w=*/{}, /*sampling_ratio=*/{}, "
        "/*spatial_scale=*/{}, /*half_pixel=*/{}, /*max_mode=*/{}}};",
        p.rois, p.channels, p.height, p.width, p.batch, p.out_h, p.out_w, p.sampling_ratio,
        cpp_float(p.spatial_scale), p.half_pixel, p.max_mode);
    const HalfNames n = emit_widen(ctx, s.half);
    ctx.line("onnxc::roi_align_ref(p, {}, {}, {}, {});", n.in(0), n.in(1), ctx.in(2), n.out(0));
    emit_narrow(ctx, s.half, n);
  }
};

// ---- NonMaxSuppression -------------------------------------------------------------------------

class NmsOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 5, 1, 1)) return false;
    const Value *boxes = ctx.input(0), *scores = ctx.input(1);
    if (boxes->dtype != DataType::kFloat || scores->dtype != DataType::kFloat)
      return ctx.fail("boxes and scores must be float");
    const Shape &bs = boxes->shape, &ss = scores->shape;
    if (bs.size() != 3 || bs[2] != 4)
      return ctx.fail("boxes must be batch x boxes x 4, is {}", shape_str(bs));
    if (ss.size() != 3 || ss[0] != bs[0] || ss[2] != bs[1])
      return ctx.fail("scores must be {} x classes x {}, is {}", bs[0], bs[1], shape_str(ss));
    const char* names[] = {"boxes", "scores", "max_output_boxes_per_class", "iou_threshold",
                           "score_threshold"};
    for (size_t i = 0; i < ctx.num_inputs(); ++i)
      if (ctx.has_input(i) && !ctx.constant_input(i))
        return ctx.fail(
            "{} input must be a constant (the number of selected boxes, the output shape, "
            "depends on every input's values)",
            names[i]);
    NmsParams p{};
    p.batch = bs[0];
    p.classes = ss[1];
    p.boxes = bs[1];
    auto scalar = [&](size_t i, double def, bool* present) {
      const Tensor* t = ctx.has_input(i) ? ctx.constant_input(i) : nullptr;
      if (present) *present = t && t->numel() > 0;
      return t && t->numel() > 0 ? t->double_at(0) : def;
    };
    p.max_per_class = std::max<int64_t>(0, static_cast<int64_t>(scalar(2, 0, nullptr)));
    p.iou_threshold = static_cast<float>(scalar(3, 0, nullptr));
    bool has_score = false;
    p.score_threshold = static_cast<float>(scalar(4, 0, &has_score));
    p.has_score_threshold = has_score;
    p.center_point_box = static_cast<int>(ctx.attr_int("center_point_box", 0));
    if (p.center_point_box != 0 && p.center_point_box != 1)
      return ctx.fail("center_point_box must be 0 or 1");
    const int64_t room = p.batch * p.classes * std::min<int64_t>(p.boxes, p.max_per_class);
    std::vector<int64_t> selected(static_cast<size_t>(room) * 3 + 3);
    std::vector<index_t> order(static_cast<size_t>(p.boxes) + 1), kept(order.size());
    const index_t count =
        nms_ref(p, ctx.constant_input(0)->as<float>(), ctx.constant_input(1)->as<float>(),
                selected.data(), order.data(), kept.data());
    Tensor out = Tensor::zeros(DataType::kInt64, {count, 3});
    std::copy(selected.begin(), selected.begin() + count * 3, out.as<int64_t>());
    ctx.set_output_constant(0, std::move(out));
    return true;
  }
  void emit(EmitContext&) const override {}  // the output is always a constant
};

// ---- DeformConv --------------------------------------------------------------------------------

struct DeformConvState : OpState {
  DeformConvParams p{};
  HalfPlan half;
};

class DeformConvOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(3, 5, 1, 1)) return false;
    const Value *x = ctx.input(0), *w = ctx.input(1), *off = ctx.input(2);
    if (!float_like(x->dtype))
      return ctx.fail("X type {} is not supported (float types only)", dtype_name(x->dtype));
    for (size_t i = 1; i < ctx.num_inputs(); ++i)
      if (ctx.has_input(i) && ctx.input(i)->dtype != x->dtype)
        return ctx.fail("input {} has type {}, X has {}", i, dtype_name(ctx.input(i)->dtype),
                        dtype_name(x->dtype));
    const Shape &xs = x->shape, &ws = w->shape, &os = off->shape;
    if (xs.size() != 4)
      return ctx.fail("only 2-D DeformConv (4-D X) is supported; X is {}", shape_str(xs));
    if (ws.size() != 4 || os.size() != 4) return ctx.fail("W and offset must be 4-D");
    auto& s = ctx.make_state<DeformConvState>();
    DeformConvParams& p = s.p;
    p.batch = xs[0];
    p.in_channels = xs[1];
    p.in_h = xs[2];
    p.in_w = xs[3];
    p.out_channels = ws[0];
    p.group = ctx.attr_int("group", 1);
    p.offset_group = ctx.attr_int("offset_group", 1);
    const std::vector<int64_t> kernel = ctx.attr_ints("kernel_shape", {ws[2], ws[3]});
    const std::vector<int64_t> str = ctx.attr_ints("strides", {1, 1});
    const std::vector<int64_t> dil = ctx.attr_ints("dilations", {1, 1});
    const std::vector<int64_t> pads = ctx.attr_ints("pads", {0, 0, 0, 0});
    if (kernel.size() != 2 || str.size() != 2 || dil.size() != 2 || pads.size() != 4)
      return ctx.fail("kernel_shape, strides, dilations need 2 values and pads 4");
    if (kernel[0] != ws[2] || kernel[1] != ws[3])
      return ctx.fail("kernel_shape differs from W's spatial dims");
    if (p.group <= 0 || p.offset_group <= 0 || xs[1] != ws[1] * p.group || ws[0] % p.group != 0 ||
        xs[1] % p.offset_group != 0)
      return ctx.fail("channels do not split into group {} / offset_group {} (X {}, W {})", p.group,
                      p.offset_group, shape_str(xs), shape_str(ws));
    p.kernel_h = ws[2];
    p.kernel_w = ws[3];
    p.stride_h = str[0];
    p.stride_w = str[1];
    p.dilation_h = dil[0];
    p.dilation_w = dil[1];
    p.pad_top = pads[0];
    p.pad_left = pads[1];
    if (p.stride_h <= 0 || p.stride_w <= 0 || p.dilation_h <= 0 || p.dilation_w <= 0)
      return ctx.fail("strides and dilations must be positive");
    const std::optional<int64_t> span_h =
        checked_window_span(p.in_h, pads[0], pads[2], p.kernel_h, p.dilation_h);
    const std::optional<int64_t> span_w =
        checked_window_span(p.in_w, pads[1], pads[3], p.kernel_w, p.dilation_w);
    if (!span_h || !span_w) return ctx.fail("the padded input or the dilated kernel overflows");
    p.out_h = *span_h / p.stride_h + 1;
    p.out_w = *span_w / p.stride_w + 1;
    const int64_t K = p.kernel_h * p.kernel_w;
    if (os != Shape{p.batch, p.offset_group * K * 2, p.out_h, p.out_w})
      return ctx.fail("offset has shape {}, expected {}x{}x{}x{}", shape_str(os), p.batch,
                      p.offset_group * K * 2, p.out_h, p.out_w);
    if (ctx.has_input(3) && ctx.input(3)->shape != Shape{p.out_channels})
      return ctx.fail("B must have shape {}", p.out_channels);
    if (ctx.has_input(4) &&
        ctx.input(4)->shape != Shape{p.batch, p.offset_group * K, p.out_h, p.out_w})
      return ctx.fail("mask has shape {}, expected {}x{}x{}x{}", shape_str(ctx.input(4)->shape),
                      p.batch, p.offset_group * K, p.out_h, p.out_w);
    ctx.set_output(0, x->dtype, {p.batch, p.out_channels, p.out_h, p.out_w});
    s.half = plan_half(ctx, {0, 1, 2, 3, 4}, {0});
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<DeformConvState>();
    return visit_dtype<kFloatTypes>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      const T* bias = in.size() > 3 && in[3] ? in[3]->as<T>() : nullptr;
      const T* mask = in.size() > 4 && in[4] ? in[4]->as<T>() : nullptr;
      deform_conv_ref(s.p, in[0]->as<T>(), in[1]->as<T>(), in[2]->as<T>(), bias, mask,
                      out[0].as<T>());
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<DeformConvState>();
    const DeformConvParams& p = s.p;
    ctx.include("onnxc/image.h");
    ctx.line(
        "static constexpr onnxc::DeformConvParams p = {{/*batch=*/{}, /*in_channels=*/{}, "
        "/*in_h=*/{}, /*in_w=*/{}, /*out_channels=*/{}, /*out_h=*/{}, /*out_w=*/{}, "
        "/*kernel_h=*/{}, /*kernel_w=*/{}, /*group=*/{}, /*offset_group=*/{}, /*stride_h=*/{}, "
        "/*stride_w=*/{}, /*pad_top=*/{}, /*pad_left=*/{}, /*dilation_h=*/{}, "
        "/*dilation_w=*/{}}};",
        p.batch, p.in_channels, p.in_h, p.in_w, p.out_channels, p.out_h, p.out_w, p.kernel_h,
        p.kernel_w, p.group, p.offset_group, p.stride_h, p.stride_w, p.pad_top, p.pad_left,
        p.dilation_h, p.dilation_w);
    const HalfNames n = emit_widen(ctx, s.half);
    const char* t = kernel_cpp_type(ctx.input(0)->dtype);
    auto opt = [&](size_t i) {
      return ctx.input(i) ? n.in(i) : fmt::format("static_cast<const {}*>(nullptr)", t);
    };
    ctx.line("onnxc::deform_conv_ref(p, {}, {}, {}, {}, {}, {});", n.in(0), n.in(1), n.in(2),
             opt(3), opt(4), n.out(0));
    emit_narrow(ctx, s.half, n);
  }
};

const RoiAlignOp kRoiAlign;
const DeformConvOp kDeformConv;
const NmsOp kNms;

}  // namespace

std::vector<OpRegistration> detection_ops() {
  return {{"", "RoiAlign", 10, kMaxOpset, &kRoiAlign},
          {"", "NonMaxSuppression", 10, kMaxOpset, &kNms},
          {"", "DeformConv", 19, kMaxOpset, &kDeformConv}};
}

}  // namespace onnxc
