// Ops that only compute or change shape metadata: Shape, Size (their values are known at compile
// time), and the copy-through reshapes Reshape, Flatten, Squeeze, Unsqueeze.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "ops/registry.h"

namespace onnxc {
namespace {

Tensor int64_tensor(const std::vector<int64_t>& v, Shape shape) {
  Tensor t = Tensor::zeros(DataType::kInt64, std::move(shape));
  std::copy(v.begin(), v.end(), t.as<int64_t>());
  return t;
}

class ShapeOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    const Shape& s = ctx.input(0)->shape;
    int64_t rank = static_cast<int64_t>(s.size());
    int64_t start = ctx.opset() >= 15 ? ctx.attr_int("start", 0) : 0;
    int64_t end = ctx.opset() >= 15 ? ctx.attr_int("end", rank) : rank;
    auto clamp = [&](int64_t v) { return std::clamp(v < 0 ? v + rank : v, int64_t{0}, rank); };
    start = clamp(start);
    end = std::max(clamp(end), start);
    std::vector<int64_t> dims(s.begin() + start, s.begin() + end);
    ctx.set_output_constant(0, int64_tensor(dims, {static_cast<int64_t>(dims.size())}));
    return true;
  }
  void emit(EmitContext&) const override {}  // always folded
};

class SizeOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    ctx.set_output_constant(0, int64_tensor({ctx.input(0)->numel()}, {}));
    return true;
  }
  void emit(EmitContext&) const override {}  // always folded
};

// Common part of the ops whose output is the input's bytes under a new shape.
class ReshapeLike : public OpHandler {
 public:
  bool evaluate(const Node&, const std::vector<const Tensor*>& in, std::vector<Tensor>& out) const override {
    out[0].data = in[0]->data;
    out[0].strings = in[0]->strings;
    return true;
  }
  void emit(EmitContext& ctx) const override {
    ctx.include("onnxc/base.h");
    ctx.line("onnxc::copy_bytes({}, {}, {});", ctx.out(0), ctx.in(0), ctx.input(0)->bytes());
  }

 protected:
  // Axes from the attribute (before `input_since`) or from constant input 1.
  static bool read_axes(InferContext& ctx, int input_since, std::vector<int64_t>& axes, bool& given) {
    given = true;
    if (ctx.opset() < input_since) {
      given = ctx.has_attr("axes");
      axes = ctx.attr_ints("axes");
      return true;
    }
    if (!ctx.has_input(1)) {
      given = false;
      return true;
    }
    const Tensor* t = ctx.constant_input(1);
    if (!t) return ctx.fail("axes input must be a constant");
    axes = t->to_ints();
    return true;
  }
  static bool set_same_numel(InferContext& ctx, const Shape& out) {
    if (shape_numel(out) != ctx.input(0)->numel())
      return ctx.fail("cannot reshape {} elements ({}) to {}", ctx.input(0)->numel(), shape_str(ctx.input(0)->shape),
                      shape_str(out));
    ctx.set_output(0, ctx.input(0)->dtype, out);
    return true;
  }
};

class ReshapeOp final : public ReshapeLike {
 public:
  bool infer(InferContext& ctx) const override {
    std::vector<int64_t> target;
    if (ctx.opset() < 5) {
      if (!ctx.check_arity(1, 1, 1, 1)) return false;
      target = ctx.attr_ints("shape");
    } else {
      if (!ctx.check_arity(2, 2, 1, 1)) return false;
      const Tensor* t = ctx.constant_input(1);
      if (!t) return ctx.fail("shape input must be a constant (dynamic reshapes are not supported)");
      target = t->to_ints();
    }
    bool allowzero = ctx.opset() >= 14 && ctx.attr_int("allowzero", 0) != 0;
    const Shape& in = ctx.input(0)->shape;
    Shape out;
    int infer_at = -1;
    int64_t known = 1;
    for (size_t i = 0; i < target.size(); ++i) {
      int64_t d = target[i];
      if (d == 0 && !allowzero) {
        if (i >= in.size()) return ctx.fail("shape[{}] = 0 copies a dim the input (rank {}) lacks", i, in.size());
        d = in[i];
      }
      if (d == -1) {
        if (infer_at >= 0) return ctx.fail("shape has more than one -1");
        infer_at = static_cast<int>(i);
        out.push_back(1);
        continue;
      }
      if (d < 0) return ctx.fail("shape[{}] = {} is invalid", i, d);
      known *= d;
      out.push_back(d);
    }
    if (infer_at >= 0) {
      if (known == 0 || ctx.input(0)->numel() % known)
        return ctx.fail("cannot infer -1: {} elements do not divide by {}", ctx.input(0)->numel(), known);
      out[static_cast<size_t>(infer_at)] = ctx.input(0)->numel() / known;
    }
    return set_same_numel(ctx, out);
  }
};

class FlattenOp final : public ReshapeLike {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    const Shape& in = ctx.input(0)->shape;
    int64_t rank = static_cast<int64_t>(in.size()), axis = ctx.attr_int("axis", 1);
    if (axis < -rank || axis > rank) return ctx.fail("axis {} is out of range for rank {}", axis, rank);
    if (axis < 0) axis += rank;
    int64_t outer = shape_numel(Shape(in.begin(), in.begin() + axis));
    return set_same_numel(ctx, {outer, ctx.input(0)->numel() / std::max<int64_t>(outer, 1)});
  }
};

class SqueezeOp final : public ReshapeLike {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 2, 1, 1)) return false;
    const Shape& in = ctx.input(0)->shape;
    std::vector<int64_t> axes;
    bool given;
    if (!read_axes(ctx, 13, axes, given)) return false;
    std::set<int64_t> drop;
    for (int64_t a : axes) {
      if (!ctx.normalize_axis(a, static_cast<int64_t>(in.size()))) return false;
      if (in[static_cast<size_t>(a)] != 1) return ctx.fail("axis {} has size {}, not 1", a, in[static_cast<size_t>(a)]);
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
    if (!ctx.check_arity(1, 2, 1, 1)) return false;
    const Shape& in = ctx.input(0)->shape;
    std::vector<int64_t> axes;
    bool given;
    if (!read_axes(ctx, 13, axes, given)) return false;
    if (!given) return ctx.fail("axes are required");
    int64_t rank = static_cast<int64_t>(in.size() + axes.size());
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

const ShapeOp kShape;
const SizeOp kSize;
const ReshapeOp kReshape;
const FlattenOp kFlatten;
const SqueezeOp kSqueeze;
const UnsqueezeOp kUnsqueeze;

}  // namespace

std::vector<OpRegistration> shape_ops() {
  return {{"", "Shape", 1, kMaxOpset, &kShape},         {"", "Size", 1, kMaxOpset, &kSize},
          {"", "Reshape", 1, kMaxOpset, &kReshape},     {"", "Flatten", 1, kMaxOpset, &kFlatten},
          {"", "Squeeze", 1, kMaxOpset, &kSqueeze},     {"", "Unsqueeze", 1, kMaxOpset, &kUnsqueeze}};
}

}  // namespace onnxc
