// Cast (1, 6, 9, 13, 19, 21, 23, 24, 25) and CastLike (15, 19, 21, 23, 24, 25): element type
// conversion between every numeric type, bool, and the small float and packed integer formats.
// Versions differ in how `to` is spelled (a type name string before opset 6), which types exist,
// and the float8 attributes (`saturate` from 19, `round_mode` for float8e8m0 from 24). Strings
// (from opset 9) cast to and from the plain numeric types, bool, float16 and bfloat16 as
// onnxruntime does (onnxc/cast_string.h: printf "%.8g", strtod, strtoll, strtoull); a string that
// spells no number makes run() return onnxc::kErrorCastString. Folding and generated code run the
// same kernels (onnxc/cast.h, onnxc/cast_string.h).
#include "onnxc/cast.h"

#include <fmt/format.h>

#include <cctype>
#include <string>

#include "onnxc/cast_string.h"
#include "ops/dispatch.h"
#include "ops/registry.h"
#include "ops/strings.h"

namespace onnxc {
namespace {

bool is_cast_type(DataType t) {
  return in_type_set(t, kCastTypes);
}

// The types a string casts to and from.
constexpr TypeSet kStringCastTypes = kAllPlain | kHalfTypes;

// Bytes the string of any value of type t takes.
int64_t string_capacity_of(DataType t) {
  int64_t capacity = 0;
  visit_dtype<kStringCastTypes>(
      t, [&](auto tag) { capacity = cast_string_capacity<decltype(tag)>(); });
  return capacity;
}

const char* rounding_cpp(E8M0Rounding r) {
  switch (r) {
    case E8M0Rounding::kDown:
      return "onnxc::E8M0Rounding::kDown";
    case E8M0Rounding::kNearest:
      return "onnxc::E8M0Rounding::kNearest";
    default:
      return "onnxc::E8M0Rounding::kUp";
  }
}

// The specialized kernel for a (from, to) pair, or the generic reference.
const char* cast_kernel(DataType from, DataType to) {
  if (from == DataType::kFloat && to == DataType::kFloat16) return "f32_f16_cast__scalar";
  if (from == DataType::kFloat16 && to == DataType::kFloat) return "f16_f32_cast__scalar";
  if (from == DataType::kFloat && to == DataType::kBFloat16) return "f32_bf16_cast__scalar";
  if (from == DataType::kBFloat16 && to == DataType::kFloat) return "bf16_f32_cast__scalar";
  return nullptr;
}

struct CastState : OpState {
  DataType from = DataType::kUndefined;
  DataType to = DataType::kUndefined;
  CastParams params = {true, E8M0Rounding::kUp};
};

// Checks the types, reads the attributes shared by Cast and CastLike and sets the output.
bool infer_cast(InferContext& ctx, DataType to) {
  const Value* x = ctx.input(0);
  const bool strings = x->dtype == DataType::kString || to == DataType::kString;
  if (strings && ctx.opset() < 9)
    return ctx.fail("casting from or to string needs opset 9 or later (model imports opset {})",
                    ctx.opset());
  for (DataType t : {x->dtype, to}) {
    if (t == DataType::kString) continue;
    if (strings && !in_type_set(t, kStringCastTypes))
      return ctx.fail(
          "casting between string and {} is not supported (numbers, bool, float16 and bfloat16 "
          "are)",
          dtype_name(t));
    if (!is_cast_type(t)) return ctx.fail("type {} is not supported by Cast", dtype_name(t));
    if (ctx.opset() < dtype_info(t).since)
      return ctx.fail("type {} needs opset {} or later (model imports opset {})", dtype_name(t),
                      dtype_info(t).since, ctx.opset());
  }
  auto& s = ctx.make_state<CastState>();
  s.from = x->dtype;
  s.to = to;
  if (ctx.opset() >= 19) {
    int64_t saturate = ctx.attr_int("saturate", 1);
    if (saturate != 0 && saturate != 1)
      return ctx.fail("saturate must be 0 or 1, got {}", saturate);
    s.params.saturate = saturate == 1;
  } else if (ctx.has_attr("saturate")) {
    return ctx.fail("attribute 'saturate' exists from opset 19 (model imports opset {})",
                    ctx.opset());
  }
  if (ctx.opset() >= 24) {
    std::string mode = ctx.attr_string("round_mode", "up");
    if (mode == "up")
      s.params.round_mode = E8M0Rounding::kUp;
    else if (mode == "down")
      s.params.round_mode = E8M0Rounding::kDown;
    else if (mode == "nearest")
      s.params.round_mode = E8M0Rounding::kNearest;
    else
      return ctx.fail("round_mode must be 'up', 'down' or 'nearest', got '{}'", mode);
  } else if (ctx.has_attr("round_mode")) {
    return ctx.fail("attribute 'round_mode' exists from opset 24 (model imports opset {})",
                    ctx.opset());
  }
  if (strings) {
    if (x->dtype == to) return set_string_output(ctx, 0, x->shape, string_capacity(x));
    ctx.request_scratch(static_cast<size_t>(cast_string_scratch_bytes()));
    if (to == DataType::kString)
      return set_string_output(ctx, 0, x->shape, string_capacity_of(x->dtype));
  }
  ctx.set_output(0, to, x->shape);
  return true;
}

// Cast from or to string, at compile time.
bool evaluate_strings(const Node& n, const CastState& s, const Tensor& x, Tensor& y) {
  if (s.from == s.to) {
    y = x;
    return true;
  }
  std::vector<unsigned char> scratch(static_cast<size_t>(cast_string_scratch_bytes()));
  bool ok = false;
  if (s.to == DataType::kString) {
    const int64_t slot = n.output(0)->string_slot();
    std::vector<char> ys(static_cast<size_t>(x.numel() * slot) + 1);
    visit_dtype<kStringCastTypes>(s.from, [&](auto tag) {
      using T = decltype(tag);
      ok = cast_to_string_ref<T>(x.as<T>(), x.numel(), ys.data(), slot, scratch.data());
    });
    if (ok) from_slots(ys, slot, y);
    return ok;
  }
  const int64_t slot = n.input(0)->string_slot();
  const std::vector<char> xs = to_slots(x, slot);
  visit_dtype<kStringCastTypes>(s.to, [&](auto tag) {
    using T = decltype(tag);
    ok = cast_from_string_ref<T>(xs.data(), slot, x.numel(), y.as<T>(), scratch.data());
  });
  return ok;  // a string that spells no number: left to run time, which reports it
}

// The statement casting from or to string.
void emit_strings(EmitContext& ctx, const CastState& s) {
  ctx.include("onnxc/cast_string.h");
  const int64_t n = ctx.input(0)->numel();
  if (s.from == s.to)
    ctx.line("std::memcpy({}, {}, {});", ctx.out(0), ctx.in(0), n * ctx.input(0)->string_slot());
  else if (s.to == DataType::kString)
    ctx.line(
        "if (!onnxc::cast_to_string_ref<{}>({}, /*n=*/{}, {}, /*y_slot=*/{}, {})) return "
        "onnxc::kStringTooLong;",
        dtype_cpp(s.from), ctx.in(0), n, ctx.out(0), ctx.output(0)->string_slot(), ctx.scratch());
  else
    ctx.line(
        "if (!onnxc::cast_from_string_ref<{}>({}, /*x_slot=*/{}, /*n=*/{}, {}, {})) return "
        "onnxc::kErrorCastString;",
        dtype_cpp(s.to), ctx.in(0), ctx.input(0)->string_slot(), n, ctx.out(0), ctx.scratch());
}

// Cast-1 names the target type ("FLOAT", "INT64"): the TensorProto.DataType enum spelling, which
// is dtype_name() in upper case.
bool parse_type_name(const std::string& name, DataType& out) {
  for (int raw = 1; raw <= kMaxDataType; ++raw) {
    std::string candidate = dtype_name(static_cast<DataType>(raw));
    if (candidate.size() != name.size()) continue;
    bool equal = true;
    for (size_t i = 0; i < name.size() && equal; ++i)
      equal = std::toupper(static_cast<unsigned char>(candidate[i])) ==
              std::toupper(static_cast<unsigned char>(name[i]));
    if (equal) {
      out = static_cast<DataType>(raw);
      return true;
    }
  }
  return false;
}

class CastKernelOp : public OpHandler {
 public:
  bool evaluate(const Node& n, const std::vector<const Tensor*>& inputs,
                std::vector<Tensor>& outputs) const override {
    const auto& s = n.state_as<CastState>();
    const Tensor& x = *inputs[0];
    Tensor& y = outputs[0];
    if (s.from == DataType::kString || s.to == DataType::kString)
      return evaluate_strings(n, s, x, y);
    return visit_dtype<kCastTypes>(s.from, [&](auto from_tag) {
      using From = decltype(from_tag);
      visit_dtype<kCastTypes>(s.to, [&](auto to_tag) {
        using To = decltype(to_tag);
        cast_ref<From, To>(x.as<From>(), y.as<To>(), x.numel(), s.params);
      });
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<CastState>();
    if (s.from == DataType::kString || s.to == DataType::kString) return emit_strings(ctx, s);
    ctx.include("onnxc/cast.h");
    ctx.line("static constexpr onnxc::CastParams p = {};",
             labeled({{"saturate", s.params.saturate ? "true" : "false"},
                      {"round_mode", rounding_cpp(s.params.round_mode)}}));
    if (const char* kernel = cast_kernel(s.from, s.to))
      ctx.line("onnxc::{}({}, {}, /*n=*/{}, p);", kernel, ctx.in(0), ctx.out(0),
               ctx.input(0)->numel());
    else
      ctx.line("onnxc::cast_ref<{}, {}>({}, {}, /*n=*/{}, p);", dtype_cpp(s.from), dtype_cpp(s.to),
               ctx.in(0), ctx.out(0), ctx.input(0)->numel());
  }
};

class CastOp final : public CastKernelOp {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    const Attribute* a = ctx.node().attr("to");
    if (!a) return ctx.fail("attribute 'to' is required");
    DataType to = DataType::kUndefined;
    if (ctx.opset() < 6) {
      if (a->kind != Attribute::Kind::kString)
        return ctx.fail("'to' must be a type name string before opset 6, got {}",
                        attribute_kind_name(a->kind));
      if (!parse_type_name(a->s, to)) return ctx.fail("'to' names no data type: '{}'", a->s);
    } else {
      if (a->kind != Attribute::Kind::kInt)
        return ctx.fail("'to' must be an int (a TensorProto.DataType) from opset 6, got {}",
                        attribute_kind_name(a->kind));
      if (a->i <= 0 || a->i > kMaxDataType)
        return ctx.fail("'to' is not a valid data type: {}", a->i);
      to = static_cast<DataType>(a->i);
    }
    return infer_cast(ctx, to);
  }
};

class CastLikeOp final : public CastKernelOp {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 2, 1, 1)) return false;
    return infer_cast(ctx, ctx.input(1)->dtype);
  }
};

const CastOp kCast;
const CastLikeOp kCastLike;

}  // namespace

std::vector<OpRegistration> cast_ops() {
  return {{"", "Cast", 1, kMaxOpset, &kCast}, {"", "CastLike", 15, kMaxOpset, &kCastLike}};
}

}  // namespace onnxc
