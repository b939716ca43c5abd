// Validation of a ModelProto against the ONNX IR spec, before import: a valid ir_version, opset
// imports present and known, SSA (each name assigned once), topological order, every use defined,
// typed graph inputs and outputs with ranks, one value per attribute, and so on. All errors are
// reported, each naming the node, its op and the rule.
#pragma once

#include "base/diagnostics.h"
#include "onnx.pb.h"

namespace onnxc {

bool validate_model(const onnx::ModelProto& model, Diagnostics& diag);

}  // namespace onnxc
