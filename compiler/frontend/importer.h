// Builds the typed SSA IR from a loaded, validated ModelProto. Symbolic dims of graph inputs are
// pinned here from --dim / --shape; any left unresolved is reported with the input and axis.
// This is the only place protobuf messages turn into IR; passes never see protobuf.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/diagnostics.h"
#include "ir/ir.h"
#include "onnx.pb.h"

namespace onnxc {

// The static layout a sequence or optional graph input is compiled for (containers are resolved at
// compile time, see ValueKind): an empty optional, or the shapes of the tensors it holds (one for
// an optional tensor, one per element for a sequence).
struct ContainerLayout {
  bool absent = false;
  std::vector<Shape> shapes;
};

struct ImportOptions {
  std::map<std::string, int64_t> dims;        // --dim NAME=VALUE
  std::map<std::string, Shape> input_shapes;  // --shape INPUT=1x3x224x224
  bool override_shape = false;  // --override-shape: --shape may change static dims and the rank
  // Shapes of the graph inputs in order (the test runner takes them from input_N.pb files).
  std::vector<Shape> positional_input_shapes;
  // Layouts of sequence/optional graph inputs, by name or by position among the graph inputs (the
  // test runner takes them from SequenceProto/OptionalProto files).
  std::map<std::string, ContainerLayout> container_inputs;
  std::map<size_t, ContainerLayout> positional_containers;
  // Graph inputs bound to known values: the model is specialized to them (the test runner binds
  // integer inputs that ops need at compile time, e.g. Reshape's shape fed as an input).
  std::map<std::string, Tensor> constant_inputs;
  // String graph inputs: the most bytes one element may hold (runtime/onnxc/strings.h),
  // by name (--max-string-length NAME=N), else by position (the test runner's longest input
  // string), else the default.
  std::map<std::string, int64_t> max_string_lengths;
  std::vector<int64_t> positional_string_lengths;
  int64_t default_max_string_length = 64;
  // --max-trip-count NODE=N: the most iterations Loop node NODE may run, which sizes its scan
  // outputs when its trip count is known only at run time (ops/control/control_flow.cpp).
  std::map<std::string, int64_t> max_trip_counts;
  // Value for every symbolic dim not pinned otherwise (-1: none; light/ cases use 1).
  int64_t default_dim = -1;
  const Target* target = &default_target();  // --target: set on the Module for the passes
  int64_t max_bytes = kMaxTensorBytes;       // --max-bytes: set on the Module
  size_t max_arena = 0;                      // --max-arena: set on the Module
  bool check_bounds = false;                 // --check-bounds: set on the Module
  // --keep-sparse: sparse tensors whose COO form is much smaller stay COO, expanded at run time.
  bool keep_sparse = false;
};

std::unique_ptr<Module> import_model(const onnx::ModelProto& model, const ImportOptions& options,
                                     Diagnostics& diag);

// Decodes a TensorProto (raw_data or typed fields; external data must already be resolved).
// Returns false and sets `error` when the data does not match the declared type and shape.
bool tensor_from_proto(const onnx::TensorProto& proto, Tensor& out, std::string* error);
// A SparseTensorProto (COO: values, and indices either linear [NNZ] or [NNZ, rank]) as the dense
// tensor it stands for, zeros (empty strings) elsewhere. The validator has checked the indices
// (in range, ascending). Refuses sub-byte element types and a dense size over `max_bytes`.
bool dense_from_sparse(const onnx::SparseTensorProto& proto, int64_t max_bytes, Tensor& out,
                       std::string* error);

}  // namespace onnxc
