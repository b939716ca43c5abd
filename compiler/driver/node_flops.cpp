// FLOP counts per op: one table (ONNXC_FLOP_COUNTERS) from op type to a counter that reads the
// node's static shapes; ops not in the table count one operation per output element.
#include "driver/node_flops.h"

#include <map>
#include <string>

namespace onnxc {
namespace {

const Shape* shape_of(const Value* v) {
  return v && v->has_shape ? &v->shape : nullptr;
}

int64_t numel_of(const Value* v) {
  const Shape* s = shape_of(v);
  return s ? shape_numel(*s) : 0;
}

// Product of the dims of s from index `from` on.
int64_t numel_from(const Shape& s, size_t from) {
  int64_t p = 1;
  for (size_t i = from; i < s.size(); ++i) p *= s[i];
  return p;
}

// Conv: every output element is a dot product over C/group * kernel taps of the weight
// [M, C/group, k...]: 2 * |Y| * |W| / M. A W of another rank than X's is packed (pack-weights):
// Winograd's transformed filters, of a 3x3 convolution with one group, counted as computed
// directly (its "effective" flops).
int64_t conv_flops(const Node& n) {
  const Shape *w = shape_of(n.input(1)), *x = shape_of(n.input(0));
  if (!w || w->empty() || !x || x->size() < 2) return 0;
  if (w->size() != x->size()) return 2 * numel_of(n.output(0)) * (*x)[1] * 9;
  return 2 * numel_of(n.output(0)) * numel_from(*w, 1);
}

// ConvTranspose: every input element scatters into M/group * kernel taps of the output (weight
// [C, M/group, k...]): 2 * |X| * |W| / C.
int64_t conv_transpose_flops(const Node& n) {
  const Shape* w = shape_of(n.input(1));
  if (!w || w->empty()) return 0;
  return 2 * numel_of(n.input(0)) * numel_from(*w, 1);
}

// Gemm: Y [M, N] = A [M, K] (or its transpose) x B; K = |A| / M.
int64_t gemm_flops(const Node& n) {
  const Shape* y = shape_of(n.output(0));
  if (!y || y->size() != 2 || (*y)[0] == 0) return 0;
  return 2 * shape_numel(*y) * (numel_of(n.input(0)) / (*y)[0]);
}

// MatMul (and MatMulInteger and friends): Y [..., M, N], K = A's last dim.
int64_t matmul_flops(const Node& n) {
  const Shape* a = shape_of(n.input(0));
  if (!a || a->empty()) return 0;
  return 2 * numel_of(n.output(0)) * a->back();
}

// LSTM, GRU, RNN: per step and batch row, the gate pre-activations W x + R h: 2 * (|W| + |R|)
// per (step, batch row), where X has seq * batch rows of input_size (W [dirs, gates*H, input]).
int64_t recurrent_flops(const Node& n) {
  const Shape* x = shape_of(n.input(0));
  if (!x || x->empty() || x->back() == 0) return 0;
  int64_t rows = shape_numel(*x) / x->back();
  return 2 * rows * (numel_of(n.input(1)) + numel_of(n.input(2)));
}

// Pooling windows: one operation per tap of the kernel per output element.
int64_t pool_flops(const Node& n) {
  const Attribute* k = n.attr("kernel_shape");
  int64_t taps = 1;
  if (k && k->kind == Attribute::Kind::kInts)
    for (int64_t d : k->ints) taps *= d;
  return numel_of(n.output(0)) * taps;
}

// Reductions over the whole input (global pools, Reduce*, normalizations, Softmax): one
// operation per input element (a few more for normalizations, not counted).
int64_t input_elements(const Node& n) {
  return numel_of(n.input(0));
}

// X(op_type, counter)
#define ONNXC_FLOP_COUNTERS(X)             \
  X("Conv", conv_flops)                    \
  X("ConvInteger", conv_flops)             \
  X("ConvTranspose", conv_transpose_flops) \
  X("Gemm", gemm_flops)                    \
  X("MatMul", matmul_flops)                \
  X("MatMulInteger", matmul_flops)         \
  X("QLinearMatMul", matmul_flops)         \
  X("LSTM", recurrent_flops)               \
  X("GRU", recurrent_flops)                \
  X("RNN", recurrent_flops)                \
  X("MaxPool", pool_flops)                 \
  X("AveragePool", pool_flops)             \
  X("LpPool", pool_flops)                  \
  X("GlobalAveragePool", input_elements)   \
  X("GlobalMaxPool", input_elements)       \
  X("ReduceMean", input_elements)          \
  X("ReduceSum", input_elements)           \
  X("ReduceMax", input_elements)           \
  X("Softmax", input_elements)             \
  X("LogSoftmax", input_elements)          \
  X("LayerNormalization", input_elements)  \
  X("BatchNormalization", input_elements)  \
  X("InstanceNormalization", input_elements)

using Counter = int64_t (*)(const Node&);

const std::map<std::string, Counter>& counters() {
  static const std::map<std::string, Counter> table = {
#define ONNXC_FLOP_ENTRY(op, fn) {op, fn},
      ONNXC_FLOP_COUNTERS(ONNXC_FLOP_ENTRY)
#undef ONNXC_FLOP_ENTRY
  };
  return table;
}

}  // namespace

int64_t node_flops(const Node& n) {
  if (n.elided) return 0;
  auto it = counters().find(n.op_type);
  if (it != counters().end()) return it->second(n);
  int64_t elements = 0;  // the approximation: one operation per output element
  for (const Value* v : n.outputs) elements += numel_of(v);
  return elements;
}

int64_t graph_flops(const Graph& g) {
  int64_t total = 0;
  for (const auto& n : g.nodes) total += node_flops(*n);
  return total;
}

}  // namespace onnxc
