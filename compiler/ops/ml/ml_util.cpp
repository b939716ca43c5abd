// Helpers shared by the ai.onnx.ml handlers; see ops/ml/ml_util.h.
#include "ops/ml/ml_util.h"

#include <algorithm>

namespace onnxc::ml {

std::vector<double> attr_numbers(const Node& node, const std::string& name,
                                 const std::string& tensor_name) {
  const Attribute* a = tensor_name.empty() ? nullptr : node.attr(tensor_name);
  if (!a) a = node.attr(name);
  std::vector<double> out;
  if (!a) return out;
  switch (a->kind) {
    case Attribute::Kind::kFloats:
      out.assign(a->floats.begin(), a->floats.end());
      break;
    case Attribute::Kind::kInts:
      for (int64_t v : a->ints) out.push_back(static_cast<double>(v));
      break;
    case Attribute::Kind::kFloat:
      out.push_back(a->f);
      break;
    case Attribute::Kind::kInt:
      out.push_back(static_cast<double>(a->i));
      break;
    case Attribute::Kind::kTensor:
      if (a->t && a->t->dtype != DataType::kString)
        for (int64_t i = 0; i < a->t->numel(); ++i) out.push_back(a->t->double_at(i));
      break;
    default:
      break;
  }
  return out;
}

std::vector<std::string> attr_strings(const Node& node, const std::string& name) {
  const Attribute* a = node.attr(name);
  if (!a) return {};
  if (a->kind == Attribute::Kind::kString) return {a->s};
  return a->strings;
}

int post_transform_code(const std::string& name) {
  if (name == "NONE") return 0;
  if (name == "SOFTMAX") return 1;
  if (name == "LOGISTIC") return 2;
  if (name == "SOFTMAX_ZERO") return 3;
  return -1;
}

bool label_table(InferContext& ctx, const std::string& what, Tensor& out) {
  const bool strs = ctx.has_attr(what + "_strings"), ints = ctx.has_attr(what + "_int64s"),
             floats = ctx.has_attr(what + "_floats"), tensor = ctx.has_attr(what + "_tensor");
  if (strs + ints + floats + tensor != 1)
    return ctx.fail("exactly one of {0}_strings, {0}_int64s, {0}_floats, {0}_tensor must be given",
                    what);
  if (strs) {
    out.dtype = DataType::kString;
    out.strings = ctx.node().attr(what + "_strings")->strings;
  } else if (ints) {
    const auto v = ctx.attr_ints(what + "_int64s");
    out = Tensor::zeros(DataType::kInt64, {static_cast<int64_t>(v.size())});
    std::copy(v.begin(), v.end(), out.as<int64_t>());
  } else if (floats) {
    const auto v = ctx.attr_floats(what + "_floats");
    out = Tensor::zeros(DataType::kFloat, {static_cast<int64_t>(v.size())});
    std::copy(v.begin(), v.end(), out.as<float>());
  } else {
    const Tensor* t = ctx.attr_tensor(what + "_tensor");
    if (!t) return false;
    out = *t;
  }
  out.shape = {out.dtype == DataType::kString ? static_cast<int64_t>(out.strings.size())
                                              : out.numel()};
  return true;
}

bool label_default(InferContext& ctx, DataType vt, Tensor& out) {
  out = Tensor::zeros(vt, {1});
  if (ctx.has_attr("default_tensor")) {
    const Tensor* t = ctx.attr_tensor("default_tensor");
    if (!t) return false;
    if (t->dtype != vt || t->numel() != 1)
      return ctx.fail("default_tensor must hold one {} value", dtype_name(vt));
    out = *t;
    out.shape = {1};
    return true;
  }
  if (vt == DataType::kString) {
    out.strings[0] = ctx.attr_string("default_string", "_Unused");
    return true;
  }
  const bool floating = vt == DataType::kFloat || vt == DataType::kDouble;
  const double d =
      floating ? ctx.attr_float("default_float", -0.0f) : ctx.attr_int("default_int64", -1);
  constexpr TypeSet kNumbers = kInputTypes | type_set({DataType::kInt16});
  if (!visit_dtype<kNumbers>(
          vt, [&](auto v) { out.as<decltype(v)>()[0] = static_cast<decltype(v)>(d); }))
    return ctx.fail("values of {} are not supported", dtype_name(vt));
  return true;
}

bool numeric_rows(InferContext& ctx, int64_t& rows, int64_t& features) {
  if (!ctx.check_dtype(0,
                       {DataType::kFloat, DataType::kDouble, DataType::kInt64, DataType::kInt32}))
    return false;
  const Shape& xs = ctx.input(0)->shape;
  if (xs.size() == 1) {
    rows = 1, features = xs[0];
  } else if (xs.size() == 2) {
    rows = xs[0], features = xs[1];
  } else {
    return ctx.fail("X must be [N, C] or [C], has rank {}", xs.size());
  }
  return true;
}

bool int_class_labels(InferContext& ctx, const char* name, size_t min_count,
                      std::vector<int64_t>& labels) {
  if (ctx.has_attr("classlabels_strings"))
    return ctx.fail("classlabels_strings is not supported (onnxc has no string tensors); use {}",
                    name);
  labels = ctx.attr_ints(name);
  if (labels.size() < min_count)
    return ctx.fail("{} needs at least {} label(s), has {}", name, min_count, labels.size());
  return true;
}

}  // namespace onnxc::ml
