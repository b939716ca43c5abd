// Helpers shared by the ai.onnx.ml handlers; see ops/ml_util.h.
#include "ops/ml_util.h"

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
