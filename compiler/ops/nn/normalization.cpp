// Normalizations:
//   BatchNormalization (1, 6, 7, 9, 14, 15): the inference form; before opset 9 `spatial=0`
//     means per-element parameters [C, D1, ...]; from 14 `training_mode=1` normalizes with
//     the batch statistics and outputs the updated running mean/var; the training outputs of
//     opsets < 14 (mean, var, saved_mean, saved_var) are rejected. Scale/bias (15) and
//     mean/var (14) may have their own float type.
//   LayerNormalization (17): axis, epsilon, stash_type (1 only), optional Mean, InvStdDev;
//   RMSNormalization (23) shares its handler (no mean, no B, no statistics outputs).
//   InstanceNormalization (1, 6, 22), GroupNormalization (18: per-group scale/bias; 21:
//   per-channel), LpNormalization (1, 22), MeanVarianceNormalization (9, 13), LRN (1, 13).
#include "onnxc/normalization.h"

#include <fmt/format.h>

#include "ops/accum.h"
#include "ops/broadcast.h"
#include "ops/dispatch.h"
#include "ops/half_compute.h"
#include "ops/reduce_params.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

bool is_float_type(DataType t) {
  return t == DataType::kFloat || t == DataType::kDouble || is_half(t);
}

// X is float, double or float16, or bfloat16 from opset bf16_since. Half types run the float
// kernels on widened copies (half_compute.h).
bool check_x_type(InferContext& ctx, int bf16_since) {
  const DataType t = ctx.input(0)->dtype;
  if (t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 ||
      (t == DataType::kBFloat16 && ctx.opset() >= bf16_since))
    return true;
  return ctx.fail("type {} is not supported at opset {} (float, double, float16; bfloat16 from {})",
                  dtype_name(t), ctx.opset(), bf16_since);
}

// Input i has `numel` elements and X's type (or, with any_float, float or double).
bool check_param(InferContext& ctx, size_t i, const char* name, int64_t numel, bool any_float) {
  const Value* v = ctx.input(i);
  const DataType xt = ctx.input(0)->dtype;
  if (any_float ? !is_float_type(v->dtype) : v->dtype != xt)
    return ctx.fail("{} has type {}, expected {}", name, dtype_name(v->dtype),
                    any_float ? "a float type" : dtype_name(xt));
  if (v->numel() != numel)
    return ctx.fail("{} has shape {}, expected {} elements", name, shape_str(v->shape), numel);
  return true;
}

// ---- BatchNormalization ------------------------------------------------------------------------

struct BatchNormState : OpState {
  BatchNormParams p{};
  bool training = false;
  bool float_accum = false;  // ops/accum.h
  HalfPlan half;
};

class BatchNormOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    const int opset = ctx.opset();
    if (!ctx.check_arity(5, 5, 1, opset >= 14 ? 3 : 5) || !check_x_type(ctx, 14)) return false;
    const Value* x = ctx.input(0);
    const Shape& xs = x->shape;
    if (xs.size() < (opset >= 9 ? 1u : 2u))
      return ctx.fail("X must have rank >= {}, has {}", opset >= 9 ? 1 : 2, xs.size());
    auto& s = ctx.make_state<BatchNormState>();
    s.float_accum = float_accumulates(ctx.target());
    BatchNormParams& p = s.p;
    p.batch = xs[0];
    p.channels = xs.size() > 1 ? xs[1] : 1;
    p.spatial = 1;
    for (size_t d = 2; d < xs.size(); ++d) p.spatial *= xs[d];
    p.epsilon = ctx.attr_float("epsilon", 1e-5f);
    p.momentum = ctx.attr_float("momentum", 0.9f);
    p.per_element = opset < 9 && ctx.attr_int("spatial", 1) == 0;
    size_t extra_outputs = 0;
    for (size_t i = 1; i < ctx.num_outputs(); ++i) extra_outputs += ctx.has_output(i);
    if (opset >= 14) {
      s.training = ctx.attr_int("training_mode", 0) != 0;
      if (!s.training && extra_outputs)
        return ctx.fail("running_mean/running_var outputs are only valid with training_mode=1");
    } else if (extra_outputs) {
      return ctx.fail(
          "the training outputs (mean, var, saved_mean, saved_var) of opset {} are not "
          "supported; only the inference form (output Y alone) is",
          opset);
    }
    const int64_t numel = p.per_element ? p.channels * p.spatial : p.channels;
    // Parameter types: all X's type before 14; mean/var free from 14, scale/bias too from 15.
    if (!check_param(ctx, 1, "scale", numel, opset >= 15) ||
        !check_param(ctx, 2, "B", numel, opset >= 15) ||
        !check_param(ctx, 3, "mean", numel, opset >= 14) ||
        !check_param(ctx, 4, "var", numel, opset >= 14))
      return false;
    if (ctx.input(2)->dtype != ctx.input(1)->dtype || ctx.input(4)->dtype != ctx.input(3)->dtype)
      return ctx.fail("scale and B, and mean and var, must share a type");
    ctx.set_output(0, x->dtype, xs);
    ctx.set_output(1, ctx.input(3)->dtype, {p.channels});
    ctx.set_output(2, ctx.input(3)->dtype, {p.channels});
    s.half = plan_half(ctx, {0, 1, 2, 3, 4}, {0, 1, 2});
    return true;
  }
  // Inference reads x[i] before writing y[i]; training also reduces over x first: never in place.
  AliasInfo alias(const Node& n) const override {
    if (n.state_as<BatchNormState>().training) return {};
    return {AliasKind::kInPlace, 0};
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<BatchNormState>();
    const BatchNormParams& p = s.p;
    ctx.include("onnxc/normalization.h");
    ctx.line("static constexpr onnxc::BatchNormParams p = {};",
             labeled({{"batch", fmt::format("{}", p.batch)},
                      {"channels", fmt::format("{}", p.channels)},
                      {"spatial", fmt::format("{}", p.spatial)},
                      {"per_element", fmt::format("{}", p.per_element)},
                      {"epsilon", cpp_float(p.epsilon)},
                      {"momentum", cpp_float(p.momentum)}}));
    const HalfNames n = emit_widen(ctx, s.half);
    const std::string args = fmt::format("p, {}, {}, {}, {}, {}, {}", n.in(0), n.in(1), n.in(2),
                                         n.in(3), n.in(4), n.out(0));
    if (!s.training) {
      ctx.line("onnxc::batch_norm_ref({}{});", args, accum_arg(s.float_accum));
      emit_narrow(ctx, s.half, n);
      return;
    }
    const char* ts = kernel_cpp_type(ctx.input(3)->dtype);
    auto out = [&](size_t i) {
      return ctx.output(i) ? n.out(i) : fmt::format("static_cast<{}*>(nullptr)", ts);
    };
    ctx.line("onnxc::batch_norm_training_ref({}, {}, {}{});", args, out(1), out(2),
             accum_arg(s.float_accum));
    emit_narrow(ctx, s.half, n);
  }
};

// ---- LayerNormalization ------------------------------------------------------------------------

struct LayerNormState : OpState {
  LayerNormParams p{};
  bool float_accum = false;  // ops/accum.h
  HalfPlan half;
};

// kRms: RMSNormalization (23): no mean is subtracted, no B, no statistics outputs.
template <bool kRms>
class LayerNormOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, kRms ? 2 : 3, 1, kRms ? 1 : 3) || !check_x_type(ctx, kRms ? 23 : 17))
      return false;
    const Value* x = ctx.input(0);
    const int64_t rank = static_cast<int64_t>(x->shape.size());
    if (rank < 1) return ctx.fail("X must have rank >= 1");
    if (rank > kMaxRank) return ctx.fail("rank {} exceeds the supported {}", rank, kMaxRank);
    const int64_t stash = ctx.attr_int("stash_type", 1);
    if (stash != 1) return ctx.fail("stash_type {} is not supported (only 1, float)", stash);
    int64_t axis = ctx.attr_int("axis", -1);
    if (!ctx.normalize_axis(axis, rank)) return false;
    auto& s = ctx.make_state<LayerNormState>();
    s.float_accum = float_accumulates(ctx.target());
    LayerNormParams& p = s.p;
    p.epsilon = ctx.attr_float("epsilon", 1e-5f);
    const auto a = static_cast<size_t>(axis);
    const Shape outer(x->shape.begin(), x->shape.begin() + axis);
    p.rows = shape_numel(outer);
    p.size = shape_numel(Shape(x->shape.begin() + axis, x->shape.end()));
    p.norm_rank = static_cast<int>(rank - axis);
    for (size_t d = a; d < x->shape.size(); ++d) p.norm_dims[d - a] = x->shape[d];
    // Scale and B broadcast unidirectionally to X, but must not vary across rows.
    for (size_t i = 1; i < 3; ++i) {
      const Value* v = ctx.input(i);
      if (!v) continue;
      const char* name = i == 1 ? (kRms ? "scale" : "Scale") : "B";
      if (v->dtype != x->dtype)
        return ctx.fail("{} has type {}, X has {}", name, dtype_name(v->dtype),
                        dtype_name(x->dtype));
      Shape out;
      if (v->shape.size() > x->shape.size() || !broadcast_shapes({x->shape, v->shape}, out) ||
          out != x->shape)
        return ctx.fail("{} of shape {} does not broadcast to X's shape {}", name,
                        shape_str(v->shape), shape_str(x->shape));
      const BroadcastParams bp = make_broadcast_params(x->shape, x->shape, v->shape);
      for (size_t d = 0; d < a; ++d)
        if (bp.b_strides[d] != 0)
          return ctx.fail("{} of shape {} varies along dim {}, before axis {} (unsupported)", name,
                          shape_str(v->shape), d, axis);
      index_t* strides = i == 1 ? p.scale_strides : p.bias_strides;
      for (size_t d = a; d < x->shape.size(); ++d) strides[d - a] = bp.b_strides[d];
      (i == 1 ? p.scale_contiguous : p.bias_contiguous) = v->numel() == p.size;
    }
    Shape stat_shape = outer;
    stat_shape.resize(x->shape.size(), 1);
    ctx.set_output(0, x->dtype, x->shape);
    ctx.set_output(1, DataType::kFloat, stat_shape);
    ctx.set_output(2, DataType::kFloat, stat_shape);
    s.half = plan_half(ctx, {0, 1, 2}, {0, 1, 2});
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<LayerNormState>();
    const LayerNormParams& p = s.p;
    auto arr = [&](const index_t* v) {
      return fmt::format("{{{}}}", fmt::join(v, v + p.norm_rank, ", "));
    };
    ctx.include("onnxc/normalization.h");
    ctx.line("static constexpr onnxc::LayerNormParams p = {};",
             labeled({{"rows", fmt::format("{}", p.rows)},
                      {"size", fmt::format("{}", p.size)},
                      {"epsilon", cpp_float(p.epsilon)},
                      {"norm_rank", fmt::format("{}", p.norm_rank)},
                      {"norm_dims", arr(p.norm_dims)},
                      {"scale_strides", arr(p.scale_strides)},
                      {"bias_strides", arr(p.bias_strides)},
                      {"scale_contiguous", fmt::format("{}", p.scale_contiguous)},
                      {"bias_contiguous", fmt::format("{}", p.bias_contiguous)}}));
    const HalfNames n = emit_widen(ctx, s.half);
    const char* t = kernel_cpp_type(ctx.input(0)->dtype);
    auto typed = [&](bool present, const std::string& expr, const char* type, bool is_const) {
      return present ? expr
                     : fmt::format("static_cast<{}{}*>(nullptr)", is_const ? "const " : "", type);
    };
    const bool f32 = ctx.input(0)->dtype != DataType::kDouble;
    if (kRms) {
      ctx.line("onnxc::{}(p, {}, {}, {}{});", f32 ? "f32_rmsnorm_lanes__scalar" : "rms_norm_ref",
               n.in(0), n.in(1), n.out(0), accum_arg(s.float_accum));
    } else {
      ctx.line("onnxc::{}(p, {}, {}, {}, {}, {}, {}{});",
               f32 ? "f32_layernorm_lanes__scalar" : "layer_norm_ref", n.in(0), n.in(1),
               typed(ctx.input(2) != nullptr, n.in(2), t, true), n.out(0),
               typed(ctx.output(1) != nullptr, n.out(1), "float", false),
               typed(ctx.output(2) != nullptr, n.out(2), "float", false), accum_arg(s.float_accum));
    }
    emit_narrow(ctx, s.half, n);
  }
};

// ---- GroupNormalization / InstanceNormalization ----------------------------------------------

struct GroupNormState : OpState {
  GroupNormParams p{};
  bool float_accum = false;  // ops/accum.h
  HalfPlan half;
};

// kInstance: InstanceNormalization (one group per channel, per-channel scale and B).
template <bool kInstance>
class GroupNormOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(3, 3, 1, 1) || !check_x_type(ctx, kInstance ? 22 : 18)) return false;
    const Value* x = ctx.input(0);
    const Shape& xs = x->shape;
    if (xs.size() < 2) return ctx.fail("X must have rank >= 2 (N, C, ...), has {}", xs.size());
    auto& s = ctx.make_state<GroupNormState>();
    s.float_accum = float_accumulates(ctx.target());
    GroupNormParams& p = s.p;
    p.batch = xs[0];
    p.channels = xs[1];
    p.spatial = shape_numel(Shape(xs.begin() + 2, xs.end()));
    p.epsilon = ctx.attr_float("epsilon", 1e-5f);
    if (kInstance) {
      p.groups = p.channels;
    } else {
      if (!ctx.has_attr("num_groups")) return ctx.fail("attribute num_groups is required");
      p.groups = ctx.attr_int("num_groups", 1);
      if (p.groups < 1 || p.channels % p.groups != 0)
        return ctx.fail("num_groups {} must be positive and divide the {} channels", p.groups,
                        p.channels);
      p.affine_per_group = ctx.opset() < 21;
      const int64_t stash = ctx.attr_int("stash_type", 1);
      if (stash != 1) return ctx.fail("stash_type {} is not supported (only 1, float)", stash);
    }
    const int64_t numel = p.affine_per_group ? p.groups : p.channels;
    if (!check_param(ctx, 1, "scale", numel, false) || !check_param(ctx, 2, "bias", numel, false))
      return false;
    ctx.set_output(0, x->dtype, xs);
    s.half = plan_half(ctx, {0, 1, 2}, {0});
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<GroupNormState>();
    const GroupNormParams& p = s.p;
    ctx.include("onnxc/normalization.h");
    ctx.line("static constexpr onnxc::GroupNormParams p = {};",
             labeled({{"batch", fmt::format("{}", p.batch)},
                      {"channels", fmt::format("{}", p.channels)},
                      {"groups", fmt::format("{}", p.groups)},
                      {"spatial", fmt::format("{}", p.spatial)},
                      {"affine_per_group", fmt::format("{}", p.affine_per_group)},
                      {"epsilon", cpp_float(p.epsilon)}}));
    const HalfNames n = emit_widen(ctx, s.half);
    ctx.line("onnxc::group_norm_ref(p, {}, {}, {}, {}{});", n.in(0), n.in(1), n.in(2), n.out(0),
             accum_arg(s.float_accum));
    emit_narrow(ctx, s.half, n);
  }
};

// ---- LpNormalization -------------------------------------------------------------------------

struct LpNormState : OpState {
  int64_t outer = 1, axis = 1, inner = 1, p = 2;
  bool float_accum = false;  // ops/accum.h
  HalfPlan half;
};

class LpNormOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1) || !check_x_type(ctx, 22)) return false;
    const Value* x = ctx.input(0);
    const int64_t rank = static_cast<int64_t>(x->shape.size());
    if (rank < 1) return ctx.fail("input must have rank >= 1");
    int64_t axis = ctx.attr_int("axis", -1);
    if (!ctx.normalize_axis(axis, rank)) return false;
    auto& s = ctx.make_state<LpNormState>();
    s.float_accum = float_accumulates(ctx.target());
    s.p = ctx.attr_int("p", 2);
    if (s.p != 1 && s.p != 2) return ctx.fail("p must be 1 or 2, is {}", s.p);
    const auto a = static_cast<size_t>(axis);
    s.axis = x->shape[a];
    for (size_t d = 0; d < a; ++d) s.outer *= x->shape[d];
    for (size_t d = a + 1; d < x->shape.size(); ++d) s.inner *= x->shape[d];
    ctx.set_output(0, x->dtype, x->shape);
    s.half = plan_half(ctx, {0}, {0});
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<LpNormState>();
    ctx.include("onnxc/normalization.h");
    const HalfNames n = emit_widen(ctx, s.half);
    ctx.line("onnxc::lp_norm_ref({}, {}, /*outer=*/{}, /*axis=*/{}, /*inner=*/{}, /*p=*/{}{});",
             n.in(0), n.out(0), s.outer, s.axis, s.inner, s.p, accum_arg(s.float_accum));
    emit_narrow(ctx, s.half, n);
  }
};

// ---- MeanVarianceNormalization -----------------------------------------------------------------

struct MvnState : OpState {
  ReduceParams p{};
  bool float_accum = false;  // ops/accum.h
  HalfPlan half;
};

class MvnOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1) || !check_x_type(ctx, 13)) return false;
    const Value* x = ctx.input(0);
    const int64_t rank = static_cast<int64_t>(x->shape.size());
    if (rank > kMaxRank) return ctx.fail("rank {} exceeds the supported {}", rank, kMaxRank);
    std::vector<bool> reduced(static_cast<size_t>(rank), false);
    for (int64_t axis : ctx.attr_ints("axes", {0, 2, 3})) {
      if (!ctx.normalize_axis(axis, rank, "axes entry")) return false;
      if (rank == 0) continue;
      if (reduced[static_cast<size_t>(axis)])
        return ctx.fail("axis {} is listed twice in axes", axis);
      reduced[static_cast<size_t>(axis)] = true;
    }
    auto& s = ctx.make_state<MvnState>();
    s.float_accum = float_accumulates(ctx.target());
    s.p = reduce_params_for(x->shape, reduced);
    ctx.set_output(0, x->dtype, x->shape);
    s.half = plan_half(ctx, {0}, {0});
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<MvnState>();
    ctx.include("onnxc/normalization.h");
    ctx.line("static constexpr onnxc::ReduceParams p = {};", reduce_params_literal(s.p));
    const HalfNames n = emit_widen(ctx, s.half);
    ctx.line("onnxc::mean_variance_norm_ref(p, {}, {}{});", n.in(0), n.out(0),
             accum_arg(s.float_accum));
    emit_narrow(ctx, s.half, n);
  }
};

// ---- LRN ---------------------------------------------------------------------------------------

struct LrnState : OpState {
  LrnParams p{};
  bool float_accum = false;  // ops/accum.h
  HalfPlan half;
};

class LrnOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1) || !check_x_type(ctx, 13)) return false;
    const Value* x = ctx.input(0);
    const Shape& xs = x->shape;
    if (xs.size() < 2) return ctx.fail("X must have rank >= 2 (N, C, ...), has {}", xs.size());
    if (!ctx.has_attr("size")) return ctx.fail("attribute size is required");
    auto& s = ctx.make_state<LrnState>();
    s.float_accum = float_accumulates(ctx.target());
    LrnParams& p = s.p;
    p.size = ctx.attr_int("size", 1);
    if (p.size < 1) return ctx.fail("size must be positive, is {}", p.size);
    p.batch = xs[0];
    p.channels = xs[1];
    p.spatial = shape_numel(Shape(xs.begin() + 2, xs.end()));
    p.alpha = ctx.attr_float("alpha", 1e-4f);
    p.beta = ctx.attr_float("beta", 0.75f);
    p.bias = ctx.attr_float("bias", 1.0f);
    ctx.set_output(0, x->dtype, xs);
    s.half = plan_half(ctx, {0}, {0});
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<LrnState>();
    const LrnParams& p = s.p;
    ctx.include("onnxc/normalization.h");
    ctx.line("static constexpr onnxc::LrnParams p = {};",
             labeled({{"batch", fmt::format("{}", p.batch)},
                      {"channels", fmt::format("{}", p.channels)},
                      {"spatial", fmt::format("{}", p.spatial)},
                      {"size", fmt::format("{}", p.size)},
                      {"alpha", cpp_float(p.alpha)},
                      {"beta", cpp_float(p.beta)},
                      {"bias", cpp_float(p.bias)}}));
    const HalfNames n = emit_widen(ctx, s.half);
    ctx.line("onnxc::lrn_ref(p, {}, {}{});", n.in(0), n.out(0), accum_arg(s.float_accum));
    emit_narrow(ctx, s.half, n);
  }
};

const BatchNormOp kBatchNorm;
const LayerNormOp<false> kLayerNorm;
const LayerNormOp<true> kRmsNorm;
const GroupNormOp<false> kGroupNorm;
const GroupNormOp<true> kInstanceNorm;
const LpNormOp kLpNorm;
const MvnOp kMvn;
const LrnOp kLrn;

}  // namespace

std::vector<OpRegistration> normalization_ops() {
  const int L = kMaxOpset;
  return {{"", "BatchNormalization", 1, L, &kBatchNorm},
          {"", "LayerNormalization", 17, L, &kLayerNorm},
          {"", "RMSNormalization", 23, L, &kRmsNorm},
          {"", "GroupNormalization", 18, L, &kGroupNorm},
          {"", "InstanceNormalization", 1, L, &kInstanceNorm},
          {"", "LpNormalization", 1, L, &kLpNorm},
          {"", "MeanVarianceNormalization", 9, L, &kMvn},
          {"", "LRN", 1, L, &kLrn}};
}

}  // namespace onnxc
