// com.microsoft QOperator-format quantized ops (ORT's quantize_static, QOperator format) as
// DequantizeLinear -> float op -> QuantizeLinear (see contrib_expander.cpp), the QDQ form that
// lower-qdq turns into integer kernels where it has them. Definitions: ORT
// docs/ContribOperators.md, version 1; contrib_ops/cpu/quantization decides where it is silent.
#include <utility>
#include <vector>

#include "frontend/contrib_expand_util.h"

namespace onnxc::contrib {
namespace {

// DequantizeLinear(x, scale, zero_point) ("" zero point: absent).
std::string dq(Expansion& e, const std::string& x, const std::string& scale, const std::string& zp,
               int64_t axis = 1) {
  onnx::NodeProto* d = e.emit("DequantizeLinear", {x, scale}, {""});
  if (!zp.empty()) d->add_input(zp);
  if (axis != 1) set_attr(d, "axis", axis);
  return d->output(0);
}

void q(Expansion& e, const std::string& x, const std::string& scale, const std::string& zp,
       const std::string& y) {
  onnx::NodeProto* node = e.emit("QuantizeLinear", {x, scale}, {y});
  if (!zp.empty()) node->add_input(zp);
}

// Cast(x, to = float).
std::string cast_to_float(Expansion& e, const std::string& x) {
  onnx::NodeProto* cast = e.emit("Cast", {x}, {""});
  set_attr(cast, "to", int64_t{onnx::TensorProto::FLOAT});
  return cast->output(0);
}

// QLinearAdd / QLinearMul (contrib_ops/cpu/quantization/qlinear_binary_op.cc): inputs A,
// A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point;
// C = Quantize(Dequantize(A) op Dequantize(B)).
template <const char* kOp>
bool qlinear_binary(Expansion& e) {
  std::string a = dq(e, e.in(0), e.in(1), e.in(2)), b = dq(e, e.in(3), e.in(4), e.in(5));
  q(e, e.emit1(kOp, {a, b}), e.in(6), e.in(7), e.out(0));
  return true;
}
constexpr char kAdd[] = "Add";
constexpr char kMul[] = "Mul";

// QLinearSigmoid / QLinearLeakyRelu (contrib_ops/cpu/quantization/qlinear_lookup_table.cc):
// inputs X, X_scale, X_zero_point, Y_scale, Y_zero_point; Y = Quantize(op(Dequantize(X))).
// lower-qdq runs the chain as one 256-entry table lookup (onnxc QLinearLookup), as ORT
// does.
bool qlinear_sigmoid(Expansion& e) {
  q(e, e.emit1("Sigmoid", {dq(e, e.in(0), e.in(1), e.in(2))}), e.in(3), e.in(4), e.out(0));
  return true;
}
bool qlinear_leaky_relu(Expansion& e) {
  onnx::NodeProto* lr = e.emit("LeakyRelu", {dq(e, e.in(0), e.in(1), e.in(2))}, {""});
  set_attr(lr, "alpha", e.attr_f("alpha", 0.01f));
  q(e, lr->output(0), e.in(3), e.in(4), e.out(0));
  return true;
}

// QLinearGlobalAveragePool (contrib_ops/cpu/quantization/qlinear_global_average_pool.cc):
// inputs X, x_scale, x_zero_point, y_scale, y_zero_point; channels_last 0 only.
bool qlinear_global_average_pool(Expansion& e) {
  if (e.attr_i("channels_last", 0))
    return e.fail(
        "channels_last=1 is a layout of the machine that saved the model; save the "
        "session at optimization level `extended` for a portable model");
  std::string x = dq(e, e.in(0), e.in(1), e.in(2));
  q(e, e.emit1("GlobalAveragePool", {x}), e.in(3), e.in(4), e.out(0));
  return true;
}

// QLinearConcat (contrib_ops/cpu/quantization/qlinear_concat.cc): inputs Y_scale, Y_zero_point,
// then (X, X_scale, X_zero_point) per input; attribute axis.
bool qlinear_concat(Expansion& e) {
  if (e.n.input_size() < 5 || (e.n.input_size() - 2) % 3)
    return e.fail(
        "inputs must be Y_scale, Y_zero_point, then triples (X, X_scale, "
        "X_zero_point); got {}",
        e.n.input_size());
  std::vector<std::string> xs;
  for (int i = 2; i + 2 < e.n.input_size(); i += 3)
    xs.push_back(dq(e, e.in(i), e.in(i + 1), e.in(i + 2)));
  onnx::NodeProto* c = e.emit("Concat", xs, {""});
  set_attr(c, "axis", e.attr_i("axis", 0));
  q(e, c->output(0), e.in(0), e.in(1), e.out(0));
  return true;
}

// QLinearConv (contrib_ops/cpu/quantization/qlinear_conv.cc): the standard ONNX QLinearConv
// with a channels_last attribute; channels_last=1 (NHWC) is the saving machine's layout.
bool qlinear_conv(Expansion& e) {
  if (e.attr_i("channels_last", 0))
    return e.fail(
        "channels_last=1 is a layout of the machine that saved the model; save the "
        "session at optimization level `extended` for a portable model");
  std::vector<std::string> inputs(e.n.input().begin(), e.n.input().end());
  onnx::NodeProto* conv = e.emit("QLinearConv", inputs, {e.out(0)});
  for (const auto& a : e.n.attribute())
    if (a.name() != "channels_last") *conv->add_attribute() = a;
  return true;
}

// QGemm (contrib_ops/cpu/quantization/quant_gemm.cc): inputs A, a_scale, a_zero_point, B,
// b_scale, b_zero_point (per column of op(B) when 1-D), C (optional int32, zero point 0, scale
// alpha * a_scale * b_scale as the doc states), y_scale, y_zero_point (optional: float output
// without them); Y = alpha * (op(A') op(B') + a_scale * b_scale * C), quantized to (y_scale,
// y_zero_point) where given.
// The float output runs as ORT's kernel does, in integers: acc = C + (op(A) - a_zp)(op(B) - b_zp)
// in int32 (MatMulInteger, the transposes on the 8-bit tensors), then float(acc) times alpha *
// a_scale * b_scale (per column). The 8-bit output is the DequantizeLinear -> Gemm ->
// QuantizeLinear chain, which lower-qdq runs as an integer QLinearMatMul where its conditions
// hold (alpha 1, transA 0).
void qgemm_float_output(Expansion& e) {
  auto transposed = [&](int input, const char* attr) {
    if (!e.attr_i(attr, 0)) return e.in(input);
    onnx::NodeProto* t = e.emit("Transpose", {e.in(input)}, {""});
    set_attr(t, "perm", std::vector<int64_t>{1, 0});
    return t->output(0);
  };
  onnx::NodeProto* mm =
      e.emit("MatMulInteger", {transposed(0, "transA"), transposed(3, "transB")}, {""});
  if (e.has_in(2) || e.has_in(5)) mm->add_input(e.in(2));
  if (e.has_in(5)) mm->add_input(e.in(5));
  std::string acc = mm->output(0);
  if (e.has_in(6)) acc = e.emit1("Add", {acc, e.in(6)});
  std::string scale = e.emit1("Mul", {e.in(1), e.in(4)});
  const float alpha = e.attr_f("alpha", 1.0f);
  if (alpha != 1.0f) scale = e.emit1("Mul", {e.const_f({alpha}), scale});
  e.emit("Mul", {cast_to_float(e, acc), scale}, {e.out(0)});
}

bool qgemm(Expansion& e) {
  if (!e.has_in(7)) return qgemm_float_output(e), true;
  const int64_t trans_b = e.attr_i("transB", 0);
  const float alpha = e.attr_f("alpha", 1.0f);
  std::string a = dq(e, e.in(0), e.in(1), e.in(2));
  std::string b = dq(e, e.in(3), e.in(4), e.in(5), trans_b ? 0 : 1);
  std::string c;  // a_scale * b_scale * C
  if (e.has_in(6))
    c = e.emit1("Mul", {cast_to_float(e, e.in(6)), e.emit1("Mul", {e.in(1), e.in(4)})});
  onnx::NodeProto* gemm = e.emit("Gemm", {a, b}, {""});
  set_attr(gemm, "alpha", alpha);
  set_attr(gemm, "transA", e.attr_i("transA", 0));
  set_attr(gemm, "transB", trans_b);
  if (!c.empty()) {
    gemm->add_input(c);
    set_attr(gemm, "beta", alpha);  // C's scale is alpha * a_scale * b_scale
  }
  q(e, gemm->output(0), e.in(7), e.in(8), e.out(0));
  return true;
}

// QLinearAveragePool (contrib_ops/cpu/quantization/qlinear_pool.cc): inputs X, x_scale,
// x_zero_point, y_scale, y_zero_point and AveragePool's attributes; channels_last 0 only.
bool qlinear_average_pool(Expansion& e) {
  if (e.attr_i("channels_last", 0))
    return e.fail(
        "channels_last=1 is a layout of the machine that saved the model; save the "
        "session at optimization level `extended` for a portable model");
  onnx::NodeProto* pool = e.emit("AveragePool", {dq(e, e.in(0), e.in(1), e.in(2))}, {""});
  for (const auto& a : e.n.attribute())
    if (a.name() != "channels_last") *pool->add_attribute() = a;
  q(e, pool->output(0), e.in(3), e.in(4), e.out(0));
  return true;
}

// QLinearSoftmax (contrib_ops/cpu/quantization/qlinear_softmax.cc): inputs X, X_scale,
// x_zero_point, y_scale, y_zero_point; attributes axis (default, as ORT's kernel reads it: 1 before
// opset 13, -1 from it on) and opset, the Softmax version whose semantics apply (before 13: over
// the dims from axis on, flattened; from 13: over axis alone). Where the model's own Softmax has
// the other semantics and the axis is not the last (where both agree), the 8-bit X is first
// reshaped so that the model's Softmax over its last axis computes the op's: flattened to [N, D]
// at axis (then reshaped back), or its axis swapped with the last (then swapped back), as ORT's
// kernel does. lower-qdq runs the DequantizeLinear -> Softmax -> QuantizeLinear in integers.
bool qlinear_softmax(Expansion& e) {
  const int64_t softmax_opset = e.attr_i("opset", 13);
  const int64_t rank = e.rank(e.in(0));
  int64_t axis = e.attr_i("axis", softmax_opset < 13 ? 1 : -1);
  if (rank > 0 && axis < 0) axis += rank;
  const bool last_axis = axis == -1 || axis == rank - 1;  // both semantics agree
  if ((softmax_opset < 13) == (e.opset < 13) || last_axis) {
    onnx::NodeProto* sm = e.emit("Softmax", {dq(e, e.in(0), e.in(1), e.in(2))}, {""});
    set_attr(sm, "axis", axis);
    q(e, sm->output(0), e.in(3), e.in(4), e.out(0));
    return true;
  }
  if (rank <= 0 || axis < 0 || axis >= rank)
    return e.fail(
        "axis {} of X of rank {} (unknown rank: the Softmax semantics of opset {} "
        "differ from the model's opset {} off the last axis)",
        axis, rank, softmax_opset, e.opset);
  std::string x = e.in(0);
  onnx::NodeProto* swap = nullptr;
  if (softmax_opset < 13) {  // a model of opset >= 13: flatten from axis on
    onnx::NodeProto* flat = e.emit("Flatten", {x}, {""});
    set_attr(flat, "axis", axis);
    x = flat->output(0);
  } else {  // a model of opset < 13: swap axis and the last, as ORT's kernel transposes
    std::vector<int64_t> perm(static_cast<size_t>(rank));
    for (int64_t d = 0; d < rank; ++d) perm[static_cast<size_t>(d)] = d;
    std::swap(perm[static_cast<size_t>(axis)], perm.back());
    swap = e.emit("Transpose", {x}, {""});
    set_attr(swap, "perm", perm);
    x = swap->output(0);
  }
  onnx::NodeProto* sm = e.emit("Softmax", {dq(e, x, e.in(1), e.in(2))}, {""});
  set_attr(sm, "axis", int64_t{-1});
  onnx::NodeProto* quantize = e.emit("QuantizeLinear", {sm->output(0), e.in(3)}, {""});
  if (!e.in(4).empty()) quantize->add_input(e.in(4));
  const std::string y = quantize->output(0);
  if (swap) {
    onnx::NodeProto* back = e.emit("Transpose", {y}, {e.out(0)});
    *back->add_attribute() = swap->attribute(0);
  } else {
    e.emit("Reshape", {y, e.emit1("Shape", {e.in(0)})}, {e.out(0)});
  }
  return true;
}

// QLinearWhere (contrib_ops/cpu/quantization/qlinear_where.cc): inputs condition, X, x_scale,
// x_zero_point, Y, y_scale, y_zero_point, z_scale, z_zero_point.
bool qlinear_where(Expansion& e) {
  std::string x = dq(e, e.in(1), e.in(2), e.in(3)), y = dq(e, e.in(4), e.in(5), e.in(6));
  q(e, e.emit1("Where", {e.in(0), x, y}), e.in(7), e.in(8), e.out(0));
  return true;
}

// (A - a_zero_point) (B - b_zero_point) in int32 (MatMulInteger), scaled to float by a_scale and
// b_scale (per column of B when 1-D), plus the optional bias.
void integer_product_to_float(Expansion& e, const std::string& a, const std::string& a_scale,
                              const std::string& a_zp, const std::string& b_scale,
                              const std::string& b_zp, const std::string& bias) {
  onnx::NodeProto* mm = e.emit("MatMulInteger", {a, e.in(1)}, {""});
  if (!a_zp.empty() || !b_zp.empty()) mm->add_input(a_zp);
  if (!b_zp.empty()) mm->add_input(b_zp);
  std::string y =
      e.emit1("Mul", {cast_to_float(e, mm->output(0)), e.emit1("Mul", {a_scale, b_scale})});
  if (bias.empty())
    e.emit("Identity", {y}, {e.out(0)});
  else
    e.emit("Add", {y, bias}, {e.out(0)});
}

// MatMulIntegerToFloat (contrib_ops/cpu/quantization/matmul_integer_to_float.cc): inputs A, B,
// a_scale, b_scale, a_zero_point, b_zero_point, bias (the last three optional).
bool matmul_integer_to_float(Expansion& e) {
  integer_product_to_float(e, e.in(0), e.in(2), e.in(4), e.in(3), e.in(5), e.in(6));
  return true;
}

// DynamicQuantizeMatMul (contrib_ops/cpu/quantization/dynamic_quantize_matmul.cc): A (float) is
// quantized to uint8 at run time over its whole range, as DynamicQuantizeLinear does; inputs A,
// B, b_scale, b_zero_point, bias (the last two optional).
bool dynamic_quantize_matmul(Expansion& e) {
  onnx::NodeProto* dql = e.emit("DynamicQuantizeLinear", {e.in(0)}, {"", "", ""});
  integer_product_to_float(e, dql->output(0), dql->output(1), dql->output(2), e.in(2), e.in(3),
                           e.in(4));
  return true;
}

// Two 4-bit codes per byte, the low nibble first: (..., n) uint8 -> (..., 2n) uint8.
std::string unpack_nibbles(Expansion& e, const std::string& packed, int rank) {
  onnx::NodeProto* sixteen = e.emit("Cast", {e.const_i32({16})}, {""});
  set_attr(sixteen, "to", int64_t{onnx::TensorProto::UINT8});
  const std::string low = e.emit1("Mod", {packed, sixteen->output(0)});
  const std::string high = e.emit1("Div", {packed, sixteen->output(0)});
  onnx::NodeProto* pairs = e.emit("Concat", {unsqueeze(e, low, -1), unsqueeze(e, high, -1)}, {""});
  set_attr(pairs, "axis", int64_t{-1});
  std::vector<int64_t> shape(static_cast<size_t>(rank), 0);
  shape.back() = -1;
  return e.emit1("Reshape", {pairs->output(0), e.const_i64(shape, {rank})});
}

// MatMulNBits (contrib_ops/cpu/quantization/matmul_nbits.cc), 4-bit weights: B is uint8
// [N][blocks][block_size / 2], two codes a byte (low nibble first), each block of block_size
// codes along K with its scale (scales: N x blocks) and zero point (zero_points: uint8, two a
// byte, N x ceil(blocks / 2); or of the scales' type; 8 without); Y = A x W^T (+ bias) with
// W[n][k] = (code - zero_point) * scale. B is a constant: the dequantized W folds at compile
// time into float weights (8x the bytes of the 4-bit form).
bool matmul_nbits(Expansion& e) {
  const int64_t k = e.attr_i("K", 0), n = e.attr_i("N", 0), block = e.attr_i("block_size", 0);
  if (e.attr_i("bits", 4) != 4)
    return e.fail("bits={} is not supported (4 only)", e.attr_i("bits", 4));
  if (k <= 0 || n <= 0 || block < 16 || (block & (block - 1)))
    return e.fail("K ({}) and N ({}) must be positive and block_size ({}) a power of 2 >= 16", k, n,
                  block);
  if (e.has_in(4)) return e.fail("g_idx (input 4) is not supported");
  const int64_t blocks = (k + block - 1) / block;
  std::string codes = e.emit1("Reshape", {e.in(1), e.const_i64({n, blocks, block / 2}, {3})});
  onnx::NodeProto* w = e.emit("Cast", {unpack_nibbles(e, codes, 3)}, {""});
  set_attr(w, "to", int64_t{onnx::TensorProto::FLOAT});
  std::string zp;
  if (!e.has_in(3)) {
    zp = e.const_f({8.0f});
  } else if (const onnx::TensorProto* t = e.initializer(e.in(3));
             t && t->data_type() != onnx::TensorProto::UINT8) {
    zp = e.emit1("Reshape", {e.in(3), e.const_i64({n, blocks, 1}, {3})});
  } else {  // packed 4-bit zero points, a row of ceil(blocks / 2) bytes per column
    std::string rows = e.emit1("Reshape", {e.in(3), e.const_i64({n, (blocks + 1) / 2}, {2})});
    std::string all = unpack_nibbles(e, rows, 2);
    onnx::NodeProto* f = e.emit(
        "Cast",
        {e.emit1("Slice",
                 {all, e.const_i64({0}, {1}), e.const_i64({blocks}, {1}), e.const_i64({1}, {1})})},
        {""});
    set_attr(f, "to", int64_t{onnx::TensorProto::FLOAT});
    zp = e.emit1("Reshape", {f->output(0), e.const_i64({n, blocks, 1}, {3})});
  }
  std::string scale = e.emit1("Reshape", {e.in(2), e.const_i64({n, blocks, 1}, {3})});
  std::string deq = e.emit1("Mul", {e.emit1("Sub", {w->output(0), zp}), scale});
  std::string nk = e.emit1("Reshape", {deq, e.const_i64({n, blocks * block}, {2})});
  if (blocks * block != k)
    nk =
        e.emit1("Slice", {nk, e.const_i64({0}, {1}), e.const_i64({k}, {1}), e.const_i64({1}, {1})});
  onnx::NodeProto* kn = e.emit("Transpose", {nk}, {""});
  set_attr(kn, "perm", std::vector<int64_t>{1, 0});
  if (e.has_in(5))
    e.emit("Add", {e.emit1("MatMul", {e.in(0), kn->output(0)}), e.in(5)}, {e.out(0)});
  else
    e.emit("MatMul", {e.in(0), kn->output(0)}, {e.out(0)});
  return true;
}

}  // namespace

std::vector<ExpandRule> qlinear_rules() {
  return {{"QLinearAdd", qlinear_binary<kAdd>},
          {"QLinearMul", qlinear_binary<kMul>},
          {"QLinearSigmoid", qlinear_sigmoid},
          {"QLinearLeakyRelu", qlinear_leaky_relu},
          {"QLinearGlobalAveragePool", qlinear_global_average_pool},
          {"QLinearConcat", qlinear_concat},
          {"QLinearConv", qlinear_conv},
          {"QGemm", qgemm},
          {"QLinearAveragePool", qlinear_average_pool},
          {"QLinearSoftmax", qlinear_softmax},
          {"QLinearWhere", qlinear_where},
          {"MatMulIntegerToFloat", matmul_integer_to_float},
          {"DynamicQuantizeMatMul", dynamic_quantize_matmul},
          {"MatMulNBits", matmul_nbits}};
}

}  // namespace onnxc::contrib
