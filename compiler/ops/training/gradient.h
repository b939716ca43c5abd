// The Gradient op (ai.onnx.preview.training): lowered to the nodes of its symbolic derivative
// before inference (ops/training/gradient.cpp; the lower-gradients pass calls it).
#pragma once

#include "base/diagnostics.h"
#include "ir/ir.h"

namespace onnxc {

// Replaces each Gradient node of `module`'s graph by the nodes of its symbolic derivative, or
// reports why it cannot.
bool lower_gradients(Module& module, Diagnostics& diag);

}  // namespace onnxc
