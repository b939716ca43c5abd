// The integer products: MatMulInteger (10), QLinearMatMul (10, 21), ConvInteger (10) and
// QLinearConv (10). Inputs are int8/uint8 with zero points; products accumulate in int32. The
// QLinear forms requantize with a_scale * b_scale / y_scale computed in the scale type
// (float; float16/bfloat16 from QLinearMatMul-21) and acc * multiplier + y_zero_point rounded half
// to even and saturated, as the ONNX reference computes it. Zero points and scales are per tensor,
// per row of A / column of B (matmuls, shared by every batch) or per output channel (convs).
// QLinearMatMul-21's float8 types are refused. Kernels: onnxc/quantize.h.
// Nodes made by lower-qdq may also carry an int32 bias (QLinearConv's B; QLinearMatMul's onnxc
// input 8, one per column) and fused_activation="Relu" (outputs clamped at y_zero_point).
#include <fmt/format.h>

#include "onnxc/qconv_variants.h"
#include "onnxc/quantize.h"
#include "ops/broadcast.h"
#include "ops/epilogue.h"
#include "ops/registry.h"
#include "ops/spatial.h"

namespace onnxc {
namespace {

bool is_int8(DataType t) {
  return t == DataType::kInt8 || t == DataType::kUint8;
}

template <typename F>
bool visit_int8(DataType t, F&& f) {
  if (t == DataType::kInt8) return f(int8_t{}), true;
  if (t == DataType::kUint8) return f(uint8_t{}), true;
  return false;
}

// Checks input `i` is int8 or uint8 and, when present, that its zero point `zp` has its type.
bool check_int8_pair(InferContext& ctx, size_t i, size_t zp, const char* name) {
  const Value* v = ctx.input(i);
  if (!is_int8(v->dtype))
    return ctx.fail("{} has type {}; int8 and uint8 are supported", name, dtype_name(v->dtype));
  const Value* z = ctx.input(zp);
  if (z && z->dtype != v->dtype)
    return ctx.fail("the zero point of {} has type {}, {} has {}: they must match", name,
                    dtype_name(z->dtype), name, dtype_name(v->dtype));
  return true;
}

const char* axis_cpp(QuantAxis a) {
  switch (a) {
    case QuantAxis::kRow:
      return "onnxc::QuantAxis::kRow";
    case QuantAxis::kColumn:
      return "onnxc::QuantAxis::kColumn";
    default:
      return "onnxc::QuantAxis::kTensor";
  }
}

// The layout of a matmul zero point or scale: one value, or one per row of A (`row`: shape [M]
// or [..., M, 1]) or per column of B ([N] or [..., 1, N]), where the leading dims broadcast to
// the batch dims `batch` (then `strides` step through them per batch dim; 0 where shared).
bool matmul_param_axis(InferContext& ctx, const Value* v, bool row, int64_t count,
                       const Shape& batch, const char* name, QuantAxis& axis, index_t* strides) {
  axis = QuantAxis::kTensor;
  for (size_t i = 0; i < batch.size(); ++i) strides[i] = 0;
  if (!v || v->numel() == 1) return true;
  const Shape& s = v->shape;
  auto fail = [&] {
    return ctx.fail("{} of shape {} is neither one value nor one per {} ({}){}", name, shape_str(s),
                    row ? "row of A" : "column of B", count,
                    row ? " as [M] or [..., M, 1]" : " as [N] or [..., 1, N]");
  };
  if (s.size() == 1) {
    if (s[0] != count) return fail();
  } else {
    const size_t rank = s.size(), lead = rank - 2;
    if (s[rank - (row ? 2 : 1)] != count || s[rank - (row ? 1 : 2)] != 1 || lead > batch.size())
      return fail();
    int64_t step = count;
    for (size_t j = lead; j-- > 0;) {
      const size_t i = batch.size() - lead + j;
      if (s[j] != 1 && s[j] != batch[i]) return fail();
      strides[i] = s[j] == 1 ? 0 : step;
      step *= s[j];
    }
  }
  axis = row ? QuantAxis::kRow : QuantAxis::kColumn;
  return true;
}

struct QMatMulState : OpState {
  QuantMatMulParams p{};
};

// numpy matmul shapes of inputs ia and ib (batch broadcast, 1-D promotion); sets output 0.
bool matmul_shapes(InferContext& ctx, size_t ia, size_t ib, DataType out_type, QuantMatMulParams& q,
                   Shape& batch) {
  const Value *a = ctx.input(ia), *b = ctx.input(ib);
  Shape as = a->shape, bs = b->shape;
  if (as.empty() || bs.empty()) return ctx.fail("A and B must have rank >= 1 (no scalars)");
  const bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
  if (a_vec) as.insert(as.begin(), 1);
  if (b_vec) bs.push_back(1);
  const int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  if (bs[bs.size() - 2] != k)
    return ctx.fail("inner dims differ: A is {}, B is {}", shape_str(a->shape),
                    shape_str(b->shape));
  const Shape a_batch(as.begin(), as.end() - 2), b_batch(bs.begin(), bs.end() - 2);
  if (!broadcast_shapes({a_batch, b_batch}, batch))
    return ctx.fail("batch dims of {} and {} do not broadcast", shape_str(a->shape),
                    shape_str(b->shape));
  if (batch.size() > static_cast<size_t>(kMaxRank))
    return ctx.fail("{} batch dims exceed the supported {}", batch.size(), kMaxRank);
  MatMulParams& p = q.mm;
  p.m = m;
  p.n = n;
  p.k = k;
  p.batch_count = shape_numel(batch);
  p.batch_rank = static_cast<int>(batch.size());
  const BroadcastParams bp = make_broadcast_params(batch, a_batch, b_batch);
  for (size_t i = 0; i < batch.size(); ++i) {
    p.batch_dims[i] = batch[i];
    p.a_strides[i] = bp.a_strides[i] * m * k;
    p.b_strides[i] = bp.b_strides[i] * k * n;
  }
  Shape out = batch;
  if (!a_vec) out.push_back(m);
  if (!b_vec) out.push_back(n);
  ctx.set_output(0, out_type, out);
  return true;
}

std::string qmatmul_literal(const QuantMatMulParams& q) {
  const MatMulParams& p = q.mm;
  auto arr = [&](const index_t* v) {
    return p.batch_rank ? fmt::format("{{{}}}", fmt::join(v, v + p.batch_rank, ", "))
                        : std::string("{}");
  };
  return fmt::format(
      "{{/*mm=*/{{{}, {}, {}, {}, {}, {}, {}, {}}}, /*a_axis=*/{}, /*b_axis=*/{}, /*y_axis=*/{}, "
      "/*a_param_strides=*/{}, /*b_param_strides=*/{}, /*relu=*/{}}}",
      p.batch_rank, arr(p.batch_dims), arr(p.a_strides), arr(p.b_strides), p.batch_count, p.m, p.n,
      p.k, axis_cpp(q.a_axis), axis_cpp(q.b_axis), axis_cpp(q.y_axis), arr(q.a_param_strides),
      arr(q.b_param_strides), q.relu);
}

std::string or_null(const EmitContext& ctx, size_t i) {
  return ctx.input(i) ? ctx.in(i) : std::string("nullptr");
}

// A QLinear node made by lower-qdq may carry fused_activation="Relu" (ops/epilogue.h): its
// outputs are then clamped below at y_zero_point.
bool fused_relu(InferContext& ctx, bool& relu) {
  relu = ctx.has_attr(kFusedActivation);
  if (relu && ctx.attr_string(kFusedActivation, "") != "Relu")
    return ctx.fail("fused_activation {} is not supported (a quantized node fuses only Relu)",
                    ctx.attr_string(kFusedActivation, ""));
  return true;
}

// Input i of a QLinear node made by lower-qdq: an int32 bias with one value per output channel.
bool check_bias(InferContext& ctx, size_t i, int64_t channels, const char* name) {
  if (!ctx.input(i)) return true;
  if (!ctx.check_dtype(i, {DataType::kInt32})) return false;
  if (ctx.input(i)->shape != Shape{channels})
    return ctx.fail("{} has shape {}, expected [{}] (one bias per output channel)", name,
                    shape_str(ctx.input(i)->shape), channels);
  return true;
}

class MatMulIntegerOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 4, 1, 1) || !check_int8_pair(ctx, 0, 2, "A") ||
        !check_int8_pair(ctx, 1, 3, "B"))
      return false;
    auto& s = ctx.make_state<QMatMulState>();
    QuantMatMulParams& p = s.p;
    Shape batch;
    if (!matmul_shapes(ctx, 0, 1, DataType::kInt32, p, batch)) return false;
    return matmul_param_axis(ctx, ctx.input(2), true, p.mm.m, batch, "a_zero_point", p.a_axis,
                             p.a_param_strides) &&
           matmul_param_axis(ctx, ctx.input(3), false, p.mm.n, batch, "b_zero_point", p.b_axis,
                             p.b_param_strides);
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<QMatMulState>();
    return visit_int8(in[0]->dtype, [&](auto at) {
      using A = decltype(at);
      visit_int8(in[1]->dtype, [&](auto bt) {
        using B = decltype(bt);
        const A* az = in.size() > 2 && in[2] ? in[2]->as<A>() : nullptr;
        const B* bz = in.size() > 3 && in[3] ? in[3]->as<B>() : nullptr;
        matmul_integer_ref<A, B>(s.p, in[0]->as<A>(), in[1]->as<B>(), az, bz, out[0].as<int32_t>());
      });
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<QMatMulState>();
    ctx.include("onnxc/quantize.h");
    ctx.line("static constexpr onnxc::QuantMatMulParams p = {};", qmatmul_literal(s.p));
    ctx.line("onnxc::matmul_integer_ref<{}, {}>(p, {}, {}, {}, {}, {});",
             dtype_cpp(ctx.input(0)->dtype), dtype_cpp(ctx.input(1)->dtype), ctx.in(0), ctx.in(1),
             or_null(ctx, 2), or_null(ctx, 3), ctx.out(0));
  }
};

// Inputs: a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point.
class QLinearMatMulOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(8, 9, 1, 1) || !check_int8_pair(ctx, 0, 2, "a") ||
        !check_int8_pair(ctx, 3, 5, "b") || !check_int8_pair(ctx, 7, 7, "y_zero_point"))
      return false;
    const DataType ts = ctx.input(1)->dtype;
    const bool scale_ok =
        ts == DataType::kFloat ||
        (ctx.opset() >= 21 && (ts == DataType::kFloat16 || ts == DataType::kBFloat16));
    if (!scale_ok)
      return ctx.fail(
          "scale type {} is not supported at opset {} (float; float16, bfloat16 from 21)",
          dtype_name(ts), ctx.opset());
    for (size_t i : {4, 6})
      if (ctx.input(i)->dtype != ts)
        return ctx.fail("scales must share one type: input {} is {}, a_scale is {}", i,
                        dtype_name(ctx.input(i)->dtype), dtype_name(ts));
    auto& s = ctx.make_state<QMatMulState>();
    QuantMatMulParams& p = s.p;
    Shape batch;
    if (!matmul_shapes(ctx, 0, 3, ctx.input(7)->dtype, p, batch)) return false;
    // Each scale must have its zero point's layout.
    for (const bool row : {true, false}) {
      const Value *zp = ctx.input(row ? 2 : 5), *scale = ctx.input(row ? 1 : 4);
      const int64_t count = row ? p.mm.m : p.mm.n;
      QuantAxis& axis = row ? p.a_axis : p.b_axis;
      index_t* strides = row ? p.a_param_strides : p.b_param_strides;
      QuantAxis scale_axis;
      index_t scale_strides[kMaxRank];
      if (!matmul_param_axis(ctx, zp, row, count, batch, row ? "a_zero_point" : "b_zero_point",
                             axis, strides) ||
          !matmul_param_axis(ctx, scale, row, count, batch, row ? "a_scale" : "b_scale", scale_axis,
                             scale_strides))
        return false;
      bool same = scale_axis == axis;
      for (size_t i = 0; i < batch.size(); ++i) same &= scale_strides[i] == strides[i];
      if (!same)
        return ctx.fail("{} has shape {} but its zero point has {}: they must match",
                        row ? "a_scale" : "b_scale", shape_str(scale->shape), shape_str(zp->shape));
    }
    if (ctx.input(6)->numel() != 1 || ctx.input(7)->numel() != 1)
      return ctx.fail("y_scale and y_zero_point must be single values (have shapes {} and {})",
                      shape_str(ctx.input(6)->shape), shape_str(ctx.input(7)->shape));
    p.y_axis = QuantAxis::kTensor;
    return check_bias(ctx, 8, p.mm.n, "the bias") && fused_relu(ctx, p.relu);
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    if (in[1]->dtype != DataType::kFloat) return false;  // float16 / bfloat16 scales: run time
    const auto& s = n.state_as<QMatMulState>();
    const int32_t* bias = in.size() > 8 && in[8] ? in[8]->as<int32_t>() : nullptr;
    return visit_int8(in[0]->dtype, [&](auto at) {
      using A = decltype(at);
      visit_int8(in[3]->dtype, [&](auto bt) {
        using B = decltype(bt);
        visit_int8(in[7]->dtype, [&](auto yt) {
          using Y = decltype(yt);
          qlinear_matmul_ref<A, B, float, Y>(
              s.p, in[0]->as<A>(), in[1]->as<float>(), in[2] ? in[2]->as<A>() : nullptr,
              in[3]->as<B>(), in[4]->as<float>(), in[5] ? in[5]->as<B>() : nullptr,
              in[6]->as<float>(), in[7]->as<Y>(), out[0].as<Y>(), bias);
        });
      });
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<QMatMulState>();
    ctx.include("onnxc/quantize.h");
    ctx.line("static constexpr onnxc::QuantMatMulParams p = {};", qmatmul_literal(s.p));
    ctx.line("onnxc::qlinear_matmul_ref<{}, {}, {}, {}>(p, {}, {}, {}, {}, {}, {}, {}, {}, {}{});",
             dtype_cpp(ctx.input(0)->dtype), dtype_cpp(ctx.input(3)->dtype),
             dtype_cpp(ctx.input(1)->dtype), dtype_cpp(ctx.input(7)->dtype), ctx.in(0), ctx.in(1),
             ctx.in(2), ctx.in(3), ctx.in(4), ctx.in(5), ctx.in(6), ctx.in(7), ctx.out(0),
             ctx.input(8) ? ", /*bias=*/" + ctx.in(8) : "");
  }
};

// ---- ConvInteger and QLinearConv ---------------------------------------------------------------

struct QConvState : OpState {
  QuantConvParams p{};
  // QLinearConv: the int8 variant select-kernels chose (null: qlinear_conv_ref) and its params.
  const KernelVariant* variant = nullptr;
  QConvS8Params s8{};
  size_t scratch_budget = 0;  // the target's (infer), for the depthwise scratch's form
};

void to3(const std::vector<int64_t>& v, int64_t fill, index_t* out) {
  const size_t lead = 3 - v.size();
  for (size_t i = 0; i < 3; ++i) out[i] = i < lead ? fill : v[i - lead];
}

std::string arr3(const index_t* v) {
  return fmt::format("{{{}, {}, {}}}", v[0], v[1], v[2]);
}

// A ConvParams initializer: {batch, c_in, c_out, group, in, out, kernel, stride, dilation, pad, 0}.
std::string conv_literal(const ConvParams& p) {
  return fmt::format("{{{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, 0}}", p.batch, p.c_in, p.c_out,
                     p.group, arr3(p.in), arr3(p.out), arr3(p.kernel), arr3(p.stride),
                     arr3(p.dilation), arr3(p.pad));
}

std::string qconv_literal(const QuantConvParams& q) {
  return fmt::format(
      "{{/*conv=*/{}, /*w_zp_per_channel=*/{}, /*w_scale_per_channel=*/{}, /*relu=*/{}}}",
      conv_literal(q.conv), q.w_zp_per_channel, q.w_scale_per_channel, q.relu);
}

// Geometry of the convolution of input ix by weights iw; sets output 0 to `out_type`.
bool conv_geometry(InferContext& ctx, size_t ix, size_t iw, DataType out_type, ConvParams& p) {
  const Shape &xs = ctx.input(ix)->shape, &ws = ctx.input(iw)->shape;
  if (xs.size() < 3 || xs.size() > 5)
    return ctx.fail("x must be N x C x D1 [x D2 [x D3]] (1 to 3 spatial dims), has shape {}",
                    shape_str(xs));
  if (ws.size() != xs.size())
    return ctx.fail("w has rank {}, x has rank {}: they must match", ws.size(), xs.size());
  const int64_t group = ctx.attr_int("group", 1);
  if (group < 1) return ctx.fail("group must be >= 1, is {}", group);
  if (xs[1] % group || ws[0] % group || ws[1] * group != xs[1])
    return ctx.fail("channels do not split into {} groups: x has {} channels, w is {}", group,
                    xs[1], shape_str(ws));
  const std::vector<int64_t> kernel(ws.begin() + 2, ws.end()), in(xs.begin() + 2, xs.end());
  if (ctx.has_attr("kernel_shape") && ctx.attr_ints("kernel_shape") != kernel)
    return ctx.fail("kernel_shape {} does not match w's spatial dims {}",
                    cpp_ints(ctx.attr_ints("kernel_shape")), cpp_ints(kernel));
  WindowGeometry g;
  if (!window_geometry(ctx, in, kernel, false, g)) return false;
  p.batch = xs[0], p.c_in = xs[1], p.c_out = ws[0], p.group = group;
  to3(in, 1, p.in), to3(g.out, 1, p.out), to3(g.kernel, 1, p.kernel);
  to3(g.stride, 1, p.stride), to3(g.dilation, 1, p.dilation), to3(g.pad_begin, 0, p.pad);
  p.tile = 0;
  Shape out = {p.batch, p.c_out};
  out.insert(out.end(), g.out.begin(), g.out.end());
  ctx.set_output(0, out_type, out);
  return true;
}

// One value, or (when allowed) one per output channel.
bool channel_param(InferContext& ctx, const Value* v, int64_t c_out, bool allow_channel,
                   const char* name, bool& per_channel) {
  per_channel = false;
  if (!v || v->numel() == 1) return true;
  if (allow_channel && v->shape == Shape{c_out}) {
    per_channel = true;
    return true;
  }
  return ctx.fail("{} of shape {} must be one value{}", name, shape_str(v->shape),
                  allow_channel ? fmt::format(" or one per output channel ({})", c_out) : "");
}

class ConvIntegerOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 4, 1, 1) || !check_int8_pair(ctx, 0, 2, "x") ||
        !check_int8_pair(ctx, 1, 3, "w"))
      return false;
    auto& s = ctx.make_state<QConvState>();
    bool unused = false;
    return conv_geometry(ctx, 0, 1, DataType::kInt32, s.p.conv) &&
           channel_param(ctx, ctx.input(2), s.p.conv.c_out, false, "x_zero_point", unused) &&
           channel_param(ctx, ctx.input(3), s.p.conv.c_out, true, "w_zero_point",
                         s.p.w_zp_per_channel);
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<QConvState>();
    return visit_int8(in[0]->dtype, [&](auto xt) {
      using X = decltype(xt);
      visit_int8(in[1]->dtype, [&](auto wt) {
        using W = decltype(wt);
        const X* xz = in.size() > 2 && in[2] ? in[2]->as<X>() : nullptr;
        const W* wz = in.size() > 3 && in[3] ? in[3]->as<W>() : nullptr;
        conv_integer_ref<X, W>(s.p, in[0]->as<X>(), in[1]->as<W>(), xz, wz, out[0].as<int32_t>());
      });
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<QConvState>();
    ctx.include("onnxc/quantize.h");
    ctx.line("static constexpr onnxc::QuantConvParams p = {};", qconv_literal(s.p));
    ctx.line("onnxc::conv_integer_ref<{}, {}>(p, {}, {}, {}, {}, {});",
             dtype_cpp(ctx.input(0)->dtype), dtype_cpp(ctx.input(1)->dtype), ctx.in(0), ctx.in(1),
             or_null(ctx, 2), or_null(ctx, 3), ctx.out(0));
  }
};

// ---- The int8 variants of QLinearConv (onnxc/qconv_variants.h) --------------------------------

const Tensor* constant_input(const Node& n, size_t i) {
  return i < n.inputs.size() && n.inputs[i] ? n.inputs[i]->constant.get() : nullptr;
}

bool absent_or_constant(const Node& n, size_t i) {
  return i >= n.inputs.size() || !n.inputs[i] || n.inputs[i]->is_constant();
}

// Whether the int8 variants compute this QLinearConv exactly: int8 x, w and y; constant weights,
// scales, zero points and bias; weights symmetric (zero points 0); at most 2 spatial dims; every
// channel's multiplier one they represent (qconv_multiplier_fits).
bool s8_variants_fit(const Node& n, const QuantConvParams& q) {
  const ConvParams& p = q.conv;
  if (n.inputs[0]->dtype != DataType::kInt8 || n.inputs[3]->dtype != DataType::kInt8 ||
      n.inputs[7]->dtype != DataType::kInt8 || p.in[0] != 1 || p.kernel[0] != 1)
    return false;
  for (size_t i : {1, 3, 4, 6, 7})
    if (!constant_input(n, i)) return false;
  if (!absent_or_constant(n, 2) || !absent_or_constant(n, 5) || !absent_or_constant(n, 8))
    return false;
  if (const Tensor* w_zp = constant_input(n, 5))
    for (int64_t i = 0; i < w_zp->numel(); ++i)
      if (w_zp->as<int8_t>()[i] != 0) return false;
  const float x_scale = constant_input(n, 1)->as<float>()[0];
  const float y_scale = constant_input(n, 6)->as<float>()[0];
  const Tensor& w_scale = *constant_input(n, 4);
  for (int64_t m = 0; m < p.c_out; ++m)
    if (!qconv_multiplier_fits(x_scale, w_scale.as<float>()[q.w_scale_per_channel ? m : 0],
                               y_scale))
      return false;
  return true;
}

bool is_depthwise(const ConvParams& p) {
  return p.group > 1 && p.group == p.c_in && p.group == p.c_out;
}

QConvS8Params s8_params(const Node& n, const QuantConvParams& q) {
  QConvS8Params s{};
  s.conv = q.conv;
  s.k = q.conv.c_in / q.conv.group * q.conv.kernel[1] * q.conv.kernel[2];
  s.k_padded = (s.k + 3) / 4 * 4;
  const Tensor* x_zp = constant_input(n, 2);
  s.x_zero_point = x_zp ? x_zp->as<int8_t>()[0] : 0;
  s.y_zero_point = constant_input(n, 7)->as<int8_t>()[0];
  s.y_min = q.relu ? s.y_zero_point : -128;
  return s;
}

std::string s8_literal(const QConvS8Params& s) {
  return fmt::format(
      "{{/*conv=*/{}, /*k=*/{}, /*k_padded=*/{}, /*x_zero_point=*/{}, /*y_zero_point=*/{}, "
      "/*y_min=*/{}, /*dw_rows=*/{}, /*ties=*/{}}}",
      conv_literal(s.conv), s.k, s.k_padded, s.x_zero_point, s.y_zero_point, s.y_min, s.dw_rows,
      s.ties);
}

// Whether the node runs an __mve row: its group-1 weights are packed for the 4x2 tiles
// (pack_qconv_weights_mve: k_padded a multiple of 16, channels in groups of 4), its depthwise
// scratch holds int8 rows with slack.
bool mve_layout(const QConvState& s) {
  return s.variant && s.variant->isa == Isa::mve;
}

// The group-1 channels the packed weights and the channel table are padded to: the 2x2 tiles'
// even count, or the 4x2 tiles' multiple of 4.
index_t padded_channels(const QConvState& s) {
  return mve_layout(s) ? qconv_padded_channels_mve(s.s8) : qconv_padded_channels(s.s8);
}

// The per-channel rows the int8 variants read (qconv_channels), padded to the tiles' channel count
// for group-1 convolutions.
Tensor channel_rows(const Node& node, const QConvState& s) {
  const index_t m_padded = is_depthwise(s.p.conv) ? s.p.conv.c_out : padded_channels(s);
  const Tensor* bias = constant_input(node, 8);
  Tensor channels = Tensor::zeros(DataType::kInt32, {m_padded, kQConvChannelWords});
  qconv_channels(s.s8, constant_input(node, 3)->as<int8_t>(), bias ? bias->as<int32_t>() : nullptr,
                 constant_input(node, 1)->as<float>()[0], constant_input(node, 4)->as<float>(),
                 s.p.w_scale_per_channel, constant_input(node, 6)->as<float>()[0], m_padded,
                 channels.as<int32_t>());
  return channels;
}

// Inputs: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B.
class QLinearConvOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(8, 9, 1, 1) || !check_int8_pair(ctx, 0, 2, "x") ||
        !check_int8_pair(ctx, 3, 5, "w") || !check_int8_pair(ctx, 7, 7, "y_zero_point"))
      return false;
    for (size_t i : {1, 4, 6})
      if (!ctx.check_dtype(i, {DataType::kFloat})) return false;
    auto& s = ctx.make_state<QConvState>();
    s.scratch_budget = ctx.target().scratch_budget();
    const Value* y_zp = ctx.input(7);
    if (!conv_geometry(ctx, 0, 3, y_zp->dtype, s.p.conv)) return false;
    const int64_t c_out = s.p.conv.c_out;
    bool unused = false;
    if (!channel_param(ctx, ctx.input(1), c_out, false, "x_scale", unused) ||
        !channel_param(ctx, ctx.input(2), c_out, false, "x_zero_point", unused) ||
        !channel_param(ctx, ctx.input(4), c_out, true, "w_scale", s.p.w_scale_per_channel) ||
        !channel_param(ctx, ctx.input(5), c_out, true, "w_zero_point", s.p.w_zp_per_channel) ||
        !channel_param(ctx, ctx.input(6), c_out, false, "y_scale", unused) ||
        !channel_param(ctx, y_zp, c_out, false, "y_zero_point", unused))
      return false;
    return check_bias(ctx, 8, c_out, "B") && fused_relu(ctx, s.p.relu);
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<QConvState>();
    if (s.variant) return false;  // pack-weights replaced w and B by the variant's layouts
    const int32_t* bias = in.size() > 8 && in[8] ? in[8]->as<int32_t>() : nullptr;
    return visit_int8(in[0]->dtype, [&](auto xt) {
      using X = decltype(xt);
      visit_int8(in[3]->dtype, [&](auto wt) {
        using W = decltype(wt);
        visit_int8(in[7]->dtype, [&](auto yt) {
          using Y = decltype(yt);
          qlinear_conv_ref<X, W, Y>(s.p, in[0]->as<X>(), in[1]->as<float>(),
                                    in[2] ? in[2]->as<X>() : nullptr, in[3]->as<W>(),
                                    in[4]->as<float>(), in[5] ? in[5]->as<W>() : nullptr,
                                    in[6]->as<float>(), in[7]->as<Y>(), bias, out[0].as<Y>());
        });
      });
    });
  }
  // Eligible nodes (s8_variants_fit) run the rows of "qconv" (group 1) or "qdwconv".
  KernelQuery describe_kernel_query(const Node& node) const override {
    const auto& s = node.state_as<QConvState>();
    KernelQuery q;
    const bool depthwise = is_depthwise(s.p.conv);
    if ((s.p.conv.group != 1 && !depthwise) || !s8_variants_fit(node, s.p)) return q;
    if (depthwise && s.p.conv.kernel[1] > kQDwMaxWindowRows) return q;
    q.dtype = "s8";
    q.families = {depthwise ? "qdwconv" : "qconv"};
    q.conv = &s.p.conv;
    q.constant_weights = true;
    return q;
  }
  size_t use_kernel(Node& node, const KernelVariant& v, int /*tasks*/) const override {
    auto& s = static_cast<QConvState&>(*node.state);
    s.variant = &v;
    s.s8 = s8_params(node, s.p);
    if (mve_layout(s)) s.s8.k_padded = qconv_k_padded_mve(s.s8.k);
    s.s8.ties = qconv_ties_possible(s.s8, channel_rows(node, s).as<int32_t>(), s.p.conv.c_out);
    if (!is_depthwise(s.p.conv))
      return static_cast<size_t>(mve_layout(s) ? qconv_scratch_bytes_mve(s.s8)
                                               : qconv_scratch_bytes(s.s8));
    // The whole padded plane (the faster form) while it takes at most 1/16 of the target's
    // scratch budget (1 KiB on a Cortex-M4), else the ring of rows one output row spans: a
    // larger plane would weigh on a microcontroller's peak RAM.
    const index_t element_bytes = v.isa == Isa::dsp ? 2 : 1;  // the dsp rows keep int16 rows
    auto bytes = [&] {
      return static_cast<size_t>(mve_layout(s) ? qdwconv_scratch_bytes_mve(s.s8)
                                               : qdwconv_scratch_bytes(s.s8, element_bytes));
    };
    s.s8.dw_rows = qdw_plane_rows(s.s8);
    if (bytes() > s.scratch_budget / 16) s.s8.dw_rows = qdw_ring_rows(s.s8);
    return bytes();
  }
  // The channel constants replace B (input 8); group-1 weights are packed for the 2x2 tiles.
  std::vector<PackedInput> packed_inputs(const Node& node) const override {
    const auto& s = node.state_as<QConvState>();
    if (!s.variant) return {};
    const bool depthwise = is_depthwise(s.p.conv);
    std::vector<PackedInput> out;
    out.push_back({8, channel_rows(node, s)});
    if (!depthwise) {
      const index_t m_padded = padded_channels(s);
      const int8_t* w = constant_input(node, 3)->as<int8_t>();
      Tensor packed = Tensor::zeros(DataType::kInt8, {m_padded, s.s8.k_padded});
      if (mve_layout(s))
        pack_qconv_weights_mve(s.s8, w, m_padded, packed.as<int8_t>());
      else
        pack_qconv_weights(s.s8, w, m_padded, packed.as<int8_t>());
      out.push_back({3, std::move(packed)});
    }
    return out;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<QConvState>();
    if (s.variant) {
      ctx.include(s.variant->header);
      ctx.line("static constexpr onnxc::QConvS8Params p = {};", s8_literal(s.s8));
      // The forms use_kernel chose, as template arguments (only they are compiled in).
      const std::string form = is_depthwise(s.p.conv)
                                   ? fmt::format("/*ties=*/{}, /*whole_plane=*/{}", s.s8.ties,
                                                 s.s8.dw_rows == qdw_plane_rows(s.s8))
                                   : fmt::format("/*ties=*/{}", s.s8.ties);
      ctx.line("onnxc::{}<{}>(p, {}, /*w=*/{}, /*channels=*/{}, {}, {});", s.variant->name, form,
               ctx.in(0), ctx.in(3), ctx.in(8), ctx.out(0), ctx.scratch());
      return;
    }
    ctx.include("onnxc/quantize.h");
    ctx.line("static constexpr onnxc::QuantConvParams p = {};", qconv_literal(s.p));
    ctx.line("onnxc::qlinear_conv_ref<{}, {}, {}>(p, {}, {}, {}, {}, {}, {}, {}, {}, {}, {});",
             dtype_cpp(ctx.input(0)->dtype), dtype_cpp(ctx.input(3)->dtype),
             dtype_cpp(ctx.input(7)->dtype), ctx.in(0), ctx.in(1), ctx.in(2), ctx.in(3), ctx.in(4),
             ctx.in(5), ctx.in(6), ctx.in(7), or_null(ctx, 8), ctx.out(0));
  }
};

const MatMulIntegerOp kMatMulInteger;
const QLinearMatMulOp kQLinearMatMul;
const ConvIntegerOp kConvInteger;
const QLinearConvOp kQLinearConv;

}  // namespace

std::vector<OpRegistration> qlinear_ops() {
  return {{"", "MatMulInteger", 10, kMaxOpset, &kMatMulInteger},
          {"", "QLinearMatMul", 10, kMaxOpset, &kQLinearMatMul},
          {"", "ConvInteger", 10, kMaxOpset, &kConvInteger},
          {"", "QLinearConv", 10, kMaxOpset, &kQLinearConv}};
}

}  // namespace onnxc
