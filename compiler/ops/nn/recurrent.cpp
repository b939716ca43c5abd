// RNN, GRU and LSTM (every opset: 1, 3/7 for GRU, 7, 14 with layout, 22 with bfloat16). One
// handler for the three cells: the kernel (onnxc/recurrent.h) takes the cell kind in its params.
// float and double run natively; float16 and bfloat16 run the float kernel on widened copies.
//
// activation_alpha / activation_beta are consumed in the order of the activations, each list by
// the functions that take that parameter (Affine, LeakyRelu, ThresholdedRelu, ScaledTanh,
// HardSigmoid, Elu take alpha; Affine, ScaledTanh, HardSigmoid take beta); functions left without
// a value use their operator's default. Extra values are an error rather than a guess. A
// bidirectional node listing one direction's activations uses them (and their values) for both.
#include "onnxc/recurrent.h"

#include <algorithm>
#include <cctype>

#include "ops/half_compute.h"
#include "ops/kernel_variants.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

struct RecurrentState : OpState {
  RecurrentParams p{};
  HalfPlan half;
  size_t kernel_offset = 0;  // scratch byte offset of the kernel's working memory
  int tasks = 1;             // --threads: the parts of each step's product (select-kernels)
  GemmParams step{};         // each step's product by R^T, as select-kernels' rows see it
  const KernelVariant* gemm_tile = nullptr;  // the target's blocked GEMM row (its products)
};

// The least time a step's product must take to pay for handing parts to the pool: each step is
// a parallel region of its own, and a dispatch costs about 1 us on a spinning
// onnxc::ThreadPool. (The rate, 35 GFLOP/s for the vector product a batch under 4 makes, is the
// f32_recurrent row's in onnxc/variants.h.)
constexpr double kMinStepSeconds = 5e-6;

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
    if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
      return ctx.fail("direction '{}' is not one of forward, reverse, bidirectional", direction);
    const int64_t nd = direction == "bidirectional" ? 2 : 1;
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
    if (const Value* sl = ctx.input(4)) {
      if (sl->dtype != DataType::kInt32)
        return ctx.fail("sequence_lens must be int32, is {}", dtype_name(sl->dtype));
      if (sl->shape != Shape{batch})
        return ctx.fail("sequence_lens has shape {}, expected {}", shape_str(sl->shape), batch);
    }

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
    if (!parse_activations(ctx, p)) return false;

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
    q.min_split_seconds = kMinStepSeconds;
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
    std::string acts;
    for (int i = 0; i < 6; ++i)
      acts += fmt::format("{}{{{}, {}, {}}}", i ? ", " : "", p.act[i].kind,
                          cpp_float(p.act[i].alpha), cpp_float(p.act[i].beta));
    ctx.line(
        "static constexpr onnxc::RecurrentParams p = {{/*cell*/ {}, /*seq_length*/ {}, /*batch*/ "
        "{}, "
        "/*input_size*/ {}, /*hidden*/ {}, /*num_directions*/ {}, /*reverse*/ {}, /*layout*/ {}, "
        "/*clip*/ {}, /*input_forget*/ {}, /*linear_before_reset*/ {}, /*act*/ {{{}}}}};",
        p.cell, p.seq_length, p.batch, p.input_size, p.hidden, p.num_directions, p.reverse,
        p.layout, cpp_float(p.clip), p.input_forget, p.linear_before_reset, acts);
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
  bool parse_activations(InferContext& ctx, RecurrentParams& p) const {
    const int per_dir = cell_ == kCellRnn ? 1 : cell_ == kCellGru ? 2 : 3;
    std::vector<std::string> names;
    if (const Attribute* a = ctx.node().attr("activations")) {
      if (a->kind != Attribute::Kind::kStrings)
        return ctx.fail("attribute 'activations' must be a list of strings");
      names = a->strings;
    } else {
      names = cell_ == kCellRnn   ? std::vector<std::string>{"Tanh"}
              : cell_ == kCellGru ? std::vector<std::string>{"Sigmoid", "Tanh"}
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
        return ctx.fail(
            "activation '{}' is not supported (the {} activations are those of the spec)", names[i],
            cell_name(cell_));
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

  int cell_;
};

const RecurrentOp kRnn(kCellRnn);
const RecurrentOp kGru(kCellGru);
const RecurrentOp kLstm(kCellLstm);

}  // namespace

std::vector<OpRegistration> recurrent_ops() {
  return {{"", "RNN", 1, kMaxOpset, &kRnn},
          {"", "GRU", 1, kMaxOpset, &kGru},
          {"", "LSTM", 1, kMaxOpset, &kLstm}};
}

}  // namespace onnxc
