// lower-qdq: runs the quantized core of a QDQ graph in integers. The pattern quantization tools
// and exporters write around each convolution and matrix product,
//   DequantizeLinear(xq) --+
//   DequantizeLinear(wq) --+-- Conv|MatMul|Gemm -- [Add(bias)] -- [Relu] -- QuantizeLinear -> yq
//   [bias] ----------------+
// becomes one QLinearConv / QLinearMatMul(xq, x_scale, x_zp, wq, w_scale, w_zp, y_scale, y_zp,
// bias) {fused_activation="Relu"} writing yq (and DequantizeLinear -> GlobalAveragePool /
// AveragePool -> QuantizeLinear one com.microsoft QLinearGlobalAveragePool / QLinearAveragePool,
// ops/quant/qpool.cpp; the sum or the product of two DequantizeLinear outputs [-> Relu] ->
// QuantizeLinear one com.microsoft QLinearAdd or QLinearMul, ops/quant/qelementwise.cpp;
// DequantizeLinear -> a unary elementwise op (Sigmoid, Tanh, HardSwish, LeakyRelu, Gelu, Clip,
// ...) [-> Relu] -> QuantizeLinear one onnxc QLinearLookup reading a 256-entry table that the
// chain's own nodes compute at compile time, equal to the float graph bit for bit; Concat,
// MaxPool and the reshaping ops between a DequantizeLinear and a QuantizeLinear of one scale run
// on the 8-bit tensors, and a Concat of DequantizeLinears of other scales or zero points than its
// QuantizeLinear's becomes one com.microsoft QLinearConcat, each such input requantized in
// integers; DequantizeLinear -> Softmax -> QuantizeLinear one com.microsoft QLinearSoftmax,
// ops/quant/qsoftmax.cpp, computed as ONNX Runtime's kernel computes it, the Softmax's opset
// kept for its semantics; DequantizeLinear(x), DequantizeLinear(y) -> Where -> QuantizeLinear a
// Where on the 8-bit tensors, an operand of other scale or zero point than the output's
// requantized by a QLinearLookup table, as QLinearWhere runs in ORT):
// int8/uint8 products accumulated in int32 and requantized in integers (onnxc/quantize.h), where
// the float graph dequantizes every weight and activation. The float bias b becomes round(b /
// (x_scale * w_scale)) in int32, the unit of the accumulator; a fused Relu clamps the output at
// y_zero_point, which is exactly quantize(relu(v)). Results agree with the float graph within one
// step of y_scale (the float graph rounds its sums in float, the integer one rounds only once).
//
// Conditions: xq is int8/uint8, per tensor; wq is a constant int8/uint8 tensor, per tensor or per
// output channel (Conv: axis 0; MatMul B [K, N]: axis 1; Gemm B: axis 1, or axis 0 with transB,
// whose constant is then transposed), or (MatMul, Gemm without transB) a run-time tensor per
// tensor, as in quantized attention; scales and zero points are constants; the bias is a float
// constant (or a DequantizeLinear of constants) with one value per output channel; Gemm has
// alpha = beta = 1 and transA = 0; every intermediate float value has one user; y_scale and
// y_zero_point are single constants. Add and Mul: equal shapes, one 8-bit type, scales that fit
// the kernels' integer forms. Lookups: the op's other inputs (Clip's bounds) are constants and
// its handler evaluates them. Pools and Concat: the output of the input's (inputs') 8-bit type,
// no Relu between; AveragePool undilated with 1 to 3 spatial dims; the ratios x_scale / y_scale
// (divided by each window size for the pool) fit qlinear_scale's integer form. Softmax and Where:
// the output of the inputs' 8-bit type, no Relu between; Softmax's floor(1 / y_scale) times its
// largest exp value finite in float (ORT overflows there and writes the type's maximum).
// It does NOT lower: blocked quantization, per-axis activations, float8/int4 types, constant
// B of other ranks than 2, reshapes other than one Flatten or Reshape between A's
// DequantizeLinear and the product (moved before it), other activations than Relu after a product,
// QuantizeLinear with a `precision`, ConvTranspose or ConvInteger-style graphs without the output
// QuantizeLinear, broadcasting Add/Mul, dilated AveragePools, LpPool, LogSoftmax, Hardmax, a
// Where with a float constant operand (not a DequantizeLinear), and patterns inside
// If/Loop/Scan bodies (it walks the top-level graph only).
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "ops/epilogue.h"
#include "ops/folding.h"
#include "ops/op.h"
#include "ops/quant/qelementwise.h"
#include "ops/quant/qsoftmax.h"
#include "passes/fusion_util.h"
#include "passes/passes.h"

namespace onnxc {
namespace {

constexpr const char* kPass = "lower-qdq";

bool is_int8(DataType t) {
  return t == DataType::kInt8 || t == DataType::kUint8;
}

bool is_single(const Value* v) {
  return v && v->numel() == 1 && v->shape.size() <= 1;
}

using fusion::float_attr;
using fusion::int_attr;

// v = DequantizeLinear(q, scale, zero_point) of an int8/uint8 q with constant parameters, per
// tensor or, when `channels` > 0, one value per index of q's axis `axis` (channels of them).
struct Dequant {
  Value *q = nullptr, *scale = nullptr, *zero_point = nullptr;  // zero_point may be null
};

bool dequant_of(const Value* v, int64_t channels, int64_t axis, Dequant& d) {
  const Node* n = v ? v->producer : nullptr;
  if (!fusion::is_op(n, "DequantizeLinear") || v->dtype != DataType::kFloat ||
      int_attr(*n, "block_size", 0))
    return false;
  d = {n->input(0), n->input(1), n->input(2)};
  if (!d.q || !is_int8(d.q->dtype) || !d.scale || !d.scale->is_constant() ||
      d.scale->dtype != DataType::kFloat)
    return false;
  if (d.zero_point && (!d.zero_point->is_constant() || d.zero_point->dtype != d.q->dtype ||
                       d.zero_point->shape != d.scale->shape))
    return false;
  if (is_single(d.scale)) return true;
  const int64_t rank = static_cast<int64_t>(d.q->shape.size());
  int64_t a = int_attr(*n, "axis", 1);
  if (a < 0) a += rank;
  return channels > 0 && a == axis && d.scale->shape == Shape{channels};
}

// The float values of a constant bias with `channels` values: a float constant, or a
// DequantizeLinear of constants (per tensor or along its only axis).
bool bias_values(const Value* v, int64_t channels, std::vector<double>& out) {
  out.clear();
  if (!v || v->numel() != channels) return false;
  if (v->is_constant() && v->dtype == DataType::kFloat) {
    for (int64_t c = 0; c < channels; ++c) out.push_back(v->constant->double_at(c));
    return true;
  }
  const Node* n = v->producer;  // DequantizeLinear of an int32 (or int8) constant
  if (!fusion::is_op(n, "DequantizeLinear") || v->dtype != DataType::kFloat) return false;
  const Value *q = n->input(0), *scale = n->input(1), *zp = n->input(2);
  if (!q || !q->is_constant() || !scale || !scale->is_constant() ||
      scale->dtype != DataType::kFloat ||
      (zp && (!zp->is_constant() || (!is_single(zp) && zp->numel() != channels))) ||
      (!is_single(scale) && scale->numel() != channels) ||
      (q->dtype != DataType::kInt32 && !is_int8(q->dtype)))
    return false;
  for (int64_t c = 0; c < channels; ++c) {
    // The scale and the zero point are each read per their own size: one value, or one per
    // channel.
    const double z = zp ? zp->constant->double_at(is_single(zp) ? 0 : c) : 0.0;
    const float s = static_cast<float>(scale->constant->double_at(is_single(scale) ? 0 : c));
    out.push_back(static_cast<float>(static_cast<float>(q->constant->double_at(c) - z) * s));
  }
  return true;
}

// The int32 bias round(b / (x_scale * w_scale[c])), or null when a value overflows int32.
Value* quantized_bias(Graph& g, const std::vector<double>& b, const Value* x_scale,
                      const Value* w_scale, const std::string& base) {
  Tensor t = Tensor::zeros(DataType::kInt32, {static_cast<int64_t>(b.size())});
  const double xs = x_scale->constant->double_at(0);
  for (size_t c = 0; c < b.size(); ++c) {
    const double ws =
        w_scale->constant->double_at(is_single(w_scale) ? 0 : static_cast<int64_t>(c));
    const double q = std::nearbyint(b[c] / (static_cast<double>(static_cast<float>(xs * ws))));
    if (!(std::fabs(q) <= std::numeric_limits<int32_t>::max())) return nullptr;
    t.as<int32_t>()[c] = static_cast<int32_t>(q);
  }
  return fusion::add_constant(g, base, std::move(t));
}

Value* zero_point_or_zero(Graph& g, Value* zp, DataType dtype, const Value* scale,
                          const std::string& base) {
  return zp ? zp : fusion::add_constant(g, base, Tensor::zeros(dtype, scale->shape));
}

// What follows the float product P up to the QuantizeLinear: [Add(P, bias)] [Relu] Q.
struct Tail {
  const Node* add = nullptr;
  const Node* relu = nullptr;
  const Node* quantize = nullptr;
};

bool tail_of(const Graph& g, const Value* p, bool allow_add, Tail& t) {
  const Value* v = p;
  Node* u = fusion::sole_user(g, v);
  if (allow_add && fusion::is_op(u, "Add") && u->output(0) && u->output(0)->shape == p->shape) {
    t.add = u;
    v = u->output(0);
    u = fusion::sole_user(g, v);
  }
  if (fusion::is_op(u, "Relu") && u->input(0) == v && u->output(0)) {
    t.relu = u;
    v = u->output(0);
    u = fusion::sole_user(g, v);
  }
  if (!fusion::is_op(u, "QuantizeLinear") || u->input(0) != v || !u->output(0) ||
      !is_int8(u->output(0)->dtype) || u->attr("precision") || int_attr(*u, "block_size", 0))
    return false;
  const Value *ys = u->input(1), *yzp = u->input(2);
  if (!is_single(ys) || !ys->is_constant() || ys->dtype != DataType::kFloat) return false;
  if (yzp && (!is_single(yzp) || !yzp->is_constant())) return false;
  t.quantize = u;
  return true;
}

// Marks n's output as clamped at its zero point (the tail's Relu, folded in).
void fuse_relu(Node& n, PassContext& stats) {
  Attribute relu;
  relu.kind = Attribute::Kind::kString;
  relu.s = "Relu";
  n.attributes[kFusedActivation] = relu;
  stats.count("Relus fused");
}

// The integer op a float node becomes, and the counter that says so.
struct IntegerOp {
  const char* op;
  const char* domain;  // "" (ai.onnx) or "com.microsoft"
  int opset;
  const char* counter;   // "Convs lowered to integers"
  bool drop_attributes;  // the float node's attributes are folded into the inputs (Gemm's)
};

// Node n, rewritten to compute the tail's result, writes the tail's QuantizeLinear output; the
// tail's nodes go. Counts `counter`; false when n could not be re-inferred.
bool take_tail(Graph& g, Node& n, const Tail& t, const char* counter, const Target& target,
               PassContext& stats) {
  fusion::take_output(n, n.output(0), t.quantize->output(0));
  std::vector<const Node*> dead = {t.quantize};
  if (t.add) dead.push_back(t.add);
  if (t.relu) dead.push_back(t.relu);
  fusion::erase_nodes(g, dead);
  stats.count(counter);
  return fusion::reinfer(n, target, stats.diag(), kPass);
}

// Rewrites node n into `to` with `inputs`, the tail's Relu folded in (take_tail).
bool rewrite(Graph& g, Node& n, const IntegerOp& to, std::vector<Value*> inputs, const Tail& t,
             const Target& target, PassContext& stats) {
  if (!fusion::retarget(n, to.op, to.opset, to.domain)) return false;
  n.inputs = std::move(inputs);
  if (to.drop_attributes) n.attributes.clear();
  if (t.relu) fuse_relu(n, stats);
  return take_tail(g, n, t, to.counter, target, stats);
}

// The activation operand, per tensor, shared by both rewrites.
bool activation_of(const Value* x, Dequant& dx) {
  return dequant_of(x, 0, 0, dx) && is_single(dx.scale);
}

// The QLinear node's inputs (a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
// y_zero_point[, bias]), absent zero points made explicit; `names` name the operands ("xw": x, w).
std::vector<Value*> qlinear_inputs(Graph& g, const Node& n, const char* names, Value* a,
                                   const Dequant& da, Value* b, const Dequant& db, const Tail& t,
                                   Value* bias) {
  auto zero_point = [&](const Dequant& d, char operand) {
    return zero_point_or_zero(g, d.zero_point, d.q->dtype, d.scale,
                              n.name + "_" + operand + "_zero_point");
  };
  Value* ys = t.quantize->input(1);
  std::vector<Value*> in = {
      a,
      da.scale,
      zero_point(da, names[0]),
      b,
      db.scale,
      zero_point(db, names[1]),
      ys,
      zero_point_or_zero(g, t.quantize->input(2), t.quantize->output(0)->dtype, ys,
                         n.name + "_y_zero_point")};
  if (bias) in.push_back(bias);
  return in;
}

bool lower_conv(Graph& g, Node& n, const Target& target, PassContext& stats, bool& ok) {
  const Value *x = n.input(0), *w = n.input(1), *y = n.output(0);
  if (!x || !w || !y || n.input(3) || w->shape.size() < 3) return false;
  const int64_t c_out = w->shape[0];
  Dequant dx, dw;
  Tail t;
  if (!activation_of(x, dx) || !dequant_of(w, c_out, 0, dw) || !dw.q->is_constant() ||
      !tail_of(g, y, false, t))
    return false;
  Value* bias = nullptr;
  if (n.input(2)) {
    std::vector<double> b;
    if (!bias_values(n.input(2), c_out, b) ||
        !(bias = quantized_bias(g, b, dx.scale, dw.scale, n.name + "_bias_q")))
      return false;
  }
  const IntegerOp conv = {"QLinearConv", "", n.opset, "Convs lowered to integers", false};
  ok = rewrite(g, n, conv, qlinear_inputs(g, n, "xw", dx.q, dx, dw.q, dw, t, bias), t, target,
               stats);
  return true;
}

// B [N, K] transposed to [K, N] (int8/uint8 constant).
Value* transposed(Graph& g, const Value* b, const std::string& base) {
  const int64_t n = b->shape[0], k = b->shape[1];
  Tensor t = Tensor::zeros(b->dtype, {k, n});
  const uint8_t* src = b->constant->data.data();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < k; ++j) t.data[static_cast<size_t>(j * n + i)] = src[i * k + j];
  return fusion::add_constant(g, base, std::move(t));
}

bool lower_matmul(Graph& g, Node& n, const Target& target, PassContext& stats, bool& ok) {
  const bool gemm = n.op_type == "Gemm";
  const Value *a = n.input(0), *b = n.input(1), *y = n.output(0);
  if (!a || !b || !y || b->shape.size() < 2 || a->shape.size() < 2 || n.input(3)) return false;
  const int64_t b_rank = static_cast<int64_t>(b->shape.size());
  if (!gemm && n.input(2)) return false;  // a biased MatMul is fuse-matmul-add's, later
  const bool trans_b = gemm && int_attr(n, "transB", 0);
  if (gemm && (int_attr(n, "transA", 0) || float_attr(n, "alpha", 1.0f) != 1.0f ||
               (n.input(2) && float_attr(n, "beta", 1.0f) != 1.0f)))
    return false;
  const int64_t cols = b->shape[static_cast<size_t>(trans_b ? b_rank - 2 : b_rank - 1)];
  Dequant da, db;
  Tail t;
  // A Flatten or Reshape between the DequantizeLinear and A moves before it: per tensor, the
  // dequantization of a reshaped tensor is the reshaped dequantization.
  Node* reshape = a->producer;
  if (!(fusion::is_op(reshape, "Flatten") || fusion::is_op(reshape, "Reshape")) ||
      fusion::sole_user(g, a) != &n || !activation_of(reshape->input(0), da))
    reshape = nullptr;
  if (reshape) a = reshape->input(0);
  if (!activation_of(a, da) || !dequant_of(b, cols, trans_b ? b_rank - 2 : b_rank - 1, db) ||
      !tail_of(g, y, !gemm, t))
    return false;
  // B: a 2-D constant (per tensor or per column), or a run-time tensor per tensor, not transposed.
  if (db.q->is_constant() ? b_rank != 2 : trans_b || !is_single(db.scale)) return false;
  std::vector<double> bias_f;
  const Value* bias_v = gemm ? n.input(2) : t.add ? fusion::other_operand(*t.add, y) : nullptr;
  if (bias_v) {
    std::vector<double> row;
    if (bias_v->is_constant() &&
        fusion::per_channel_constant(bias_v, y->shape, y->shape.size() - 1, row))
      bias_f = row;
    else if (!bias_values(bias_v, cols, bias_f))
      return false;
  }
  Value* bias = nullptr;
  if (bias_v && !(bias = quantized_bias(g, bias_f, da.scale, db.scale, n.name + "_bias_q")))
    return false;
  Value* bq = trans_b ? transposed(g, db.q, n.name + "_b_t") : db.q;
  Value* aq = da.q;
  if (reshape) {  // now reshapes the quantized tensor
    reshape->inputs[0] = da.q;
    aq = reshape->output(0);
    aq->dtype = da.q->dtype;
    if (!fusion::reinfer(*reshape, target, stats.diag(), kPass)) return ok = false, true;
    stats.count("reshapes moved before a DequantizeLinear");
  }
  const IntegerOp product = {"QLinearMatMul", "", n.opset, "matrix products lowered to integers",
                             true};
  ok =
      rewrite(g, n, product, qlinear_inputs(g, n, "ab", aq, da, bq, db, t, bias), t, target, stats);
  return true;
}

// The single constant value of v as a double; 0 for an absent zero point.
double single_value(const Value* v) {
  return v ? v->constant->double_at(0) : 0.0;
}

// DequantizeLinear(xq) (per tensor) -> n -> QuantizeLinear of xq's type, no Relu between: the
// chain a pool or a Softmax runs on the 8-bit tensors.
bool same_type_chain(const Graph& g, const Node& n, Dequant& dx, Tail& t) {
  const Value *x = n.input(0), *y = n.output(0);
  return x && y && activation_of(x, dx) && tail_of(g, y, false, t) && !t.relu &&
         t.quantize->output(0)->dtype == dx.q->dtype;
}

// The com.microsoft QLinear op's inputs for such a chain: xq, x_scale, x_zero_point, y_scale,
// y_zero_point (absent zero points as constant zeros).
std::vector<Value*> chain_inputs(Graph& g, const Node& n, const Dequant& dx, const Tail& t) {
  Value* ys = t.quantize->input(1);
  return {dx.q, dx.scale,
          zero_point_or_zero(g, dx.zero_point, dx.q->dtype, dx.scale, n.name + "_x_zero_point"), ys,
          zero_point_or_zero(g, t.quantize->input(2), dx.q->dtype, ys, n.name + "_y_zero_point")};
}

// DequantizeLinear(xq) -> GlobalAveragePool / AveragePool -> QuantizeLinear(y_scale, y_zp) of
// xq's type becomes com.microsoft QLinearGlobalAveragePool / QLinearAveragePool(xq, x_scale, x_zp,
// y_scale, y_zp) {AveragePool's attributes}: the pooled features of a quantized CNN stay in
// integers (one rounding where the float graph rounds the mean, then the quantization: within
// one step of it).
bool lower_pool(Graph& g, Node& n, const Target& target, PassContext& stats, bool& ok) {
  Dequant dx;
  Tail t;
  if (!same_type_chain(g, n, dx, t)) return false;
  Value* ys = t.quantize->input(1);
  std::vector<Value*> inputs = chain_inputs(g, n, dx, t);
  const bool global = n.op_type == "GlobalAveragePool";
  if (!global) {
    // AveragePool: com.microsoft QLinearAveragePool takes its attributes but no dilations, and
    // each window divisor's multiplier x_scale / (y_scale * count) must fit the integer form (the
    // divisors lie in [1, the kernel's size]; the ratio falls as the count grows).
    const Attribute* dilations = n.attr("dilations");
    if (dilations && std::any_of(dilations->ints.begin(), dilations->ints.end(),
                                 [](int64_t d) { return d != 1; }))
      return false;
    const Attribute* kernel = n.attr("kernel_shape");
    const size_t rank = n.input(0)->shape.size();
    if (!kernel || rank < 3 || rank > 5) return false;
    double size = 1;
    for (int64_t k : kernel->ints) size *= static_cast<double>(k);
    const double ratio = static_cast<double>(static_cast<float>(single_value(dx.scale))) /
                         static_cast<float>(single_value(ys));
    QScale m;
    if (!qlinear_scale(ratio, m) || !qlinear_scale(ratio / size, m)) return false;
    n.attributes.erase("dilations");
  }
  const IntegerOp pool = {global ? "QLinearGlobalAveragePool" : "QLinearAveragePool",
                          "com.microsoft", 1, "pools lowered to integers", false};
  ok = rewrite(g, n, pool, std::move(inputs), t, target, stats);
  return true;
}

// DequantizeLinear(aq) + / * DequantizeLinear(bq) [-> Relu] -> QuantizeLinear, all of one shape
// and one 8-bit type, becomes com.microsoft QLinearAdd / QLinearMul(aq, a_scale, a_zp, bq,
// b_scale, b_zp, y_scale, y_zp) {fused_activation="Relu"}: a quantized network's residual
// connections and gates stay in integers (onnxc::qlinear_add_ref, qlinear_mul_ref: one rounding,
// within one step of the float graph). Scales that do not fit the integer form
// (qlinear_add_params, qlinear_mul_params) stay in float.
template <typename Params>
using MakeParams = bool (*)(double, double, double, int32_t, int32_t, int32_t, DataType, bool,
                            Params&);

template <typename Params>
bool lower_binary(Graph& g, Node& n, const Target& target, PassContext& stats, bool& ok,
                  MakeParams<Params> make_params, const IntegerOp& to) {
  const Value *a = n.input(0), *b = n.input(1), *y = n.output(0);
  Dequant da, db;
  Tail t;
  if (!a || !b || !y || a->shape != y->shape || b->shape != y->shape || !activation_of(a, da) ||
      !activation_of(b, db) || db.q->dtype != da.q->dtype || !tail_of(g, y, false, t) ||
      t.quantize->output(0)->dtype != da.q->dtype)
    return false;
  auto zero_point = [](const Value* z) { return static_cast<int32_t>(single_value(z)); };
  Params p;
  if (!make_params(single_value(da.scale), single_value(db.scale),
                   single_value(t.quantize->input(1)), zero_point(da.zero_point),
                   zero_point(db.zero_point), zero_point(t.quantize->input(2)), da.q->dtype,
                   t.relu != nullptr, p))
    return false;
  ok = rewrite(g, n, to, qlinear_inputs(g, n, "ab", da.q, da, db.q, db, t, nullptr), t, target,
               stats);
  return true;
}

bool lower_add(Graph& g, Node& n, const Target& target, PassContext& stats, bool& ok) {
  const IntegerOp add = {"QLinearAdd", "com.microsoft", 1, "Adds lowered to integers", false};
  return lower_binary<QAddParams>(g, n, target, stats, ok, &qlinear_add_params, add);
}

bool lower_mul(Graph& g, Node& n, const Target& target, PassContext& stats, bool& ok) {
  const IntegerOp mul = {"QLinearMul", "com.microsoft", 1, "Muls lowered to integers", false};
  return lower_binary<QMulParams>(g, n, target, stats, ok, &qlinear_mul_params, mul);
}

// table[k] = Q(U(DQ(v))) for the 8-bit value v of xq's type whose byte is k, computed by the
// chain's own nodes (DequantizeLinear, the op [, Relu], QuantizeLinear): each copied into a
// scratch graph reading the previous one's output (its other inputs, constants, as they are),
// inferred and evaluated by its handler, as fold-constants would. So the table holds what the
// float graph computes, bit for bit. False when a handler refuses or cannot evaluate.
bool lookup_table(const std::vector<const Node*>& chain, const Value* xq, const Target& target,
                  Tensor& table) {
  Graph scratch;
  Shape shape(std::max<size_t>(xq->shape.size(), 1), 1);  // xq's rank: the nodes' axes fit it
  shape.back() = 256;
  Tensor bytes = Tensor::zeros(xq->dtype, shape);
  for (size_t k = 0; k < 256; ++k) bytes.data[k] = static_cast<uint8_t>(k);
  Value* v = scratch.add_constant("bytes", std::move(bytes));
  Diagnostics diag;
  for (const Node* n : chain) {
    std::unique_ptr<Node> copy = fusion::clone_op(*n);
    copy->handler = n->handler;
    copy->inputs[0] = v;
    v = scratch.add_value(n->name + "/table");
    copy->outputs = {v};
    Node& c = *scratch.add_node(std::move(copy));
    v->producer = &c;
    InferContext ctx(c, diag, target);
    if (!c.handler || !c.handler->infer(ctx) || !fold_node(c) || !v->is_constant()) return false;
  }
  table = *v->constant;
  table.shape = {256};
  return true;
}

// DequantizeLinear(xq) -> U [-> Relu] -> QuantizeLinear -> yq, U a unary elementwise op
// (kRules' lower_lookup rows) whose other inputs are constants, becomes com.microsoft
// QLinearLookup(xq, table) with the 256 outputs computed at compile time (lookup_table): one load
// per element, equal to the float graph (QLinearSigmoid and QLinearLeakyRelu, which the importer
// expands to this chain, included).
bool lower_lookup(Graph& g, Node& n, const Target& target, PassContext& stats, bool& ok) {
  const Value *x = n.input(0), *y = n.output(0);
  Dequant dx;
  Tail t;
  if (!x || !y || n.outputs.size() != 1 || y->shape != x->shape || !activation_of(x, dx) ||
      !tail_of(g, y, false, t))
    return false;
  for (size_t i = 1; i < n.inputs.size(); ++i)
    if (n.inputs[i] && !n.inputs[i]->is_constant()) return false;
  std::vector<const Node*> chain = {x->producer, &n};
  if (t.relu) chain.push_back(t.relu);
  chain.push_back(t.quantize);
  Tensor table;
  if (!lookup_table(chain, dx.q, target, table) ||
      !fusion::retarget(n, "QLinearLookup", 1, kOnnxcDomain))
    return false;
  n.inputs = {dx.q, fusion::add_constant(g, n.name + "_table", std::move(table))};
  n.attributes.clear();
  ok = take_tail(g, n, t, "unary ops lowered to lookup tables", target, stats);
  return true;
}

// Concat, MaxPool, Transpose, Reshape, Flatten, Squeeze and Unsqueeze only move or select values.
// Between DequantizeLinears and a QuantizeLinear of one type, scale and zero point they commute
// with the quantization exactly (it is monotonic, so it commutes with max; Q(DQ(q)) is q), so
// they run on the 8-bit tensors and the float tensor between goes. A Concat of other scales is
// lower_concat's.
bool lower_value_moving(Graph& g, Node& n, const Target& target, PassContext& stats, bool& ok) {
  const Value* y = n.output(0);
  if (!y || n.outputs.size() != 1 || (n.op_type == "MaxPool" && n.opset < 12)) return false;
  Tail t;
  if (!tail_of(g, y, false, t) || t.relu) return false;
  const DataType type = t.quantize->output(0)->dtype;
  const double scale = single_value(t.quantize->input(1));
  const double zero_point = single_value(t.quantize->input(2));
  const size_t data_inputs = n.op_type == "Concat" ? n.inputs.size() : 1;
  std::vector<Value*> quantized;
  for (size_t i = 0; i < data_inputs; ++i) {
    Dequant d;
    if (!activation_of(n.input(i), d) || d.q->dtype != type || single_value(d.scale) != scale ||
        single_value(d.zero_point) != zero_point)
      return false;
    quantized.push_back(d.q);
  }
  for (size_t i = 0; i < data_inputs; ++i) n.inputs[i] = quantized[i];
  ok = take_tail(g, n, t, "value-moving ops run on 8-bit tensors", target, stats);
  return true;
}

// DequantizeLinear(x_i) for each input -> Concat -> QuantizeLinear, all of one 8-bit type, where
// some input's scale or zero point differs from the output's (else lower_value_moving's), becomes
// com.microsoft QLinearConcat(y_scale, y_zp, x_1, x_1_scale, x_1_zp, ...) {axis}: each input of
// the output's scale and zero point copied, the others requantized in integers
// (onnxc::qlinear_concat_ref: equal to the float graph wherever its arithmetic is exact, within
// one step of it always). Ratios x_scale / y_scale that do not fit the integer form
// (qlinear_scale) stay in float.
bool lower_concat(Graph& g, Node& n, const Target& target, PassContext& stats, bool& ok) {
  const Value* y = n.output(0);
  Tail t;
  if (!y || n.outputs.size() != 1 || n.inputs.empty() || !tail_of(g, y, false, t) || t.relu)
    return false;
  const DataType type = t.quantize->output(0)->dtype;
  Value* ys = t.quantize->input(1);
  const double y_scale = static_cast<float>(single_value(ys));
  std::vector<Value*> inputs = {
      ys, zero_point_or_zero(g, t.quantize->input(2), type, ys, n.name + "_y_zero_point")};
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    Dequant d;
    QScale m;
    if (!activation_of(n.input(i), d) || d.q->dtype != type ||
        !(static_cast<float>(single_value(d.scale)) > 0) ||
        !qlinear_scale(static_cast<float>(single_value(d.scale)) / y_scale, m))
      return false;
    inputs.insert(inputs.end(),
                  {d.q, d.scale,
                   zero_point_or_zero(g, d.zero_point, type, d.scale,
                                      n.name + "_x" + std::to_string(i) + "_zero_point")});
  }
  const IntegerOp concat = {"QLinearConcat", "com.microsoft", 1, "Concats requantized in integers",
                            false};
  ok = rewrite(g, n, concat, std::move(inputs), t, target, stats);
  return true;
}

// DequantizeLinear(xq) -> Softmax -> QuantizeLinear(y_scale, y_zero_point) of xq's type, per
// tensor, becomes com.microsoft QLinearSoftmax(xq, x_scale, x_zp, y_scale, y_zp) {axis, opset:
// the Softmax's own, so that opsets before 13 keep their semantics (over the dims from axis on)}:
// a quantized attention's probabilities stay in integers, computed as ONNX Runtime's kernel
// computes them (ops/quant/qsoftmax.cpp: an exp table built here, float sums, the output scale
// rounded to 1 / floor(1 / y_scale)), within one step of the float graph. Where ORT's arithmetic
// overflows (qlinear_softmax_plan refuses) the float graph stays.
bool lower_softmax(Graph& g, Node& n, const Target& target, PassContext& stats, bool& ok) {
  Dequant dx;
  Tail t;
  if (!same_type_chain(g, n, dx, t)) return false;
  Value* ys = t.quantize->input(1);
  const int64_t axis = int_attr(n, "axis", n.opset < 13 ? 1 : -1);
  QSoftmaxPlan plan;
  if (!qlinear_softmax_plan(n.input(0)->shape, axis, n.opset,
                            static_cast<float>(single_value(dx.scale)),
                            static_cast<float>(single_value(ys)), plan))
    return false;
  std::vector<Value*> inputs = chain_inputs(g, n, dx, t);
  for (const auto& [name, value] : {std::pair<const char*, int64_t>{"axis", axis},
                                    std::pair<const char*, int64_t>{"opset", n.opset}}) {
    Attribute a;
    a.kind = Attribute::Kind::kInt;
    a.i = value;
    n.attributes[name] = a;
  }
  const IntegerOp softmax = {"QLinearSoftmax", "com.microsoft", 1, "Softmaxes lowered to integers",
                             false};
  ok = rewrite(g, n, softmax, std::move(inputs), t, target, stats);
  return true;
}

// A new onnxc QLinearLookup(xq, table) node just before `before`, its 8-bit output returned (null
// when it could not be inferred: ok is then false).
Value* insert_lookup(Graph& g, const Node& before, Value* xq, Tensor table, const Target& target,
                     PassContext& stats, bool& ok) {
  auto node = std::make_unique<Node>();
  node->name = before.name + "_requantize_" + xq->name;
  if (!fusion::retarget(*node, "QLinearLookup", 1, kOnnxcDomain)) return ok = false, nullptr;
  Value* out = fusion::add_value(g, node->name);
  node->inputs = {xq, fusion::add_constant(g, node->name + "_table", std::move(table))};
  node->outputs = {out};
  out->producer = node.get();
  Node& lookup = **g.nodes.insert(
      g.nodes.begin() + static_cast<std::ptrdiff_t>(fusion::position(g, &before)), std::move(node));
  ok = fusion::reinfer(lookup, target, stats.diag(), kPass);
  return ok ? out : nullptr;
}

// DequantizeLinear(xq) and DequantizeLinear(yq) -> Where(condition, ., .) -> QuantizeLinear, all
// of one 8-bit type and per tensor, becomes Where(condition, xq', yq') on the 8-bit tensors, as
// com.microsoft QLinearWhere runs in ONNX Runtime: xq' is xq where its scale and zero point are
// the output's (Q(DQ(q)) is q), else an onnxc QLinearLookup of xq whose 256-entry table the
// DequantizeLinear and the QuantizeLinear compute themselves (lookup_table): equal to the float
// graph, bit for bit.
bool lower_where(Graph& g, Node& n, const Target& target, PassContext& stats, bool& ok) {
  const Value* y = n.output(0);
  Tail t;
  if (!y || n.inputs.size() != 3 || !n.input(0) || !tail_of(g, y, false, t) || t.relu) return false;
  const DataType type = t.quantize->output(0)->dtype;
  const double scale = single_value(t.quantize->input(1));
  const double zero_point = single_value(t.quantize->input(2));
  Value* operands[2];
  Tensor tables[2];
  bool copy[2];
  for (size_t k = 0; k < 2; ++k) {
    Dequant d;
    if (!activation_of(n.input(k + 1), d) || d.q->dtype != type) return false;
    operands[k] = d.q;
    copy[k] = single_value(d.scale) == scale && single_value(d.zero_point) == zero_point;
    if (!copy[k] && !lookup_table({n.input(k + 1)->producer, t.quantize}, d.q, target, tables[k]))
      return false;
  }
  for (size_t k = 0; k < 2; ++k)
    if (!copy[k] &&
        !(operands[k] = insert_lookup(g, n, operands[k], std::move(tables[k]), target, stats, ok)))
      return true;
  if (!copy[0] || !copy[1]) stats.count("Where operands requantized by lookup tables");
  n.inputs = {n.input(0), operands[0], operands[1]};
  ok = take_tail(g, n, t, "Wheres run on 8-bit tensors", target, stats);
  return true;
}

// Concat: on the 8-bit tensors between equal scales, else as QLinearConcat.
bool lower_any_concat(Graph& g, Node& n, const Target& target, PassContext& stats, bool& ok) {
  return lower_value_moving(g, n, target, stats, ok) || lower_concat(g, n, target, stats, ok);
}

// Each ai.onnx op lower-qdq rewrites, with its rule. A rule returns whether it rewrote the node
// (ok false: the rewritten node failed to infer, which stops the pass).
using LowerRule = bool (*)(Graph&, Node&, const Target&, PassContext&, bool&);
struct OpRule {
  const char* op;
  LowerRule lower;
};

// The unary elementwise ops map each value to one value (and their constant attributes and
// inputs), so the 256 values of an 8-bit input give every output: lower_lookup's. Each must
// `evaluate`.
constexpr OpRule kRules[] = {{"Conv", lower_conv},
                             {"MatMul", lower_matmul},
                             {"Gemm", lower_matmul},
                             {"GlobalAveragePool", lower_pool},
                             {"AveragePool", lower_pool},
                             {"Add", lower_add},
                             {"Mul", lower_mul},
                             {"Softmax", lower_softmax},
                             {"Where", lower_where},
                             {"Concat", lower_any_concat},
                             {"MaxPool", lower_value_moving},
                             {"Transpose", lower_value_moving},
                             {"Reshape", lower_value_moving},
                             {"Flatten", lower_value_moving},
                             {"Squeeze", lower_value_moving},
                             {"Unsqueeze", lower_value_moving},
                             {"Abs", lower_lookup},
                             {"Acos", lower_lookup},
                             {"Acosh", lower_lookup},
                             {"Asin", lower_lookup},
                             {"Asinh", lower_lookup},
                             {"Atan", lower_lookup},
                             {"Atanh", lower_lookup},
                             {"Ceil", lower_lookup},
                             {"Celu", lower_lookup},
                             {"Clip", lower_lookup},
                             {"Cos", lower_lookup},
                             {"Cosh", lower_lookup},
                             {"Elu", lower_lookup},
                             {"Erf", lower_lookup},
                             {"Exp", lower_lookup},
                             {"Floor", lower_lookup},
                             {"Gelu", lower_lookup},
                             {"HardSigmoid", lower_lookup},
                             {"HardSwish", lower_lookup},
                             {"LeakyRelu", lower_lookup},
                             {"Log", lower_lookup},
                             {"Mish", lower_lookup},
                             {"Neg", lower_lookup},
                             {"Reciprocal", lower_lookup},
                             {"Relu", lower_lookup},
                             {"Round", lower_lookup},
                             {"Selu", lower_lookup},
                             {"Sigmoid", lower_lookup},
                             {"Sign", lower_lookup},
                             {"Sin", lower_lookup},
                             {"Sinh", lower_lookup},
                             {"Softplus", lower_lookup},
                             {"Softsign", lower_lookup},
                             {"Sqrt", lower_lookup},
                             {"Tan", lower_lookup},
                             {"Tanh", lower_lookup},
                             {"ThresholdedRelu", lower_lookup}};

LowerRule rule_for(const std::string& op) {
  for (const OpRule& r : kRules)
    if (op == r.op) return r.lower;
  return nullptr;
}

}  // namespace

bool run_lower_qdq(Module& module, PassContext& stats) {
  Graph& g = *module.graph;
  bool changed = false, ok = true;
  for (size_t i = 0; i < g.nodes.size() && ok; ++i) {
    Node& n = *g.nodes[i];
    if (!n.domain.empty() || !n.output(0) || n.output(0)->dtype != DataType::kFloat) continue;
    if (LowerRule lower = rule_for(n.op_type)) changed |= lower(g, n, *module.target, stats, ok);
  }
  return changed;
}

}  // namespace onnxc
