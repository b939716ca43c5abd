// Quantized softmax: QLinearSoftmax (com.microsoft, 1), as ONNX Runtime defines it: inputs X
// (int8 or uint8), X_scale, x_zero_point, y_scale, y_zero_point (single values; the zero points
// of X's type, optional); attributes axis and opset, the Softmax version whose semantics apply
// (before 13: over the dims from axis on, flattened; axis defaults to 1 there, -1 from 13 on, as
// ORT's kernel reads it); output of X's type. Here the scales and zero points are constants.
// Models bring it as com.microsoft nodes, which the importer expands (frontend/contrib_qlinear.cpp)
// to DequantizeLinear -> Softmax -> QuantizeLinear; lower-qdq makes it of that chain (with the
// Softmax's own opset), so that a quantized attention's probabilities stay in integers.
// Kernel: qlinear_softmax_ref (onnxc/qsoftmax.h), ORT's arithmetic: the exp table is computed
// here, at compile time, and printed into the generated code bit for bit.
#include "ops/quant/qsoftmax.h"

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "onnxc/qsoftmax.h"
#include "ops/quant/qelementwise.h"
#include "ops/registry.h"

namespace onnxc {

bool qlinear_softmax_plan(const Shape& shape, int64_t axis, int64_t opset, float x_scale,
                          float y_scale, QSoftmaxPlan& out) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  if (axis < -rank || axis >= rank) return false;
  if (axis < 0) axis += rank;
  if (!(x_scale > 0) || !std::isfinite(x_scale) || !(y_scale > 0) || !std::isfinite(y_scale))
    return false;
  out.outer = out.reduce = out.inner = 1;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t n = shape[static_cast<size_t>(d)];
    if (n < 0) return false;  // not a static dim
    if (d < axis)
      out.outer *= n;
    else if (d == axis || opset < 13)
      out.reduce *= n;
    else
      out.inner *= n;
  }
  qlinear_softmax_table(x_scale, out.reduce, out.table.data());
  out.multiplier = qlinear_softmax_multiplier(y_scale);
  return qlinear_softmax_fits(out.table.data(), out.multiplier);
}

namespace {

struct QSoftmaxState : OpState {
  QSoftmaxPlan plan;
  int32_t y_zero_point = 0;
};

template <typename T>
void softmax(const QSoftmaxState& s, const Tensor& x, Tensor& y) {
  const QSoftmaxPlan& p = s.plan;
  qlinear_softmax_ref(x.as<T>(), p.table.data(), p.multiplier, s.y_zero_point, p.outer, p.reduce,
                      p.inner, y.as<T>());
}

// A float as a C++ hexadecimal literal: the generated code holds the compiler's value exactly.
std::string float_literal(float v) {
  return fmt::format("{:a}f", static_cast<double>(v));
}

class QLinearSoftmaxOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(4, 5, 1, 1)) return false;
    const Value* x = ctx.input(0);
    if (!x || (x->dtype != DataType::kInt8 && x->dtype != DataType::kUint8))
      return ctx.fail("X must be int8 or uint8");
    double x_scale, y_scale;
    int32_t x_zero_point, y_zero_point;
    if (!quant_scale_and_zero_point(ctx, 1, x->dtype, x_scale, x_zero_point) ||
        !quant_scale_and_zero_point(ctx, 3, x->dtype, y_scale, y_zero_point))
      return false;
    if (!ctx.has_attr("opset"))
      return ctx.fail("attribute opset (the Softmax version whose semantics apply) is required");
    const int64_t opset = ctx.attr_int("opset", 13);
    const int64_t axis = ctx.attr_int("axis", opset < 13 ? 1 : -1);
    auto& s = ctx.make_state<QSoftmaxState>();
    s.y_zero_point = y_zero_point;
    if (!qlinear_softmax_plan(x->shape, axis, opset, static_cast<float>(x_scale),
                              static_cast<float>(y_scale), s.plan))
      return ctx.fail(
          "axis {} is out of range for rank {}, or floor(1 / y_scale) = floor(1 / {}) times the "
          "largest exp value overflows float (ORT's kernel writes the type's maximum there)",
          axis, x->shape.size(), y_scale);
    return ctx.set_output(0, x->dtype, x->shape);
  }

  bool evaluate(const Node& node, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = node.state_as<QSoftmaxState>();
    if (in[0]->dtype == DataType::kInt8)
      softmax<int8_t>(s, *in[0], out[0]);
    else
      softmax<uint8_t>(s, *in[0], out[0]);
    return true;
  }

  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<QSoftmaxState>();
    const QSoftmaxPlan& p = s.plan;
    std::string table;
    for (size_t k = 0; k < p.table.size(); ++k)
      table += (k ? (k % 4 ? ", " : ",\n    ") : "") + float_literal(p.table[k]);
    ctx.include("onnxc/qsoftmax.h");
    ctx.line("static constexpr float qsoftmax_table[256] = {{\n    {}}};", table);
    ctx.line(
        "onnxc::qlinear_softmax_ref<{}>({}, qsoftmax_table, /*multiplier=*/{}, "
        "/*y_zero_point=*/{}, /*outer=*/{}, /*reduce=*/{}, /*inner=*/{}, {});",
        dtype_cpp(ctx.output(0)->dtype), ctx.in(0), float_literal(p.multiplier), s.y_zero_point,
        p.outer, p.reduce, p.inner, ctx.out(0));
  }
};

const QLinearSoftmaxOp kQLinearSoftmax;

}  // namespace

std::vector<OpRegistration> qsoftmax_ops() {
  return {{"com.microsoft", "QLinearSoftmax", 1, 1, &kQLinearSoftmax}};
}

}  // namespace onnxc
