// Optimizers of the ai.onnx.preview.training domain (version 1): Adagrad, Momentum (standard and
// nesterov) and Adam. Inputs are R (float or double scalar), T (int64 scalar), then n optimized
// tensors X_1..X_n followed by n tensors of each of their companions (Adagrad, Momentum: G, then
// H or V; Adam: G, V, H). Outputs are the new X_1..X_n followed by the new companions (Adagrad: H,
// Momentum: V, Adam: V then H); trailing outputs may be omitted. X and its companions must have
// equal shapes and one float or double type (the spec's broadcasting is not needed there); the
// kernel runs once per optimized tensor (runtime/onnxc/training.h).
// Gradient, the domain's fourth op, is lowered before inference: see ops/training/gradient.cpp.
#include "onnxc/training.h"

#include "ops/registry.h"

namespace onnxc {
namespace {

constexpr const char* kTrainingDomain = "ai.onnx.preview.training";

enum class Optimizer { kAdagrad, kMomentum, kAdam };

struct TrainingState : OpState {
  int64_t tensors = 0;  // n
  float alpha = 0, beta = 0, epsilon = 0, norm = 0, norm_post = 0, decay = 0;
  bool nesterov = false;
};

template <Optimizer kOpt>
class OptimizerOp final : public OpHandler {
  static constexpr size_t kGroups = kOpt == Optimizer::kAdam ? 4 : 3;  // X, G, accumulators
  static constexpr size_t kOutGroups = kGroups - 1;                    // X', accumulators'

 public:
  bool infer(InferContext& ctx) const override {
    const size_t ins = ctx.num_inputs();
    if (ins < 2 + kGroups || (ins - 2) % kGroups != 0)
      return ctx.fail("expects R, T and {} tensors per optimized tensor; has {} inputs", kGroups,
                      ins);
    const size_t n = (ins - 2) / kGroups;
    if (ctx.num_outputs() < 1 || ctx.num_outputs() > kOutGroups * n)
      return ctx.fail("expects 1 to {} outputs for {} optimized tensor(s); has {}", kOutGroups * n,
                      n, ctx.num_outputs());
    for (size_t i = 0; i < ins; ++i)
      if (!ctx.has_input(i)) return ctx.fail("input {} is missing", i);
    if (!ctx.check_dtype(0, {DataType::kFloat, DataType::kDouble}) ||
        !ctx.check_dtype(1, {DataType::kInt64}))
      return false;
    for (size_t i = 0; i < 2; ++i)
      if (ctx.input(i)->numel() != 1)
        return ctx.fail("input {} ({}) must be a scalar, has shape {}", i, i == 0 ? "R" : "T",
                        shape_str(ctx.input(i)->shape));
    for (size_t j = 0; j < n; ++j) {
      const Value* x = ctx.input(2 + j);
      if (x->dtype != DataType::kFloat && x->dtype != DataType::kDouble)
        return ctx.fail("optimized tensor {} has type {}; float or double required", j,
                        dtype_name(x->dtype));
      for (size_t k = 1; k < kGroups; ++k) {
        const Value* c = ctx.input(2 + k * n + j);
        if (c->dtype != x->dtype || c->shape != x->shape)
          return ctx.fail("input {} is {}[{}], must match optimized tensor {} ({}[{}])",
                          2 + k * n + j, dtype_name(c->dtype), shape_str(c->shape), j,
                          dtype_name(x->dtype), shape_str(x->shape));
      }
    }
    auto& s = ctx.make_state<TrainingState>();
    s.tensors = static_cast<int64_t>(n);
    s.norm = ctx.attr_float("norm_coefficient", 0);
    if (kOpt == Optimizer::kAdagrad) {
      s.decay = ctx.attr_float("decay_factor", 0);
      s.epsilon = ctx.attr_float("epsilon", 0);
    } else if (kOpt == Optimizer::kMomentum) {
      for (const char* a : {"alpha", "beta", "mode", "norm_coefficient"})
        if (!ctx.has_attr(a)) return ctx.fail("attribute '{}' is required", a);
      s.alpha = ctx.attr_float("alpha", 0);
      s.beta = ctx.attr_float("beta", 0);
      const std::string mode = ctx.attr_string("mode", "");
      if (mode != "standard" && mode != "nesterov")
        return ctx.fail("mode '{}' is not 'standard' or 'nesterov'", mode);
      s.nesterov = mode == "nesterov";
    } else {
      s.alpha = ctx.attr_float("alpha", 0.9f);
      s.beta = ctx.attr_float("beta", 0.999f);
      s.epsilon = ctx.attr_float("epsilon", 0);
      s.norm_post = ctx.attr_float("norm_coefficient_post", 0);
    }
    for (size_t k = 0; k < kOutGroups; ++k)
      for (size_t j = 0; j < n; ++j) {
        const Value* x = ctx.input(2 + j);
        if (k * n + j < ctx.num_outputs()) ctx.set_output(k * n + j, x->dtype, x->shape);
      }
    return true;
  }

  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<TrainingState>();
    ctx.include("onnxc/training.h");
    const size_t n = static_cast<size_t>(s.tensors);
    auto out = [&](size_t k, size_t j) {
      return ctx.output(k * n + j) ? ctx.out(k * n + j) : std::string("nullptr");
    };
    for (size_t j = 0; j < n; ++j) {
      const std::string head =
          fmt::format("<{}, {}>({}, {}, {}, {}", dtype_cpp(ctx.input(0)->dtype),
                      dtype_cpp(ctx.input(2 + j)->dtype), ctx.in(0), ctx.in(1), ctx.in(2 + j),
                      ctx.in(2 + n + j));
      const int64_t numel = ctx.input(2 + j)->numel();
      if (kOpt == Optimizer::kAdagrad)
        ctx.line(
            "onnxc::adagrad_ref{}, {}, {}, {}, {{/*n=*/{}, /*decay_factor=*/{}, /*epsilon=*/{}, "
            "/*norm_coefficient=*/{}}});",
            head, ctx.in(2 + 2 * n + j), out(0, j), out(1, j), numel, cpp_float(s.decay),
            cpp_float(s.epsilon), cpp_float(s.norm));
      else if (kOpt == Optimizer::kMomentum)
        ctx.line(
            "onnxc::momentum_ref{}, {}, {}, {}, {{/*n=*/{}, /*alpha=*/{}, /*beta=*/{}, "
            "/*norm_coefficient=*/{}, /*nesterov=*/{}}});",
            head, ctx.in(2 + 2 * n + j), out(0, j), out(1, j), numel, cpp_float(s.alpha),
            cpp_float(s.beta), cpp_float(s.norm), s.nesterov ? "true" : "false");
      else
        ctx.line(
            "onnxc::adam_ref{}, {}, {}, {}, {}, {}, {{/*n=*/{}, /*alpha=*/{}, /*beta=*/{}, "
            "/*epsilon=*/{}, /*norm_coefficient=*/{}, /*norm_coefficient_post=*/{}}});",
            head, ctx.in(2 + 2 * n + j), ctx.in(2 + 3 * n + j), out(0, j), out(1, j), out(2, j),
            numel, cpp_float(s.alpha), cpp_float(s.beta), cpp_float(s.epsilon), cpp_float(s.norm),
            cpp_float(s.norm_post));
    }
  }
};

const OptimizerOp<Optimizer::kAdagrad> kAdagrad;
const OptimizerOp<Optimizer::kMomentum> kMomentum;
const OptimizerOp<Optimizer::kAdam> kAdam;

}  // namespace

std::vector<OpRegistration> training_ops() {
  return {
      {kTrainingDomain, "Adagrad", 1, 1, &kAdagrad},
      {kTrainingDomain, "Momentum", 1, 1, &kMomentum},
      {kTrainingDomain, "Adam", 1, 1, &kAdam},
  };
}

}  // namespace onnxc
