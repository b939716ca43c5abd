// The compile-time side of com.microsoft QLinearSoftmax (ops/quant/qsoftmax.cpp): the row view,
// the exp table and the output multiplier of onnxc::qlinear_softmax_ref, which lower-qdq also asks
// before it forms the node.
#pragma once

#include <array>
#include <cstdint>

#include "ir/ir.h"

namespace onnxc {

// What qlinear_softmax_ref needs for one node: x viewed as [outer, reduce, inner], the softmax
// over the middle axis.
struct QSoftmaxPlan {
  int64_t outer = 1, reduce = 1, inner = 1;
  std::array<float, 256> table{};  // qlinear_softmax_table(x_scale, reduce)
  float multiplier = 0;            // qlinear_softmax_multiplier(y_scale)
};

// The plan of a softmax of x's `shape` over `axis` (negative: from the end) with the semantics of
// Softmax `opset` (before 13: over the dims from axis on, flattened), as ORT's QLinearSoftmax
// computes it. False when axis is out of range, a scale is not positive and finite, or the
// table's largest value times the multiplier overflows float (qlinear_softmax_fits: ORT writes
// the type's maximum there, which is not the op's value).
bool qlinear_softmax_plan(const Shape& shape, int64_t axis, int64_t opset, float x_scale,
                          float y_scale, QSoftmaxPlan& out);

}  // namespace onnxc
