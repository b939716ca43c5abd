// Constant (all versions: value, value_float(s), value_int(s), value_string(s)) and
// ConstantOfShape (9+). Both produce compile-time values; ConstantOfShape results larger than
// the fold limit are filled at run time instead.
#include <fmt/format.h>

#include <algorithm>

#include "ops/dispatch.h"
#include "ops/registry.h"
#include "onnxc/transform.h"

namespace onnxc {
namespace {

class ConstantOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(0, 0, 1, 1)) return false;
    const Node& n = ctx.node();
    if (n.attributes.size() != 1)
      return ctx.fail("needs exactly one of value, value_float(s), value_int(s), value_string(s), has {} attributes",
                      n.attributes.size());
    const auto& [name, a] = *n.attributes.begin();
    Tensor t;
    if (name == "value" && a.t) {
      t = *a.t;
    } else if (name == "value_float" || name == "value_floats") {
      std::vector<float> v = name == "value_float" ? std::vector<float>{ctx.attr_float(name, 0)} : ctx.attr_floats(name);
      t = Tensor::zeros(DataType::kFloat, name == "value_float" ? Shape{} : Shape{static_cast<int64_t>(v.size())});
      std::copy(v.begin(), v.end(), t.as<float>());
    } else if (name == "value_int" || name == "value_ints") {
      std::vector<int64_t> v = name == "value_int" ? std::vector<int64_t>{ctx.attr_int(name, 0)} : ctx.attr_ints(name);
      t = Tensor::zeros(DataType::kInt64, name == "value_int" ? Shape{} : Shape{static_cast<int64_t>(v.size())});
      std::copy(v.begin(), v.end(), t.as<int64_t>());
    } else if (name == "value_string" || name == "value_strings") {
      t.dtype = DataType::kString;
      t.strings = name == "value_string" ? std::vector<std::string>{a.s} : a.strings;
      if (name == "value_strings") t.shape = {static_cast<int64_t>(t.strings.size())};
    } else {
      return ctx.fail("attribute '{}' is not supported (sparse constants are not)", name);
    }
    ctx.set_output_constant(0, std::move(t));
    return true;
  }
  void emit(EmitContext&) const override {}  // always folded
};

struct FillState : OpState {
  double value = 0;
};

class ConstantOfShapeOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    const Tensor* shape = ctx.constant_input(0);
    if (!shape) return ctx.fail("shape input must be a constant");
    Shape out = shape->to_ints();
    for (int64_t d : out)
      if (d < 0) return ctx.fail("shape has a negative dim {}", d);
    DataType dtype = DataType::kFloat;
    auto& s = ctx.make_state<FillState>();
    if (const Tensor* v = ctx.attr_tensor("value")) {
      if (v->numel() != 1) return ctx.fail("value must hold one element");
      dtype = v->dtype;
      if (!in_type_set(dtype, kAllPlain)) return ctx.fail("value type {} is not supported", dtype_name(dtype));
      s.value = v->double_at(0);
    }
    ctx.set_output(0, dtype, out);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>&, std::vector<Tensor>& out) const override {
    double value = n.state_as<FillState>().value;
    return visit_dtype<kAllPlain>(out[0].dtype, [&](auto tag) {
      using T = decltype(tag);
      fill_ref(out[0].as<T>(), out[0].numel(), static_cast<T>(value));
    });
  }
  void emit(EmitContext& ctx) const override {
    DataType t = ctx.output(0)->dtype;
    ctx.include("onnxc/transform.h");
    ctx.line("onnxc::fill_ref<{}>({}, {}, {});", dtype_cpp(t), ctx.out(0), ctx.output(0)->numel(),
             cpp_scalar(t, ctx.node().state_as<FillState>().value));
  }
};

const ConstantOp kConstant;
const ConstantOfShapeOp kConstantOfShape;

}  // namespace

std::vector<OpRegistration> constant_ops() {
  return {{"", "Constant", 1, kMaxOpset, &kConstant}, {"", "ConstantOfShape", 9, kMaxOpset, &kConstantOfShape}};
}

}  // namespace onnxc
