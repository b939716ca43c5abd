#include "ops/op.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace onnxc {

const Tensor* InferContext::constant_input(size_t i) const {
  const Value* v = node_.input(i);
  if (v && !v->constant && demand_) demand_(v);
  return v && v->constant ? v->constant.get() : nullptr;
}

bool InferContext::check_arity(size_t min_in, size_t max_in, size_t min_out, size_t max_out) {
  size_t n_in = node_.inputs.size(), n_out = node_.outputs.size();
  if (n_in < min_in || n_in > max_in)
    return fail("takes {} to {} inputs, got {}", min_in, max_in, n_in);
  if (n_out < min_out || n_out > max_out)
    return fail("has {} to {} outputs, got {}", min_out, max_out, n_out);
  for (size_t i = 0; i < min_in; ++i)
    if (!node_.inputs[i]) return fail("required input {} is missing", i);
  for (size_t i = 0; i < n_in; ++i) {
    const Value* v = node_.inputs[i];
    if (v && !v->has_shape) return fail("input {} ('{}') has no inferred shape", i, v->name);
  }
  return true;
}

bool InferContext::check_dtype(size_t i, std::initializer_list<DataType> allowed) {
  const Value* v = node_.input(i);
  if (!v) return true;
  for (DataType t : allowed)
    if (v->dtype == t) return true;
  std::string names;
  for (DataType t : allowed) names += std::string(names.empty() ? "" : ", ") + dtype_name(t);
  return fail("input {} ('{}') has type {}, expected one of: {}", i, v->name, dtype_name(v->dtype),
              names);
}

const Attribute* InferContext::attr_of_kind(const std::string& name, Attribute::Kind kind) {
  const Attribute* a = node_.attr(name);
  if (!a) return nullptr;
  if (a->kind != kind) {
    fail("attribute '{}' must be of type {}, got {}", name, attribute_kind_name(kind),
         attribute_kind_name(a->kind));
    return nullptr;
  }
  return a;
}

int64_t InferContext::attr_int(const std::string& name, int64_t def) {
  const Attribute* a = attr_of_kind(name, Attribute::Kind::kInt);
  return a ? a->i : def;
}
float InferContext::attr_float(const std::string& name, float def) {
  const Attribute* a = attr_of_kind(name, Attribute::Kind::kFloat);
  return a ? a->f : def;
}
std::string InferContext::attr_string(const std::string& name, const std::string& def) {
  const Attribute* a = attr_of_kind(name, Attribute::Kind::kString);
  return a ? a->s : def;
}
std::vector<int64_t> InferContext::attr_ints(const std::string& name, std::vector<int64_t> def) {
  const Attribute* a = attr_of_kind(name, Attribute::Kind::kInts);
  return a ? a->ints : def;
}
std::vector<float> InferContext::attr_floats(const std::string& name, std::vector<float> def) {
  const Attribute* a = attr_of_kind(name, Attribute::Kind::kFloats);
  return a ? a->floats : def;
}
const Tensor* InferContext::attr_tensor(const std::string& name) {
  const Attribute* a = attr_of_kind(name, Attribute::Kind::kTensor);
  return a ? a->t.get() : nullptr;
}

bool InferContext::normalize_axis(int64_t& axis, int64_t rank, const char* what) {
  if (axis < -rank || axis >= std::max<int64_t>(rank, 1) || (rank == 0 && axis != 0 && axis != -1))
    return fail("{} {} is out of range for rank {}", what, axis, rank);
  if (axis < 0) axis += rank;
  if (axis < 0) axis = 0;
  return true;
}

void InferContext::set_output(size_t i, DataType dtype, Shape shape) {
  Value* v = node_.output(i);
  if (!v) return;
  v->dtype = dtype;
  v->shape = std::move(shape);
  v->has_shape = true;
}

void InferContext::set_output_constant(size_t i, Tensor value) {
  Value* v = node_.output(i);
  if (!v) return;
  set_output(i, value.dtype, value.shape);
  v->constant = std::make_shared<const Tensor>(std::move(value));
}

std::string cpp_ints(const std::vector<int64_t>& v) {
  return fmt::format("{{{}}}", fmt::join(v, ", "));
}

namespace {
std::string special_float(double v, const char* type) {
  if (std::isnan(v)) return fmt::format("std::numeric_limits<{}>::quiet_NaN()", type);
  return fmt::format("{}std::numeric_limits<{}>::infinity()", v < 0 ? "-" : "", type);
}
}  // namespace

std::string cpp_float(double v) {
  if (!std::isfinite(v)) return special_float(v, "float");
  // Hex float literals are exact; %a of a float promoted to double round-trips.
  return fmt::format("{:a}f", static_cast<double>(static_cast<float>(v)));
}

std::string cpp_double(double v) {
  if (!std::isfinite(v)) return special_float(v, "double");
  return fmt::format("{:a}", v);
}

std::string cpp_scalar(DataType dtype, double v) {
  switch (dtype) {
    case DataType::kFloat: return cpp_float(v);
    case DataType::kDouble: return cpp_double(v);
    case DataType::kBool: return v != 0 ? "true" : "false";
    case DataType::kInt64:
      if (v <= static_cast<double>(std::numeric_limits<int64_t>::min()))
        return "std::numeric_limits<int64_t>::min()";
      return fmt::format("int64_t{{{}}}", static_cast<int64_t>(v));
    case DataType::kUint64: return fmt::format("uint64_t{{{}u}}", static_cast<uint64_t>(v));
    default: return fmt::format("static_cast<{}>({})", dtype_cpp(dtype), static_cast<int64_t>(v));
  }
}

}  // namespace onnxc
