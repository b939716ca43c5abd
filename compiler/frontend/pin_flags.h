// Checks --dim and --shape against the model before the importer applies them: a flag must name
// something that exists (a graph input, a symbolic dim of one), and --shape may only refine the
// symbolic dims of an input. Changing a static dim or the rank needs --override-shape
// (ImportOptions::override_shape). Issue 18: these used to be ignored or applied silently.
#pragma once

#include "base/diagnostics.h"
#include "frontend/importer.h"
#include "onnx.pb.h"

namespace onnxc {

// One error per flag that breaks a rule; true when there is none.
bool check_pin_flags(const onnx::ModelProto& model, const ImportOptions& options,
                     Diagnostics& diag);

}  // namespace onnxc
