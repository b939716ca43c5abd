// Optional ops, resolved at compile time (ops/containers.h): whether an optional holds a value is
// a compile-time fact, so
//   Optional            -> the output holds its input, or nothing (no node left)
//   OptionalHasElement  -> a constant bool
//   OptionalGetElement  -> Identity of the tensor it holds (or the sequence itself)
// Getting the element of an optional that is empty is a compile error.
#include "ops/containers.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

void set_optional(Value* v, DataType dtype, ValueKind contained, Value* element) {
  v->kind = ValueKind::kOptional;
  v->dtype = dtype;
  v->contained = contained;
  v->elements.clear();
  if (element) v->elements.push_back(element);
  v->has_shape = true;
  v->shape.clear();
}

class OptionalOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(0, 1, 1, 1)) return false;
    Value* in = ctx.node().input(0);
    if (in && in->kind == ValueKind::kOptional)
      return ctx.fail("the input is an optional: an optional cannot hold an optional");
    if (!in && !ctx.has_attr("type"))
      return ctx.fail("attribute 'type' is required when the input is absent");
    set_optional(ctx.node().output(0), in ? in->dtype : DataType::kUndefined,
                 in ? in->kind : ValueKind::kTensor, in);
    ctx.replace_node({});
    return true;
  }
  void emit(EmitContext&) const override {}
};

class OptionalHasElementOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(0, 1, 1, 1)) return false;
    const Value* in = ctx.input(0);
    // An absent input is an empty optional; a tensor or sequence always holds itself (opset 18).
    const bool has = in && (in->kind != ValueKind::kOptional || !in->elements.empty());
    Tensor t = Tensor::zeros(DataType::kBool, {});
    t.data[0] = has ? 1 : 0;
    ctx.set_output_constant(0, std::move(t));
    ctx.replace_node({});
    return true;
  }
  void emit(EmitContext&) const override {}
};

class OptionalGetElementOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    Value* in = ctx.node().input(0);
    Value* element = in;
    if (in->kind == ValueKind::kOptional) {
      if (in->elements.empty())
        return ctx.fail(
            "the optional '{}' is empty (known at compile time): it has no element to get",
            in->name);
      element = in->elements[0];
    }
    if (element->is_container()) {
      copy_container(ctx.node().output(0), element);
      ctx.replace_node({});
      return true;
    }
    std::vector<std::unique_ptr<Node>> nodes;
    nodes.push_back(
        make_node(ctx.node(), "Identity", 16, "get", {element}, {ctx.node().output(0)}));
    ctx.replace_node(std::move(nodes));
    return true;
  }
  void emit(EmitContext&) const override {}
};

const OptionalOp kOptional;
const OptionalHasElementOp kOptionalHasElement;
const OptionalGetElementOp kOptionalGetElement;

}  // namespace

std::vector<OpRegistration> optional_ops() {
  return {
      {"", "Optional", 15, kMaxOpset, &kOptional},
      {"", "OptionalGetElement", 15, kMaxOpset, &kOptionalGetElement},
      {"", "OptionalHasElement", 15, kMaxOpset, &kOptionalHasElement},
  };
}

}  // namespace onnxc
