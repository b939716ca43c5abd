// Helpers shared by the ai.onnx.ml handlers (ops/ml_*.cpp): numeric attributes that the spec lets
// a model give either as a list or as a tensor (the `_as_tensor` variants), string enumerations,
// and C++ array literals for the compile-time tables the kernels read.
#pragma once

#include <string>
#include <vector>

#include "ops/dispatch.h"
#include "ops/op.h"

namespace onnxc::ml {

// The numeric input types of the ai.onnx.ml ops (their `T` constraint), which the kernels are
// instantiated for.
constexpr TypeSet kInputTypes =
    type_set({DataType::kFloat, DataType::kDouble, DataType::kInt64, DataType::kInt32});

// The values of a float/double/integer attribute given as a list of floats, a list of ints or a
// tensor; `tensor_name` (the `_as_tensor` spelling), when present, wins. Empty when absent.
std::vector<double> attr_numbers(const Node& node, const std::string& name,
                                 const std::string& tensor_name = "");
// The strings of a STRINGS attribute, empty when absent.
std::vector<std::string> attr_strings(const Node& node, const std::string& name);
// "{a, b, c}" of `values` printed by `f`; "{0}" for an empty list (C++ arrays may not be empty).
template <typename V, typename F>
std::string array_literal(const std::vector<V>& values, F f) {
  if (values.empty()) return "{0}";
  std::string s = "{";
  for (size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + f(values[i]);
  return s + "}";
}
// Declares `static constexpr TYPE NAME[N] = {...};` (N at least 1) in the node's block.
template <typename V, typename F>
void emit_array(EmitContext& ctx, const std::string& type, const std::string& name,
                const std::vector<V>& values, F f) {
  ctx.line("static constexpr {} {}[{}] = {};", type, name, values.empty() ? 1 : values.size(),
           array_literal(values, f));
}
// Checks X (input 0) is of kInputTypes and [N, C] or [C]; sets rows (N, 1 for [C]) and features.
bool numeric_rows(InferContext& ctx, int64_t& rows, int64_t& features);
// The integer class labels of attribute `name` (classlabels_ints / classlabels_int64s), refusing
// classlabels_strings; false (with the error) when they are absent or fewer than `min_count`.
bool int_class_labels(InferContext& ctx, const char* name, size_t min_count,
                      std::vector<int64_t>& labels);
// LabelEncoder's keys_ or values_ (`what`): given as strings, int64s, floats or (opset 4) a tensor,
// exactly one; `out` is 1-D.
bool label_table(InferContext& ctx, const std::string& what, Tensor& out);
// LabelEncoder's default for values of type `vt`: default_tensor, else default_string ("_Unused"),
// default_float (-0.0) or default_int64 (-1); one element.
bool label_default(InferContext& ctx, DataType vt, Tensor& out);
// The post_transform enumeration of the older ml ops (strings) as the kernels' kPost* codes;
// -1 for an unknown or unsupported name (PROBIT).
int post_transform_code(const std::string& name);

}  // namespace onnxc::ml
