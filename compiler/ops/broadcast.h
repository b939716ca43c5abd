// Multidirectional (numpy) broadcasting, shared by the elementwise ops, Where, Expand and the
// bias of Gemm: output shape, per-operand strides, and the params literal for generated code.
#pragma once

#include <string>
#include <vector>

#include "ir/ir.h"
#include "onnxc/elementwise.h"

namespace onnxc {

// The broadcast of `shapes`; false if two dims differ and neither is 1.
bool broadcast_shapes(const std::vector<Shape>& shapes, Shape& out);

// Params for out = f(a, b[, c]); c may be null.
BroadcastParams make_broadcast_params(const Shape& out, const Shape& a, const Shape& b,
                                      const Shape* c = nullptr);

// "static constexpr onnxc::BroadcastParams p = {...};"
std::string broadcast_params_decl(const BroadcastParams& p, const char* var = "p");

}  // namespace onnxc
