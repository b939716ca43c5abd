#include "ops/op.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>

#include "base/checked_math.h"

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
  // An empty output name omits an optional output (IR.md); a required one cannot be omitted.
  for (size_t i = 0; i < min_out; ++i)
    if (!node_.outputs[i])
      return fail("required output {} has an empty name (only optional outputs may be omitted)", i);
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

bool InferContext::set_output(size_t i, DataType dtype, Shape shape) {
  Value* v = node_.output(i);
  if (!v) return true;
  // Every inferred size goes through here: refuse it before anything sizes a buffer from it.
  std::optional<int64_t> numel = checked_numel(shape);
  std::optional<int64_t> bytes =
      numel ? checked_bytes(*numel, dtype == DataType::kString ? 64 : dtype_info(dtype).bits)
            : numel;
  if (std::any_of(shape.begin(), shape.end(), [](int64_t d) { return d < 0; })) {
    fail("output '{}' of shape {}: a dim must not be negative", v->name, shape_str(shape));
    return false;
  }
  if (!numel || !bytes || *bytes > kMaxTensorBytes) {
    std::string size = !numel   ? std::string("more elements than int64 can count")
                       : !bytes ? fmt::format("{} elements, more than 2^63 bytes", *numel)
                                : fmt::format("{} elements, {} bytes", *numel, *bytes);
    fail("output '{}' of shape {} has {}: a tensor may hold at most 2^40 bytes (1 TiB)", v->name,
         shape_str(shape), size);
    return false;
  }
  v->dtype = dtype;
  v->shape = std::move(shape);
  v->has_shape = true;
  return true;
}

void InferContext::set_output_constant(size_t i, Tensor value) {
  Value* v = node_.output(i);
  if (!v) return;
  if (!set_output(i, value.dtype, value.shape)) return;
  v->constant = std::make_shared<const Tensor>(std::move(value));
}

std::string cpp_int64(int64_t v) {
  return v == INT64_MIN ? "(-9223372036854775807 - 1)" : std::to_string(v);
}

std::string cpp_ints(const std::vector<int64_t>& v) {
  std::vector<std::string> literals;
  for (int64_t x : v) literals.push_back(cpp_int64(x));
  return fmt::format("{{{}}}", fmt::join(literals, ", "));
}

namespace {
std::string special_float(double v, const char* type) {
  if (std::isnan(v)) return fmt::format("std::numeric_limits<{}>::quiet_NaN()", type);
  return fmt::format("{}std::numeric_limits<{}>::infinity()", v < 0 ? "-" : "", type);
}
}  // namespace

// The shortest decimal that reads back as exactly v ("0.5", "1e-05"), with a ".0" where it would
// otherwise read as an integer; a hex float literal (always exact) if the decimal does not
// round-trip.
std::string cpp_float(double v) {
  if (!std::isfinite(v)) return special_float(v, "float");
  const float f = static_cast<float>(v);
  std::string s = fmt::format("{}", f);
  if (std::strtof(s.c_str(), nullptr) != f) return fmt::format("{:a}f", static_cast<double>(f));
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s + "f";
}

std::string cpp_double(double v) {
  if (!std::isfinite(v)) return special_float(v, "double");
  std::string s = fmt::format("{}", v);
  if (std::strtod(s.c_str(), nullptr) != v) return fmt::format("{:a}", v);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string cpp_scalar(DataType dtype, double v) {
  switch (dtype) {
    case DataType::kFloat:
      return cpp_float(v);
    case DataType::kDouble:
      return cpp_double(v);
    case DataType::kBool:
      return v != 0 ? "true" : "false";
    case DataType::kInt64:
      if (v <= static_cast<double>(std::numeric_limits<int64_t>::min()))
        return "std::numeric_limits<int64_t>::min()";
      return fmt::format("int64_t{{{}}}", static_cast<int64_t>(v));
    case DataType::kUint64:
      return fmt::format("uint64_t{{{}u}}", static_cast<uint64_t>(v));
    default:
      return fmt::format("static_cast<{}>({})", dtype_cpp(dtype), static_cast<int64_t>(v));
  }
}

std::string labeled(const std::vector<Field>& fields) {
  std::vector<std::string> items;
  size_t total = 0;
  for (const auto& f : fields) {
    items.push_back(fmt::format("/*{}=*/{}", f.name, f.value));
    total += items.back().size() + 2;
  }
  if (total <= 64) return fmt::format("{{{}}}", fmt::join(items, ", "));
  // One field list per line under the statement (emit() lines are indented by 4).
  constexpr size_t kWidth = 100, kIndent = 8;
  std::string out = "{", line;
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string item = items[i] + (i + 1 < items.size() ? "," : "}");
    if (!line.empty() && kIndent + line.size() + 1 + item.size() > kWidth) {
      out += "\n" + std::string(kIndent, ' ') + line;
      line.clear();
    }
    line += (line.empty() ? "" : " ") + item;
  }
  out += "\n" + std::string(kIndent, ' ') + line;
  return out;
}

PartsPlan OpHandler::parts_plan(const Node& node) const {
  const int64_t tasks = kernel_tasks(node);
  if (tasks < 2) return {"whole", 1.0};
  const int64_t units = describe_kernel_query(node).max_parts;
  if (units == INT64_MAX || units < tasks)
    return {fmt::format("{} equal parts", tasks), 1.0 / tasks};
  const int64_t largest = (units + tasks - 1) / tasks;
  return {fmt::format("{} parts of {} units", tasks, units),
          static_cast<double>(largest) / static_cast<double>(units)};
}

}  // namespace onnxc
