// BatchNormalization (1, 6, 7, 9, 14, 15; inference form) and LayerNormalization (17+).
#include <fmt/format.h>

#include <algorithm>

#include "ops/registry.h"

namespace onnxc {
namespace {

struct BatchNormState : OpState {
  double epsilon = 1e-5;
};

class BatchNormOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(5, 5, 1, 5) || !ctx.check_dtype(0, {DataType::kFloat, DataType::kDouble})) return false;
    const Value* x = ctx.input(0);
    if (x->shape.size() < 2) return ctx.fail("X must have rank >= 2, has {}", x->shape.size());
    if (ctx.attr_int("training_mode", 0) != 0 || (ctx.opset() < 7 && ctx.attr_int("is_test", 0) == 0 && ctx.num_outputs() > 1))
      return ctx.fail("training mode is not supported (inference only)");
    if (ctx.num_outputs() > 1) return ctx.fail("running mean/var outputs are only produced in training mode");
    for (size_t i = 1; i < 5; ++i) {
      const Value* v = ctx.input(i);
      if (v->dtype != x->dtype) return ctx.fail("input {} has type {}, X has {}", i, dtype_name(v->dtype), dtype_name(x->dtype));
      if (v->numel() != x->shape[1]) return ctx.fail("input {} has {} elements, X has {} channels", i, v->numel(), x->shape[1]);
    }
    ctx.make_state<BatchNormState>().epsilon = ctx.attr_float("epsilon", 1e-5f);
    ctx.set_output(0, x->dtype, x->shape);
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const Shape& s = ctx.input(0)->shape;
    ctx.include("onnxc/normalization.h");
    ctx.line("onnxc::batch_norm_ref({}, {}, {}, {}, {}, {}, {}, {}, {}, {});", ctx.in(0), ctx.in(1), ctx.in(2),
             ctx.in(3), ctx.in(4), ctx.out(0), s[0], s[1], shape_numel(s) / std::max<int64_t>(s[0] * s[1], 1),
             cpp_double(ctx.node().state_as<BatchNormState>().epsilon));
  }
};

struct LayerNormState : OpState {
  int64_t rows = 0, size = 0;
  double epsilon = 1e-5;
};

class LayerNormOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 3, 1, 3) || !ctx.check_dtype(0, {DataType::kFloat, DataType::kDouble})) return false;
    const Value* x = ctx.input(0);
    int64_t axis = ctx.attr_int("axis", -1);
    if (!ctx.normalize_axis(axis, static_cast<int64_t>(x->shape.size()))) return false;
    auto& s = ctx.make_state<LayerNormState>();
    s.epsilon = ctx.attr_float("epsilon", 1e-5f);
    Shape outer(x->shape.begin(), x->shape.begin() + axis), stat_shape = outer;
    s.rows = shape_numel(outer);
    s.size = x->numel() / std::max<int64_t>(s.rows, 1);
    for (size_t i = 1; i < 3; ++i) {
      const Value* v = ctx.input(i);
      if (v && (v->dtype != x->dtype || v->numel() < 1 || s.size % v->numel()))
        return ctx.fail("input {} of shape {} does not broadcast over the normalized dims", i, shape_str(v->shape));
    }
    stat_shape.resize(x->shape.size(), 1);
    ctx.set_output(0, x->dtype, x->shape);
    ctx.set_output(1, x->dtype, stat_shape);
    ctx.set_output(2, x->dtype, stat_shape);
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<LayerNormState>();
    ctx.include("onnxc/normalization.h");
    ctx.line("onnxc::layer_norm_ref<{}>({}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {});", dtype_cpp(ctx.input(0)->dtype),
             ctx.in(0), ctx.in(1), ctx.input(2) ? ctx.in(2) : "nullptr", ctx.out(0),
             ctx.output(1) ? ctx.out(1) : "nullptr", ctx.output(2) ? ctx.out(2) : "nullptr", s.rows, s.size,
             ctx.input(1)->numel(), ctx.input(2) ? ctx.input(2)->numel() : 1, cpp_double(s.epsilon));
  }
};

const BatchNormOp kBatchNorm;
const LayerNormOp kLayerNorm;

}  // namespace

std::vector<OpRegistration> normalization_ops() {
  return {{"", "BatchNormalization", 1, kMaxOpset, &kBatchNorm},
          {"", "LayerNormalization", 17, kMaxOpset, &kLayerNorm}};
}

}  // namespace onnxc
