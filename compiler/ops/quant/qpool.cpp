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
// Its multiplier x_scale / (y_scale * spatial) is computed in float once per call at run time
// (quant_detail::mean_multiplier), as the kernel has always done.
//
// QLinearAveragePool (com.microsoft, 1), as ONNX Runtime defines it: inputs X (int8 or uint8,
// N x C x D1 [x D2 [x D3]]), x_scale, x_zero_point, y_scale, y_zero_point; AveragePool's
// attributes auto_pad, ceil_mode, count_include_pad, kernel_shape, pads, strides (no
// dilations); output of X's type; channels_last 0 only. Here the scales and zero points are
// single constants (zero points optional) and x_scale / (y_scale * count) lies in [2^-32, 2^15)
// for every window divisor. Models bring it as com.microsoft nodes, which the importer expands to
// DequantizeLinear -> AveragePool -> QuantizeLinear; lower-qdq makes it of that chain. Kernel:
// qlinear_avgpool_ref (onnxc/quantize.h): int32 window sums, one multiplier per divisor count
// computed here (no float at run time).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "onnxc/quantize.h"
#include "ops/quant/qelementwise.h"
#include "ops/registry.h"
#include "ops/spatial.h"

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

// ---- QLinearAveragePool -----------------------------------------------------------------------

struct QAvgPoolState : OpState {
  QAvgPoolParams p{};
  std::vector<QScale> scales;  // scales[count - p.min_count]
};

void to3(const std::vector<int64_t>& v, int64_t fill, index_t* out) {
  const size_t lead = 3 - v.size();
  for (size_t i = 0; i < 3; ++i) out[i] = i < lead ? fill : v[i - lead];
}

std::string arr3(const index_t* v) {
  return fmt::format("{{{}, {}, {}}}", v[0], v[1], v[2]);
}

class QLinearAveragePoolOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(4, 5, 1, 1)) return false;
    const Value* x = ctx.input(0);
    if (!is_int8(x->dtype))
      return ctx.fail("X has type {}; int8 and uint8 are supported", dtype_name(x->dtype));
    if (x->shape.size() < 3 || x->shape.size() > 5)
      return ctx.fail("X must be N x C x D1 [x D2 [x D3]], has shape {}", shape_str(x->shape));
    if (ctx.attr_int("channels_last", 0) != 0)
      return ctx.fail("channels_last=1 is not supported (NCHW only)");
    if (ctx.has_attr("dilations"))
      return ctx.fail("QLinearAveragePool has no attribute 'dilations'");
    if (!ctx.has_attr("kernel_shape")) return ctx.fail("attribute 'kernel_shape' is required");
    double x_scale, y_scale;
    int32_t x_zero_point, y_zero_point;
    if (!quant_scale_and_zero_point(ctx, 1, x->dtype, x_scale, x_zero_point) ||
        !quant_scale_and_zero_point(ctx, 3, x->dtype, y_scale, y_zero_point))
      return false;
    const std::vector<int64_t> in(x->shape.begin() + 2, x->shape.end());
    WindowGeometry g;
    if (!window_geometry(ctx, in, ctx.attr_ints("kernel_shape"), ctx.attr_int("ceil_mode", 0) != 0,
                         g))
      return false;
    auto& s = ctx.make_state<QAvgPoolState>();
    PoolParams& p = s.p.pool;
    p.channels = x->shape[0] * x->shape[1];
    to3(in, 1, p.in), to3(g.out, 1, p.out), to3(g.kernel, 1, p.kernel), to3(g.stride, 1, p.stride);
    to3(g.dilation, 1, p.dilation), to3(g.pad_begin, 0, p.pad), to3(g.pad_end, 0, p.pad_end);
    p.count_include_pad = ctx.attr_int("count_include_pad", 0) != 0;
    p.p = 2.0f;
    s.p.x_zero_point = x_zero_point, s.p.y_zero_point = y_zero_point;
    // The divisors the windows have (the kernel's own, or fewer at the borders).
    index_t lo = 0, hi = 0;
    for (index_t od = 0; od < p.out[0]; ++od)
      for (index_t oh = 0; oh < p.out[1]; ++oh)
        for (index_t ow = 0; ow < p.out[2]; ++ow) {
          const pool_detail::Window w = pool_detail::window_at(p, od, oh, ow);
          const index_t count = p.count_include_pad ? w.padded_count : w.count;
          if (count < 1) continue;
          lo = lo ? std::min(lo, count) : count;
          hi = std::max(hi, count);
        }
    s.p.min_count = lo, s.p.max_count = hi;
    for (index_t count = lo; count >= 1 && count <= hi; ++count) {
      // y_scale * count is exact in double; the quotient is within 2^-53.
      QScale m;
      if (!qlinear_scale(x_scale / (y_scale * static_cast<double>(count)), m))
        return ctx.fail(
            "x_scale / (y_scale * {}) = {} / ({} * {}) does not fit the integer form: it must lie "
            "in [2^-32, 2^15)",
            count, x_scale, y_scale, count);
      s.scales.push_back(m);
    }
    Shape out = {x->shape[0], x->shape[1]};
    out.insert(out.end(), g.out.begin(), g.out.end());
    return ctx.set_output(0, x->dtype, out);
  }

  bool evaluate(const Node& node, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = node.state_as<QAvgPoolState>();
    if (in[0]->dtype == DataType::kInt8)
      qlinear_avgpool_ref(s.p, s.scales.data(), in[0]->as<int8_t>(), out[0].as<int8_t>());
    else
      qlinear_avgpool_ref(s.p, s.scales.data(), in[0]->as<uint8_t>(), out[0].as<uint8_t>());
    return true;
  }

  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<QAvgPoolState>();
    const PoolParams& p = s.p.pool;
    std::string scales;
    for (size_t k = 0; k < s.scales.size(); ++k)
      scales += fmt::format("{}{{/*multiplier=*/{}, /*shift=*/{}}}", k ? ", " : "",
                            s.scales[k].multiplier, s.scales[k].shift);
    if (scales.empty()) scales = "{0, 16}";  // no window has a tap: never read
    ctx.include("onnxc/quantize.h");
    ctx.line(
        "static constexpr onnxc::QAvgPoolParams p = {{{{/*channels=*/{}, /*in=*/{}, /*out=*/{}, "
        "/*kernel=*/{}, /*stride=*/{}, /*dilation=*/{}, /*pad=*/{}, /*pad_end=*/{}, "
        "/*count_include_pad=*/{}, /*storage_order=*/0, /*p=*/2.0f}}, /*x_zero_point=*/{}, "
        "/*y_zero_point=*/{}, /*min_count=*/{}, /*max_count=*/{}}};",
        p.channels, arr3(p.in), arr3(p.out), arr3(p.kernel), arr3(p.stride), arr3(p.dilation),
        arr3(p.pad), arr3(p.pad_end), p.count_include_pad, s.p.x_zero_point, s.p.y_zero_point,
        s.p.min_count, s.p.max_count);
    ctx.line("static constexpr onnxc::QScale qpool_scales[] = {{{}}};", scales);
    ctx.line("onnxc::qlinear_avgpool_ref<{}>(p, qpool_scales, {}, {});",
             dtype_cpp(ctx.input(0)->dtype), ctx.in(0), ctx.out(0));
  }
};

const QLinearAveragePoolOp kQLinearAveragePool;

}  // namespace

std::vector<OpRegistration> qpool_ops() {
  return {{"com.microsoft", "QLinearAveragePool", 1, 1, &kQLinearAveragePool},
          {"com.microsoft", "QLinearGlobalAveragePool", 1, 1, &kQLinearGlobalAveragePool}};
}

}  // namespace onnxc
