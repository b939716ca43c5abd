// Elementwise ops: unary maps, broadcasting binary ops, variadic Max/Min/Sum/Mean, Clip, Where,
// Identity and Dropout (inference). Each op is a row of a table binding its name and opset range
// to a handler templated on the runtime_support functor that computes it.
#include <fmt/format.h>

#include "ops/broadcast.h"
#include "ops/dispatch.h"
#include "ops/registry.h"
#include "onnxc/elementwise.h"

namespace onnxc {
namespace {

constexpr int kLastOpset = kMaxOpset;

bool check_types(InferContext& ctx, size_t input, unsigned set) {
  const Value* v = ctx.input(input);
  if (!v || in_type_set(v->dtype, set)) return true;
  return ctx.fail("input {} ('{}') has unsupported type {}", input, v->name, dtype_name(v->dtype));
}

struct Attr {
  const char* name = nullptr;  // null: the functor field is unused
  float def = 0;
};

struct UnaryState : OpState {
  float alpha = 0, beta = 0;
};

// y = F{alpha, beta}(x). kBoolOut: the result is bool (IsNaN, IsInf).
template <typename F, unsigned kTypes, bool kBoolOut = false>
class UnaryOp final : public OpHandler {
 public:
  UnaryOp(const char* cpp, Attr alpha = {}, Attr beta = {}) : cpp_(cpp), alpha_(alpha), beta_(beta) {}

  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1) || !check_types(ctx, 0, kTypes)) return false;
    auto& s = ctx.make_state<UnaryState>();
    s.alpha = alpha_.name ? ctx.attr_float(alpha_.name, alpha_.def) : alpha_.def;
    s.beta = beta_.name ? ctx.attr_float(beta_.name, beta_.def) : beta_.def;
    const Value* x = ctx.input(0);
    ctx.set_output(0, kBoolOut ? DataType::kBool : x->dtype, x->shape);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in, std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<UnaryState>();
    return visit_dtype<kTypes>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      using Y = std::conditional_t<kBoolOut, bool, T>;
      unary_ref(in[0]->as<T>(), out[0].as<Y>(), in[0]->numel(), F{s.alpha, s.beta});
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<UnaryState>();
    ctx.include("onnxc/elementwise.h");
    ctx.line("onnxc::unary_ref({}, {}, {}, onnxc::{}{{{}, {}}});", ctx.in(0), ctx.out(0),
             ctx.input(0)->numel(), cpp_, cpp_float(s.alpha), cpp_float(s.beta));
  }

 private:
  const char* cpp_;
  Attr alpha_, beta_;
};

// Opset 1-6 binary ops broadcast only with broadcast=1, B aligned to A at `axis`.
bool legacy_broadcast_shape(InferContext& ctx, const Shape& a, Shape& b) {
  if (ctx.opset() >= 7) return true;
  if (ctx.attr_int("broadcast", 0) == 0) {
    if (a != b) return ctx.fail("shapes {} and {} differ and broadcast=0", shape_str(a), shape_str(b));
    return true;
  }
  int64_t rank = static_cast<int64_t>(a.size()), nb = static_cast<int64_t>(b.size());
  int64_t axis = ctx.attr_int("axis", rank - nb);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis + nb > rank) return ctx.fail("axis {} does not fit B of rank {} in A of rank {}", axis, nb, rank);
  Shape aligned(static_cast<size_t>(axis), 1);
  aligned.insert(aligned.end(), b.begin(), b.end());
  aligned.resize(static_cast<size_t>(rank), 1);
  b = aligned;
  return true;
}

struct BinaryState : OpState {
  BroadcastParams params;
};

enum class BinaryOut { kSameAsA, kBool };

// y = F(a, b) with broadcasting. kMixed: b may have a different type (Pow, BitShift).
template <typename F, unsigned kTypes, BinaryOut kOut = BinaryOut::kSameAsA, bool kMixed = false,
          unsigned kTypesB = kTypes>
class BinaryOp final : public OpHandler {
 public:
  explicit BinaryOp(const char* cpp) : cpp_(cpp) {}

  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 2, 1, 1) || !check_types(ctx, 0, kTypes) || !check_types(ctx, 1, kTypesB))
      return false;
    const Value *a = ctx.input(0), *b = ctx.input(1);
    if (!kMixed && a->dtype != b->dtype)
      return ctx.fail("inputs have different types {} and {}", dtype_name(a->dtype), dtype_name(b->dtype));
    Shape b_shape = b->shape, out;
    if (!legacy_broadcast_shape(ctx, a->shape, b_shape)) return false;
    if (!broadcast_shapes({a->shape, b_shape}, out))
      return ctx.fail("shapes {} and {} do not broadcast", shape_str(a->shape), shape_str(b->shape));
    if (out.size() > kMaxRank) return ctx.fail("rank {} exceeds the supported {}", out.size(), kMaxRank);
    ctx.make_state<BinaryState>().params = make_broadcast_params(out, a->shape, b_shape);
    ctx.set_output(0, kOut == BinaryOut::kBool ? DataType::kBool : a->dtype, out);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in, std::vector<Tensor>& out) const override {
    const auto& p = n.state_as<BinaryState>().params;
    if (kMixed && in[0]->dtype != in[1]->dtype) return false;  // folded only for equal types
    return visit_dtype<kTypes & kTypesB>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      using Y = std::conditional_t<kOut == BinaryOut::kBool, bool, T>;
      binary_ref(p, in[0]->as<T>(), in[1]->as<T>(), out[0].as<Y>(), F{});
    });
  }
  void emit(EmitContext& ctx) const override {
    ctx.include("onnxc/elementwise.h");
    ctx.line("{}", broadcast_params_decl(ctx.node().state_as<BinaryState>().params));
    ctx.line("onnxc::binary_ref(p, {}, {}, {}, onnxc::{}{{}});", ctx.in(0), ctx.in(1), ctx.out(0), cpp_);
  }

 private:
  const char* cpp_;
};

struct VariadicState : OpState {
  std::vector<BroadcastParams> steps;  // step 0 broadcasts input 0 into y, step i folds input i
  float scale = 1;                     // Mean divides by the input count
};

// y = F(...F(F(x0, x1), x2)...), all inputs broadcast to one shape: Max, Min, Sum, Mean.
template <typename F, unsigned kTypes, bool kMean = false>
class VariadicOp final : public OpHandler {
 public:
  explicit VariadicOp(const char* cpp) : cpp_(cpp) {}

  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1 << 20, 1, 1)) return false;
    std::vector<Shape> shapes;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      if (!ctx.has_input(i)) return ctx.fail("input {} is missing", i);
      if (!check_types(ctx, i, kTypes)) return false;
      if (ctx.input(i)->dtype != ctx.input(0)->dtype) return ctx.fail("inputs have different types");
      shapes.push_back(ctx.input(i)->shape);
    }
    Shape out;
    if (!broadcast_shapes(shapes, out)) return ctx.fail("input shapes do not broadcast");
    if (out.size() > kMaxRank) return ctx.fail("rank {} exceeds the supported {}", out.size(), kMaxRank);
    auto& s = ctx.make_state<VariadicState>();
    s.steps.push_back(make_broadcast_params(out, shapes[0], shapes[0]));
    for (size_t i = 1; i < shapes.size(); ++i) s.steps.push_back(make_broadcast_params(out, out, shapes[i]));
    s.scale = 1.0f / static_cast<float>(shapes.size());
    ctx.set_output(0, ctx.input(0)->dtype, out);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in, std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<VariadicState>();
    return visit_dtype<kTypes>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      T* y = out[0].as<T>();
      binary_ref(s.steps[0], in[0]->as<T>(), in[0]->as<T>(), y, First{});
      for (size_t i = 1; i < in.size(); ++i) binary_ref(s.steps[i], y, in[i]->as<T>(), y, F{});
      if constexpr (kMean) unary_ref(y, y, out[0].numel(), Scale{s.scale, 0});
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<VariadicState>();
    ctx.include("onnxc/elementwise.h");
    for (size_t i = 0; i < s.steps.size(); ++i) {
      std::string var = fmt::format("p{}", i);
      ctx.line("{}", broadcast_params_decl(s.steps[i], var.c_str()));
      if (i == 0)
        ctx.line("onnxc::binary_ref({}, {}, {}, {}, onnxc::First{{}});", var, ctx.in(0), ctx.in(0), ctx.out(0));
      else
        ctx.line("onnxc::binary_ref({}, {}, {}, {}, onnxc::{}{{}});", var, ctx.out(0), ctx.in(i), ctx.out(0), cpp_);
    }
    if (kMean)
      ctx.line("onnxc::unary_ref({0}, {0}, {1}, onnxc::Scale{{{2}, 0}});", ctx.out(0),
               ctx.output(0)->numel(), cpp_float(s.scale));
  }

 private:
  const char* cpp_;
};

// Clip: bounds are attributes before opset 11 and optional scalar inputs from 11 on.
struct ClipState : OpState {
  double lo = 0, hi = 0;
  bool has_lo = false, has_hi = false;  // attribute bounds (opset < 11)
};

class ClipOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, ctx.opset() < 11 ? 1 : 3, 1, 1) || !check_types(ctx, 0, kNumeric)) return false;
    auto& s = ctx.make_state<ClipState>();
    if (ctx.opset() < 11) {
      s.has_lo = ctx.has_attr("min");
      s.has_hi = ctx.has_attr("max");
      s.lo = ctx.attr_float("min", 0);
      s.hi = ctx.attr_float("max", 0);
    }
    for (size_t i = 1; i < ctx.num_inputs(); ++i) {
      const Value* v = ctx.input(i);
      if (!v) continue;
      if (v->dtype != ctx.input(0)->dtype) return ctx.fail("bound {} has type {}, input has {}", i, dtype_name(v->dtype), dtype_name(ctx.input(0)->dtype));
      if (v->numel() != 1) return ctx.fail("bound {} must be a scalar, has shape {}", i, shape_str(v->shape));
    }
    ctx.set_output(0, ctx.input(0)->dtype, ctx.input(0)->shape);
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<ClipState>();
    ctx.include("onnxc/elementwise.h");
    DataType t = ctx.input(0)->dtype;
    std::string lo = ctx.input(1) ? ctx.in(1) : "nullptr", hi = ctx.input(2) ? ctx.in(2) : "nullptr";
    if (s.has_lo) {
      ctx.line("const {} lo = {};", dtype_cpp(t), cpp_scalar(t, s.lo));
      lo = "&lo";
    }
    if (s.has_hi) {
      ctx.line("const {} hi = {};", dtype_cpp(t), cpp_scalar(t, s.hi));
      hi = "&hi";
    }
    ctx.line("onnxc::clip_ref<{}>({}, {}, {}, {}, {});", dtype_cpp(t), ctx.in(0), ctx.out(0),
             ctx.input(0)->numel(), lo, hi);
  }
};

class WhereOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(3, 3, 1, 1) || !ctx.check_dtype(0, {DataType::kBool})) return false;
    const Value *c = ctx.input(0), *a = ctx.input(1), *b = ctx.input(2);
    if (a->dtype != b->dtype) return ctx.fail("X and Y have different types");
    if (!in_type_set(a->dtype, kAllPlain)) return ctx.fail("unsupported type {}", dtype_name(a->dtype));
    Shape out;
    if (!broadcast_shapes({c->shape, a->shape, b->shape}, out)) return ctx.fail("shapes do not broadcast");
    if (out.size() > kMaxRank) return ctx.fail("rank {} exceeds the supported {}", out.size(), kMaxRank);
    ctx.make_state<BinaryState>().params = make_broadcast_params(out, a->shape, b->shape, &c->shape);
    ctx.set_output(0, a->dtype, out);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in, std::vector<Tensor>& out) const override {
    const auto& p = n.state_as<BinaryState>().params;
    return visit_dtype<kAllPlain>(in[1]->dtype, [&](auto tag) {
      using T = decltype(tag);
      where_ref(p, in[0]->as<bool>(), in[1]->as<T>(), in[2]->as<T>(), out[0].as<T>());
    });
  }
  void emit(EmitContext& ctx) const override {
    ctx.include("onnxc/elementwise.h");
    ctx.line("{}", broadcast_params_decl(ctx.node().state_as<BinaryState>().params));
    ctx.line("onnxc::where_ref(p, {}, {}, {}, {});", ctx.in(0), ctx.in(1), ctx.in(2), ctx.out(0));
  }
};

// Identity and Dropout at inference: y = x; Dropout's optional mask is all true.
class PassThroughOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 3, 1, 2)) return false;
    const Value* x = ctx.input(0);
    if (x->dtype == DataType::kString) return ctx.fail("string tensors are not supported");
    if (const Tensor* training = ctx.constant_input(2); training && training->int_at(0) != 0) {
      const Tensor* ratio = ctx.constant_input(1);
      if (!ratio || ratio->double_at(0) != 0)
        return ctx.fail("training_mode=true with a non-zero ratio is random; only inference is supported");
    } else if (ctx.has_input(2) && !ctx.constant_input(2)) {
      return ctx.fail("training_mode must be a constant");
    }
    if (ctx.opset() < 7 && ctx.attr_int("is_test", 0) == 0 && ctx.node().op_type == "Dropout" &&
        ctx.attr_float("ratio", 0.5f) != 0)
      return ctx.fail("is_test=0 (training) is not supported");
    ctx.set_output(0, x->dtype, x->shape);
    ctx.set_output(1, ctx.opset() < 10 ? x->dtype : DataType::kBool, x->shape);
    return true;
  }
  bool evaluate(const Node&, const std::vector<const Tensor*>& in, std::vector<Tensor>& out) const override {
    out[0] = *in[0];
    if (out.size() > 1 && !out[1].data.empty()) std::fill(out[1].data.begin(), out[1].data.end(), 1);
    return true;
  }
  void emit(EmitContext& ctx) const override {
    ctx.include("onnxc/base.h");
    ctx.line("onnxc::copy_bytes({}, {}, {});", ctx.out(0), ctx.in(0), ctx.input(0)->bytes());
    if (ctx.output(1))
      ctx.line("for (std::size_t i = 0; i < {}; ++i) {}[i] = 1;", ctx.output(1)->numel(), ctx.out(1));
  }
};

// ---- the table ----------------------------------------------------------------------------

#define U(F, types, ...) static const UnaryOp<F, types> k##F(#F, ##__VA_ARGS__)
U(Relu, kSignedNumeric);
U(LeakyRelu, kFloatTypes, Attr{"alpha", 0.01f});
U(Sigmoid, kFloatTypes);
U(HardSigmoid, kFloatTypes, Attr{"alpha", 0.2f}, Attr{"beta", 0.5f});
U(HardSwish, kFloatTypes);
U(Tanh, kFloatTypes);
U(Erf, kNumeric);
U(Exp, kFloatTypes);
U(Log, kFloatTypes);
U(Sqrt, kFloatTypes);
U(Neg, kSignedNumeric);
U(Abs, kNumeric);
U(Reciprocal, kFloatTypes);
U(Floor, kFloatTypes);
U(Ceil, kFloatTypes);
U(Round, kFloatTypes);
U(Sign, kNumeric);
U(Elu, kFloatTypes, Attr{"alpha", 1.0f});
U(Selu, kFloatTypes, Attr{"alpha", 1.67326319217681884765625f}, Attr{"gamma", 1.05070102214813232421875f});
U(Celu, kFloatTypes, Attr{"alpha", 1.0f});
U(ThresholdedRelu, kFloatTypes, Attr{"alpha", 1.0f});
U(Softplus, kFloatTypes);
U(Softsign, kFloatTypes);
U(Mish, kFloatTypes);
U(Sin, kFloatTypes);
U(Cos, kFloatTypes);
U(Tan, kFloatTypes);
U(Asin, kFloatTypes);
U(Acos, kFloatTypes);
U(Atan, kFloatTypes);
U(Sinh, kFloatTypes);
U(Cosh, kFloatTypes);
U(Asinh, kFloatTypes);
U(Acosh, kFloatTypes);
U(Atanh, kFloatTypes);
U(Not, kBoolType);
#undef U
static const UnaryOp<IsNaN, kFloatTypes, true> kIsNaN("IsNaN");
static const UnaryOp<IsInf, kFloatTypes, true> kIsInf("IsInf", Attr{"detect_positive", 1}, Attr{"detect_negative", 1});

static const BinaryOp<Add, kNumeric> kAdd("Add");
static const BinaryOp<Sub, kNumeric> kSub("Sub");
static const BinaryOp<Mul, kNumeric> kMul("Mul");
static const BinaryOp<Div, kNumeric> kDiv("Div");
static const BinaryOp<Pow, kNumeric, BinaryOut::kSameAsA, true> kPow("Pow");
static const BinaryOp<PRelu, kSignedNumeric> kPRelu("PRelu");
static const BinaryOp<Mod<0>, kNumeric> kMod("Mod<0>");
static const BinaryOp<Mod<1>, kNumeric> kFmod("Mod<1>");
static const BinaryOp<Equal, kAllPlain, BinaryOut::kBool> kEqual("Equal");
static const BinaryOp<Less, kNumeric, BinaryOut::kBool> kLess("Less");
static const BinaryOp<LessOrEqual, kNumeric, BinaryOut::kBool> kLessOrEqual("LessOrEqual");
static const BinaryOp<Greater, kNumeric, BinaryOut::kBool> kGreater("Greater");
static const BinaryOp<GreaterOrEqual, kNumeric, BinaryOut::kBool> kGreaterOrEqual("GreaterOrEqual");
static const BinaryOp<And, kBoolType, BinaryOut::kBool> kAnd("And");
static const BinaryOp<Or, kBoolType, BinaryOut::kBool> kOr("Or");
static const BinaryOp<Xor, kBoolType, BinaryOut::kBool> kXor("Xor");
static const VariadicOp<MaxNaN, kNumeric> kMax("MaxNaN");
static const VariadicOp<MinNaN, kNumeric> kMin("MinNaN");
static const VariadicOp<Add, kNumeric> kSum("Add");
static const VariadicOp<Add, kFloatTypes, true> kMean("Add");
static const ClipOp kClip;
static const WhereOp kWhere;
static const PassThroughOp kPassThrough;

// Mod's fmod attribute picks the functor; one handler reads it and delegates.
class ModOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override { return pick(ctx.node()).infer(ctx); }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in, std::vector<Tensor>& out) const override {
    return pick(n).evaluate(n, in, out);
  }
  void emit(EmitContext& ctx) const override { pick(ctx.node()).emit(ctx); }

 private:
  static const OpHandler& pick(const Node& n) {
    const Attribute* a = n.attr("fmod");
    return a && a->i ? static_cast<const OpHandler&>(kFmod) : kMod;
  }
};
static const ModOp kModOp;

}  // namespace

std::vector<OpRegistration> elementwise_ops() {
  const int L = kLastOpset;
  return {
      {"", "Relu", 1, L, &kRelu}, {"", "LeakyRelu", 1, L, &kLeakyRelu}, {"", "Sigmoid", 1, L, &kSigmoid},
      {"", "HardSigmoid", 1, L, &kHardSigmoid}, {"", "HardSwish", 14, L, &kHardSwish},
      {"", "Tanh", 1, L, &kTanh}, {"", "Erf", 9, L, &kErf}, {"", "Exp", 1, L, &kExp}, {"", "Log", 1, L, &kLog},
      {"", "Sqrt", 1, L, &kSqrt}, {"", "Neg", 1, L, &kNeg}, {"", "Abs", 1, L, &kAbs},
      {"", "Reciprocal", 1, L, &kReciprocal}, {"", "Floor", 1, L, &kFloor}, {"", "Ceil", 1, L, &kCeil},
      {"", "Round", 11, L, &kRound}, {"", "Sign", 9, L, &kSign}, {"", "Elu", 1, L, &kElu},
      {"", "Selu", 1, L, &kSelu}, {"", "Celu", 12, L, &kCelu}, {"", "ThresholdedRelu", 10, L, &kThresholdedRelu},
      {"", "Softplus", 1, L, &kSoftplus}, {"", "Softsign", 1, L, &kSoftsign}, {"", "Mish", 18, L, &kMish},
      {"", "Sin", 7, L, &kSin}, {"", "Cos", 7, L, &kCos}, {"", "Tan", 7, L, &kTan}, {"", "Asin", 7, L, &kAsin},
      {"", "Acos", 7, L, &kAcos}, {"", "Atan", 7, L, &kAtan}, {"", "Sinh", 9, L, &kSinh},
      {"", "Cosh", 9, L, &kCosh}, {"", "Asinh", 9, L, &kAsinh}, {"", "Acosh", 9, L, &kAcosh},
      {"", "Atanh", 9, L, &kAtanh}, {"", "Not", 1, L, &kNot}, {"", "IsNaN", 9, L, &kIsNaN},
      {"", "IsInf", 10, L, &kIsInf},
      {"", "Add", 1, L, &kAdd}, {"", "Sub", 1, L, &kSub}, {"", "Mul", 1, L, &kMul}, {"", "Div", 1, L, &kDiv},
      {"", "Pow", 1, L, &kPow}, {"", "PRelu", 1, L, &kPRelu}, {"", "Mod", 10, L, &kModOp},
      {"", "Equal", 1, L, &kEqual}, {"", "Less", 1, L, &kLess}, {"", "LessOrEqual", 12, L, &kLessOrEqual},
      {"", "Greater", 1, L, &kGreater}, {"", "GreaterOrEqual", 12, L, &kGreaterOrEqual},
      {"", "And", 1, L, &kAnd}, {"", "Or", 1, L, &kOr}, {"", "Xor", 1, L, &kXor},
      {"", "Max", 1, L, &kMax}, {"", "Min", 1, L, &kMin}, {"", "Sum", 1, L, &kSum}, {"", "Mean", 1, L, &kMean},
      {"", "Clip", 1, L, &kClip}, {"", "Where", 9, L, &kWhere},
      {"", "Identity", 1, L, &kPassThrough}, {"", "Dropout", 1, L, &kPassThrough},
  };
}

}  // namespace onnxc
