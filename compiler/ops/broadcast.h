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

// The same iteration over fewer dims, for kernels that read only p's strides (binary ops):
// output dims of size 1 dropped, and neighbours merged where every operand walks them as one
// (stride[i] == stride[i + 1] * dims[i + 1], broadcast runs included). The innermost run, the
// kernel's vectorized row, then is as long as the operands allow: W[cout, C, 1, 1] * s[1, C,
// 1, 1] runs rows of C, not of 1.
void coalesce_dims(BroadcastParams& p);

// "static constexpr onnxc::BroadcastParams p = {...};"
std::string broadcast_params_decl(const BroadcastParams& p, const char* var = "p");

}  // namespace onnxc
