// Reductions: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2,
// ReduceLogSum, ReduceLogSumExp, ReduceSumSquare (all opsets), ArgMax and ArgMin (1, 11, 12, 13).
//   - axes is an attribute until the op's axes-input opset (13 for ReduceSum, 18 for the
//     others), then an optional constant int64 input; noop_with_empty_axes arrives with it.
//   - No axes reduces over every dim, unless noop_with_empty_axes: then over none.
//   - ReduceMax/ReduceMin accept int8/uint8 from opset 12 and bool from 20.
//   - ArgMax/ArgMin: select_last_index from opset 12.
#include "onnxc/reduce.h"

#include <fmt/format.h>

#include "ops/dispatch.h"
#include "ops/half_compute.h"
#include "ops/reduce_params.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

struct ReduceState : OpState {
  ReduceParams p{};
  HalfPlan half;  // float16/bfloat16 reduce in float
};

// Element types a reduce op accepts at the node's opset.
bool check_reduce_type(InferContext& ctx, bool min_max) {
  const DataType t = ctx.input(0)->dtype;
  switch (t) {
    case DataType::kFloat:
    case DataType::kDouble:
    case DataType::kFloat16:
    case DataType::kInt32:
    case DataType::kInt64:
    case DataType::kUint32:
    case DataType::kUint64:
      return true;
    case DataType::kInt8:
    case DataType::kUint8:
      if (min_max && ctx.opset() >= 12) return true;
      break;
    case DataType::kBool:
      if (min_max && ctx.opset() >= 20) return true;
      break;
    case DataType::kBFloat16:
      if (ctx.opset() >= 13) return true;
      break;
    default:
      break;
  }
  return ctx.fail(
      "type {} is not supported at opset {} (float, double, float16, int32, int64, uint32, "
      "uint64; bfloat16 from opset 13{})",
      dtype_name(t), ctx.opset(), min_max ? "; int8, uint8 from opset 12; bool from opset 20" : "");
}

// The axes to reduce, from the attribute or (from `input_since`) the optional constant input.
bool read_axes(InferContext& ctx, int input_since, std::vector<int64_t>& axes) {
  if (ctx.opset() < input_since) {
    if (ctx.num_inputs() > 1)
      return ctx.fail("axes is an attribute before opset {}, not an input", input_since);
    axes = ctx.attr_ints("axes");
    return true;
  }
  if (ctx.has_attr("axes"))
    return ctx.fail("axes is an input from opset {}, not an attribute", input_since);
  if (!ctx.has_input(1)) return true;
  const Tensor* t = ctx.constant_input(1);
  if (!t) return ctx.fail("axes input must be a constant");
  if (t->dtype != DataType::kInt64)
    return ctx.fail("axes input must be int64, is {}", dtype_name(t->dtype));
  if (t->shape.size() > 1)
    return ctx.fail("axes input must be 1-D, has shape {}", shape_str(t->shape));
  axes = t->to_ints();
  return true;
}

using ReduceFolder = bool (*)(const ReduceParams&, const Tensor&, Tensor&);

template <template <typename> class Op, unsigned kTypes>
bool fold_reduce(const ReduceParams& p, const Tensor& x, Tensor& y) {
  return visit_dtype<kTypes>(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    reduce_ref<Op>(p, x.as<T>(), y.as<T>());
  });
}

class ReduceOp final : public OpHandler {
 public:
  // kernel: the onnxc functor template ("ReduceSumOp"); axes_input_since: first opset with the
  // axes input and noop_with_empty_axes; min_max: ReduceMax/ReduceMin's wider type list.
  ReduceOp(const char* kernel, int axes_input_since, bool min_max, ReduceFolder fold)
      : kernel_(kernel), axes_input_since_(axes_input_since), min_max_(min_max), fold_(fold) {}

  bool infer(InferContext& ctx) const override {
    const bool axes_input = ctx.opset() >= axes_input_since_;
    if (!ctx.check_arity(1, 2, 1, 1) || !check_reduce_type(ctx, min_max_)) return false;
    const Value* x = ctx.input(0);
    const int64_t rank = static_cast<int64_t>(x->shape.size());
    if (rank > kMaxRank) return ctx.fail("rank {} exceeds the supported {}", rank, kMaxRank);
    std::vector<int64_t> axes;
    if (!read_axes(ctx, axes_input_since_, axes)) return false;
    const bool keepdims = ctx.attr_int("keepdims", 1) != 0;
    const bool noop = axes_input && ctx.attr_int("noop_with_empty_axes", 0) != 0;
    std::vector<bool> reduced(static_cast<size_t>(rank), axes.empty() && !noop);
    for (int64_t axis : axes) {
      if (!ctx.normalize_axis(axis, rank, "axes entry")) return false;
      if (rank == 0) continue;  // a scalar reduces to itself
      if (reduced[static_cast<size_t>(axis)])
        return ctx.fail("axis {} is listed twice in axes", axis);
      reduced[static_cast<size_t>(axis)] = true;
    }
    Shape out;
    for (size_t d = 0; d < reduced.size(); ++d) {
      if (!reduced[d])
        out.push_back(x->shape[d]);
      else if (keepdims)
        out.push_back(1);
    }
    auto& s = ctx.make_state<ReduceState>();
    s.p = reduce_params_for(x->shape, reduced);
    ctx.set_output(0, x->dtype, out);
    s.half = plan_half(ctx, {0}, {0});
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    return fold_(n.state_as<ReduceState>().p, *in[0], out[0]);
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<ReduceState>();
    ctx.include("onnxc/reduce.h");
    ctx.line("static constexpr onnxc::ReduceParams p = {};", reduce_params_literal(s.p));
    const HalfNames n = emit_widen(ctx, s.half);
    ctx.line("onnxc::reduce_ref<onnxc::{}>(p, {}, {});", kernel_, n.in(0), n.out(0));
    emit_narrow(ctx, s.half, n);
  }

 private:
  const char* kernel_;
  int axes_input_since_;
  bool min_max_;
  ReduceFolder fold_;
};

struct ArgState : OpState {
  int64_t outer = 1, axis = 1, inner = 1;
  bool select_last = false;
  HalfPlan half;  // float16/bfloat16 compare in float
};

template <bool kMax>
class ArgReduceOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    const Value* x = ctx.input(0);
    if (!in_type_set(x->dtype, kNumeric) && x->dtype != DataType::kFloat16 &&
        !(x->dtype == DataType::kBFloat16 && ctx.opset() >= 13))
      return ctx.fail(
          "type {} is not supported at opset {} (integers, float, double, float16; "
          "bfloat16 from 13)",
          dtype_name(x->dtype), ctx.opset());
    const int64_t rank = static_cast<int64_t>(x->shape.size());
    if (rank == 0) return ctx.fail("input must have rank >= 1");
    int64_t axis = ctx.attr_int("axis", 0);
    if (!ctx.normalize_axis(axis, rank)) return false;
    const auto a = static_cast<size_t>(axis);
    if (x->shape[a] == 0) return ctx.fail("axis {} has size 0: no element to select", axis);
    auto& s = ctx.make_state<ArgState>();
    s.select_last = ctx.opset() >= 12 && ctx.attr_int("select_last_index", 0) != 0;
    s.axis = x->shape[a];
    for (size_t d = 0; d < a; ++d) s.outer *= x->shape[d];
    for (size_t d = a + 1; d < x->shape.size(); ++d) s.inner *= x->shape[d];
    Shape out = x->shape;
    if (ctx.attr_int("keepdims", 1) != 0)
      out[a] = 1;
    else
      out.erase(out.begin() + axis);
    ctx.set_output(0, DataType::kInt64, out);
    s.half = plan_half(ctx, {0}, {0});
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<ArgState>();
    return visit_dtype<kNumeric>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      arg_reduce_ref<kMax>(in[0]->as<T>(), out[0].as<int64_t>(), s.outer, s.axis, s.inner,
                           s.select_last);
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<ArgState>();
    ctx.include("onnxc/reduce.h");
    const HalfNames n = emit_widen(ctx, s.half);
    ctx.line(
        "onnxc::arg_reduce_ref<{}>({}, {}, /*outer=*/{}, /*axis=*/{}, /*inner=*/{}, "
        "/*select_last=*/{});",
        kMax, n.in(0), n.out(0), s.outer, s.axis, s.inner, s.select_last);
  }
};

constexpr unsigned kReduceTypes = kNumeric;
constexpr unsigned kMinMaxTypes = kNumeric | kBoolType;

const ReduceOp kReduceSum("ReduceSumOp", 13, false, fold_reduce<ReduceSumOp, kReduceTypes>);
const ReduceOp kReduceMean("ReduceMeanOp", 18, false, fold_reduce<ReduceMeanOp, kReduceTypes>);
const ReduceOp kReduceProd("ReduceProdOp", 18, false, fold_reduce<ReduceProdOp, kReduceTypes>);
const ReduceOp kReduceMax("ReduceMaxOp", 18, true, fold_reduce<ReduceMaxOp, kMinMaxTypes>);
const ReduceOp kReduceMin("ReduceMinOp", 18, true, fold_reduce<ReduceMinOp, kMinMaxTypes>);
const ReduceOp kReduceL1("ReduceL1Op", 18, false, fold_reduce<ReduceL1Op, kReduceTypes>);
const ReduceOp kReduceL2("ReduceL2Op", 18, false, fold_reduce<ReduceL2Op, kReduceTypes>);
const ReduceOp kReduceLogSum("ReduceLogSumOp", 18, false,
                             fold_reduce<ReduceLogSumOp, kReduceTypes>);
const ReduceOp kReduceLogSumExp("ReduceLogSumExpOp", 18, false,
                                fold_reduce<ReduceLogSumExpOp, kReduceTypes>);
const ReduceOp kReduceSumSquare("ReduceSumSquareOp", 18, false,
                                fold_reduce<ReduceSumSquareOp, kReduceTypes>);
const ArgReduceOp<true> kArgMax;
const ArgReduceOp<false> kArgMin;

}  // namespace

std::vector<OpRegistration> reduce_ops() {
  const int L = kMaxOpset;
  return {
      {"", "ReduceSum", 1, L, &kReduceSum},
      {"", "ReduceMean", 1, L, &kReduceMean},
      {"", "ReduceProd", 1, L, &kReduceProd},
      {"", "ReduceMax", 1, L, &kReduceMax},
      {"", "ReduceMin", 1, L, &kReduceMin},
      {"", "ReduceL1", 1, L, &kReduceL1},
      {"", "ReduceL2", 1, L, &kReduceL2},
      {"", "ReduceLogSum", 1, L, &kReduceLogSum},
      {"", "ReduceLogSumExp", 1, L, &kReduceLogSumExp},
      {"", "ReduceSumSquare", 1, L, &kReduceSumSquare},
      {"", "ArgMax", 1, L, &kArgMax},
      {"", "ArgMin", 1, L, &kArgMin},
  };
}

}  // namespace onnxc
