// RNN, GRU and LSTM (every opset: 1, 3/7 for GRU, 7, 14 with layout, 22 with bfloat16). One
// handler for the three cells: the kernel (onnxc/recurrent.h) takes the cell kind in its params.
// float and double run natively; float16 and bfloat16 run the float kernel on widened copies.
//
// activation_alpha / activation_beta are consumed in the order of the activations, each list by
// the functions that take that parameter (Affine, LeakyRelu, ThresholdedRelu, ScaledTanh,
// HardSigmoid, Elu take alpha; Affine, ScaledTanh, HardSigmoid take beta); functions left without
// a value use their operator's default. Extra values are an error rather than a guess. A
// bidirectional node listing one direction's activations uses them (and their values) for both.
//
// com.microsoft DynamicQuantizeLSTM runs its own integer kernel (onnxc/qrecurrent.h, ORT's), with
// LSTM's attributes and activations: see its section below.
#include "onnxc/recurrent.h"

#include <algorithm>
#include <cctype>

#include "onnxc/qrecurrent.h"
#include "ops/half_compute.h"
#include "ops/kernel_variants.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

// The braced literal of p as the generated code declares it (onnxc::RecurrentParams), each field
// labelled.
std::string recurrent_params_literal(const RecurrentParams& p) {
  std::string acts;
  for (int i = 0; i < 6; ++i)
    acts += fmt::format("{}{{{}, {}, {}}}", i ? ", " : "", p.act[i].kind, cpp_float(p.act[i].alpha),
                        cpp_float(p.act[i].beta));
  return fmt::format(
      "{{/*cell*/ {}, /*seq_length*/ {}, /*batch*/ {}, /*input_size*/ {}, /*hidden*/ {}, "
      "/*num_directions*/ {}, /*reverse*/ {}, /*layout*/ {}, /*clip*/ {}, /*input_forget*/ {}, "
      "/*linear_before_reset*/ {}, /*act*/ {{{}}}}}",
      p.cell, p.seq_length, p.batch, p.input_size, p.hidden, p.num_directions, p.reverse, p.layout,
      cpp_float(p.clip), p.input_forget, p.linear_before_reset, acts);
}

// The directions `direction` runs (1, or 2 when bidirectional); false (reported) for another name.
bool directions_of(InferContext& ctx, const std::string& direction, int64_t& nd) {
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    return ctx.fail("direction '{}' is not one of forward, reverse, bidirectional", direction);
  nd = direction == "bidirectional" ? 2 : 1;
  return true;
}

// Input 4, sequence_lens, when given: int32 of shape [batch].
bool sequence_lens_fit(InferContext& ctx, int64_t batch) {
  const Value* sl = ctx.input(4);
  if (!sl) return true;
  if (sl->dtype != DataType::kInt32)
    return ctx.fail("sequence_lens must be int32, is {}", dtype_name(sl->dtype));
  if (sl->shape != Shape{batch})
    return ctx.fail("sequence_lens has shape {}, expected {}", shape_str(sl->shape), batch);
  return true;
}

struct RecurrentState : OpState {
  RecurrentParams p{};
  HalfPlan half;
  size_t kernel_offset = 0;  // scratch byte offset of the kernel's working memory
  int tasks = 1;             // --threads: the parts of each step's product (select-kernels)
  GemmParams step{};         // each step's product by R^T, as select-kernels' rows see it
  const KernelVariant* gemm_tile = nullptr;  // the target's blocked GEMM row (its products)
};

struct ActivationInfo {
  const char* name;  // lowercase
  int kind;
  bool alpha, beta;  // takes the parameter
  float alpha_default, beta_default;
};

constexpr ActivationInfo kActivations[] = {
    {"relu", kRecRelu, false, false, 0, 0},
    {"tanh", kRecTanh, false, false, 0, 0},
    {"sigmoid", kRecSigmoid, false, false, 0, 0},
    {"affine", kRecAffine, true, true, 1.0f, 0.0f},
    {"leakyrelu", kRecLeakyRelu, true, false, 0.01f, 0},
    {"thresholdedrelu", kRecThresholdedRelu, true, false, 1.0f, 0},
    {"scaledtanh", kRecScaledTanh, true, true, 1.0f, 1.0f},
    {"hardsigmoid", kRecHardSigmoid, true, true, 0.2f, 0.5f},
    {"elu", kRecElu, true, false, 1.0f, 0},
    {"softsign", kRecSoftsign, false, false, 0, 0},
    {"softplus", kRecSoftplus, false, false, 0, 0},
};

const ActivationInfo* find_activation(std::string name) {
  for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (const auto& a : kActivations)
    if (name == a.name) return &a;
  return nullptr;
}

const char* cell_name(int cell) {
  return cell == kCellRnn ? "RNN" : cell == kCellGru ? "GRU" : "LSTM";
}

// Reads activations / activation_alpha / activation_beta into p.act (see the banner).
bool parse_activations(InferContext& ctx, int cell, RecurrentParams& p) {
  const int per_dir = cell == kCellRnn ? 1 : cell == kCellGru ? 2 : 3;
  std::vector<std::string> names;
  if (const Attribute* a = ctx.node().attr("activations")) {
    if (a->kind != Attribute::Kind::kStrings)
      return ctx.fail("attribute 'activations' must be a list of strings");
    names = a->strings;
  } else {
    names = cell == kCellRnn   ? std::vector<std::string>{"Tanh"}
            : cell == kCellGru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                               : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  }
  const size_t want = static_cast<size_t>(per_dir * p.num_directions);
  // A bidirectional node may list one direction's activations: both directions use them,
  // with the same alpha/beta values.
  const bool shared = names.size() == static_cast<size_t>(per_dir) && want > names.size();
  if (names.size() != want && !shared)
    return ctx.fail("activations has {} entries, expected {} ({} per direction)", names.size(),
                    want, per_dir);
  const std::vector<float> alphas = ctx.attr_floats("activation_alpha");
  const std::vector<float> betas = ctx.attr_floats("activation_beta");
  size_t ai = 0, bi = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    const ActivationInfo* info = find_activation(names[i]);
    if (!info)
      return ctx.fail("activation '{}' is not supported (the {} activations are those of the spec)",
                      names[i], cell_name(cell));
    RecurrentAct& act = p.act[i];
    act.kind = info->kind;
    act.alpha = info->alpha_default;
    act.beta = info->beta_default;
    if (info->alpha && ai < alphas.size()) act.alpha = alphas[ai++];
    if (info->beta && bi < betas.size()) act.beta = betas[bi++];
  }
  if (ai != alphas.size() || bi != betas.size())
    return ctx.fail(
        "activation_alpha has {} values and activation_beta {}, but the activations take {} and "
        "{}",
        alphas.size(), betas.size(), ai, bi);
  if (shared)
    for (int i = 0; i < per_dir; ++i) p.act[per_dir + i] = p.act[i];
  return true;
}

class RecurrentOp final : public OpHandler {
 public:
  explicit RecurrentOp(int cell) : cell_(cell) {}

  bool infer(InferContext& ctx) const override {
    const bool lstm = cell_ == kCellLstm;
    if (!ctx.check_arity(3, lstm ? 8 : 6, 0, lstm ? 3 : 2)) return false;
    const Value *x = ctx.input(0), *r = ctx.input(2);
    const DataType t = x->dtype;
    if (t != DataType::kFloat && t != DataType::kDouble && t != DataType::kFloat16 &&
        !(t == DataType::kBFloat16 && ctx.opset() >= 22))
      return ctx.fail(
          "type {} is not supported at opset {} (float, double, float16; bfloat16 from 22)",
          dtype_name(t), ctx.opset());
    for (size_t i : {1, 2, 3, 5, 6, 7})
      if (ctx.input(i) && ctx.input(i)->dtype != t)
        return ctx.fail("input {} has type {}, expected {} like X", i,
                        dtype_name(ctx.input(i)->dtype), dtype_name(t));
    const int64_t layout = ctx.opset() >= 14 ? ctx.attr_int("layout", 0) : 0;
    if (layout != 0 && layout != 1) return ctx.fail("layout must be 0 or 1, is {}", layout);
    const std::string direction = ctx.attr_string("direction", "forward");
    int64_t nd = 0;
    if (!directions_of(ctx, direction, nd)) return false;
    if (x->shape.size() != 3)
      return ctx.fail("X must have rank 3, has shape {}", shape_str(x->shape));
    const int64_t seq = x->shape[layout ? 1 : 0], batch = x->shape[layout ? 0 : 1];
    const int64_t input_size = x->shape[2];
    const int64_t gates = recurrent_gates(cell_);
    if (r->shape.size() != 3)
      return ctx.fail("R must have rank 3, has shape {}", shape_str(r->shape));
    const int64_t hidden = ctx.attr_int("hidden_size", r->shape[2]);
    if (hidden <= 0) return ctx.fail("hidden_size must be positive, is {}", hidden);
    auto check_shape = [&](size_t i, const char* what, const Shape& want) {
      const Value* v = ctx.input(i);
      if (!v || v->shape == want) return true;
      return ctx.fail("{} has shape {}, expected {}", what, shape_str(v->shape), shape_str(want));
    };
    const Shape state_shape = layout ? Shape{batch, nd, hidden} : Shape{nd, batch, hidden};
    if (!check_shape(1, "W", {nd, gates * hidden, input_size}) ||
        !check_shape(2, "R", {nd, gates * hidden, hidden}) ||
        !check_shape(3, "B", {nd, 2 * gates * hidden}) || !check_shape(5, "initial_h", state_shape))
      return false;
    if (lstm &&
        (!check_shape(6, "initial_c", state_shape) || !check_shape(7, "P", {nd, 3 * hidden})))
      return false;
    if (!sequence_lens_fit(ctx, batch)) return false;

    auto& s = ctx.make_state<RecurrentState>();
    RecurrentParams& p = s.p;
    p.cell = cell_;
    p.seq_length = seq;
    p.batch = batch;
    p.input_size = input_size;
    p.hidden = hidden;
    p.num_directions = static_cast<int>(nd);
    p.reverse = direction == "reverse";
    p.layout = static_cast<int>(layout);
    if (ctx.has_attr("clip")) {
      p.clip = ctx.attr_float("clip", 0);
      if (!(p.clip > 0)) return ctx.fail("clip must be positive, is {}", p.clip);
    }
    if (lstm) {
      const int64_t input_forget = ctx.attr_int("input_forget", 0);
      if (input_forget != 0 && input_forget != 1)
        return ctx.fail("input_forget must be 0 or 1, is {}", input_forget);
      p.input_forget = static_cast<int>(input_forget);
    }
    if (cell_ == kCellGru) {
      const int64_t lbr = ctx.attr_int("linear_before_reset", 0);
      if (lbr != 0 && lbr != 1) return ctx.fail("linear_before_reset must be 0 or 1, is {}", lbr);
      p.linear_before_reset = static_cast<int>(lbr);
    }
    if (!parse_activations(ctx, cell_, p)) return false;

    if (ctx.has_output(0))
      ctx.set_output(0, t, layout ? Shape{batch, seq, nd, hidden} : Shape{seq, nd, batch, hidden});
    if (ctx.has_output(1)) ctx.set_output(1, t, state_shape);
    if (lstm && ctx.has_output(2)) ctx.set_output(2, t, state_shape);
    s.half = plan_half(ctx, {0, 1, 2, 3, 5, 6, 7}, {0, 1, 2});
    s.kernel_offset = (s.half.bytes + 63) / 64 * 64;
    const size_t elem = t == DataType::kDouble ? sizeof(double) : sizeof(float);
    ctx.request_scratch(s.kernel_offset + static_cast<size_t>(recurrent_scratch_elems(p)) * elem);
    s.step.m = p.batch, s.step.n = recurrent_gates(p.cell) * p.hidden, s.step.k = p.hidden;
    s.gemm_tile = &blocked_gemm_variant(ctx.target());
    return true;
  }

  // Each step multiplies the batch's hidden states by R^T: a batch x (gates * hidden) x hidden
  // product, which the f32_recurrent row splits into parts (onnxc/kernels_parallel.h's
  // SplitProduct) while it is a vector product worth a dispatch; double runs whole.
  KernelQuery describe_kernel_query(const Node& node) const override {
    const auto& s = node.state_as<RecurrentState>();
    KernelQuery q;
    q.dtype = node.inputs[0]->dtype == DataType::kDouble ? "f64" : "f32";
    q.families = {"recurrent"};
    q.gemm = &s.step;
    q.flops = 2.0 * static_cast<double>(s.step.m * s.step.n) * static_cast<double>(s.step.k);
    q.recurrent_step = true;  // each step is a parallel region of its own
    return q;
  }
  size_t use_kernel(Node& node, const KernelVariant&, int tasks) const override {
    static_cast<RecurrentState&>(*node.state).tasks = tasks;
    return node.scratch_bytes;
  }
  int kernel_tasks(const Node& node) const override {
    return node.state_as<RecurrentState>().tasks;
  }

  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<RecurrentState>();
    const DataType t = in[0]->dtype;
    auto run = [&](auto tag) {
      using T = decltype(tag);
      std::vector<T> scratch(static_cast<size_t>(recurrent_scratch_elems(s.p)));
      auto ptr = [&](size_t i) { return i < in.size() && in[i] ? in[i]->as<T>() : nullptr; };
      auto optr = [&](size_t i) {
        return i < out.size() && n.output(i) ? out[i].as<T>() : nullptr;
      };
      const std::int32_t* seq_lens = in.size() > 4 && in[4] ? in[4]->as<std::int32_t>() : nullptr;
      recurrent_ref<T, EvaluateGemmTile>(s.p, ptr(0), ptr(1), ptr(2), ptr(3), seq_lens, ptr(5),
                                         ptr(6), ptr(7), optr(0), optr(1), optr(2), scratch.data());
    };
    if (t == DataType::kFloat)
      run(float{});
    else if (t == DataType::kDouble)
      run(double{});
    else
      return false;
    return true;
  }

  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<RecurrentState>();
    const RecurrentParams& p = s.p;
    ctx.include("onnxc/recurrent.h");
    ctx.line("static constexpr onnxc::RecurrentParams p = {};", recurrent_params_literal(p));
    const HalfNames n = emit_widen(ctx, s.half);
    const char* t = kernel_cpp_type(ctx.input(0)->dtype);
    ctx.line("{0}* const rec_scratch = static_cast<{0}*>(static_cast<void*>({1} + {2}));", t,
             ctx.scratch(), s.kernel_offset);
    const std::string seq_lens = ctx.input(4) ? ctx.in(4) : "nullptr";
    if (s.tasks > 1) ctx.include("onnxc/kernels_parallel.h");
    ctx.line(
        "onnxc::recurrent_ref<{}, {}>(p, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, "
        "rec_scratch{});",
        t, gemm_tile_type(*s.gemm_tile), n.in(0), n.in(1), n.in(2), n.in(3), seq_lens, n.in(5),
        n.in(6), n.in(7), n.out(0), n.out(1), n.out(2), s.tasks > 1 ? parallel_args(s.tasks) : "");
    emit_narrow(ctx, s.half, n);
  }

 private:
  int cell_;
};

const RecurrentOp kRnn(kCellRnn);
const RecurrentOp kGru(kCellGru);
const RecurrentOp kLstm(kCellLstm);

// ---- DynamicQuantizeLSTM (com.microsoft, 1) --------------------------------------------------
// LSTM's inputs 0-7 (W [dirs, input, 4H] and R [dirs, hidden, 4H], uint8 or int8, transposed
// from LSTM's layout), then W_scale, W_zero_point, R_scale, R_zero_point, each [dirs]
// (per direction) or [dirs, 4H] (per column). Runs ORT's integer kernel (onnxc/qrecurrent.h):
// X and each step's hidden states quantized to uint8 at run time, int32 products with the
// 8-bit weights, the gates in float. ORT multiplies by one zero point per direction, its first:
// constant per-column zero points it would refuse (int8 ones not 0, uint8 ones not all equal)
// are refused here too.

struct QuantLstmState : OpState {
  QuantLstmParams q{};
};

class DynamicQuantizeLstmOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(3, 12, 0, 3)) return false;
    for (size_t i : {0, 1, 2, 8, 9, 10, 11})
      if (!ctx.input(i))
        return ctx.fail("input {} (X, W, R, their scales and zero points) is required", i);
    const Value *x = ctx.input(0), *w = ctx.input(1), *r = ctx.input(2);
    if (x->dtype != DataType::kFloat)
      return ctx.fail("X must be float, is {}", dtype_name(x->dtype));
    if (w->dtype != DataType::kUint8 && w->dtype != DataType::kInt8)
      return ctx.fail("W must be uint8 or int8, is {}", dtype_name(w->dtype));
    if (r->dtype != w->dtype)
      return ctx.fail("R has type {}, expected {} like W", dtype_name(r->dtype),
                      dtype_name(w->dtype));
    for (size_t i : {3, 5, 6, 7, 8, 10})
      if (ctx.input(i) && ctx.input(i)->dtype != DataType::kFloat)
        return ctx.fail("input {} must be float, is {}", i, dtype_name(ctx.input(i)->dtype));
    for (size_t i : {9, 11})
      if (ctx.input(i)->dtype != w->dtype)
        return ctx.fail("input {} has type {}, expected {} like W", i,
                        dtype_name(ctx.input(i)->dtype), dtype_name(w->dtype));
    const std::string direction = ctx.attr_string("direction", "forward");
    int64_t nd = 0;
    if (!directions_of(ctx, direction, nd)) return false;
    if (x->shape.size() != 3)
      return ctx.fail("X must have rank 3, has shape {}", shape_str(x->shape));
    if (r->shape.size() != 3)
      return ctx.fail("R must have rank 3, has shape {}", shape_str(r->shape));
    const int64_t seq = x->shape[0], batch = x->shape[1], input_size = x->shape[2];
    const int64_t hidden = ctx.attr_int("hidden_size", r->shape[1]);
    if (hidden <= 0) return ctx.fail("hidden_size must be positive, is {}", hidden);
    const Shape state_shape{nd, batch, hidden};
    auto check_shape = [&](size_t i, const char* what, const Shape& want) {
      const Value* v = ctx.input(i);
      if (!v || v->shape == want) return true;
      return ctx.fail("{} has shape {}, expected {}", what, shape_str(v->shape), shape_str(want));
    };
    if (!check_shape(1, "W", {nd, input_size, 4 * hidden}) ||
        !check_shape(2, "R", {nd, hidden, 4 * hidden}) || !check_shape(3, "B", {nd, 8 * hidden}) ||
        !check_shape(5, "initial_h", state_shape) || !check_shape(6, "initial_c", state_shape) ||
        !check_shape(7, "P", {nd, 3 * hidden}))
      return false;
    if (!sequence_lens_fit(ctx, batch)) return false;
    auto& s = ctx.make_state<QuantLstmState>();
    QuantLstmParams& q = s.q;
    if (!quant_params(ctx, 8, 9, "W", nd, hidden, q.w_scales) ||
        !quant_params(ctx, 10, 11, "R", nd, hidden, q.r_scales))
      return false;
    RecurrentParams& p = q.p;
    p.cell = kCellLstm;
    p.seq_length = seq, p.batch = batch, p.input_size = input_size, p.hidden = hidden;
    p.num_directions = static_cast<int>(nd);
    p.reverse = direction == "reverse";
    if (ctx.has_attr("clip")) {
      p.clip = ctx.attr_float("clip", 0);
      if (!(p.clip > 0)) return ctx.fail("clip must be positive, is {}", p.clip);
    }
    const int64_t input_forget = ctx.attr_int("input_forget", 0);
    if (input_forget != 0 && input_forget != 1)
      return ctx.fail("input_forget must be 0 or 1, is {}", input_forget);
    p.input_forget = static_cast<int>(input_forget);
    if (!parse_activations(ctx, kCellLstm, p)) return false;
    q.y_is_output = ctx.has_output(0) ? 1 : 0;
    if (ctx.has_output(0)) ctx.set_output(0, DataType::kFloat, Shape{seq, nd, batch, hidden});
    if (ctx.has_output(1)) ctx.set_output(1, DataType::kFloat, state_shape);
    if (ctx.has_output(2)) ctx.set_output(2, DataType::kFloat, state_shape);
    ctx.request_scratch(static_cast<size_t>(quant_lstm_scratch_bytes(q)));
    return true;
  }

  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<QuantLstmState>();
    std::vector<std::uint8_t> scratch(static_cast<size_t>(quant_lstm_scratch_bytes(s.q)));
    auto f = [&](size_t i) { return in[i] ? in[i]->as<float>() : nullptr; };
    auto o = [&](size_t i) { return i < out.size() && n.output(i) ? out[i].as<float>() : nullptr; };
    const std::int32_t* seq_lens = in[4] ? in[4]->as<std::int32_t>() : nullptr;
    auto run = [&](auto tag) {
      using W = decltype(tag);
      dynamic_quantize_lstm_ref<W, W>(s.q, f(0), in[1]->as<W>(), in[2]->as<W>(), f(3), seq_lens,
                                      f(5), f(6), f(7), f(8), in[9]->as<W>(), f(10),
                                      in[11]->as<W>(), o(0), o(1), o(2), scratch.data());
    };
    if (in[1]->dtype == DataType::kInt8)
      run(std::int8_t{});
    else
      run(std::uint8_t{});
    return true;
  }

  void emit(EmitContext& ctx) const override {
    const QuantLstmParams& q = ctx.node().state_as<QuantLstmState>().q;
    const RecurrentParams& p = q.p;
    ctx.include("onnxc/qrecurrent.h");
    ctx.line(
        "static constexpr onnxc::QuantLstmParams q = {{{}, /*w_scales*/ {}, /*r_scales*/ {}, "
        "/*y_is_output*/ {}}};",
        recurrent_params_literal(p), q.w_scales, q.r_scales, q.y_is_output);
    const char* w = dtype_cpp(ctx.input(1)->dtype);
    ctx.line(
        "onnxc::dynamic_quantize_lstm_ref<{0}, {0}>(q, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, "
        "{9}, {10}, {11}, {12}, {13}, {14}, {15}, {16});",
        w, ctx.in(0), ctx.in(1), ctx.in(2), ctx.in(3), ctx.in(4), ctx.in(5), ctx.in(6), ctx.in(7),
        ctx.in(8), ctx.in(9), ctx.in(10), ctx.in(11), ctx.out(0), ctx.out(1), ctx.out(2),
        ctx.scratch());
  }

 private:
  // Scale (input `scale`) and zero point (`zp`) of W or R: [dirs] or [dirs, 4H], the same
  // shape; `count` gets their length per direction. Constant zero points ORT refuses are
  // refused (see the banner).
  static bool quant_params(InferContext& ctx, size_t scale, size_t zp, const char* what, int64_t nd,
                           int64_t hidden, index_t& count) {
    const Shape& ss = ctx.input(scale)->shape;
    if (ss != Shape{nd} && ss != Shape{nd, 4 * hidden})
      return ctx.fail("{}_scale has shape {}, expected {} or {}", what, shape_str(ss),
                      shape_str(Shape{nd}), shape_str(Shape{nd, 4 * hidden}));
    if (ctx.input(zp)->shape != ss)
      return ctx.fail("{}_zero_point has shape {}, expected {} like {}_scale", what,
                      shape_str(ctx.input(zp)->shape), shape_str(ss), what);
    count = ss.size() == 2 ? 4 * hidden : 1;
    const Tensor* t = ctx.constant_input(zp);
    if (!t || ss.size() != 2) return true;
    const bool is_signed = t->dtype == DataType::kInt8;
    for (int64_t i = 0; i < t->numel(); ++i)
      if (t->int_at(i) != (is_signed ? 0 : t->int_at(0)))
        return ctx.fail("{}_zero_point per column must be {} (ORT multiplies by its first value)",
                        what, is_signed ? "0 for int8 weights" : "one value for uint8 weights");
    return true;
  }
};

const DynamicQuantizeLstmOp kDynamicQuantizeLstm;

}  // namespace

std::vector<OpRegistration> recurrent_ops() {
  return {{"", "RNN", 1, kMaxOpset, &kRnn},
          {"", "GRU", 1, kMaxOpset, &kGru},
          {"", "LSTM", 1, kMaxOpset, &kLstm},
          {"com.microsoft", "DynamicQuantizeLSTM", 1, 1, &kDynamicQuantizeLstm}};
}

}  // namespace onnxc
