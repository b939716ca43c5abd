// Expands operators of ONNX Runtime's `com.microsoft` domain (the ones its transformer optimizer,
// quantizer and `extended` session optimizer write) into standard ONNX nodes, on the validated
// ModelProto, right after model-local functions are inlined. See contrib_expander.cpp.
#pragma once

#include <string>
#include <vector>

#include "base/diagnostics.h"
#include "onnx.pb.h"

namespace onnxc {

// Rewrites every supported com.microsoft node (main graph and subgraphs) into standard nodes of
// the model's ai.onnx opset. Unsupported com.microsoft ops are left for the importer, which
// refuses them ("op X (com.microsoft) is not supported"). Returns false, with every error
// reported, where a supported op uses a form that is not expanded (one line per node).
bool expand_contrib_ops(onnx::ModelProto& model, Diagnostics& diag);

// The ops of ONNX Runtime's `domain` expanded here, sorted (for `onnxc ops` and the README):
// com.microsoft, or "" for the few ORT registers in the ai.onnx domain.
std::vector<std::string> expanded_contrib_ops(const std::string& domain = "com.microsoft");

}  // namespace onnxc
