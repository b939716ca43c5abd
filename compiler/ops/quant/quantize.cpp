// QuantizeLinear and DequantizeLinear (opsets 10, 13, 19, 21, 23, 24, 25) and
// DynamicQuantizeLinear (11). Versions add: per-axis scales and `axis` (13); float8 types,
// float16/bfloat16 scales and `saturate` (19); int16/uint16/int4/uint4, blocked quantization
// (`block_size`) and QuantizeLinear's `output_dtype` (21); float4e2m1, `precision` and
// DequantizeLinear's `output_dtype` (23); float8e8m0 scales (24); int2/uint2 (25).
// QuantizeLinear refuses int32 x and int32 scales (DequantizeLinear takes int32 x). Kernels:
// onnxc/quantize.h.
#include "onnxc/quantize.h"

#include <fmt/format.h>

#include <algorithm>

#include "ops/dispatch.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

// QuantizeLinear's outputs and DequantizeLinear's inputs (DequantizeLinear also takes int32).
constexpr TypeSet kQuantTypes =
    type_set({DataType::kInt8, DataType::kUint8, DataType::kInt16, DataType::kUint16}) |
    kFloat8Types | kPackedTypes;
// float, float16, bfloat16 (the full-precision types).
constexpr TypeSet kWideTypes = type_set({DataType::kFloat}) | kHalfTypes;
constexpr TypeSet kScaleTypes = kWideTypes | type_set({DataType::kFloat8E8M0});

// First opset whose QuantizeLinear output / DequantizeLinear input types include `t` (0: never):
// int8/uint8 from the first version (10), int16/uint16 from 21, the rest from the opset that
// introduced them.
int quant_type_since(DataType t) {
  if (!in_type_set(t, kQuantTypes)) return 0;
  if (t == DataType::kInt8 || t == DataType::kUint8) return 10;
  if (t == DataType::kInt16 || t == DataType::kUint16) return 21;
  return dtype_info(t).since;
}

// First opset whose scale types include `t` (0: not supported here).
int scale_type_since(DataType t) {
  if (t == DataType::kFloat) return 10;
  return in_type_set(t, kScaleTypes) ? std::max(19, dtype_info(t).since) : 0;
}

struct QuantState : OpState {
  QuantizeParams p{};
  DataType x = DataType::kUndefined, scale = DataType::kUndefined, y = DataType::kUndefined;
};

const char* granularity_cpp(QuantGranularity g) {
  switch (g) {
    case QuantGranularity::kTensor:
      return "onnxc::QuantGranularity::kTensor";
    case QuantGranularity::kAxis:
      return "onnxc::QuantGranularity::kAxis";
    default:
      return "onnxc::QuantGranularity::kBlocked";
  }
}

const char* precision_cpp(QuantPrecision p) {
  switch (p) {
    case QuantPrecision::kFloat16:
      return "onnxc::QuantPrecision::kFloat16";
    case QuantPrecision::kBFloat16:
      return "onnxc::QuantPrecision::kBFloat16";
    default:
      return "onnxc::QuantPrecision::kFloat";
  }
}

std::string params_literal(const QuantizeParams& p) {
  return fmt::format(
      "{{/*outer=*/{}, /*axis=*/{}, /*inner=*/{}, /*granularity=*/{}, /*block=*/{}, "
      "/*saturate=*/{}, /*precision=*/{}}}",
      p.outer, p.axis, p.inner, granularity_cpp(p.granularity), p.block,
      p.saturate ? "true" : "false", precision_cpp(p.precision));
}

// Reads axis / block_size and checks the shapes of scale (input 1) and zero point (input 2)
// against x (input 0): one value, one per index of `axis`, or blocks along `axis`.
bool quant_layout(InferContext& ctx, QuantizeParams& p) {
  const Value *x = ctx.input(0), *scale = ctx.input(1), *zp = ctx.input(2);
  auto single = [](const Value* v) { return v->numel() == 1 && v->shape.size() <= 1; };
  if (zp && zp->shape != scale->shape && !(single(zp) && single(scale)))
    return ctx.fail("zero point has shape {}, scale has {}: they must match", shape_str(zp->shape),
                    shape_str(scale->shape));
  const Shape& xs = x->shape;
  const int64_t rank = static_cast<int64_t>(xs.size());
  if (ctx.opset() < 13 && ctx.has_attr("axis"))
    return ctx.fail("attribute 'axis' exists from opset 13 (model imports opset {})", ctx.opset());
  if (ctx.opset() < 21 && ctx.has_attr("block_size"))
    return ctx.fail("attribute 'block_size' exists from opset 21 (model imports opset {})",
                    ctx.opset());
  const int64_t block = ctx.attr_int("block_size", 0);
  if (block < 0) return ctx.fail("block_size must be >= 0, is {}", block);
  int64_t axis = ctx.attr_int("axis", 1);
  p.outer = 1;
  p.axis = 1;
  p.inner = x->numel();
  p.block = 0;
  p.granularity = QuantGranularity::kTensor;
  const bool one_value = single(scale);
  if (block == 0 && one_value) return true;
  if (ctx.opset() < 13)
    return ctx.fail("scale must be a single value before opset 13, has shape {}",
                    shape_str(scale->shape));
  if (!ctx.normalize_axis(axis, rank)) return false;
  p.outer = shape_numel(Shape(xs.begin(), xs.begin() + axis));
  p.axis = xs[static_cast<size_t>(axis)];
  p.inner = shape_numel(Shape(xs.begin() + axis + 1, xs.end()));
  if (block == 0) {
    if (scale->shape != Shape{p.axis})
      return ctx.fail(
          "scale of shape {} is neither one value nor one per index of axis {} of x ({}); blocked "
          "quantization needs block_size",
          shape_str(scale->shape), axis, shape_str(xs));
    p.granularity = QuantGranularity::kAxis;
    return true;
  }
  Shape want = xs;
  want[static_cast<size_t>(axis)] = (p.axis + block - 1) / block;
  if (scale->shape != want)
    return ctx.fail("blocked scale must have shape {} (x {} with axis {} in blocks of {}), has {}",
                    shape_str(want), shape_str(xs), axis, block, shape_str(scale->shape));
  p.granularity = QuantGranularity::kBlocked;
  p.block = block;
  return true;
}

bool check_scale_type(InferContext& ctx, DataType t) {
  const int since = scale_type_since(t);
  if (since == 0) return ctx.fail("scale type {} is not supported", dtype_name(t));
  if (ctx.opset() < since)
    return ctx.fail("scale type {} needs opset {} (model imports {})", dtype_name(t), since,
                    ctx.opset());
  return true;
}

bool check_quant_type(InferContext& ctx, DataType t, const char* what) {
  const int since = quant_type_since(t);
  if (since == 0) return ctx.fail("{} type {} is not a quantized type", what, dtype_name(t));
  if (ctx.opset() < since)
    return ctx.fail("{} type {} needs opset {} (model imports {})", what, dtype_name(t), since,
                    ctx.opset());
  return true;
}

// A TensorProto.DataType attribute value; kUndefined for 0.
bool dtype_attr(InferContext& ctx, const char* name, DataType& out) {
  const int64_t v = ctx.attr_int(name, 0);
  if (v < 0 || v > kMaxDataType) return ctx.fail("{} is not a data type: {}", name, v);
  out = static_cast<DataType>(v);
  return true;
}

QuantPrecision precision_of(DataType t) {
  return t == DataType::kFloat16    ? QuantPrecision::kFloat16
         : t == DataType::kBFloat16 ? QuantPrecision::kBFloat16
                                    : QuantPrecision::kFloat;
}

class QuantizeLinearOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 3, 1, 1)) return false;
    const Value *x = ctx.input(0), *scale = ctx.input(1), *zp = ctx.input(2);
    const int opset = ctx.opset();
    if (x->dtype == DataType::kInt32)
      return ctx.fail("int32 x is not supported (float, float16, bfloat16 are)");
    if (x->dtype != DataType::kFloat && !(is_half(x->dtype) && opset >= 19))
      return ctx.fail("x type {} is not supported at opset {} (float; float16, bfloat16 from 19)",
                      dtype_name(x->dtype), opset);
    if (!check_scale_type(ctx, scale->dtype)) return false;
    auto& s = ctx.make_state<QuantState>();
    if (!quant_layout(ctx, s.p)) return false;
    DataType out = DataType::kUndefined;
    if (opset < 21 && ctx.has_attr("output_dtype"))
      return ctx.fail("attribute 'output_dtype' exists from opset 21 (model imports {})", opset);
    if (!dtype_attr(ctx, "output_dtype", out)) return false;
    if (zp) {
      if (out != DataType::kUndefined && out != zp->dtype)
        return ctx.fail("output_dtype {} differs from the zero point type {}", dtype_name(out),
                        dtype_name(zp->dtype));
      out = zp->dtype;
    }
    if (out == DataType::kUndefined) out = DataType::kUint8;
    if (!check_quant_type(ctx, out, "output")) return false;
    if (opset < 19 && ctx.has_attr("saturate"))
      return ctx.fail("attribute 'saturate' exists from opset 19 (model imports {})", opset);
    const int64_t saturate = ctx.attr_int("saturate", 1);
    if (saturate != 0 && saturate != 1) return ctx.fail("saturate must be 0 or 1, is {}", saturate);
    s.p.saturate = saturate == 1;
    if (opset < 23 && ctx.has_attr("precision"))
      return ctx.fail("attribute 'precision' exists from opset 23 (model imports {})", opset);
    DataType precision = DataType::kUndefined;
    if (!dtype_attr(ctx, "precision", precision)) return false;
    if (precision == DataType::kUndefined) {
      // From 23 the scale type sets the precision; before, numpy's promotion of x / scale did.
      if (opset >= 23)
        precision = scale->dtype;
      else
        precision = x->dtype == scale->dtype ? x->dtype : DataType::kFloat;
    } else if (precision != DataType::kFloat && !is_half(precision)) {
      return ctx.fail("precision {} is not supported (float, float16, bfloat16 are)",
                      dtype_name(precision));
    }
    s.p.precision = precision_of(precision);
    s.x = x->dtype;
    s.scale = scale->dtype;
    s.y = out;
    ctx.set_output(0, out, x->shape);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<QuantState>();
    bool ok = false;
    visit_dtype<kWideTypes>(s.x, [&](auto xt) {
      using X = decltype(xt);
      visit_dtype<kScaleTypes>(s.scale, [&](auto st) {
        using S = decltype(st);
        ok = visit_dtype<kQuantTypes>(s.y, [&](auto yt) {
          using Y = decltype(yt);
          const Y* zp = in.size() > 2 && in[2] ? in[2]->as<Y>() : nullptr;
          quantize_linear_ref<X, S, Y>(in[0]->as<X>(), in[1]->as<S>(), zp, out[0].as<Y>(), s.p);
        });
      });
    });
    return ok;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<QuantState>();
    ctx.include("onnxc/quantize.h");
    ctx.line("static constexpr onnxc::QuantizeParams p = {};", params_literal(s.p));
    ctx.line("onnxc::quantize_linear_ref<{}, {}, {}>({}, {}, {}, {}, p);", dtype_cpp(s.x),
             dtype_cpp(s.scale), dtype_cpp(s.y), ctx.in(0), ctx.in(1),
             ctx.input(2) ? ctx.in(2) : "nullptr", ctx.out(0));
  }

 private:
  static bool is_half(DataType t) { return t == DataType::kFloat16 || t == DataType::kBFloat16; }
};

class DequantizeLinearOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 3, 1, 1)) return false;
    const Value *x = ctx.input(0), *scale = ctx.input(1), *zp = ctx.input(2);
    const int opset = ctx.opset();
    if (x->dtype != DataType::kInt32 && !check_quant_type(ctx, x->dtype, "x")) return false;
    if (zp && zp->dtype != x->dtype)
      return ctx.fail("zero point type {} differs from x type {}", dtype_name(zp->dtype),
                      dtype_name(x->dtype));
    if (!check_scale_type(ctx, scale->dtype)) return false;
    auto& s = ctx.make_state<QuantState>();
    if (!quant_layout(ctx, s.p)) return false;
    if (opset < 23 && ctx.has_attr("output_dtype"))
      return ctx.fail("attribute 'output_dtype' exists from opset 23 (model imports {})", opset);
    DataType out = DataType::kUndefined;
    if (!dtype_attr(ctx, "output_dtype", out)) return false;
    if (out == DataType::kUndefined) out = scale->dtype;
    if (!visit_dtype<kWideTypes>(out, [](auto) {}))
      return ctx.fail("output type {} is not float, float16 or bfloat16{}", dtype_name(out),
                      ctx.has_attr("output_dtype") ? "" : " (set output_dtype)");
    s.x = x->dtype;
    s.scale = scale->dtype;
    s.y = out;
    ctx.set_output(0, out, x->shape);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<QuantState>();
    bool ok = false;
    visit_dtype<kQuantTypes | type_set({DataType::kInt32})>(s.x, [&](auto xt) {
      using X = decltype(xt);
      visit_dtype<kScaleTypes>(s.scale, [&](auto st) {
        using S = decltype(st);
        ok = visit_dtype<kWideTypes>(s.y, [&](auto yt) {
          using Y = decltype(yt);
          const X* zp = in.size() > 2 && in[2] ? in[2]->as<X>() : nullptr;
          dequantize_linear_ref<X, S, Y>(in[0]->as<X>(), in[1]->as<S>(), zp, out[0].as<Y>(), s.p);
        });
      });
    });
    return ok;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<QuantState>();
    ctx.include("onnxc/quantize.h");
    ctx.line("static constexpr onnxc::QuantizeParams p = {};", params_literal(s.p));
    ctx.line("onnxc::dequantize_linear_ref<{}, {}, {}>({}, {}, {}, {}, p);", dtype_cpp(s.x),
             dtype_cpp(s.scale), dtype_cpp(s.y), ctx.in(0), ctx.in(1),
             ctx.input(2) ? ctx.in(2) : "nullptr", ctx.out(0));
  }
};

class DynamicQuantizeLinearOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 3, 3) || !ctx.check_dtype(0, {DataType::kFloat})) return false;
    for (size_t i = 0; i < 3; ++i)
      if (!ctx.has_output(i)) return ctx.fail("output {} is required", i);
    ctx.set_output(0, DataType::kUint8, ctx.input(0)->shape);
    ctx.set_output(1, DataType::kFloat, {});
    ctx.set_output(2, DataType::kUint8, {});
    return true;
  }
  bool evaluate(const Node& /*n*/, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    dynamic_quantize_linear_ref(in[0]->as<float>(), out[0].as<uint8_t>(), out[1].as<float>(),
                                out[2].as<uint8_t>(), in[0]->numel());
    return true;
  }
  void emit(EmitContext& ctx) const override {
    ctx.include("onnxc/quantize.h");
    ctx.line("onnxc::dynamic_quantize_linear_ref({}, {}, {}, {}, /*n=*/{});", ctx.in(0), ctx.out(0),
             ctx.out(1), ctx.out(2), ctx.input(0)->numel());
  }
};

const QuantizeLinearOp kQuantizeLinear;
const DequantizeLinearOp kDequantizeLinear;
const DynamicQuantizeLinearOp kDynamicQuantizeLinear;

}  // namespace

std::vector<OpRegistration> quantize_ops() {
  return {{"", "QuantizeLinear", 10, kMaxOpset, &kQuantizeLinear},
          {"", "DequantizeLinear", 10, kMaxOpset, &kDequantizeLinear},
          {"", "DynamicQuantizeLinear", 11, kMaxOpset, &kDynamicQuantizeLinear}};
}

}  // namespace onnxc
