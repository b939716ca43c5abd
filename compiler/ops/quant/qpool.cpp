// Quantized pooling: QLinearGlobalAveragePool (com.microsoft, 1), as ONNX Runtime defines it:
// inputs X (int8 or uint8, N x C x D1 [x ...]), x_scale, x_zero_point, y_scale, y_zero_point
// (single values; the zero points of X's type); output N x C x 1 [x 1 ...] of X's type;
// channels_last 0 only. Models bring it as com.microsoft nodes, which the importer expands
// (frontend/contrib_qlinear.cpp); lower-qdq makes it of DequantizeLinear -> GlobalAveragePool ->
// QuantizeLinear, so that a quantized CNN's pooled features stay in integers. Kernel:
// qlinear_global_avgpool_ref (onnxc/quantize.h): an int32 sum per channel, requantized once.
// The patch-rows pass may give it the sums instead of X (kMeanOfSumsAttribute = the elements each
// sum covers): a row pipeline added the bands up (uint32 N x C x 1 [x 1 ...], each less x's zero
// point, which must then be present); only the requantization is left (qlinear_average_of_sums).
#include <fmt/format.h>

#include "onnxc/quantize.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

bool is_int8(DataType t) {
  return t == DataType::kInt8 || t == DataType::kUint8;
}

class QLinearGlobalAveragePoolOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(4, 5, 1, 1)) return false;
    if (ctx.has_attr(kMeanOfSumsAttribute)) return infer_of_sums(ctx);
    const Value* x = ctx.input(0);
    if (!is_int8(x->dtype))
      return ctx.fail("X has type {}; int8 and uint8 are supported", dtype_name(x->dtype));
    if (x->shape.size() < 3)
      return ctx.fail("X must be N x C x D1 [x ...], has shape {}", shape_str(x->shape));
    if (ctx.attr_int("channels_last", 0) != 0)
      return ctx.fail("channels_last=1 is not supported (NCHW only)");
    for (size_t i : {1, 3})
      if (!ctx.check_dtype(i, {DataType::kFloat})) return false;
    for (size_t i = 1; i < 5; ++i) {
      const Value* v = ctx.input(i);
      if (v && v->numel() != 1)
        return ctx.fail("input {} must be a single value (per-tensor quantization), has shape {}",
                        i, shape_str(v->shape));
      if (v && (i == 2 || i == 4) && v->dtype != x->dtype)
        return ctx.fail("the zero point (input {}) has type {}, X has {}: they must match", i,
                        dtype_name(v->dtype), dtype_name(x->dtype));
    }
    Shape out(x->shape.size(), 1);
    out[0] = x->shape[0], out[1] = x->shape[1];
    ctx.set_output(0, x->dtype, out);
    return true;
  }

  bool evaluate(const Node& node, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    // Plain variables: C++17 lambdas cannot capture structured bindings (clang refuses).
    const auto extent = extents(node.inputs[0]->shape);
    const int64_t channels = extent.first, spatial = extent.second;
    auto run = [&](auto tag) {
      using T = decltype(tag);
      qlinear_global_avgpool_ref<T, T>(
          in[0]->as<T>(), in[1]->as<float>(), in[2] ? in[2]->as<T>() : nullptr, in[3]->as<float>(),
          in.size() > 4 && in[4] ? in[4]->as<T>() : nullptr, out[0].as<T>(), channels, spatial);
    };
    if (in[0]->dtype == DataType::kInt8)
      run(int8_t{});
    else
      run(uint8_t{});
    return true;
  }

  void emit(EmitContext& ctx) const override {
    if (const Attribute* over = ctx.node().attr(kMeanOfSumsAttribute)) {
      const char* type = dtype_cpp(ctx.output(0)->dtype);
      ctx.include("onnxc/quantize.h");
      ctx.line(
          "onnxc::qlinear_average_of_sums<{}>({}, {}, {}, {}, {}, /*channels=*/{}, "
          "/*spatial=*/{});",
          type, ctx.in(0), ctx.in(1), ctx.in(3), ctx.input(4) ? ctx.in(4) : "nullptr", ctx.out(0),
          ctx.output(0)->numel(), over->i);
      return;
    }
    const auto [channels, spatial] = extents(ctx.input(0)->shape);
    const char* type = dtype_cpp(ctx.input(0)->dtype);
    ctx.include("onnxc/quantize.h");
    ctx.line(
        "onnxc::qlinear_global_avgpool_ref<{}, {}>({}, {}, {}, {}, {}, {}, /*channels=*/{}, "
        "/*spatial=*/{});",
        type, type, ctx.in(0), ctx.in(1), ctx.input(2) ? ctx.in(2) : "nullptr", ctx.in(3),
        ctx.input(4) ? ctx.in(4) : "nullptr", ctx.out(0), channels, spatial);
  }

 private:
  static bool infer_of_sums(InferContext& ctx) {
    const Value *sums = ctx.input(0), *x_zero_point = ctx.input(2);
    if (sums->dtype != DataType::kUint32 || !x_zero_point || !is_int8(x_zero_point->dtype) ||
        ctx.attr_int(kMeanOfSumsAttribute, 0) < 1)
      return ctx.fail("the sums form needs uint32 sums, x's zero point and a positive count");
    ctx.set_output(0, x_zero_point->dtype, sums->shape);
    return true;
  }
  // X as [N * C, spatial].
  static std::pair<int64_t, int64_t> extents(const Shape& xs) {
    const int64_t channels = xs[0] * xs[1];
    return {channels, channels ? shape_numel(xs) / channels : 0};
  }
};

const QLinearGlobalAveragePoolOp kQLinearGlobalAveragePool;

}  // namespace

std::vector<OpRegistration> qpool_ops() {
  return {{"com.microsoft", "QLinearGlobalAveragePool", 1, 1, &kQLinearGlobalAveragePool}};
}

}  // namespace onnxc
