// Loading a model file: parses the ModelProto and resolves external tensor data (location, offset,
// length) relative to the model's folder. A location that escapes that folder (absolute path,
// "..", a symlink leading outside) is refused.
#pragma once

#include <string>

#include "base/diagnostics.h"
#include "onnx.pb.h"

namespace onnxc {

// Reads and parses `path`. On failure reports one line per problem and returns false.
bool load_model(const std::string& path, onnx::ModelProto& model, Diagnostics& diag);

// As load_model, from bytes in memory; external data is resolved relative to `model_dir`.
bool load_model_from_bytes(const std::string& bytes, const std::string& model_dir,
                           onnx::ModelProto& model, Diagnostics& diag);

// Parses a serialized TensorProto file (the conformance cases' input_N.pb / output_N.pb).
bool load_tensor_proto(const std::string& path, onnx::TensorProto& tensor, std::string* error);

}  // namespace onnxc
