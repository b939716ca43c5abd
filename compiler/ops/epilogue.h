// Fused epilogues of Conv, Gemm and MatMul (set by the fuse-epilogue, fuse-matmul-add and
// fold-batchnorm passes, read back by the ops' infer() and printed by their emit()).
//
// A fused node keeps its ONNX op type and carries the epilogue as onnxc attributes, so the IR
// printer shows it and re-running infer() re-checks it:
//   input 2                 the bias (Conv B, Gemm C, MatMul: a [N] row added to every row)
//   input 3                 the residual: same shape and type as the output, added after the bias
//   fused_activation="Relu" the activation applied last: Relu, Clip, LeakyRelu, Sigmoid,
//                           HardSigmoid, HardSwish, Tanh, Gelu, GeluTanh, Swish
//   fused_alpha, fused_beta its parameters (Clip: min, max; LeakyRelu, Swish: alpha;
//                           HardSigmoid)
// so each output element is activation(op + bias + residual), as the unfused graph computes it.
// Only float nodes are fused. This header does not decide anything: passes do.
#pragma once

#include <string>

#include "onnxc/activation_table.h"  // EpilogueSpec
#include "ops/op.h"

namespace onnxc {

inline constexpr const char* kFusedActivation = "fused_activation";
inline constexpr const char* kFusedAlpha = "fused_alpha";
inline constexpr const char* kFusedBeta = "fused_beta";
inline constexpr size_t kResidualInput = 3;

// The EpilogueActivation of an activation name ("Relu", ...); false for a name not in the table.
bool epilogue_activation_kind(const std::string& name, EpilogueActivation* kind);

// Parses the fused_* attributes and checks the residual input (kResidualInput) against the
// output `out_shape` and type. Reports and returns false on a malformed epilogue.
bool infer_epilogue(InferContext& ctx, const Shape& out_shape, EpilogueSpec& e);

// The generated statement declaring e for the kernel call:
// "static constexpr onnxc::Epilogue<onnxc::Relu> e = {/*activation=*/{}, /*residual=*/1};", the
// functor wrapped as onnxc::Dispatched<...> (and onnxc/activation_dispatch.h included) where
// infer_epilogue chose e.dispatched.
std::string epilogue_declaration(EmitContext& ctx, const EpilogueSpec& e);

}  // namespace onnxc
