// Validator rules that look into tensor contents or across functions, split from validator.cpp:
// sparse index bounds, segment ranges, recursion among model-local functions, attributes a known
// op's schema does not declare, and tensor sizes. Each reports through `diag` and moves on.
#pragma once

#include <cstdint>
#include <string>

#include "base/diagnostics.h"
#include "onnx.pb.h"

namespace onnxc {

// Sparse tensor: values are 1-D [NNZ]; indices are int64 [NNZ] (linear) or [NNZ, rank], each in
// range of `dims` and strictly ascending (IR.md, and onnx's checker).
void check_sparse_indices(const onnx::SparseTensorProto& s, const std::string& what,
                          Diagnostics& diag);

// A tensor with a `segment` holds elements [begin, end) of its dims' count: 0 <= begin <= end <=
// numel, and its data holds exactly end - begin elements (a truncated segment is refused).
void check_segment(const onnx::TensorProto& t, int64_t numel, const std::string& what,
                   Diagnostics& diag);

// A model-local function that calls itself, directly or through others: refused (inlining it
// would never end). Reports each cycle once, naming the functions on it.
void check_function_recursion(const onnx::ModelProto& model, Diagnostics& diag);

// The attributes the schema of `op` (domain "" or "ai.onnx.ml") at opset `version` declares, as
// space-separated "name:TYPE" (TYPE an AttributeProto type name, e.g. "axis:INT"), or nullptr
// when onnxc does not know that op at that version (not checked then). `since` receives the
// schema's since_version.
const char* declared_attributes(const std::string& domain, const std::string& op, int64_t version,
                                int* since);

// The declared type of attribute `name` in `declared` (see declared_attributes), e.g. "INT", or
// "" when the schema does not declare it.
std::string declared_type(const char* declared, const std::string& name);

// The names alone of `declared`, space-separated (for messages): "axis keepdims".
std::string declared_names(const char* declared);

}  // namespace onnxc
