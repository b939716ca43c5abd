// BitwiseAnd, BitwiseOr, BitwiseXor (18; numpy broadcasting), BitwiseNot (18) on integer types;
// Shrink (9; integer and float types, float16 computed in float), Swish (24; float types) and
// BitCast (26; the same bytes read as another type of the same bit width). Kernels: functors of
// onnxc/bitwise.h run by onnxc/elementwise.h's unary_ref / binary_ref.
#include "onnxc/bitwise.h"

#include <fmt/format.h>

#include <string>

#include "ops/broadcast.h"
#include "ops/dispatch.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

bool check_int_type(InferContext& ctx, size_t i) {
  const Value* v = ctx.input(i);
  if (in_type_set(v->dtype, kIntTypes)) return true;
  return ctx.fail("input {} ('{}') has type {}; bitwise ops take integer types", i, v->name,
                  dtype_name(v->dtype));
}

// ---- BitwiseAnd / Or / Xor ------------------------------------------------------------------

struct BinaryState : OpState {
  BroadcastParams p{};
};

template <typename F>
class BitwiseBinaryOp final : public OpHandler {
 public:
  explicit BitwiseBinaryOp(const char* cpp) : cpp_(cpp) {}
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 2, 1, 1) || !check_int_type(ctx, 0)) return false;
    const Value *a = ctx.input(0), *b = ctx.input(1);
    if (a->dtype != b->dtype)
      return ctx.fail("inputs have different types {} and {}", dtype_name(a->dtype),
                      dtype_name(b->dtype));
    Shape out;
    if (!broadcast_shapes({a->shape, b->shape}, out))
      return ctx.fail("shapes {} and {} do not broadcast", shape_str(a->shape),
                      shape_str(b->shape));
    if (out.size() > static_cast<size_t>(kMaxRank))
      return ctx.fail("rank {} exceeds the supported {}", out.size(), kMaxRank);
    ctx.make_state<BinaryState>().p = make_broadcast_params(out, a->shape, b->shape);
    ctx.set_output(0, a->dtype, out);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& p = n.state_as<BinaryState>().p;
    return visit_dtype<kIntTypes>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      binary_ref(p, in[0]->as<T>(), in[1]->as<T>(), out[0].as<T>(), F{});
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& p = ctx.node().state_as<BinaryState>().p;
    ctx.include("onnxc/bitwise.h");
    ctx.line("{}", broadcast_params_decl(p));
    ctx.line("onnxc::binary_ref(p, {}, {}, {}, onnxc::{}{{}});", ctx.in(0), ctx.in(1), ctx.out(0),
             cpp_);
  }

 private:
  const char* cpp_;
};

// ---- unary: BitwiseNot, Shrink, Swish ---------------------------------------------------------

struct UnaryState : OpState {
  float a = 0, b = 0;  // the functor's attributes (lambd, bias / alpha)
};

enum class Unary { kNot, kShrink, kSwish };

template <Unary kOp>
class UnaryBitsOp final : public OpHandler {
  static constexpr unsigned kTypes = kOp == Unary::kNot      ? unsigned{kIntTypes}
                                     : kOp == Unary::kShrink ? unsigned{kNumeric | kHalfTypes}
                                                             : unsigned{kFloatTypes | kHalfTypes};

 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    const Value* x = ctx.input(0);
    const bool ok = in_type_set(x->dtype, kTypes) &&
                    !(kOp == Unary::kShrink && x->dtype == DataType::kBFloat16);
    if (!ok) return ctx.fail("type {} is not supported", dtype_name(x->dtype));
    auto& s = ctx.make_state<UnaryState>();
    if (kOp == Unary::kShrink) {
      s.a = ctx.attr_float("lambd", 0.5f);
      s.b = ctx.attr_float("bias", 0.0f);
    } else if (kOp == Unary::kSwish) {
      s.a = ctx.attr_float("alpha", 1.0f);
    }
    ctx.set_output(0, x->dtype, x->shape);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<UnaryState>();
    return visit_dtype<kTypes>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      const T* x = in[0]->as<T>();
      T* y = out[0].as<T>();
      const index_t count = in[0]->numel();
      if constexpr (kOp == Unary::kNot) {
        if constexpr (std::is_integral_v<T>) unary_ref(x, y, count, BitNot{});
      } else if constexpr (kOp == Unary::kShrink) {
        unary_ref(x, y, count, ShrinkFn{s.a, s.b});
      } else {
        if constexpr (!std::is_integral_v<T>) unary_ref(x, y, count, Swish{s.a, 0.0f});
      }
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<UnaryState>();
    ctx.include("onnxc/bitwise.h");
    std::string f;
    if (kOp == Unary::kNot)
      f = "onnxc::BitNot{}";
    else if (kOp == Unary::kShrink)
      f = fmt::format("onnxc::ShrinkFn{{/*lambd=*/{}, /*bias=*/{}}}", cpp_float(s.a),
                      cpp_float(s.b));
    else
      f = fmt::format("onnxc::Swish{{/*alpha=*/{}, /*beta=*/0.0f}}", cpp_float(s.a));
    ctx.line("onnxc::unary_ref({}, {}, {}, {});", ctx.in(0), ctx.out(0), ctx.input(0)->numel(), f);
  }
};

// ---- BitCast ------------------------------------------------------------------------------------

class BitCastOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    const Value* x = ctx.input(0);
    const Attribute* to_attr = ctx.node().attr("to");
    if (!to_attr || to_attr->kind != Attribute::Kind::kInt)
      return ctx.fail("attribute 'to' (an int data type) is required");
    if (!is_valid_dtype(static_cast<int>(to_attr->i)))
      return ctx.fail("'to' = {} is not a data type", to_attr->i);
    const DataType to = static_cast<DataType>(to_attr->i);
    if (x->dtype == DataType::kString || to == DataType::kString)
      return ctx.fail("string tensors cannot be bitcast");
    if (to == DataType::kUndefined) return ctx.fail("'to' must be a defined data type");
    if (dtype_info(x->dtype).bits != dtype_info(to).bits)
      return ctx.fail("{} has {} bits, {} has {}: BitCast needs the same width",
                      dtype_name(x->dtype), dtype_info(x->dtype).bits, dtype_name(to),
                      dtype_info(to).bits);
    // A C++ bool may only hold 0 or 1: other byte values cannot be reinterpreted as bool.
    if (to == DataType::kBool && x->dtype != DataType::kBool)
      return ctx.fail("BitCast from {} to bool is not supported (bytes other than 0 and 1)",
                      dtype_name(x->dtype));
    ctx.set_output(0, to, x->shape);
    return true;
  }
  bool evaluate(const Node&, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    bitcast_ref(in[0]->data.data(), out[0].data.data(), in[0]->data.size());
    return true;
  }
  void emit(EmitContext& ctx) const override {
    ctx.include("onnxc/bitwise.h");
    ctx.line("onnxc::bitcast_ref({}, {}, {});", ctx.in(0), ctx.out(0), ctx.input(0)->bytes());
  }
};

const BitwiseBinaryOp<BitAnd> kBitwiseAnd("BitAnd");
const BitwiseBinaryOp<BitOr> kBitwiseOr("BitOr");
const BitwiseBinaryOp<BitXor> kBitwiseXor("BitXor");
const UnaryBitsOp<Unary::kNot> kBitwiseNot;
const UnaryBitsOp<Unary::kShrink> kShrink;
const UnaryBitsOp<Unary::kSwish> kSwish;
const BitCastOp kBitCast;

}  // namespace

std::vector<OpRegistration> bitwise_ops() {
  return {{"", "BitwiseAnd", 18, kMaxOpset, &kBitwiseAnd},
          {"", "BitwiseOr", 18, kMaxOpset, &kBitwiseOr},
          {"", "BitwiseXor", 18, kMaxOpset, &kBitwiseXor},
          {"", "BitwiseNot", 18, kMaxOpset, &kBitwiseNot},
          {"", "Shrink", 9, kMaxOpset, &kShrink},
          {"", "Swish", 24, kMaxOpset, &kSwish},
          {"", "BitCast", 26, kMaxOpset, &kBitCast}};
}

}  // namespace onnxc
