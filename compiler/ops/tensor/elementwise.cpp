// Elementwise ops: unary maps, broadcasting binary ops, variadic Max/Min/Sum/Mean, Clip, Where,
// Identity and Dropout. Each op is a row of a table binding its name and opset range to a handler
// templated on the runtime functor that computes it. float16 and bfloat16 are computed in
// float by the kernels (onnxc/elementwise.h), so float ops accept them too.
#include "onnxc/elementwise.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/accum.h"
#include "ops/broadcast.h"
#include "ops/dispatch.h"
#include "ops/registry.h"
#include "ops/strings.h"

namespace onnxc {
namespace {

constexpr int L = kMaxOpset;

// Type sets: dispatch.h's plus the half types.
constexpr unsigned kFloats = kFloatTypes | kHalfTypes;
constexpr unsigned kNum = kNumeric | kHalfTypes;
constexpr unsigned kSignedNum = kSignedNumeric | kHalfTypes;
constexpr unsigned kAny = kAllPlain | kHalfTypes;

bool check_types(InferContext& ctx, size_t input, unsigned set, const char* note = nullptr) {
  const Value* v = ctx.input(input);
  if (!v || in_type_set(v->dtype, set)) return true;
  return ctx.fail("input {} ('{}') has unsupported type {}{}", input, v->name, dtype_name(v->dtype),
                  note ? note : "");
}

bool check_rank(InferContext& ctx, const Shape& out) {
  if (out.size() <= static_cast<size_t>(kMaxRank)) return true;
  return ctx.fail("rank {} exceeds the supported {}", out.size(), kMaxRank);
}

// A constant of element type t, half types spelled by their bits.
std::string elem_literal(DataType t, double v) {
  if (t == DataType::kFloat16) return fmt::format("onnxc::float16{{{}}}", to_float16(v).bits);
  if (t == DataType::kBFloat16) return fmt::format("onnxc::bfloat16{{{}}}", to_bfloat16(v).bits);
  return cpp_scalar(t, v);
}

// ---- unary --------------------------------------------------------------------------------

// A float attribute of a unary op (the functor's alpha or beta); int ones are read as ints.
struct Attr {
  const char* name = nullptr;  // null: the functor field is unused
  float def = 0;
  bool is_int = false;
};

struct UnaryState : OpState {
  float alpha = 0, beta = 0;
};

// y = F{alpha, beta}(x). kBoolOut: the result is bool (IsNaN, IsInf).
template <typename F, unsigned kTypes, bool kBoolOut = false>
class UnaryOp final : public OpHandler {
 public:
  UnaryOp(const char* cpp, Attr alpha = {}, Attr beta = {})
      : cpp_(cpp), alpha_(alpha), beta_(beta) {}

  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1) || !check_types(ctx, 0, kTypes)) return false;
    auto& s = ctx.make_state<UnaryState>();
    s.alpha = read(ctx, alpha_);
    s.beta = read(ctx, beta_);
    const Value* x = ctx.input(0);
    ctx.set_output(0, kBoolOut ? DataType::kBool : x->dtype, x->shape);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<UnaryState>();
    return visit_dtype<kTypes>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      using Y = std::conditional_t<kBoolOut, bool, T>;
      unary_ref(in[0]->as<T>(), out[0].as<Y>(), in[0]->numel(), F{s.alpha, s.beta});
    });
  }
  // unary_ref reads x[i] before writing y[i].
  AliasInfo alias(const Node&) const override { return {AliasKind::kInPlace, 0}; }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<UnaryState>();
    ctx.include("onnxc/unary.h");
    // The functor's attributes, when it has any (alpha and beta mean different things per op).
    const std::string attrs =
        s.alpha == 0 && s.beta == 0
            ? "{}"
            : labeled({{"alpha", cpp_float(s.alpha)}, {"beta", cpp_float(s.beta)}});
    ctx.line("onnxc::unary_ref({}, {}, /*n=*/{}, onnxc::{}{});", ctx.in(0), ctx.out(0),
             ctx.input(0)->numel(), cpp_, attrs);
  }

 private:
  static float read(InferContext& ctx, const Attr& a) {
    if (!a.name) return a.def;
    if (a.is_int) return static_cast<float>(ctx.attr_int(a.name, static_cast<int64_t>(a.def)));
    return ctx.attr_float(a.name, a.def);
  }
  const char* cpp_;
  Attr alpha_, beta_;
};

// ---- binary -------------------------------------------------------------------------------

// Opset 1-6 binary ops broadcast only with broadcast=1, B aligned to A at `axis` (default: B's
// dims are A's trailing ones).
bool legacy_broadcast_shape(InferContext& ctx, const Shape& a, Shape& b) {
  if (ctx.opset() >= 7) return true;
  if (ctx.attr_int("broadcast", 0) == 0) {
    if (a != b)
      return ctx.fail("shapes {} and {} differ and broadcast=0", shape_str(a), shape_str(b));
    return true;
  }
  int64_t rank = static_cast<int64_t>(a.size()), nb = static_cast<int64_t>(b.size());
  int64_t axis = ctx.attr_int("axis", rank - nb);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis + nb > rank)
    return ctx.fail("axis {} does not fit B of rank {} in A of rank {}", axis, nb, rank);
  Shape aligned(static_cast<size_t>(axis), 1);
  aligned.insert(aligned.end(), b.begin(), b.end());
  aligned.resize(static_cast<size_t>(rank), 1);
  b = aligned;
  return true;
}

// PRelu's slope broadcasts to X (unidirectionally). Like the ONNX reference, a 1-d slope that
// does not broadcast goes along the one axis of X of its length (per-channel slopes of old
// exporters, e.g. slope [C] for X [N, C, H, W]).
bool prelu_slope_shape(InferContext& ctx, const Shape& x, Shape& slope) {
  Shape out;
  if (broadcast_shapes({x, slope}, out) && out == x) return true;
  if (slope.size() == 1) {
    int matches = 0;
    Shape aligned(x.size(), 1);
    for (size_t i = 0; i < x.size(); ++i)
      if (x[i] == slope[0]) aligned[i] = x[i], ++matches;
    if (matches == 1) {
      slope = aligned;
      return true;
    }
  }
  return ctx.fail("slope shape {} does not broadcast to X shape {}", shape_str(slope),
                  shape_str(x));
}

enum class BinaryOut { kSameAsA, kBool };
enum class ShapeRule { kMultidirectional, kPRelu };

struct BinaryState : OpState {
  BroadcastParams params;
  bool float_accum = false;  // ops/accum.h: print the functor's float form
};

// Functors with a float-precision form of their float math (binary.h: PowIn<C>), printed instead
// of the functor on targets whose float kernels compute in float (ops/accum.h).
template <typename F>
constexpr const char* kFloatForm = nullptr;
template <>
constexpr const char* kFloatForm<Pow> = "PowIn<float>";

// ---- integer division by constants -------------------------------------------------------------
// Div and Mod of integers give x / 0 = 0 and MIN / -1 = MIN at run time (onnxc/binary.h, numpy's
// results) instead of trapping. A constant divisor holding 0, or constants dividing MIN by -1,
// is a broken model that folding would turn into a made-up constant: refused, naming the rule.

template <typename F>
constexpr bool kIntegerDivision =
    std::is_same_v<F, Div> || std::is_same_v<F, Mod<0>> || std::is_same_v<F, Mod<1>>;

// 1 where a / b overflows: MIN / -1 of a signed type.
struct DivisionOverflows {
  template <typename A>
  uint8_t operator()(A a, A b) const {
    if constexpr (std::is_signed_v<A>) return a == std::numeric_limits<A>::min() && b == A(-1);
    return 0;
  }
};

bool holds_zero(const Tensor& t) {
  bool zero = false;
  visit_dtype<kIntTypes>(t.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* v = t.as<T>();
    for (int64_t i = 0; i < t.numel() && !zero; ++i) zero = v[i] == T(0);
  });
  return zero;
}

// Whether constants a / b (broadcast by p into `count` elements) divide MIN by -1 anywhere.
bool divides_min_by_minus_one(const BroadcastParams& p, const Tensor& a, const Tensor& b,
                              int64_t count) {
  std::vector<uint8_t> hit(static_cast<size_t>(count));
  visit_dtype<kSignedInts>(a.dtype, [&](auto tag) {
    using T = decltype(tag);
    binary_ref(p, a.as<T>(), b.as<T>(), hit.data(), DivisionOverflows{});
  });
  return std::find(hit.begin(), hit.end(), uint8_t{1}) != hit.end();
}

// Outputs above this many elements are not checked for MIN / -1: they are too large to fold
// (ops/folding.h: kMaxFoldBytes), so the generated code computes them, defined as above.
constexpr int64_t kMaxCheckedQuotients = int64_t{1} << 22;

bool check_constant_divisor(InferContext& ctx, const BroadcastParams& p, int64_t count,
                            bool is_div) {
  const Value* y = ctx.input(1);
  if (count == 0 || !in_type_set(y->dtype, kIntTypes)) return true;
  const Tensor* b = ctx.constant_input(1);
  if (!b) return true;
  if (holds_zero(*b))
    return ctx.fail("integer {} by zero: the divisor '{}' is a constant holding 0",
                    is_div ? "division" : "modulo", y->name);
  const Tensor* a = is_div ? ctx.constant_input(0) : nullptr;
  if (!a || count > kMaxCheckedQuotients || !divides_min_by_minus_one(p, *a, *b, count))
    return true;
  return ctx.fail(
      "integer division overflows: constant '{}' holds the smallest {} and '{}' divides "
      "it by -1",
      ctx.input(0)->name, dtype_name(a->dtype), y->name);
}

// y = F(a, b) with broadcasting. kTypesB != 0: b may have another type, from that set (Pow).
template <typename F, unsigned kTypes, BinaryOut kOut = BinaryOut::kSameAsA, unsigned kTypesB = 0>
class BinaryOp final : public OpHandler {
 public:
  explicit BinaryOp(const char* cpp, ShapeRule rule = ShapeRule::kMultidirectional,
                    const char* type_note = nullptr)
      : cpp_(cpp), rule_(rule), type_note_(type_note) {}

  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 2, 1, 1) || !check_types(ctx, 0, kTypes, type_note_) ||
        !check_types(ctx, 1, kTypesB ? kTypesB : kTypes, type_note_))
      return false;
    const Value *a = ctx.input(0), *b = ctx.input(1);
    if (!kTypesB && a->dtype != b->dtype)
      return ctx.fail("inputs have different types {} and {}", dtype_name(a->dtype),
                      dtype_name(b->dtype));
    Shape b_shape = b->shape, out;
    bool ok = rule_ == ShapeRule::kPRelu ? prelu_slope_shape(ctx, a->shape, b_shape)
                                         : legacy_broadcast_shape(ctx, a->shape, b_shape);
    if (!ok) return false;
    if (!broadcast_shapes({a->shape, b_shape}, out))
      return ctx.fail("shapes {} and {} do not broadcast", shape_str(a->shape),
                      shape_str(b->shape));
    if (!check_rank(ctx, out)) return false;
    auto& s = ctx.make_state<BinaryState>();
    s.params = make_broadcast_params(out, a->shape, b_shape);
    coalesce_dims(s.params);
    s.float_accum = kFloatForm<F> && float_accumulates(ctx.target());
    ctx.set_output(0, kOut == BinaryOut::kBool ? DataType::kBool : a->dtype, out);
    if constexpr (kIntegerDivision<F>)
      return check_constant_divisor(ctx, s.params, shape_numel(out), std::is_same_v<F, Div>);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& p = n.state_as<BinaryState>().params;
    return visit_dtype<kTypes>(in[0]->dtype, [&](auto tag_a) {
      using A = decltype(tag_a);
      using Y = std::conditional_t<kOut == BinaryOut::kBool, bool, A>;
      if constexpr (kTypesB == 0) {
        binary_ref(p, in[0]->as<A>(), in[1]->as<A>(), out[0].as<Y>(), F{});
      } else {
        visit_dtype<kTypesB>(in[1]->dtype, [&](auto tag_b) {
          using B = decltype(tag_b);
          binary_ref(p, in[0]->as<A>(), in[1]->as<B>(), out[0].as<Y>(), F{});
        });
      }
    });
  }
  // binary_ref reads a[i] and b[i] of an operand with the output's shape before writing y[i].
  AliasInfo alias(const Node&) const override { return {AliasKind::kInPlace, 0}; }
  void emit(EmitContext& ctx) const override {
    ctx.include("onnxc/binary.h");
    const auto& s = ctx.node().state_as<BinaryState>();
    ctx.line("{}", broadcast_params_decl(s.params));
    ctx.line("onnxc::binary_ref(p, {}, {}, {}, onnxc::{}{{}});", ctx.in(0), ctx.in(1), ctx.out(0),
             s.float_accum ? kFloatForm<F> : cpp_);
  }

 private:
  const char* cpp_;
  ShapeRule rule_;
  const char* type_note_;
};

// ---- variadic -----------------------------------------------------------------------------

struct VariadicState : OpState {
  std::vector<BroadcastParams> steps;  // step 0 broadcasts input 0 into y, step i folds input i
  float scale = 1;                     // Mean divides by the input count
};

// y = F(...F(F(x0, x1), x2)...), all inputs broadcast to one shape (from opset 8; before, they
// must have equal shapes): Max, Min, Sum, Mean.
template <typename F, unsigned kTypes, bool kMean = false>
class VariadicOp final : public OpHandler {
 public:
  explicit VariadicOp(const char* cpp) : cpp_(cpp) {}

  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, SIZE_MAX, 1, 1)) return false;
    std::vector<Shape> shapes;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      if (!ctx.has_input(i)) return ctx.fail("input {} is missing", i);
      if (!check_types(ctx, i, kTypes)) return false;
      if (ctx.input(i)->dtype != ctx.input(0)->dtype)
        return ctx.fail("inputs have different types");
      shapes.push_back(ctx.input(i)->shape);
      if (ctx.opset() < 8 && shapes[i] != shapes[0])
        return ctx.fail("inputs must have equal shapes before opset 8, got {} and {}",
                        shape_str(shapes[0]), shape_str(shapes[i]));
    }
    Shape out;
    if (!broadcast_shapes(shapes, out)) return ctx.fail("input shapes do not broadcast");
    if (!check_rank(ctx, out)) return false;
    auto& s = ctx.make_state<VariadicState>();
    s.steps.push_back(make_broadcast_params(out, shapes[0], shapes[0]));
    for (size_t i = 1; i < shapes.size(); ++i)
      s.steps.push_back(make_broadcast_params(out, out, shapes[i]));
    s.scale = 1.0f / static_cast<float>(shapes.size());
    ctx.set_output(0, ctx.input(0)->dtype, out);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
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
    ctx.include("onnxc/binary.h");
    for (size_t i = 0; i < s.steps.size(); ++i) {
      std::string var = fmt::format("p{}", i);
      ctx.line("{}", broadcast_params_decl(s.steps[i], var.c_str()));
      if (i == 0)
        ctx.line("onnxc::binary_ref({}, {}, {}, {}, onnxc::First{{}});", var, ctx.in(0), ctx.in(0),
                 ctx.out(0));
      else
        ctx.line("onnxc::binary_ref({}, {}, {}, {}, onnxc::{}{{}});", var, ctx.out(0), ctx.in(i),
                 ctx.out(0), cpp_);
    }
    if (kMean)
      ctx.line("onnxc::unary_ref({0}, {0}, {1}, onnxc::Scale{{{2}, 0}});", ctx.out(0),
               ctx.output(0)->numel(), cpp_float(s.scale));
  }

 private:
  const char* cpp_;
};

// ---- Clip ---------------------------------------------------------------------------------

// Bounds are attributes before opset 11 (absent: unbounded at opset 1, +-FLT_MAX at opset 6) and
// optional scalar inputs from 11 on (absent or empty name: unbounded).
struct ClipState : OpState {
  bool has_lo = false, has_hi = false;  // attribute bounds
  double lo = 0, hi = 0;
};

class ClipOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    const bool inputs = ctx.opset() >= 11;
    if (!ctx.check_arity(1, inputs ? 3 : 1, 1, 1) ||
        !check_types(ctx, 0, ctx.opset() >= 12 ? kNum : kFloats))
      return false;
    auto& s = ctx.make_state<ClipState>();
    if (!inputs) {
      const double flt_max = std::numeric_limits<float>::max();
      s.has_lo = ctx.opset() >= 6 || ctx.has_attr("min");
      s.has_hi = ctx.opset() >= 6 || ctx.has_attr("max");
      s.lo = ctx.attr_float("min", static_cast<float>(-flt_max));
      s.hi = ctx.attr_float("max", static_cast<float>(flt_max));
    }
    const Value* x = ctx.input(0);
    for (size_t i = 1; i < ctx.num_inputs(); ++i) {
      const Value* v = ctx.input(i);
      if (!v) continue;
      if (v->dtype != x->dtype)
        return ctx.fail("bound {} has type {}, input has {}", i, dtype_name(v->dtype),
                        dtype_name(x->dtype));
      if (v->numel() != 1)
        return ctx.fail("bound {} must be a scalar, has shape {}", i, shape_str(v->shape));
    }
    ctx.set_output(0, x->dtype, x->shape);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<ClipState>();
    return visit_dtype<kNum>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      const T attr_lo = ElemStore<T>::to(s.lo), attr_hi = ElemStore<T>::to(s.hi);
      auto bound = [&](size_t i, bool has_attr, const T* attr) -> const T* {
        if (has_attr) return attr;
        return in.size() > i && in[i] ? in[i]->as<T>() : nullptr;
      };
      clip_ref(in[0]->as<T>(), out[0].as<T>(), in[0]->numel(), bound(1, s.has_lo, &attr_lo),
               bound(2, s.has_hi, &attr_hi));
    });
  }
  // clip_ref reads the bounds first, then x[i] before writing y[i].
  AliasInfo alias(const Node&) const override { return {AliasKind::kInPlace, 0}; }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<ClipState>();
    ctx.include("onnxc/unary.h");
    DataType t = ctx.input(0)->dtype;
    std::string lo = ctx.input(1) ? ctx.in(1) : "nullptr",
                hi = ctx.input(2) ? ctx.in(2) : "nullptr";
    if (s.has_lo) {
      ctx.line("static const {} lo = {};", dtype_cpp(t), elem_literal(t, s.lo));
      lo = "&lo";
    }
    if (s.has_hi) {
      ctx.line("static const {} hi = {};", dtype_cpp(t), elem_literal(t, s.hi));
      hi = "&hi";
    }
    ctx.line("onnxc::clip_ref<{}>({}, {}, /*n=*/{}, /*lo=*/{}, /*hi=*/{});", dtype_cpp(t),
             ctx.in(0), ctx.out(0), ctx.input(0)->numel(), lo, hi);
  }
};

// ---- Where --------------------------------------------------------------------------------

class WhereOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(3, 3, 1, 1) || !ctx.check_dtype(0, {DataType::kBool})) return false;
    const Value *c = ctx.input(0), *a = ctx.input(1), *b = ctx.input(2);
    if (a->dtype != b->dtype)
      return ctx.fail("X and Y have different types {} and {}", dtype_name(a->dtype),
                      dtype_name(b->dtype));
    if (!check_types(ctx, 1, kAny)) return false;
    Shape out;
    if (!broadcast_shapes({c->shape, a->shape, b->shape}, out))
      return ctx.fail("shapes {}, {} and {} do not broadcast", shape_str(c->shape),
                      shape_str(a->shape), shape_str(b->shape));
    if (!check_rank(ctx, out)) return false;
    ctx.make_state<BinaryState>().params =
        make_broadcast_params(out, a->shape, b->shape, &c->shape);
    ctx.set_output(0, a->dtype, out);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& p = n.state_as<BinaryState>().params;
    return visit_dtype<kAny>(in[1]->dtype, [&](auto tag) {
      using T = decltype(tag);
      where_ref(p, in[0]->as<bool>(), in[1]->as<T>(), in[2]->as<T>(), out[0].as<T>());
    });
  }
  // binary_ref reads a[i] and b[i] of an operand with the output's shape before writing y[i].
  AliasInfo alias(const Node&) const override { return {AliasKind::kInPlace, 0}; }
  void emit(EmitContext& ctx) const override {
    ctx.include("onnxc/binary.h");
    ctx.line("{}", broadcast_params_decl(ctx.node().state_as<BinaryState>().params));
    ctx.line("onnxc::where_ref(p, {}, {}, {}, {});", ctx.in(0), ctx.in(1), ctx.in(2), ctx.out(0));
  }
};

// ---- Identity and Dropout -----------------------------------------------------------------

class IdentityOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    const Value* x = ctx.input(0);
    if (x->dtype == DataType::kString) return ctx.fail("string tensors are not supported");
    ctx.set_output(0, x->dtype, x->shape);
    return true;
  }
  bool evaluate(const Node&, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    out[0] = *in[0];
    return true;
  }
  AliasInfo alias(const Node&) const override { return {AliasKind::kView, 0}; }
  void emit(EmitContext& ctx) const override {
    ctx.include("onnxc/base.h");
    ctx.line("onnxc::copy_bytes({}, {}, /*bytes=*/{});", ctx.out(0), ctx.in(0),
             ctx.input(0)->bytes());
  }
};

struct DropoutState : OpState {
  bool training = false;  // false: y = x (inference, or a zero ratio)
  uint32_t seed = 0;
};

// Opsets 1-11 are inference only (the ONNX reference ignores is_test, as runtimes do). From 12 the
// optional ratio and training_mode inputs decide at run time unless they are constant; training
// mode draws its mask like numpy's RandomState(seed), seed 0 when the attribute is absent.
class DropoutOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    const bool inputs = ctx.opset() >= 12;
    if (!ctx.check_arity(1, inputs ? 3 : 1, 1, 2) || !check_types(ctx, 0, kFloats) ||
        !check_types(ctx, 1, kFloats))
      return false;
    if (ctx.has_input(2) && !ctx.check_dtype(2, {DataType::kBool})) return false;
    for (size_t i = 1; i < ctx.num_inputs(); ++i)
      if (ctx.input(i) && ctx.input(i)->numel() != 1)
        return ctx.fail("input {} must be a scalar, has shape {}", i,
                        shape_str(ctx.input(i)->shape));
    auto& s = ctx.make_state<DropoutState>();
    const Tensor *ratio = ctx.constant_input(1), *training = ctx.constant_input(2);
    s.training = ctx.has_input(2) && !(training && training->int_at(0) == 0) &&
                 !(ratio && ratio->double_at(0) == 0);
    s.seed = static_cast<uint32_t>(ctx.attr_int("seed", 0));
    const Value* x = ctx.input(0);
    ctx.set_output(0, x->dtype, x->shape);
    ctx.set_output(1, ctx.opset() < 10 ? x->dtype : DataType::kBool, x->shape);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<DropoutState>();
    const Tensor* ratio = s.training ? in[1] : nullptr;
    const bool* training = s.training ? in[2]->as<bool>() : nullptr;
    return visit_dtype<kFloats>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      auto run = [&](auto* mask) {
        using M = std::remove_pointer_t<decltype(mask)>;
        if (!ratio)
          return dropout_ref<T, float, M>(in[0]->as<T>(), out[0].as<T>(), mask, in[0]->numel(),
                                          nullptr, training, s.seed);
        visit_dtype<kFloats>(ratio->dtype, [&](auto tag_r) {
          using R = decltype(tag_r);
          dropout_ref(in[0]->as<T>(), out[0].as<T>(), mask, in[0]->numel(), ratio->as<R>(),
                      training, s.seed);
        });
      };
      const bool has_mask = out.size() > 1 && !out[1].data.empty();
      if (!has_mask)
        run(static_cast<bool*>(nullptr));
      else if (out[1].dtype == DataType::kBool)
        run(out[1].as<bool>());
      else
        run(out[1].as<T>());
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<DropoutState>();
    ctx.include("onnxc/dropout.h");
    const Value *x = ctx.input(0), *ratio = s.training ? ctx.input(1) : nullptr;
    ctx.line(
        "onnxc::dropout_ref<{}, {}, {}>({}, {}, /*mask=*/{}, /*n=*/{}, /*ratio=*/{}, "
        "/*training=*/{}, /*seed=*/{}u);",
        dtype_cpp(x->dtype), dtype_cpp(ratio ? ratio->dtype : DataType::kFloat),
        dtype_cpp(ctx.output(1) ? ctx.output(1)->dtype : DataType::kBool), ctx.in(0), ctx.out(0),
        ctx.output(1) ? ctx.out(1) : "nullptr", x->numel(), ratio ? ctx.in(1) : "nullptr",
        s.training ? ctx.in(2) : "nullptr", s.seed);
  }
};

// ---- ops whose functor an attribute picks (Mod's fmod, Gelu's approximate, BitShift's direction)

struct Choice {
  const char* value;  // the attribute's value; ints spelled in decimal
  const OpHandler* handler;
};

class AttrSwitchOp final : public OpHandler {
 public:
  AttrSwitchOp(const char* attr, const char* def, std::vector<Choice> choices)
      : attr_(attr), def_(def), choices_(std::move(choices)) {}

  bool infer(InferContext& ctx) const override {
    if (const OpHandler* h = pick(ctx.node())) return h->infer(ctx);
    std::vector<std::string> values;
    for (const Choice& c : choices_) values.push_back(fmt::format("'{}'", c.value));
    return ctx.fail("attribute '{}' must be one of {}", attr_, fmt::join(values, ", "));
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    return pick(n)->evaluate(n, in, out);
  }
  void emit(EmitContext& ctx) const override { pick(ctx.node())->emit(ctx); }

 private:
  const OpHandler* pick(const Node& n) const {
    const Attribute* a = n.attr(attr_);
    std::string value = !a                                    ? (def_ ? def_ : "")
                        : a->kind == Attribute::Kind::kInt    ? std::to_string(a->i)
                        : a->kind == Attribute::Kind::kString ? a->s
                                                              : "";
    for (const Choice& c : choices_)
      if (value == c.value) return c.handler;
    return nullptr;
  }
  const char* attr_;
  const char* def_;  // null: the attribute is required
  std::vector<Choice> choices_;
};

// ---- the table ----------------------------------------------------------------------------

#define U(F, types, ...) const UnaryOp<F, types> k##F(#F, ##__VA_ARGS__)
U(Relu, kSignedNum);
U(LeakyRelu, kFloats, Attr{"alpha", 0.01f});
U(Sigmoid, kFloats);
U(HardSigmoid, kFloats, Attr{"alpha", 0.2f}, Attr{"beta", 0.5f});
U(HardSwish, kFloats);
U(Tanh, kFloats);
U(Erf, kNum);
U(Exp, kFloats);
U(Log, kFloats);
U(Sqrt, kFloats);
U(Neg, kSignedNum);
U(Abs, kNum);
U(Reciprocal, kFloats);
U(Floor, kFloats);
U(Ceil, kFloats);
U(Round, kFloats);
U(Sign, kNum);
U(Elu, kFloats, Attr{"alpha", 1.0f});
U(Selu, kFloats, Attr{"alpha", 1.67326319217681884765625f},
  Attr{"gamma", 1.05070102214813232421875f});
U(Celu, kFloats, Attr{"alpha", 1.0f});
U(ThresholdedRelu, kFloats, Attr{"alpha", 1.0f});
U(Softplus, kFloats);
U(Softsign, kFloats);
U(Mish, kFloats);
U(Sin, kFloats);
U(Cos, kFloats);
U(Tan, kFloats);
U(Asin, kFloats);
U(Acos, kFloats);
U(Atan, kFloats);
U(Sinh, kFloats);
U(Cosh, kFloats);
U(Asinh, kFloats);
U(Acosh, kFloats);
U(Atanh, kFloats);
U(GeluErf, kFloats);
U(GeluTanh, kFloats);
U(Not, kBoolType);
#undef U
const UnaryOp<IsNaN, kFloats, true> kIsNaN("IsNaN");
const UnaryOp<IsInf, kFloats, true> kIsInf("IsInf", Attr{"detect_positive", 1, true},
                                           Attr{"detect_negative", 1, true});

const BinaryOp<Add, kNum> kAdd("Add");
const BinaryOp<Sub, kNum> kSub("Sub");
const BinaryOp<Mul, kNum> kMul("Mul");
const BinaryOp<Div, kNum> kDiv("Div");
const BinaryOp<Pow, kNum, BinaryOut::kSameAsA, kNum> kPow("Pow");
const BinaryOp<PRelu, kNum> kPRelu("PRelu", ShapeRule::kPRelu);
const BinaryOp<Mod<0>, kIntTypes> kMod("Mod<0>", ShapeRule::kMultidirectional,
                                       " (floating-point inputs need fmod=1)");
const BinaryOp<Mod<1>, kNum> kFmod("Mod<1>");
const BinaryOp<BitShift<true>, kUnsignedInts> kShiftLeft("BitShift<true>");
const BinaryOp<BitShift<false>, kUnsignedInts> kShiftRight("BitShift<false>");
const BinaryOp<Equal, kAny, BinaryOut::kBool> kEqual("Equal");
const BinaryOp<Less, kNum, BinaryOut::kBool> kLess("Less");
const BinaryOp<LessOrEqual, kNum, BinaryOut::kBool> kLessOrEqual("LessOrEqual");
const BinaryOp<Greater, kNum, BinaryOut::kBool> kGreater("Greater");
const BinaryOp<GreaterOrEqual, kNum, BinaryOut::kBool> kGreaterOrEqual("GreaterOrEqual");
const BinaryOp<And, kBoolType, BinaryOut::kBool> kAnd("And");
const BinaryOp<Or, kBoolType, BinaryOut::kBool> kOr("Or");
const BinaryOp<Xor, kBoolType, BinaryOut::kBool> kXor("Xor");

const VariadicOp<MaxNaN, kNum> kMax("MaxNaN");
const VariadicOp<MinNaN, kNum> kMin("MinNaN");
const VariadicOp<Add, kNum> kSum("Add");
const VariadicOp<Add, kFloats, true> kMean("Add");

const AttrSwitchOp kModOp("fmod", "0", {{"0", &kMod}, {"1", &kFmod}});
const AttrSwitchOp kGelu("approximate", "none", {{"none", &kGeluErf}, {"tanh", &kGeluTanh}});
const AttrSwitchOp kBitShift("direction", nullptr,
                             {{"LEFT", &kShiftLeft}, {"RIGHT", &kShiftRight}});

const ClipOp kClip;
const WhereOp kWhere;
const IdentityOp kIdentity;
const DropoutOp kDropout;

}  // namespace

// Opset ranges are each op's first version to the newest; version differences (legacy
// broadcast attributes, attribute bounds, inputs replacing attributes) are handled inside.
std::vector<OpRegistration> elementwise_ops() {
  return {
      {"", "Relu", 1, L, &kRelu},
      {"", "LeakyRelu", 1, L, &kLeakyRelu},
      {"", "Sigmoid", 1, L, &kSigmoid},
      {"", "HardSigmoid", 1, L, &kHardSigmoid},
      {"", "HardSwish", 14, L, &kHardSwish},
      {"", "Tanh", 1, L, &kTanh},
      {"", "Erf", 9, L, &kErf},
      {"", "Exp", 1, L, &kExp},
      {"", "Log", 1, L, &kLog},
      {"", "Sqrt", 1, L, &kSqrt},
      {"", "Neg", 1, L, &kNeg},
      {"", "Abs", 1, L, &kAbs},
      {"", "Reciprocal", 1, L, &kReciprocal},
      {"", "Floor", 1, L, &kFloor},
      {"", "Ceil", 1, L, &kCeil},
      {"", "Round", 11, L, &kRound},
      {"", "Sign", 9, L, &kSign},
      {"", "Elu", 1, L, &kElu},
      {"", "Selu", 1, L, &kSelu},
      {"", "Celu", 12, L, &kCelu},
      {"", "ThresholdedRelu", 10, L, &kThresholdedRelu},
      {"", "Softplus", 1, L, &kSoftplus},
      {"", "Softsign", 1, L, &kSoftsign},
      {"", "Mish", 18, L, &kMish},
      {"", "Gelu", 20, L, &kGelu},
      {"", "Sin", 7, L, &kSin},
      {"", "Cos", 7, L, &kCos},
      {"", "Tan", 7, L, &kTan},
      {"", "Asin", 7, L, &kAsin},
      {"", "Acos", 7, L, &kAcos},
      {"", "Atan", 7, L, &kAtan},
      {"", "Sinh", 9, L, &kSinh},
      {"", "Cosh", 9, L, &kCosh},
      {"", "Asinh", 9, L, &kAsinh},
      {"", "Acosh", 9, L, &kAcosh},
      {"", "Atanh", 9, L, &kAtanh},
      {"", "Not", 1, L, &kNot},
      {"", "IsNaN", 9, L, &kIsNaN},
      {"", "IsInf", 10, L, &kIsInf},
      {"", "Add", 1, L, &kAdd},
      {"", "Sub", 1, L, &kSub},
      {"", "Mul", 1, L, &kMul},
      {"", "Div", 1, L, &kDiv},
      {"", "Pow", 1, L, &kPow},
      {"", "PRelu", 1, L, &kPRelu},
      {"", "Mod", 10, L, &kModOp},
      {"", "BitShift", 11, L, &kBitShift},
      {"", "Equal", 1, L, with_strings(&kEqual, "Equal")},
      {"", "Less", 1, L, &kLess},
      {"", "LessOrEqual", 12, L, &kLessOrEqual},
      {"", "Greater", 1, L, &kGreater},
      {"", "GreaterOrEqual", 12, L, &kGreaterOrEqual},
      {"", "And", 1, L, &kAnd},
      {"", "Or", 1, L, &kOr},
      {"", "Xor", 1, L, &kXor},
      {"", "Max", 1, L, &kMax},
      {"", "Min", 1, L, &kMin},
      {"", "Sum", 1, L, &kSum},
      {"", "Mean", 1, L, &kMean},
      {"", "Clip", 1, L, &kClip},
      {"", "Where", 9, L, &kWhere},
      {"", "Identity", 1, L, with_strings(&kIdentity, "Identity")},
      {"", "Dropout", 1, L, &kDropout},
  };
}

}  // namespace onnxc
