// Softmax, LogSoftmax and Hardmax (opsets 1, 11, 13). Before opset 13 the input is coerced to
// 2-D at `axis` (default 1) and each row of the flattened [d0*...*d(axis-1), d(axis)*...*dn]
// matrix is normalized; from 13 on only dim `axis` (default -1) is.
// NegativeLogLikelihoodLoss (12, 13, 22) and SoftmaxCrossEntropyLoss (12, 13): reductions none,
// sum and weighted mean, ignore_index; bfloat16 from 22 and 13.
#include "onnxc/softmax.h"

#include <algorithm>

#include "ops/accum.h"
#include "ops/dispatch.h"
#include "ops/half_compute.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

struct SoftmaxState : OpState {
  int64_t outer = 1, axis = 1, inner = 1;  // the [outer, axis, inner] view the kernel walks
  HalfPlan half;                           // float16/bfloat16 run the float kernel
};

using SoftmaxKernel = bool (*)(const Tensor&, Tensor&, const SoftmaxState&);

template <void (*kFloat)(const float*, float*, index_t, index_t, index_t),
          void (*kDouble)(const double*, double*, index_t, index_t, index_t)>
bool run_softmax(const Tensor& x, Tensor& y, const SoftmaxState& s) {
  if (x.dtype == DataType::kFloat)
    kFloat(x.as<float>(), y.as<float>(), s.outer, s.axis, s.inner);
  else if (x.dtype == DataType::kDouble)
    kDouble(x.as<double>(), y.as<double>(), s.outer, s.axis, s.inner);
  else
    return false;  // half types are not folded
  return true;
}

class SoftmaxOp final : public OpHandler {
 public:
  // f32_kernel / kernel: the onnxc functions for float and for double; f32_rows_kernel: the
  // float one for inner == 1 (nullptr: none); host: the same kernels for folding.
  SoftmaxOp(const char* f32_kernel, const char* f32_rows_kernel, const char* kernel,
            SoftmaxKernel host)
      : f32_kernel_(f32_kernel), f32_rows_kernel_(f32_rows_kernel), kernel_(kernel), host_(host) {}

  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    const Value* x = ctx.input(0);
    const DataType t = x->dtype;
    if (t != DataType::kFloat && t != DataType::kDouble && t != DataType::kFloat16 &&
        !(t == DataType::kBFloat16 && ctx.opset() >= 13))
      return ctx.fail(
          "type {} is not supported at opset {} (float, double, float16; bfloat16 "
          "from 13)",
          dtype_name(t), ctx.opset());
    const int64_t rank = static_cast<int64_t>(x->shape.size());
    const bool coerce_2d = ctx.opset() < 13;
    int64_t axis = ctx.attr_int("axis", coerce_2d ? 1 : -1);
    if (!ctx.normalize_axis(axis, rank)) return false;
    auto prod = [&](int64_t from, int64_t to) {
      int64_t p = 1;
      for (int64_t i = from; i < to; ++i) p *= x->shape[static_cast<size_t>(i)];
      return p;
    };
    auto& s = ctx.make_state<SoftmaxState>();
    s.outer = prod(0, axis);
    if (coerce_2d) {
      s.axis = prod(axis, rank);
    } else {
      s.axis = prod(axis, std::min(axis + 1, rank));
      s.inner = prod(axis + 1, rank);
    }
    ctx.set_output(0, x->dtype, x->shape);
    s.half = plan_half(ctx, {0}, {0});
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    return host_(*in[0], out[0], n.state_as<SoftmaxState>());
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<SoftmaxState>();
    ctx.include("onnxc/softmax.h");
    const bool f32 = ctx.input(0)->dtype != DataType::kDouble;
    const HalfNames n = emit_widen(ctx, s.half);
    if (f32 && s.inner == 1 && f32_rows_kernel_)
      ctx.line("onnxc::{}({}, {}, /*outer=*/{}, /*axis=*/{});", f32_rows_kernel_, n.in(0), n.out(0),
               s.outer, s.axis);
    else
      ctx.line("onnxc::{}({}, {}, /*outer=*/{}, /*axis=*/{}, /*inner=*/{});",
               f32 ? f32_kernel_ : kernel_, n.in(0), n.out(0), s.outer, s.axis, s.inner);
    emit_narrow(ctx, s.half, n);
  }

 private:
  const char* f32_kernel_;
  const char* f32_rows_kernel_;
  const char* kernel_;
  SoftmaxKernel host_;
};

const SoftmaxOp kSoftmax("f32_softmax_any__scalar", "f32_softmax_rows__scalar", "softmax_ref",
                         run_softmax<f32_softmax_any__scalar, softmax_ref<double>>);
const SoftmaxOp kLogSoftmax("f32_logsoftmax_any__scalar", "f32_logsoftmax_rows__scalar",
                            "log_softmax_ref",
                            run_softmax<f32_logsoftmax_any__scalar, log_softmax_ref<double>>);
const SoftmaxOp kHardmax("hardmax_ref", nullptr, "hardmax_ref",
                         run_softmax<hardmax_ref<float>, hardmax_ref<double>>);

// ---- NegativeLogLikelihoodLoss (12, 13, 22) and SoftmaxCrossEntropyLoss (12, 13) --------------

struct LossState : OpState {
  NllParams p{};
  HalfPlan half;
  int64_t log_prob_offset = -1;  // scratch offset of the log-probabilities when not an output
  bool float_accum = false;      // ops/accum.h
};

// kSoftmax: SoftmaxCrossEntropyLoss (log_softmax first, optional log_prob output).
template <bool kSoftmax>
class LossOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 3, 1, kSoftmax ? 2 : 1)) return false;
    const Value *x = ctx.input(0), *target = ctx.input(1), *weight = ctx.input(2);
    const DataType t = x->dtype;
    const int bf16_since = kSoftmax ? 13 : 22;
    if (t != DataType::kFloat && t != DataType::kDouble && t != DataType::kFloat16 &&
        !(t == DataType::kBFloat16 && ctx.opset() >= bf16_since))
      return ctx.fail(
          "type {} is not supported at opset {} (float, double, float16; bfloat16 "
          "from {})",
          dtype_name(t), ctx.opset(), bf16_since);
    if (target->dtype != DataType::kInt32 && target->dtype != DataType::kInt64)
      return ctx.fail("target must be int32 or int64, is {}", dtype_name(target->dtype));
    const Shape& xs = x->shape;
    if (xs.size() < 2) return ctx.fail("input must have rank >= 2 (N, C, ...), has {}", xs.size());
    Shape want_target = {xs[0]};
    want_target.insert(want_target.end(), xs.begin() + 2, xs.end());
    if (target->shape != want_target)
      return ctx.fail("target has shape {}, expected {} (the input's without C)",
                      shape_str(target->shape), shape_str(want_target));
    if (weight && (weight->dtype != t || weight->shape != Shape{xs[1]}))
      return ctx.fail("weight must be {}[{}], is {}[{}]", dtype_name(t), xs[1],
                      dtype_name(weight->dtype), shape_str(weight->shape));
    auto& s = ctx.make_state<LossState>();
    s.float_accum = float_accumulates(ctx.target());
    NllParams& p = s.p;
    p.batch = xs[0];
    p.classes = xs[1];
    p.spatial = shape_numel(Shape(xs.begin() + 2, xs.end()));
    const std::string reduction = ctx.attr_string("reduction", "mean");
    if (reduction == "none")
      p.reduction = 0;
    else if (reduction == "sum")
      p.reduction = 1;
    else if (reduction == "mean")
      p.reduction = 2;
    else
      return ctx.fail("reduction '{}' is not one of none, sum, mean", reduction);
    p.has_ignore = ctx.has_attr("ignore_index");
    p.ignore_index = ctx.attr_int("ignore_index", 0);
    ctx.set_output(0, t, p.reduction == 0 ? want_target : Shape{});
    ctx.set_output(1, t, xs);
    s.half = plan_half(ctx, {0, 1, 2}, {0, 1});
    if (kSoftmax && !ctx.has_output(1)) {  // the log-probabilities go to scratch memory
      s.log_prob_offset = static_cast<int64_t>(s.half.bytes);
      const size_t elem = t == DataType::kDouble ? sizeof(double) : sizeof(float);
      ctx.request_scratch(s.half.bytes + static_cast<size_t>(x->numel()) * elem);
    }
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<LossState>();
    const NllParams& p = s.p;
    ctx.include("onnxc/softmax.h");
    ctx.line("static constexpr onnxc::NllParams p = {};",
             labeled({{"batch", fmt::format("{}", p.batch)},
                      {"classes", fmt::format("{}", p.classes)},
                      {"spatial", fmt::format("{}", p.spatial)},
                      {"reduction", fmt::format("{}", p.reduction)},
                      {"has_ignore", fmt::format("{}", p.has_ignore)},
                      {"ignore_index", fmt::format("{}", p.ignore_index)}}));
    const HalfNames n = emit_widen(ctx, s.half);
    const char* t = kernel_cpp_type(ctx.input(0)->dtype);
    const std::string weight =
        ctx.input(2) ? n.in(2) : fmt::format("static_cast<const {}*>(nullptr)", t);
    if (!kSoftmax) {
      ctx.line("onnxc::nll_loss_ref(p, {}, {}, {}, {}{});", n.in(0), n.in(1), weight, n.out(0),
               accum_arg(s.float_accum));
    } else {
      std::string log_prob = n.out(1);
      if (s.log_prob_offset >= 0) {
        log_prob = "log_prob";
        ctx.line("{0}* const log_prob = static_cast<{0}*>(static_cast<void*>({1} + {2}));", t,
                 ctx.scratch(), s.log_prob_offset);
      }
      ctx.line("onnxc::softmax_cross_entropy_ref(p, {}, {}, {}, {}, {}{});", n.in(0), n.in(1),
               weight, n.out(0), log_prob, accum_arg(s.float_accum));
    }
    emit_narrow(ctx, s.half, n);
  }
};

const LossOp<false> kNllLoss;
const LossOp<true> kSoftmaxCrossEntropyLoss;

}  // namespace

std::vector<OpRegistration> softmax_ops() {
  return {{"", "Softmax", 1, kMaxOpset, &kSoftmax},
          {"", "LogSoftmax", 1, kMaxOpset, &kLogSoftmax},
          {"", "Hardmax", 1, kMaxOpset, &kHardmax},
          {"", "NegativeLogLikelihoodLoss", 12, kMaxOpset, &kNllLoss},
          {"", "SoftmaxCrossEntropyLoss", 12, kMaxOpset, &kSoftmaxCrossEntropyLoss}};
}

}  // namespace onnxc
