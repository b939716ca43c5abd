// Integer elementwise ops:
//   QLinearAdd, QLinearMul (com.microsoft, 1), as ONNX Runtime defines them: inputs A, A_scale,
//     A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point (single values, the zero
//     points of A's type, optional), output C of A's type. Here A and B have one shape (no
//     broadcasting) and the scales and zero points are constants; an onnxc attribute
//     fused_activation = "Relu" clamps C below at C_zero_point. Models bring them as com.microsoft
//     nodes, which the importer expands (frontend/contrib_qlinear.cpp); lower-qdq makes them of
//     DequantizeLinear + DequantizeLinear -> Add / Mul [-> Relu] -> QuantizeLinear, so that a
//     quantized network's residual connections and gates stay in integers. Kernels:
//     qlinear_add_ref, qlinear_mul_ref (onnxc/quantize.h).
//   QLinearLookup (domain onnxc, 1: onnxc's own, which models cannot name): inputs X
//     (int8/uint8) and Table (256 values of the output type, int8/uint8), Y[i] = Table[X[i] as
//     a byte]. lower-qdq makes it of DequantizeLinear -> unary op -> QuantizeLinear with the table
//     computed by those nodes' own handlers (QLinearSigmoid, QLinearLeakyRelu and the QDQ
//     activations). Kernel: qlinear_lookup_ref (onnxc/quantize.h); it may run in place.
//   QLinearConcat (com.microsoft, 1), as ONNX Runtime defines it: inputs Y_scale, Y_zero_point,
//     then (X, X_scale, X_zero_point) per input, attribute axis; output of X's type. Here every
//     X has one 8-bit type, the scales and zero points are single constants (zero points
//     optional) and X_scale / Y_scale lies in [2^-32, 2^15). lower-qdq makes it of
//     DequantizeLinear per input -> Concat -> QuantizeLinear where the scales or zero points
//     differ (the importer expands a model's QLinearConcat to that chain, so it arrives here
//     too); an input of the output's scale and zero point is copied, another requantized in
//     integers. Kernel: qlinear_concat_ref (onnxc/quantize.h).
#include "ops/quant/qelementwise.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "ops/epilogue.h"
#include "ops/registry.h"

namespace onnxc {

namespace {

// y_min and y_max of `type` (int8 or uint8), y_min = y_zero_point under a fused Relu.
void clamp_range(DataType type, bool relu, int32_t y_zero_point, int32_t& y_min, int32_t& y_max) {
  const bool is_signed = type == DataType::kInt8;
  y_min = relu ? y_zero_point : (is_signed ? -128 : 0);
  y_max = is_signed ? 127 : 255;
}

bool positive_finite(std::initializer_list<double> scales) {
  for (double s : scales)
    if (!(s > 0) || !std::isfinite(s)) return false;
  return true;
}

}  // namespace

bool quant_scale_and_zero_point(InferContext& ctx, size_t i, DataType type, double& scale,
                                int32_t& zero_point) {
  const Value *sv = ctx.input(i), *z = ctx.input(i + 1);
  if (!sv || !sv->is_constant() || sv->numel() != 1 || sv->dtype != DataType::kFloat)
    return ctx.fail("input {} (a scale) must be a single float constant", i);
  if (z && (!z->is_constant() || z->numel() != 1 || z->dtype != type))
    return ctx.fail("input {} (a zero point) must be a single constant of X's type", i + 1);
  scale = static_cast<double>(static_cast<float>(sv->constant->double_at(0)));
  zero_point = z ? static_cast<int32_t>(z->constant->double_at(0)) : 0;
  if (!(scale > 0) || !std::isfinite(scale))
    return ctx.fail("input {} (a scale) must be positive and finite, is {}", i, scale);
  return true;
}

bool qlinear_add_params(double a_scale, double b_scale, double y_scale, int32_t a_zero_point,
                        int32_t b_zero_point, int32_t y_zero_point, DataType type, bool relu,
                        QAddParams& out) {
  if (!positive_finite({a_scale, b_scale, y_scale})) return false;
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
  clamp_range(type, relu, y_zero_point, out.y_min, out.y_max);
  return true;
}

bool qlinear_scale(double m, QScale& out) {
  if (!(m >= std::ldexp(1.0, -32) && m < std::ldexp(1.0, 15))) return false;
  int shift = 30 - static_cast<int>(std::floor(std::log2(m)));  // m * 2^shift in [2^30, 2^31)
  double multiplier = std::nearbyint(std::ldexp(m, shift));
  if (multiplier >= std::ldexp(1.0, 31)) multiplier = std::ldexp(1.0, 30), --shift;  // rounded up
  if (shift < 16 || shift > 62 || multiplier < std::ldexp(1.0, 30)) return false;
  out.multiplier = static_cast<int32_t>(multiplier);
  out.shift = shift;
  return true;
}

bool qlinear_mul_params(double a_scale, double b_scale, double y_scale, int32_t a_zero_point,
                        int32_t b_zero_point, int32_t y_zero_point, DataType type, bool relu,
                        QMulParams& out) {
  if (!positive_finite({a_scale, b_scale, y_scale})) return false;
  // a_scale * b_scale is exact in double (two 24-bit mantissas); the quotient is within 2^-53.
  QScale m;
  if (!qlinear_scale(a_scale * b_scale / y_scale, m)) return false;
  out.multiplier = m.multiplier;
  out.shift = m.shift;
  out.a_zero_point = a_zero_point, out.b_zero_point = b_zero_point;
  out.y_zero_point = y_zero_point;
  clamp_range(type, relu, y_zero_point, out.y_min, out.y_max);
  return true;
}

namespace {

bool is_int8(DataType t) {
  return t == DataType::kInt8 || t == DataType::kUint8;
}

// QLinearAdd and QLinearMul differ only in their parameters and kernel.
struct AddKind {
  using Params = QAddParams;
  static constexpr const char* kKernel = "qlinear_add_ref";
  static constexpr const char* kFits =
      "A_scale / C_scale and B_scale / C_scale must be positive, the larger in [2^-9, 2^11)";
  static constexpr auto kMakeParams = &qlinear_add_params;
  template <typename T>
  static void run(const Params& p, const T* a, const T* b, T* y, int64_t n) {
    qlinear_add_ref(p, a, b, y, n);
  }
  static std::string literal(const Params& p) {
    return fmt::format(
        "onnxc::QAddParams p = {{/*a_multiplier=*/{}, /*b_multiplier=*/{}, /*shift=*/{}, "
        "/*a_zero_point=*/{}, /*b_zero_point=*/{}, /*y_zero_point=*/{}, /*y_min=*/{}, "
        "/*y_max=*/{}}};",
        p.a_multiplier, p.b_multiplier, p.shift, p.a_zero_point, p.b_zero_point, p.y_zero_point,
        p.y_min, p.y_max);
  }
};

struct MulKind {
  using Params = QMulParams;
  static constexpr const char* kKernel = "qlinear_mul_ref";
  static constexpr const char* kFits =
      "A_scale * B_scale / C_scale must be positive, in [2^-32, 2^15)";
  static constexpr auto kMakeParams = &qlinear_mul_params;
  template <typename T>
  static void run(const Params& p, const T* a, const T* b, T* y, int64_t n) {
    qlinear_mul_ref(p, a, b, y, n);
  }
  static std::string literal(const Params& p) {
    return fmt::format(
        "onnxc::QMulParams p = {{/*multiplier=*/{}, /*shift=*/{}, /*a_zero_point=*/{}, "
        "/*b_zero_point=*/{}, /*y_zero_point=*/{}, /*y_min=*/{}, /*y_max=*/{}}};",
        p.multiplier, p.shift, p.a_zero_point, p.b_zero_point, p.y_zero_point, p.y_min, p.y_max);
  }
};

template <typename Kind>
struct QBinaryState : OpState {
  typename Kind::Params p{};
};

template <typename Kind>
class QLinearBinaryOp final : public OpHandler {
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
    auto& s = ctx.make_state<QBinaryState<Kind>>();
    const bool relu = ctx.attr_string(kFusedActivation, "") == "Relu";
    if (!Kind::kMakeParams(scale[0], scale[1], scale[2], zero_point[0], zero_point[1],
                           zero_point[2], a->dtype, relu, s.p))
      return ctx.fail("the scales (A {}, B {}, C {}) do not fit the integer form: {}", scale[0],
                      scale[1], scale[2], Kind::kFits);
    ctx.set_output(0, a->dtype, a->shape);
    return true;
  }

  bool evaluate(const Node& node, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& p = node.state_as<QBinaryState<Kind>>().p;
    const int64_t n = in[0]->numel();
    if (in[0]->dtype == DataType::kInt8)
      Kind::run(p, in[0]->as<int8_t>(), in[3]->as<int8_t>(), out[0].as<int8_t>(), n);
    else
      Kind::run(p, in[0]->as<uint8_t>(), in[3]->as<uint8_t>(), out[0].as<uint8_t>(), n);
    return true;
  }

  void emit(EmitContext& ctx) const override {
    ctx.include("onnxc/quantize.h");
    ctx.line("static constexpr {}", Kind::literal(ctx.node().state_as<QBinaryState<Kind>>().p));
    ctx.line("onnxc::{}(p, {}, {}, {}, /*n=*/{});", Kind::kKernel, ctx.in(0), ctx.in(3), ctx.out(0),
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

// ---- QLinearLookup ----------------------------------------------------------------------------

template <typename X, typename Y>
void lookup(const Tensor& x, const Tensor& table, Tensor& y) {
  qlinear_lookup_ref(x.as<X>(), table.as<Y>(), y.as<Y>(), x.numel());
}

class QLinearLookupOp final : public OpHandler {
 public:
  // Y may overwrite X (element i is read before it is written), never a run-time Table, which
  // every element reads.
  AliasInfo alias(const Node& node) const override {
    const Value* table = node.input(1);
    return {table && table->is_constant() ? AliasKind::kInPlace : AliasKind::kNone};
  }

  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 2, 1, 1)) return false;
    const Value *x = ctx.input(0), *table = ctx.input(1);
    if (!x || !table) return ctx.fail("inputs X and Table are required");
    if (!is_int8(x->dtype) || !is_int8(table->dtype))
      return ctx.fail("X and Table have types {} and {}; int8 or uint8 each is supported",
                      dtype_name(x->dtype), dtype_name(table->dtype));
    if (table->shape != Shape{256})
      return ctx.fail("Table is {}: it must hold 256 values, one per 8-bit input",
                      shape_str(table->shape));
    return ctx.set_output(0, table->dtype, x->shape);
  }

  bool evaluate(const Node& /*node*/, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const bool x_signed = in[0]->dtype == DataType::kInt8;
    if (in[1]->dtype == DataType::kInt8)
      (x_signed ? lookup<int8_t, int8_t> : lookup<uint8_t, int8_t>)(*in[0], *in[1], out[0]);
    else
      (x_signed ? lookup<int8_t, uint8_t> : lookup<uint8_t, uint8_t>)(*in[0], *in[1], out[0]);
    return true;
  }

  void emit(EmitContext& ctx) const override {
    ctx.include("onnxc/quantize.h");
    ctx.line("onnxc::qlinear_lookup_ref({}, {}, {}, /*n=*/{});", ctx.in(0), ctx.in(1), ctx.out(0),
             shape_numel(ctx.input(0)->shape));
  }
};

// ---- QLinearConcat ----------------------------------------------------------------------------

struct QConcatState : OpState {
  std::vector<QConcatInput> inputs;
  int64_t outer = 0;
  int32_t y_zero_point = 0;
};

template <typename T>
void concat(const QConcatState& s, const std::vector<const Tensor*>& in, Tensor& y) {
  std::vector<const T*> x;
  for (size_t i = 2; i < in.size(); i += 3) x.push_back(in[i]->as<T>());
  qlinear_concat_ref(x.data(), s.inputs.data(), static_cast<index_t>(s.inputs.size()), s.outer,
                     s.y_zero_point, y.as<T>());
}

class QLinearConcatOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    const size_t n = ctx.num_inputs();
    if (!ctx.check_arity(1, SIZE_MAX, 1, 1)) return false;
    if (n < 5 || (n - 2) % 3)
      return ctx.fail(
          "inputs must be Y_scale, Y_zero_point, then triples (X, X_scale, X_zero_point); got {}",
          n);
    const Value* first = ctx.input(2);
    if (!first || !is_int8(first->dtype)) return ctx.fail("the first X must be int8 or uint8");
    const DataType type = first->dtype;
    const int64_t rank = static_cast<int64_t>(first->shape.size());
    int64_t axis = ctx.attr_int("axis", 0);
    if (axis < -rank || axis >= rank)
      return ctx.fail("axis {} is out of range for rank {}", axis, rank);
    if (axis < 0) axis += rank;
    double y_scale;
    int32_t y_zero_point;
    if (!quant_scale_and_zero_point(ctx, 0, type, y_scale, y_zero_point)) return false;
    auto& s = ctx.make_state<QConcatState>();
    s.y_zero_point = y_zero_point;
    s.outer = 1;
    for (int64_t d = 0; d < axis; ++d) s.outer *= first->shape[static_cast<size_t>(d)];
    Shape out = first->shape;
    out[static_cast<size_t>(axis)] = 0;
    for (size_t i = 2; i < n; i += 3) {
      const Value* x = ctx.input(i);
      if (!x || x->dtype != type)
        return ctx.fail("X (input {}) must be present, of the first X's type {}", i,
                        dtype_name(type));
      if (static_cast<int64_t>(x->shape.size()) != rank)
        return ctx.fail("X (input {}) has rank {}, the first X {}", i, x->shape.size(), rank);
      for (int64_t d = 0; d < rank; ++d)
        if (d != axis && x->shape[static_cast<size_t>(d)] != first->shape[static_cast<size_t>(d)])
          return ctx.fail("X (input {}) is {}, the first X {}: only axis {} may differ", i,
                          shape_str(x->shape), shape_str(first->shape), axis);
      out[static_cast<size_t>(axis)] += x->shape[static_cast<size_t>(axis)];
      QConcatInput in{};
      in.extent = s.outer ? shape_numel(x->shape) / s.outer : 0;
      double scale;
      if (!quant_scale_and_zero_point(ctx, i + 1, type, scale, in.x_zero_point)) return false;
      in.copy = scale == y_scale && in.x_zero_point == y_zero_point;
      if (!in.copy && !qlinear_scale(scale / y_scale, in.scale))
        return ctx.fail(
            "X_scale / Y_scale = {} / {} does not fit the integer form: it must lie "
            "in [2^-32, 2^15)",
            scale, y_scale);
      s.inputs.push_back(in);
    }
    return ctx.set_output(0, type, out);
  }

  bool evaluate(const Node& node, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = node.state_as<QConcatState>();
    if (in[2]->dtype == DataType::kInt8)
      concat<int8_t>(s, in, out[0]);
    else
      concat<uint8_t>(s, in, out[0]);
    return true;
  }

  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<QConcatState>();
    const char* type = dtype_cpp(ctx.output(0)->dtype);
    std::string inputs, sources;
    for (size_t k = 0; k < s.inputs.size(); ++k) {
      const QConcatInput& in = s.inputs[k];
      inputs += fmt::format(
          "{}{{/*extent=*/{}, /*copy=*/{}, /*x_zero_point=*/{}, {{/*multiplier=*/{}, "
          "/*shift=*/{}}}}}",
          k ? ", " : "", in.extent, in.copy ? "true" : "false", in.x_zero_point,
          in.scale.multiplier, in.scale.shift);
      sources += fmt::format("{}{}", k ? ", " : "", ctx.in(2 + 3 * k));
    }
    ctx.include("onnxc/quantize.h");
    ctx.line("static constexpr onnxc::QConcatInput qconcat_parts[] = {{{}}};", inputs);
    ctx.line("const {}* const qconcat_sources[] = {{{}}};", type, sources);
    ctx.line(
        "onnxc::qlinear_concat_ref<{}>(qconcat_sources, qconcat_parts, /*count=*/{}, /*outer=*/{}, "
        "/*y_zero_point=*/{}, {});",
        type, s.inputs.size(), s.outer, s.y_zero_point, ctx.out(0));
  }
};

const QLinearBinaryOp<AddKind> kQLinearAdd;
const QLinearBinaryOp<MulKind> kQLinearMul;
const QLinearLookupOp kQLinearLookup;
const QLinearConcatOp kQLinearConcat;

}  // namespace

std::vector<OpRegistration> qelementwise_ops() {
  return {{"com.microsoft", "QLinearAdd", 1, 1, &kQLinearAdd},
          {"com.microsoft", "QLinearConcat", 1, 1, &kQLinearConcat},
          {kOnnxcDomain, "QLinearLookup", 1, 1, &kQLinearLookup},
          {"com.microsoft", "QLinearMul", 1, 1, &kQLinearMul}};
}

}  // namespace onnxc
