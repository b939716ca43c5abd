// EyeLike (9, 22), ReverseSequence (10) and Det (11, 22). Kernels: onnxc/misc_ops.h.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "onnxc/convert.h"
#include "onnxc/misc_ops.h"
#include "ops/dispatch.h"
#include "ops/half_compute.h"
#include "ops/registry.h"
#include "ops/tensor/indexing_util.h"

namespace onnxc {
namespace {

using indexing::array_literal;
using indexing::check_movable;
using indexing::product;
using indexing::strides_of;
using indexing::visit_element_size;

// ---- EyeLike ------------------------------------------------------------------------------------

struct EyeLikeState : OpState {
  int64_t rows = 0, cols = 0, k = 0;
};

bool eye_type_ok(DataType t, int opset) {
  return in_type_set(t, kAllPlain) || t == DataType::kFloat16 ||
         (t == DataType::kBFloat16 && opset >= 22);
}

// The element 1 of type t: its bytes (for folding) and its C++ literal (for emit).
std::string one_literal(DataType t) {
  if (t == DataType::kFloat16) return fmt::format("onnxc::float16{{{}}}", to_float16(1.0).bits);
  if (t == DataType::kBFloat16) return fmt::format("onnxc::bfloat16{{{}}}", to_bfloat16(1.0).bits);
  return cpp_scalar(t, 1.0);
}

class EyeLikeOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    const Value* x = ctx.input(0);
    if (x->shape.size() != 2) return ctx.fail("input must be 2-D, is {}", shape_str(x->shape));
    if (!eye_type_ok(x->dtype, ctx.opset()))
      return ctx.fail("input type {} is not supported", dtype_name(x->dtype));
    DataType out = x->dtype;
    if (ctx.has_attr("dtype")) {
      const int64_t d = ctx.attr_int("dtype", 0);
      if (!is_valid_dtype(static_cast<int>(d)) ||
          !eye_type_ok(static_cast<DataType>(d), ctx.opset()))
        return ctx.fail("dtype {} is not supported", d);
      out = static_cast<DataType>(d);
    }
    auto& s = ctx.make_state<EyeLikeState>();
    s.rows = x->shape[0];
    s.cols = x->shape[1];
    s.k = ctx.attr_int("k", 0);
    ctx.set_output(0, out, x->shape);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>&,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<EyeLikeState>();
    const DataType t = out[0].dtype;
    if (t == DataType::kFloat16) {
      eye_like_ref(out[0].as<float16>(), s.rows, s.cols, s.k, to_float16(1.0));
      return true;
    }
    if (t == DataType::kBFloat16) {
      eye_like_ref(out[0].as<bfloat16>(), s.rows, s.cols, s.k, to_bfloat16(1.0));
      return true;
    }
    return visit_dtype<kAllPlain>(t, [&](auto tag) {
      using T = decltype(tag);
      eye_like_ref(out[0].as<T>(), s.rows, s.cols, s.k, T(1));
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<EyeLikeState>();
    ctx.include("onnxc/misc_ops.h");
    ctx.line("onnxc::eye_like_ref({}, /*rows=*/{}, /*cols=*/{}, /*k=*/{}, {});", ctx.out(0), s.rows,
             s.cols, s.k, one_literal(ctx.output(0)->dtype));
  }
};

// ---- ReverseSequence ------------------------------------------------------------------------

struct ReverseSequenceState : OpState {
  ReverseSequenceParams p{};
};

class ReverseSequenceOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 2, 1, 1) || !check_movable(ctx, 0) ||
        !ctx.check_dtype(1, {DataType::kInt64}))
      return false;
    const Value *x = ctx.input(0), *lens = ctx.input(1);
    const int64_t rank = static_cast<int64_t>(x->shape.size());
    if (rank < 2) return ctx.fail("input must have rank >= 2");
    int64_t batch_axis = ctx.attr_int("batch_axis", 1), time_axis = ctx.attr_int("time_axis", 0);
    if (batch_axis != 0 && batch_axis != 1) return ctx.fail("batch_axis must be 0 or 1");
    if (time_axis != 0 && time_axis != 1) return ctx.fail("time_axis must be 0 or 1");
    if (batch_axis == time_axis) return ctx.fail("batch_axis and time_axis must differ");
    const int64_t batch = x->shape[static_cast<size_t>(batch_axis)];
    const int64_t time = x->shape[static_cast<size_t>(time_axis)];
    if (lens->shape != Shape{batch})
      return ctx.fail("sequence_lens must have shape [{}] (the batch), has {}", batch,
                      shape_str(lens->shape));
    if (const Tensor* t = ctx.constant_input(1))
      for (int64_t l : t->to_ints())
        if (l < 0 || l > time) return ctx.fail("sequence length {} is outside [0, {}]", l, time);
    auto& s = ctx.make_state<ReverseSequenceState>();
    ReverseSequenceParams& p = s.p;
    p.rank = static_cast<int>(rank);
    p.batch_axis = static_cast<int>(batch_axis);
    p.time_axis = static_cast<int>(time_axis);
    const auto st = strides_of(x->shape);
    std::copy(x->shape.begin(), x->shape.end(), p.dims);
    std::copy(st.begin(), st.end(), p.strides);
    p.numel = x->numel();
    ctx.set_output(0, x->dtype, x->shape);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& p = n.state_as<ReverseSequenceState>().p;
    return visit_element_size(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      reverse_sequence_ref(p, in[0]->as<T>(), in[1]->as<int64_t>(), out[0].as<T>());
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& p = ctx.node().state_as<ReverseSequenceState>().p;
    ctx.include("onnxc/misc_ops.h");
    ctx.line(
        "static constexpr onnxc::ReverseSequenceParams p = {{/*rank=*/{}, /*batch_axis=*/{}, "
        "/*time_axis=*/{}, /*dims=*/{}, /*strides=*/{}, /*numel=*/{}}};",
        p.rank, p.batch_axis, p.time_axis, array_literal(p.dims, p.rank),
        array_literal(p.strides, p.rank), p.numel);
    ctx.line("onnxc::reverse_sequence_ref(p, {}, {}, {});", ctx.in(0), ctx.in(1), ctx.out(0));
  }
};

// ---- Det ----------------------------------------------------------------------------------------

struct DetState : OpState {
  int64_t batch = 1, n = 0;
  HalfPlan half;
  size_t lu_offset = 0;  // scratch offset of the n x n work matrix
};

class DetOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    const Value* x = ctx.input(0);
    const DataType t = x->dtype;
    if (t != DataType::kFloat && t != DataType::kDouble && t != DataType::kFloat16 &&
        !(t == DataType::kBFloat16 && ctx.opset() >= 22))
      return ctx.fail("type {} is not supported at opset {}", dtype_name(t), ctx.opset());
    const Shape& xs = x->shape;
    if (xs.size() < 2 || xs[xs.size() - 1] != xs[xs.size() - 2])
      return ctx.fail("input must be [*, M, M] square matrices, is {}", shape_str(xs));
    auto& s = ctx.make_state<DetState>();
    s.n = xs.back();
    s.batch = product(xs, 0, xs.size() - 2);
    ctx.set_output(0, t, Shape(xs.begin(), xs.end() - 2));
    s.half = plan_half(ctx, {0}, {0});
    s.lu_offset = (s.half.bytes + 63) / 64 * 64;
    const size_t elem = t == DataType::kDouble ? sizeof(double) : sizeof(float);
    ctx.request_scratch(s.lu_offset + static_cast<size_t>(s.n * s.n) * elem);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<DetState>();
    return visit_dtype<kFloatTypes>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      std::vector<T> lu(static_cast<size_t>(s.n * s.n));
      det_ref(in[0]->as<T>(), out[0].as<T>(), s.batch, s.n, lu.data());
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<DetState>();
    ctx.include("onnxc/misc_ops.h");
    const HalfNames names = emit_widen(ctx, s.half);
    const char* t = kernel_cpp_type(ctx.input(0)->dtype);
    ctx.line("onnxc::det_ref({}, {}, /*batch=*/{}, /*n=*/{}, reinterpret_cast<{}*>({} + {}));",
             names.in(0), names.out(0), s.batch, s.n, t, ctx.scratch(), s.lu_offset);
    emit_narrow(ctx, s.half, names);
  }
};

const EyeLikeOp kEyeLike;
const ReverseSequenceOp kReverseSequence;
const DetOp kDet;

}  // namespace

std::vector<OpRegistration> misc_ops() {
  return {{"", "EyeLike", 9, kMaxOpset, &kEyeLike},
          {"", "ReverseSequence", 10, kMaxOpset, &kReverseSequence},
          {"", "Det", 11, kMaxOpset, &kDet}};
}

}  // namespace onnxc
