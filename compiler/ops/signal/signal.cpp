// Signal processing ops: DFT (17 with the axis attribute, 20 with the axis input), STFT (17),
// HannWindow, HammingWindow, BlackmanWindow and MelWeightMatrix (17).
// DFT and STFT need their lengths, steps and axis at compile time (they decide the output
// shape); float and double run natively, float16 and bfloat16 through float copies.
// The window ops and MelWeightMatrix are fully determined by their (constant) inputs, so
// infer() computes their output with the runtime kernels and no code is emitted for them.
#include "onnxc/signal.h"

#include "onnxc/cast.h"
#include "ops/dispatch.h"
#include "ops/half_compute.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

bool is_dft_float(DataType t) {
  return t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 ||
         t == DataType::kBFloat16;
}

// A constant integer scalar (or 1-element) input; "<what> input must be a constant" otherwise.
bool constant_scalar(InferContext& ctx, size_t i, const char* what, int64_t& out) {
  const Value* v = ctx.input(i);
  if (v->dtype != DataType::kInt32 && v->dtype != DataType::kInt64)
    return ctx.fail("{} must be int32 or int64, is {}", what, dtype_name(v->dtype));
  if (v->numel() != 1)
    return ctx.fail("{} must be a scalar, has shape {}", what, shape_str(v->shape));
  const Tensor* t = ctx.constant_input(i);
  if (!t) return ctx.fail("{} input must be a constant (its value decides the output shape)", what);
  out = t->int_at(0);
  return true;
}

// ---- DFT ----------------------------------------------------------------------------------

struct DftState : OpState {
  DftParams p{};
  HalfPlan half;
  size_t table_offset = 0;  // scratch byte offset of the twiddle table
};

class DftOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    const bool axis_input = ctx.opset() >= 20;
    if (!ctx.check_arity(1, axis_input ? 3 : 2, 1, 1)) return false;
    const Value* x = ctx.input(0);
    if (!is_dft_float(x->dtype))
      return ctx.fail("type {} is not supported (float, double, float16, bfloat16)",
                      dtype_name(x->dtype));
    const Shape& xs = x->shape;
    const int64_t r = static_cast<int64_t>(xs.size());
    if (r < 2 || (xs.back() != 1 && xs.back() != 2))
      return ctx.fail("input must be [..., 1] (real) or [..., 2] (complex), has shape {}",
                      shape_str(xs));
    int64_t axis = axis_input ? -2 : ctx.attr_int("axis", 1);
    if (axis_input && ctx.input(2) && !constant_scalar(ctx, 2, "axis", axis)) return false;
    if (axis < -r || axis > r - 2 || axis == -1)
      return ctx.fail("axis {} is out of range [-{}, -2] U [0, {}] for rank {}", axis, r, r - 2, r);
    if (axis < 0) axis += r;
    const int64_t inverse = ctx.attr_int("inverse", 0), onesided = ctx.attr_int("onesided", 0);
    if ((inverse != 0 && inverse != 1) || (onesided != 0 && onesided != 1))
      return ctx.fail("inverse and onesided must be 0 or 1, are {} and {}", inverse, onesided);
    const bool irfft = inverse && onesided;
    const int64_t in_len = xs[static_cast<size_t>(axis)];
    int64_t n = irfft ? 2 * (in_len - 1) : in_len;
    if (ctx.input(1) && !constant_scalar(ctx, 1, "dft_length", n)) return false;
    if (n < 1) return ctx.fail("dft_length must be positive, is {}", n);
    auto& s = ctx.make_state<DftState>();
    DftParams& p = s.p;
    p.outer = shape_numel(Shape(xs.begin(), xs.begin() + axis));
    p.in_len = in_len;
    p.inner = shape_numel(Shape(xs.begin() + axis + 1, xs.end() - 1));
    p.in_complex = xs.back() == 2;
    p.n = n;
    p.out_len = onesided && !inverse ? n / 2 + 1 : n;
    p.out_complex = !irfft;
    p.inverse = static_cast<int>(inverse);
    p.hermitian = irfft;
    Shape ys = xs;
    ys[static_cast<size_t>(axis)] = p.out_len;
    ys.back() = p.out_complex ? 2 : 1;
    ctx.set_output(0, x->dtype, ys);
    s.half = plan_half(ctx, {0}, {0});
    s.table_offset = (s.half.bytes + 63) / 64 * 64;
    ctx.request_scratch(s.table_offset +
                        static_cast<size_t>(dft_ref_scratch_doubles(n)) * sizeof(double));
    return true;
  }
  bool evaluate(const Node& node, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = node.state_as<DftState>();
    std::vector<double> table(static_cast<size_t>(dft_ref_scratch_doubles(s.p.n)));
    return visit_dtype<kFloatTypes>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      dft_ref<T>(s.p, in[0]->as<T>(), out[0].as<T>(), table.data());
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<DftState>();
    const DftParams& p = s.p;
    ctx.include("onnxc/signal.h");
    ctx.line(
        "static constexpr onnxc::DftParams p = {{/*outer*/ {}, /*in_len*/ {}, /*inner*/ {}, "
        "/*in_complex*/ {}, /*n*/ {}, /*out_len*/ {}, /*out_complex*/ {}, /*inverse*/ {}, "
        "/*hermitian*/ {}}};",
        p.outer, p.in_len, p.inner, p.in_complex, p.n, p.out_len, p.out_complex, p.inverse,
        p.hermitian);
    const HalfNames n = emit_widen(ctx, s.half);
    ctx.line("onnxc::dft_ref<{}>(p, {}, {}, reinterpret_cast<double*>({} + {}));",
             kernel_cpp_type(ctx.input(0)->dtype), n.in(0), n.out(0), ctx.scratch(),
             s.table_offset);
    emit_narrow(ctx, s.half, n);
  }
};

// ---- STFT ---------------------------------------------------------------------------------

struct StftState : OpState {
  StftParams p{};
  HalfPlan half;
  size_t table_offset = 0;
};

class StftOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 4, 1, 1)) return false;
    const Value *x = ctx.input(0), *window = ctx.input(2);
    if (!is_dft_float(x->dtype))
      return ctx.fail("type {} is not supported (float, double, float16, bfloat16)",
                      dtype_name(x->dtype));
    const Shape& xs = x->shape;
    if (xs.size() != 3 || (xs[2] != 1 && xs[2] != 2))
      return ctx.fail("signal must be [batch, length, 1|2], has shape {}", shape_str(xs));
    int64_t step = 0, length = -1;
    if (!constant_scalar(ctx, 1, "frame_step", step)) return false;
    if (step < 1) return ctx.fail("frame_step must be positive, is {}", step);
    if (window) {
      if (window->dtype != x->dtype || window->shape.size() != 1)
        return ctx.fail("window must be a 1-D {} tensor, is {}[{}]", dtype_name(x->dtype),
                        dtype_name(window->dtype), shape_str(window->shape));
      length = window->shape[0];
    }
    if (ctx.input(3)) {
      int64_t fl = 0;
      if (!constant_scalar(ctx, 3, "frame_length", fl)) return false;
      if (window && fl != length)
        return ctx.fail("frame_length {} differs from the window length {}", fl, length);
      length = fl;
    }
    if (length < 0) return ctx.fail("needs a window or a frame_length");
    if (length < 1 || length > xs[1])
      return ctx.fail("frame_length {} must be in [1, signal length {}]", length, xs[1]);
    const int64_t onesided = ctx.attr_int("onesided", 1);
    if (onesided != 0 && onesided != 1) return ctx.fail("onesided must be 0 or 1, is {}", onesided);
    if (onesided && xs[2] == 2)
      return ctx.fail("onesided output is not possible for a complex signal (set onesided=0)");
    auto& s = ctx.make_state<StftState>();
    StftParams& p = s.p;
    p.batch = xs[0];
    p.signal_length = xs[1];
    p.in_complex = xs[2] == 2;
    p.frame_step = step;
    p.frame_length = length;
    p.frames = (xs[1] - length) / step + 1;
    p.bins = onesided ? length / 2 + 1 : length;
    ctx.set_output(0, x->dtype, {p.batch, p.frames, p.bins, 2});
    s.half = plan_half(ctx, {0, 2}, {0});
    s.table_offset = (s.half.bytes + 63) / 64 * 64;
    ctx.request_scratch(s.table_offset +
                        static_cast<size_t>(dft_scratch_doubles(length)) * sizeof(double));
    return true;
  }
  bool evaluate(const Node& node, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = node.state_as<StftState>();
    std::vector<double> table(static_cast<size_t>(dft_scratch_doubles(s.p.frame_length)));
    return visit_dtype<kFloatTypes>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      const T* window = in.size() > 2 && in[2] ? in[2]->as<T>() : nullptr;
      stft_ref<T>(s.p, in[0]->as<T>(), window, out[0].as<T>(), table.data());
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<StftState>();
    const StftParams& p = s.p;
    ctx.include("onnxc/signal.h");
    ctx.line(
        "static constexpr onnxc::StftParams p = {{/*batch*/ {}, /*signal_length*/ {}, "
        "/*in_complex*/ {}, /*frame_step*/ {}, /*frame_length*/ {}, /*frames*/ {}, /*bins*/ {}}};",
        p.batch, p.signal_length, p.in_complex, p.frame_step, p.frame_length, p.frames, p.bins);
    const HalfNames n = emit_widen(ctx, s.half);
    const char* t = kernel_cpp_type(ctx.input(0)->dtype);
    const std::string window =
        ctx.input(2) ? n.in(2) : fmt::format("static_cast<const {}*>(nullptr)", t);
    ctx.line("onnxc::stft_ref<{}>(p, {}, {}, {}, reinterpret_cast<double*>({} + {}));", t, n.in(0),
             window, n.out(0), ctx.scratch(), s.table_offset);
    emit_narrow(ctx, s.half, n);
  }
};

// ---- Windows and MelWeightMatrix (folded in infer) -------------------------------------------

// The output type from output_datatype: numeric plain types, float16 and bfloat16.
bool output_type(InferContext& ctx, DataType& t) {
  const int64_t raw = ctx.attr_int("output_datatype", 1);
  if (raw < 0 || raw > kMaxDataType || !is_valid_dtype(static_cast<int>(raw)))
    return ctx.fail("output_datatype {} is not a valid data type", raw);
  t = static_cast<DataType>(raw);
  if (!in_type_set(t, kNumeric) && !is_half(t))
    return ctx.fail("output_datatype {} is not supported (numeric types only)", dtype_name(t));
  return true;
}

// A tensor of type t and shape from a generator fill(T* y) run in T (float for half types).
template <typename Fill>
Tensor generate(DataType t, const Shape& shape, Fill&& fill) {
  Tensor y = Tensor::zeros(t, shape);
  if (is_half(t)) {
    std::vector<float> f(static_cast<size_t>(y.numel()));
    fill(f.data());
    if (t == DataType::kFloat16)
      f32_f16_cast__scalar(f.data(), y.as<float16>(), y.numel(), CastParams{});
    else
      f32_bf16_cast__scalar(f.data(), y.as<bfloat16>(), y.numel(), CastParams{});
  } else {
    visit_dtype<kNumeric>(t, [&](auto tag) { fill(y.as<decltype(tag)>()); });
  }
  return y;
}

enum WindowKind { kHann, kHamming, kBlackman };

class WindowOp final : public OpHandler {
 public:
  explicit WindowOp(WindowKind kind) : kind_(kind) {}
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    int64_t size = 0;
    DataType t;
    if (!constant_scalar(ctx, 0, "size", size) || !output_type(ctx, t)) return false;
    if (size < 0) return ctx.fail("size must be non-negative, is {}", size);
    const int64_t periodic = ctx.attr_int("periodic", 1);
    if (periodic != 0 && periodic != 1) return ctx.fail("periodic must be 0 or 1, is {}", periodic);
    const int per = static_cast<int>(periodic);
    const WindowKind kind = kind_;
    ctx.set_output_constant(0, generate(t, {size}, [&](auto* y) {
                              if (kind == kHann)
                                hann_window_ref(y, size, per);
                              else if (kind == kHamming)
                                hamming_window_ref(y, size, per);
                              else
                                blackman_window_ref(y, size, per);
                            }));
    return true;
  }
  void emit(EmitContext& ctx) const override { ctx.line("// folded at compile time"); }

 private:
  WindowKind kind_;
};

class MelWeightMatrixOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(5, 5, 1, 1)) return false;
    int64_t mel_bins = 0, dft_length = 0, sample_rate = 0;
    DataType t;
    if (!constant_scalar(ctx, 0, "num_mel_bins", mel_bins) ||
        !constant_scalar(ctx, 1, "dft_length", dft_length) ||
        !constant_scalar(ctx, 2, "sample_rate", sample_rate) || !output_type(ctx, t))
      return false;
    double edges[2];
    for (size_t i : {3, 4}) {
      const Value* v = ctx.input(i);
      const Tensor* c = ctx.constant_input(i);
      if (v->dtype != DataType::kFloat && v->dtype != DataType::kDouble)
        return ctx.fail("input {} has type {}, which is not supported (float, double)", i,
                        dtype_name(v->dtype));
      if (v->numel() != 1) return ctx.fail("input {} must be a scalar", i);
      if (!c) return ctx.fail("input {} (an edge frequency) must be a constant", i);
      edges[i - 3] = c->double_at(0);
    }
    if (mel_bins < 1 || dft_length < 1 || sample_rate < 1)
      return ctx.fail("num_mel_bins, dft_length and sample_rate must be positive, are {}, {}, {}",
                      mel_bins, dft_length, sample_rate);
    if (!(edges[0] >= 0 && edges[0] < edges[1] && edges[1] <= sample_rate / 2.0))
      return ctx.fail(
          "edge frequencies must satisfy 0 <= lower ({}) < upper ({}) <= sample_rate / 2", edges[0],
          edges[1]);
    std::vector<index_t> points(static_cast<size_t>(mel_bins + 2));
    ctx.set_output_constant(0, generate(t, {dft_length / 2 + 1, mel_bins}, [&](auto* y) {
                              mel_weight_matrix_ref(y, mel_bins, dft_length,
                                                    static_cast<double>(sample_rate), edges[0],
                                                    edges[1], points.data());
                            }));
    return true;
  }
  void emit(EmitContext& ctx) const override { ctx.line("// folded at compile time"); }
};

const DftOp kDft;
const StftOp kStft;
const WindowOp kHannWindow(kHann), kHammingWindow(kHamming), kBlackmanWindow(kBlackman);
const MelWeightMatrixOp kMelWeightMatrix;

}  // namespace

std::vector<OpRegistration> signal_ops() {
  return {{"", "DFT", 17, kMaxOpset, &kDft},
          {"", "STFT", 17, kMaxOpset, &kStft},
          {"", "HannWindow", 17, kMaxOpset, &kHannWindow},
          {"", "HammingWindow", 17, kMaxOpset, &kHammingWindow},
          {"", "BlackmanWindow", 17, kMaxOpset, &kBlackmanWindow},
          {"", "MelWeightMatrix", 17, kMaxOpset, &kMelWeightMatrix}};
}

}  // namespace onnxc
