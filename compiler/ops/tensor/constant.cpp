// Constant (1, 9, 11, 12, 13, 19, 21, 23, 24, 25) and ConstantOfShape (9, 20, 21, 23, 24, 25).
// Constant always becomes a compile-time value: `value` (every version), `sparse_value` (11+,
// densified by the importer) and value_float(s) / value_int(s) / value_string(s)
// (12+). ConstantOfShape needs a constant shape; its result is folded, or filled at run time when
// larger than the fold limit. Its element type is that of the one-element `value` attribute (float
// 0 by default), any numeric type of the version: small floats and packed integers included.
// SparseToDense, onnxc's own, expands a sparse tensor kept in COO form (--keep-sparse).
#include <fmt/format.h>

#include <algorithm>

#include "onnxc/convert.h"
#include "ops/dispatch.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

class ConstantOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(0, 0, 1, 1)) return false;
    const Node& n = ctx.node();
    if (n.attributes.size() != 1)
      return ctx.fail(
          "needs exactly one of value, sparse_value, value_float(s), value_int(s), "
          "value_string(s); has {} "
          "attributes",
          n.attributes.size());
    const auto& [name, a] = *n.attributes.begin();
    if (name == "sparse_value" && ctx.opset() < 11)
      return ctx.fail("attribute 'sparse_value' exists from opset 11 (model imports opset {})",
                      ctx.opset());
    if (name != "value" && name != "sparse_value" && ctx.opset() < 12)
      return ctx.fail(
          "attribute '{}' exists from opset 12 (model imports opset {}); only 'value' before", name,
          ctx.opset());
    Tensor t;
    if (name == "sparse_value") {  // densified by the importer
      if (a.kind != Attribute::Kind::kSparseTensor || !a.t)
        return ctx.fail("attribute 'sparse_value' must be a sparse tensor");
      t = *a.t;
    } else if (name == "value") {
      const Tensor* v = ctx.attr_tensor(name);
      if (!v) return false;  // attr_tensor reported the kind mismatch
      if (v->dtype == DataType::kComplex64 || v->dtype == DataType::kComplex128)
        return ctx.fail("complex constants are not supported");
      t = *v;
    } else if (name == "value_float" || name == "value_floats") {
      const bool scalar = name == "value_float";
      std::vector<float> v =
          scalar ? std::vector<float>{ctx.attr_float(name, 0)} : ctx.attr_floats(name);
      t = Tensor::zeros(DataType::kFloat, scalar ? Shape{} : Shape{static_cast<int64_t>(v.size())});
      std::copy(v.begin(), v.end(), t.as<float>());
    } else if (name == "value_int" || name == "value_ints") {
      const bool scalar = name == "value_int";
      std::vector<int64_t> v =
          scalar ? std::vector<int64_t>{ctx.attr_int(name, 0)} : ctx.attr_ints(name);
      t = Tensor::zeros(DataType::kInt64, scalar ? Shape{} : Shape{static_cast<int64_t>(v.size())});
      std::copy(v.begin(), v.end(), t.as<int64_t>());
    } else if (name == "value_string") {
      t.dtype = DataType::kString;
      t.strings = {ctx.attr_string(name, "")};
    } else if (name == "value_strings") {
      if (a.kind != Attribute::Kind::kStrings)
        return ctx.fail("attribute 'value_strings' must be of type strings, got {}",
                        attribute_kind_name(a.kind));
      t.dtype = DataType::kString;
      t.strings = a.strings;
      t.shape = {static_cast<int64_t>(t.strings.size())};
    } else {
      return ctx.fail("unknown attribute '{}'", name);
    }
    ctx.set_output_constant(0, std::move(t));
    return true;
  }
  void emit(EmitContext&) const override {}  // the output is always a compile-time value
};

// The first ConstantOfShape opset whose output types include `t`; 0 when no version has it. Its
// first version (9) took the plain types and float16; version 20 added bfloat16 and float8, and
// later types arrive in the opset that introduced them.
int constant_of_shape_first_opset(DataType t) {
  if (in_type_set(t, kAllPlain | type_set({DataType::kFloat16}))) return 9;
  if (in_type_set(t, kCastTypes)) return std::max(20, dtype_info(t).since);
  return 0;
}

struct FillState : OpState {
  Tensor value;  // the one element, in the output type
};

// An exact C++ expression of element 0 of `t`.
std::string element_literal(const Tensor& t) {
  DataType d = t.dtype;
  if (d == DataType::kFloat) return cpp_float(t.as<float>()[0]);
  if (d == DataType::kDouble) return cpp_double(t.as<double>()[0]);
  if (d == DataType::kBool) return t.data[0] ? "true" : "false";
  if (d == DataType::kUint64) return fmt::format("uint64_t{{{}u}}", t.as<uint64_t>()[0]);
  if (is_integer(d) && dtype_info(d).bits >= 8) {
    int64_t v = t.int_at(0);
    if (v == INT64_MIN) return "int64_t{-9223372036854775807 - 1}";
    return fmt::format("{}{{{}}}", dtype_cpp(d), v);
  }
  // Small floats: the raw bits in their struct.
  unsigned bits = t.data[0];
  if (dtype_info(d).bits == 16) bits |= static_cast<unsigned>(t.data[1]) << 8;
  return fmt::format("{}{{{}}}", dtype_cpp(d), bits);
}

class ConstantOfShapeOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1) || !ctx.check_dtype(0, {DataType::kInt64})) return false;
    if (ctx.input(0)->shape.size() != 1)
      return ctx.fail("shape input must be 1-D, got rank {}", ctx.input(0)->shape.size());
    const Tensor* shape = ctx.constant_input(0);
    if (!shape) return ctx.fail("shape input must be a constant");
    Shape out = shape->to_ints();
    for (int64_t d : out)
      if (d < 0) return ctx.fail("shape has a negative dim {}", d);
    auto& s = ctx.make_state<FillState>();
    s.value = Tensor::zeros(DataType::kFloat, {});
    if (ctx.has_attr("value")) {
      const Tensor* v = ctx.attr_tensor("value");
      if (!v) return false;  // attr_tensor reported the kind mismatch
      if (v->numel() != 1)
        return ctx.fail("value must hold exactly one element, has {}", v->numel());
      const int first = constant_of_shape_first_opset(v->dtype);
      if (first == 0) return ctx.fail("value type {} is not supported", dtype_name(v->dtype));
      if (ctx.opset() < first)
        return ctx.fail("value type {} needs opset {} or later (model imports opset {})",
                        dtype_name(v->dtype), first, ctx.opset());
      s.value = *v;
    }
    ctx.set_output(0, s.value.dtype, out);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>&,
                std::vector<Tensor>& out) const override {
    const Tensor& value = n.state_as<FillState>().value;
    Tensor& y = out[0];
    if (visit_dtype<kPackedTypes>(y.dtype, [&](auto tag) {
          using P = decltype(tag);
          fill_packed_ref(y.as<P>(), y.numel(), packed_code_at(value.as<P>(), 0));
        }))
      return true;
    if (visit_dtype<kAllPlain>(y.dtype, [&](auto tag) {
          using T = decltype(tag);
          fill_value_ref<T>(y.as<T>(), y.numel(), value.as<T>()[0]);
        }))
      return true;
    // Small floats: fill their raw bits, which is all fill_value_ref does with the structs.
    if (dtype_info(y.dtype).bits == 16) {
      fill_value_ref<uint16_t>(y.as<uint16_t>(), y.numel(), value.as<uint16_t>()[0]);
    } else {
      fill_value_ref<uint8_t>(y.as<uint8_t>(), y.numel(), value.data[0]);
    }
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const Tensor& value = ctx.node().state_as<FillState>().value;
    const Value* y = ctx.output(0);
    if (dtype_info(y->dtype).bits < 8) {
      ctx.include("onnxc/convert.h");
      ctx.line("onnxc::fill_packed_ref<{}>({}, /*n=*/{}, /*code=*/{}u);", dtype_cpp(y->dtype),
               ctx.out(0), y->numel(), value.data[0] & ((1u << dtype_info(y->dtype).bits) - 1));
      return;
    }
    ctx.include("onnxc/convert.h");
    ctx.line("onnxc::fill_value_ref<{}>({}, /*n=*/{}, /*value=*/{});", dtype_cpp(y->dtype),
             ctx.out(0), y->numel(), element_literal(value));
  }
};

// SparseToDense (domain onnxc.sparse, version 1; onnxc's own): input 0 the values [NNZ], input 1
// their linear indices [NNZ] (uint16, uint32 or int64), attribute `shape` the dense shape. The
// importer makes it for a sparse tensor that --keep-sparse keeps in COO form; the dense tensor is
// built in the arena at run time. It has no evaluate(): folding it would undo what the flag asked.
class SparseToDenseOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 2, 1, 1) ||
        !ctx.check_dtype(1, {DataType::kUint16, DataType::kUint32, DataType::kInt64}))
      return false;
    const Value* values = ctx.input(0);
    const Tensor* indices = ctx.constant_input(1);
    if (values->dtype == DataType::kString || dtype_info(values->dtype).bits % 8)
      return ctx.fail("{} values are not supported", dtype_name(values->dtype));
    if (!indices) return ctx.fail("the indices must be a constant");
    if (values->shape.size() != 1 || indices->shape != values->shape)
      return ctx.fail("values [{}] and indices [{}] must be 1-D of one length",
                      shape_str(values->shape), shape_str(indices->shape));
    const Shape shape = ctx.attr_ints("shape");
    for (int64_t d : shape)
      if (d < 0) return ctx.fail("shape has a negative dim {}", d);
    const int64_t numel = shape_numel(shape);
    for (int64_t k = 0; k < indices->numel(); ++k)
      if (indices->int_at(k) < 0 || indices->int_at(k) >= numel)
        return ctx.fail("index {} of value {} is out of range [0, {})", indices->int_at(k), k,
                        numel);
    ctx.set_output(0, values->dtype, shape);
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const Value* y = ctx.output(0);
    ctx.include("onnxc/convert.h");
    ctx.line(
        "onnxc::sparse_to_dense_ref<{}, {}>({}, /*n=*/{}, /*values=*/{}, /*indices=*/{}, "
        "/*nnz=*/{});",
        dtype_cpp(y->dtype), dtype_cpp(ctx.input(1)->dtype), ctx.out(0), y->numel(), ctx.in(0),
        ctx.in(1), ctx.input(0)->numel());
  }
};

const ConstantOp kConstant;
const SparseToDenseOp kSparseToDense;
const ConstantOfShapeOp kConstantOfShape;

}  // namespace

std::vector<OpRegistration> constant_ops() {
  return {{"", "Constant", 1, kMaxOpset, &kConstant},
          {"", "ConstantOfShape", 9, kMaxOpset, &kConstantOfShape},
          {kSparseDomain, "SparseToDense", 1, 1, &kSparseToDense}};
}

}  // namespace onnxc
