// Ops that only compute or change shape metadata: Shape and Size (their values are known at
// compile time, so they are always folded); Range, whose length depends on its values, so it is
// computed at compile time too; and Reshape, Flatten, Squeeze and Unsqueeze, whose output is the
// input's bytes under a new shape (a plain copy at run time; a move of the bytes when folding).
// These sit in shape subgraphs (Shape -> Gather -> Unsqueeze -> Concat -> Reshape), so every one
// of them folds when its inputs are constant.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "onnxc/convert.h"
#include "onnxc/transform.h"
#include "ops/dispatch.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

Tensor int64_tensor(const std::vector<int64_t>& v, Shape shape) {
  Tensor t = Tensor::zeros(DataType::kInt64, std::move(shape));
  std::copy(v.begin(), v.end(), t.as<int64_t>());
  return t;
}

// Shape: opset 15 added `start` and `end` (negative counts from the back, clamped to [0, rank]).
class ShapeOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    const Shape& s = ctx.input(0)->shape;
    const int64_t rank = static_cast<int64_t>(s.size());
    const bool sliced = ctx.opset() >= 15;
    int64_t start = sliced ? ctx.attr_int("start", 0) : 0;
    int64_t end = sliced ? ctx.attr_int("end", rank) : rank;
    auto clamp = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
    start = clamp(start);
    end = std::max(clamp(end), start);  // start > end gives an empty shape
    std::vector<int64_t> dims(s.begin() + start, s.begin() + end);
    ctx.set_output_constant(0, int64_tensor(dims, {static_cast<int64_t>(dims.size())}));
    return true;
  }
  void emit(EmitContext&) const override {}  // always folded in infer()
};

class SizeOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    ctx.set_output_constant(0, int64_tensor({ctx.input(0)->numel()}, {}));
    return true;
  }
  void emit(EmitContext&) const override {}  // always folded in infer()
};

// The common part of ops whose output is input 0's bytes under another shape.
class ReshapeLike : public OpHandler {
 public:
  bool evaluate(const Node&, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    out[0].data = in[0]->data;
    out[0].strings = in[0]->strings;
    return true;
  }
  // The output is the input's bytes: made a view, the node runs no code (see assign-storage).
  AliasInfo alias(const Node&) const override { return {AliasKind::kView, 0}; }
  void emit(EmitContext& ctx) const override {
    ctx.include("onnxc/base.h");
    ctx.line("onnxc::copy_bytes({}, {}, /*bytes=*/{});", ctx.out(0), ctx.in(0),
             ctx.input(0)->bytes());
  }

 protected:
  // Sets output 0 to `out`, which must hold as many elements as input 0.
  static bool set_same_numel(InferContext& ctx, const Shape& out) {
    const Value* x = ctx.input(0);
    if (!checked_numel(out))
      return ctx.fail("cannot reshape {} ({} elements) to {}: more elements than int64 can count",
                      shape_str(x->shape), x->numel(), shape_str(out));
    if (shape_numel(out) != x->numel())
      return ctx.fail("cannot reshape {} ({} elements) to {} ({} elements)", shape_str(x->shape),
                      x->numel(), shape_str(out), shape_numel(out));
    ctx.set_output(0, x->dtype, out);
    return true;
  }
  // Squeeze/Unsqueeze axes: the `axes` attribute before opset 13, optional constant input 1 from
  // 13 on. `given` is false when there are none (Squeeze then drops every unit dim). Negative
  // axes are formally opset 11+, but older exporters emit them too, so every version takes them.
  static bool read_axes(InferContext& ctx, std::vector<int64_t>& axes, bool& given) {
    if (ctx.opset() < 13) {
      if (!ctx.check_arity(1, 1, 1, 1)) return false;
      axes = ctx.attr_ints("axes");
      given = !axes.empty();
    } else {
      if (!ctx.check_arity(1, 2, 1, 1)) return false;
      given = ctx.has_input(1);
      if (given) {
        const Tensor* t = ctx.constant_input(1);
        if (!t) return ctx.fail("axes input must be a constant (it decides the output shape)");
        if (t->dtype != DataType::kInt64) return ctx.fail("axes input must be int64");
        axes = t->to_ints();
      }
    }
    return true;
  }
};

// Reshape: target shape from the `shape` attribute (opset 1) or constant input 1 (5+). A 0 copies
// the input dim at that index, unless `allowzero` (14+) makes it a literal 0; one -1 is inferred.
class ReshapeOp final : public ReshapeLike {
 public:
  bool infer(InferContext& ctx) const override {
    std::vector<int64_t> target;
    if (ctx.opset() < 5) {
      if (!ctx.check_arity(1, 1, 1, 1)) return false;
      if (!ctx.has_attr("shape")) return ctx.fail("attribute 'shape' is required");
      target = ctx.attr_ints("shape");
    } else {
      if (!ctx.check_arity(2, 2, 1, 1)) return false;
      const Tensor* t = ctx.constant_input(1);
      if (!t)
        return ctx.fail("shape input must be a constant (dynamic reshapes are not supported)");
      if (t->dtype != DataType::kInt64) return ctx.fail("shape input must be int64");
      target = t->to_ints();
    }
    const bool allowzero = ctx.opset() >= 14 && ctx.attr_int("allowzero", 0) != 0;
    const Value* x = ctx.input(0);
    const Shape& in = x->shape;
    if (allowzero && std::count(target.begin(), target.end(), 0) &&
        std::count(target.begin(), target.end(), -1))
      return ctx.fail("with allowzero, shape {} cannot hold both 0 and -1", cpp_ints(target));
    Shape out;
    int64_t infer_at = -1, known = 1;
    for (size_t i = 0; i < target.size(); ++i) {
      int64_t d = target[i];
      if (d == 0 && !allowzero) {
        if (i >= in.size())
          return ctx.fail("shape[{}] = 0 copies an input dim, but the input has rank {}", i,
                          in.size());
        d = in[i];
      }
      if (d == -1) {
        if (infer_at >= 0) return ctx.fail("shape {} has more than one -1", cpp_ints(target));
        infer_at = static_cast<int64_t>(i);
        d = 1;
      } else if (d < 0) {
        return ctx.fail("shape[{}] = {} is invalid (dims are >= 0, or -1 to infer)", i, d);
      } else if (!checked_mul(known, d, &known)) {
        return ctx.fail("shape {} has more elements than int64 can count", cpp_ints(target));
      }
      out.push_back(d);
    }
    if (infer_at >= 0) {
      if (known == 0 || x->numel() % known)
        return ctx.fail("cannot infer the -1 of shape {}: {} elements are not a multiple of {}",
                        cpp_ints(target), x->numel(), known);
      out[static_cast<size_t>(infer_at)] = x->numel() / known;
    }
    return set_same_numel(ctx, out);
  }
};

// Flatten: [d0 * ... * d(axis-1), d(axis) * ... * dn]; axis in [-rank, rank] (negative values are
// formally opset 11+, accepted everywhere like the other axis attributes).
class FlattenOp final : public ReshapeLike {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    const Shape& in = ctx.input(0)->shape;
    const int64_t rank = static_cast<int64_t>(in.size());
    int64_t axis = ctx.attr_int("axis", 1);
    if (axis < -rank || axis > rank)
      return ctx.fail("axis {} is out of range [{}, {}]", axis, -rank, rank);
    if (axis < 0) axis += rank;
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < rank; ++i) (i < axis ? outer : inner) *= in[static_cast<size_t>(i)];
    return set_same_numel(ctx, {outer, inner});
  }
};

class SqueezeOp final : public ReshapeLike {
 public:
  bool infer(InferContext& ctx) const override {
    std::vector<int64_t> axes;
    bool given = false;
    if (!read_axes(ctx, axes, given)) return false;
    const Shape& in = ctx.input(0)->shape;
    std::set<int64_t> drop;
    for (int64_t a : axes) {
      if (!ctx.normalize_axis(a, static_cast<int64_t>(in.size()))) return false;
      if (in.empty() || in[static_cast<size_t>(a)] != 1)
        return ctx.fail("cannot squeeze axis {} of shape {}: its size is not 1", a, shape_str(in));
      drop.insert(a);
    }
    Shape out;
    for (size_t i = 0; i < in.size(); ++i)
      if (given ? !drop.count(static_cast<int64_t>(i)) : in[i] != 1) out.push_back(in[i]);
    return set_same_numel(ctx, out);
  }
};

class UnsqueezeOp final : public ReshapeLike {
 public:
  bool infer(InferContext& ctx) const override {
    std::vector<int64_t> axes;
    bool given = false;
    if (!read_axes(ctx, axes, given)) return false;
    if (!given || axes.empty()) return ctx.fail("axes are required and must not be empty");
    const Shape& in = ctx.input(0)->shape;
    const int64_t rank = static_cast<int64_t>(in.size() + axes.size());
    std::set<int64_t> add;
    for (int64_t a : axes) {
      if (!ctx.normalize_axis(a, rank)) return false;
      if (!add.insert(a).second) return ctx.fail("axis {} is repeated", a);
    }
    Shape out;
    size_t next = 0;
    for (int64_t i = 0; i < rank; ++i) out.push_back(add.count(i) ? 1 : in[next++]);
    return set_same_numel(ctx, out);
  }
};

// Range: the output length depends on the values, so start, limit and delta must be constants and
// the node always folds (unless the result is too large to embed; then it is filled at run time).
// float16 and bfloat16 (opset 27) are computed in float or double (`stash_type` 1 or 11), then
// rounded.
struct RangeState : OpState {
  int64_t count = 0;
  double start = 0, delta = 0;  // for floating types
  bool stash_double = false;    // float16/bfloat16 computed in double rather than float
};

bool is_half(DataType t) {
  return t == DataType::kFloat16 || t == DataType::kBFloat16;
}

double scalar_as_double(const Tensor& t) {
  if (t.dtype == DataType::kFloat16) return to_float(t.as<float16>()[0]);
  if (t.dtype == DataType::kBFloat16) return to_float(t.as<bfloat16>()[0]);
  return t.double_at(0);
}

class RangeOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(3, 3, 1, 1)) return false;
    const DataType t = ctx.input(0)->dtype;
    const bool half_ok = ctx.opset() >= 27;
    if (!in_type_set(t, kFloatTypes) && t != DataType::kInt16 && t != DataType::kInt32 &&
        t != DataType::kInt64 && !(is_half(t) && half_ok))
      return ctx.fail("type {} is not supported (float, double, int16, int32, int64{} are)",
                      dtype_name(t), half_ok ? ", float16, bfloat16" : "");
    const Tensor* v[3];
    for (size_t i = 0; i < 3; ++i) {
      v[i] = ctx.constant_input(i);
      if (!v[i])
        return ctx.fail("input {} must be a constant (the values decide the output shape)", i);
      if (v[i]->dtype != t || v[i]->numel() != 1)
        return ctx.fail("input {} must be a scalar of type {}", i, dtype_name(t));
    }
    auto& s = ctx.make_state<RangeState>();
    if (is_integer(t)) {
      const int64_t start = v[0]->int_at(0), limit = v[1]->int_at(0), delta = v[2]->int_at(0);
      if (delta == 0) return ctx.fail("delta must be non-zero");
      int64_t span = 0;
      if (!checked_sub(delta > 0 ? limit : start, delta > 0 ? start : limit, &span) ||
          delta == std::numeric_limits<int64_t>::min())
        return ctx.fail("the length of the range from {} to {} by {} overflows int64", start, limit,
                        delta);
      const int64_t step = delta > 0 ? delta : -delta;
      s.count = span > 0 ? (span - 1) / step + 1 : 0;
    } else {
      const double limit = scalar_as_double(*v[1]);
      s.start = scalar_as_double(*v[0]);
      s.delta = scalar_as_double(*v[2]);
      if (s.delta == 0 || !std::isfinite(s.start) || !std::isfinite(limit) ||
          !std::isfinite(s.delta))
        return ctx.fail("start, limit and delta must be finite and delta non-zero");
      const double count = std::ceil((limit - s.start) / s.delta);
      if (!(count < 0x1p62))  // also NaN; checked before the cast, which would be undefined
        return ctx.fail(
            "the range from {} to {} by {} has {:g} elements, more than int64 can count", s.start,
            limit, s.delta, count);
      s.count = std::max<int64_t>(0, static_cast<int64_t>(count));
      const int64_t stash = ctx.opset() >= 27 ? ctx.attr_int("stash_type", 1) : 1;
      if (stash != 1 && stash != 11)
        return ctx.fail("stash_type must be 1 (float) or 11 (double), got {}", stash);
      s.stash_double = stash == 11;
    }
    ctx.set_output(0, t, {s.count});
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<RangeState>();
    auto stashed = [&](auto tag) {
      using T = decltype(tag);
      if (s.stash_double)
        range_stashed_ref(s.start, s.delta, out[0].as<T>(), s.count);
      else
        range_stashed_ref(static_cast<float>(s.start), static_cast<float>(s.delta), out[0].as<T>(),
                          s.count);
      return true;
    };
    if (in[0]->dtype == DataType::kFloat16) return stashed(float16{});
    if (in[0]->dtype == DataType::kBFloat16) return stashed(bfloat16{});
    return visit_dtype<kFloatTypes | kSignedInts>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      range_ref(in[0]->as<T>()[0], in[2]->as<T>()[0], out[0].as<T>(), s.count);
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<RangeState>();
    const DataType t = ctx.input(0)->dtype;
    ctx.include("onnxc/transform.h");
    if (is_half(t)) {
      auto literal = s.stash_double ? cpp_double : cpp_float;
      ctx.line("onnxc::range_stashed_ref(/*start=*/{}, /*delta=*/{}, {}, /*n=*/{});",
               literal(s.start), literal(s.delta), ctx.out(0), s.count);
      return;
    }
    auto literal = [&](const Tensor& v) {
      return is_integer(t) ? fmt::format("static_cast<{}>({}LL)", dtype_cpp(t), v.int_at(0))
                           : cpp_scalar(t, v.double_at(0));
    };
    ctx.line("onnxc::range_ref(/*start=*/{}, /*delta=*/{}, {}, /*n=*/{});",
             literal(*ctx.input(0)->constant), literal(*ctx.input(2)->constant), ctx.out(0),
             s.count);
  }
};

const ShapeOp kShape;
const SizeOp kSize;
const ReshapeOp kReshape;
const FlattenOp kFlatten;
const SqueezeOp kSqueeze;
const UnsqueezeOp kUnsqueeze;
const RangeOp kRange;

}  // namespace

// Each handler covers every version of its op, branching on the node's opset where they differ.
std::vector<OpRegistration> shape_ops() {
  return {{"", "Shape", 1, kMaxOpset, &kShape},     {"", "Size", 1, kMaxOpset, &kSize},
          {"", "Reshape", 1, kMaxOpset, &kReshape}, {"", "Flatten", 1, kMaxOpset, &kFlatten},
          {"", "Squeeze", 1, kMaxOpset, &kSqueeze}, {"", "Unsqueeze", 1, kMaxOpset, &kUnsqueeze},
          {"", "Range", 11, kMaxOpset, &kRange}};
}

}  // namespace onnxc
