// Expands calls of model-local functions (ModelProto.functions) into their bodies, on the
// validated ModelProto, before the IR is built. See function_inliner.cpp for what it does and why
// it runs here rather than as a pass.
#pragma once

#include "base/diagnostics.h"
#include "onnx.pb.h"

namespace onnxc {

struct FunctionInlineStats {
  int calls = 0;      // call sites expanded (nested calls included)
  int nodes = 0;      // body nodes added in their place
  int max_depth = 0;  // deepest nesting of calls met
};

// Deepest chain of nested calls accepted; a deeper one is refused as runaway recursion.
constexpr int kMaxFunctionDepth = 64;

// Rewrites `model` in place so no node (in the main graph or any subgraph) calls a local function.
// Returns false, with every error reported, on a recursive call, a too-deep call chain, an
// attribute of the wrong type or an opset conflict. A model without functions is left untouched.
bool inline_model_functions(onnx::ModelProto& model, Diagnostics& diag,
                            FunctionInlineStats* stats = nullptr);

}  // namespace onnxc
