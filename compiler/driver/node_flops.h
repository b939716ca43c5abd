// Floating-point operations one node performs, computed from the static shapes inference gave it.
// `onnxc bench` divides them by measured time to print GFLOP/s per node and per model.
//
// Counted as 2 per multiply-accumulate for the ops that dominate real models (Conv,
// ConvTranspose, Gemm, MatMul, LSTM/GRU/RNN gates, pooling windows); every other op is
// approximated as one operation per output element. Fused epilogues (bias, residual,
// activation) and data movement are not counted: GFLOP/s is the useful arithmetic rate.
#pragma once

#include <cstdint>

#include "ir/ir.h"

namespace onnxc {

// FLOPs of one execution of node n (0 when a shape it needs is unknown). A control-flow node
// counts its own outputs only, not its bodies.
int64_t node_flops(const Node& n);

// The sum over the top-level nodes of g that run code (elided views count 0).
int64_t graph_flops(const Graph& g);

}  // namespace onnxc
