// Integer elementwise ops: QLinearAdd (com.microsoft, 1), as ONNX Runtime defines it: inputs A,
// A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point (single values, the zero
// points of A's type, optional), output C of A's type. Here A and B have one shape (no
// broadcasting) and the scales and zero points are constants; an onnxc attribute
// fused_activation = "Relu" clamps C below at C_zero_point. Models bring QLinearAdd as a
// com.microsoft node, which the importer expands (frontend/contrib_qlinear.cpp); lower-qdq makes
// it of DequantizeLinear + DequantizeLinear -> Add [-> Relu] -> QuantizeLinear, so that a quantized
// network's residual connections stay in integers. Kernel: qlinear_add_ref (onnxc/quantize.h).
#include "ops/quant/qelementwise.h"

#include <fmt/format.h>

#include <cmath>

#include "ops/epilogue.h"
#include "ops/registry.h"

namespace onnxc {

bool qlinear_add_params(double a_scale, double b_scale, double y_scale, int32_t a_zero_point,
                        int32_t b_zero_point, int32_t y_zero_point, DataType type, bool relu,
                        QAddParams& out) {
  for (double s : {a_scale, b_scale, y_scale})
    if (!(s > 0) || !std::isfinite(s)) return false;
  const double ra = a_scale / y_scale, rb = b_scale / y_scale, larger = std::max(ra, rb);
  if (!(larger >= std::ldexp(1.0, -9) && larger < std::ldexp(1.0, 11))) return false;
  // The shift that puts the larger multiplier in [2^21, 2^22].
  const int shift = 21 - static_cast<int>(std::floor(std::log2(larger)));
  if (shift < 10 || shift > 30) return false;
  out.a_multiplier = static_cast<int32_t>(std::nearbyint(std::ldexp(ra, shift)));
  out.b_multiplier = static_cast<int32_t>(std::nearbyint(std::ldexp(rb, shift)));
  if (out.a_multiplier > (1 << 22) || out.b_multiplier > (1 << 22)) return false;
  out.shift = shift;
  out.a_zero_point = a_zero_point, out.b_zero_point = b_zero_point;
  out.y_zero_point = y_zero_point;
  const bool is_signed = type == DataType::kInt8;
  out.y_min = relu ? y_zero_point : (is_signed ? -128 : 0);
  out.y_max = is_signed ? 127 : 255;
  return true;
}

namespace {

bool is_int8(DataType t) {
  return t == DataType::kInt8 || t == DataType::kUint8;
}

struct QAddState : OpState {
  QAddParams p{};
};

class QLinearAddOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(7, 8, 1, 1)) return false;
    const Value *a = ctx.input(0), *b = ctx.input(3);
    if (!a || !b) return ctx.fail("inputs A and B are required");
    if (!is_int8(a->dtype) || b->dtype != a->dtype)
      return ctx.fail("A and B have types {} and {}; one type, int8 or uint8, is supported",
                      dtype_name(a->dtype), dtype_name(b->dtype));
    if (a->shape != b->shape)
      return ctx.fail("A is {} and B is {}: equal shapes only (no broadcasting)",
                      shape_str(a->shape), shape_str(b->shape));
    double scale[3];
    int32_t zero_point[3];
    const size_t scale_inputs[3] = {1, 4, 6};  // A_scale, B_scale, C_scale; each zero point next
    for (int k = 0; k < 3; ++k)
      if (!single_constant(ctx, scale_inputs[k], a->dtype, scale[k], zero_point[k])) return false;
    auto& s = ctx.make_state<QAddState>();
    const bool relu = ctx.attr_string(kFusedActivation, "") == "Relu";
    if (!qlinear_add_params(scale[0], scale[1], scale[2], zero_point[0], zero_point[1],
                            zero_point[2], a->dtype, relu, s.p))
      return ctx.fail(
          "the scales (A {}, B {}, C {}) do not fit the integer form: A_scale / C_scale and "
          "B_scale / C_scale must be positive, the larger in [2^-9, 2^11)",
          scale[0], scale[1], scale[2]);
    ctx.set_output(0, a->dtype, a->shape);
    return true;
  }

  bool evaluate(const Node& node, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const QAddParams& p = node.state_as<QAddState>().p;
    const int64_t n = in[0]->numel();
    if (in[0]->dtype == DataType::kInt8)
      qlinear_add_ref(p, in[0]->as<int8_t>(), in[3]->as<int8_t>(), out[0].as<int8_t>(), n);
    else
      qlinear_add_ref(p, in[0]->as<uint8_t>(), in[3]->as<uint8_t>(), out[0].as<uint8_t>(), n);
    return true;
  }

  void emit(EmitContext& ctx) const override {
    const QAddParams& p = ctx.node().state_as<QAddState>().p;
    ctx.include("onnxc/quantize.h");
    ctx.line(
        "static constexpr onnxc::QAddParams p = {{/*a_multiplier=*/{}, /*b_multiplier=*/{}, "
        "/*shift=*/{}, /*a_zero_point=*/{}, /*b_zero_point=*/{}, /*y_zero_point=*/{}, "
        "/*y_min=*/{}, /*y_max=*/{}}};",
        p.a_multiplier, p.b_multiplier, p.shift, p.a_zero_point, p.b_zero_point, p.y_zero_point,
        p.y_min, p.y_max);
    ctx.line("onnxc::qlinear_add_ref(p, {}, {}, {}, /*n=*/{});", ctx.in(0), ctx.in(3), ctx.out(0),
             shape_numel(ctx.input(0)->shape));
  }

 private:
  // The constant single scale at input i and the zero point at i + 1 (0 when absent).
  static bool single_constant(InferContext& ctx, size_t i, DataType type, double& scale,
                              int32_t& zero_point) {
    const Value *s = ctx.input(i), *z = ctx.input(i + 1);
    if (!s || !s->is_constant() || s->numel() != 1 || s->dtype != DataType::kFloat)
      return ctx.fail("input {} (a scale) must be a single float constant", i);
    if (z && (!z->is_constant() || z->numel() != 1 || z->dtype != type))
      return ctx.fail("input {} (a zero point) must be a single constant of A's type", i + 1);
    scale = static_cast<double>(static_cast<float>(s->constant->double_at(0)));
    zero_point = z ? static_cast<int32_t>(z->constant->double_at(0)) : 0;
    return true;
  }
};

const QLinearAddOp kQLinearAdd;

}  // namespace

std::vector<OpRegistration> qelementwise_ops() {
  return {{"com.microsoft", "QLinearAdd", 1, 1, &kQLinearAdd}};
}

}  // namespace onnxc
