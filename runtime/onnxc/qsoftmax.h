// com.microsoft QLinearSoftmax in integers and one table, the arithmetic of ONNX Runtime's CPU
// kernel (contrib_ops/cpu/quantization/qlinear_softmax.cc), so that the outputs are ORT's to the
// bit: what lower-qdq makes of DequantizeLinear -> Softmax -> QuantizeLinear.
//
//   qlinear_softmax_table        the 256 float values exp((k - 255 + shift) * x_scale): k - 255 is
//                                a code's distance below its row's maximum; `shift` scales the
//                                row sum up to just under FLT_MAX / e^5 (ORT's headroom) for
//                                precision. Computed once, at compile time, from a constant
//                                x_scale.
//   qlinear_softmax_multiplier   floor(1 / y_scale) in float, ORT's output multiplier (not
//                                1 / y_scale: the output scale is rounded down to 1 / integer)
//   qlinear_softmax_ref          per row along the softmax axis of an [outer, reduce, inner] view:
//                                e_i = table[255 - (max - x_i)], sum = e_0 + e_1 + ... in float,
//                                in axis order; y_i = saturate(round_half_even(e_i * multiplier /
//                                sum) + y_zero_point). Opsets before 13 flatten from the axis on,
//                                which is inner = 1 and reduce = the product of those dims.
//
// The input's zero point does not appear: softmax is invariant under a shift of its input, and
// the distances to the row maximum are those of the codes. The table's largest value times the
// multiplier must stay finite in float (qlinear_softmax_fits); ORT overflows to infinity there and
// writes the type's maximum where the float graph does not, so onnxc keeps the float graph.
#ifndef ONNXC_QSOFTMAX_H
#define ONNXC_QSOFTMAX_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "onnxc/base.h"

namespace onnxc {

// table[k] = exp((k - 255 + shift) * x_scale) rounded to float, with shift = max(0, log(FLT_MAX /
// reduce) - 5) / x_scale in double, as ORT builds it (QlinearBuildLookupTableUint32, float
// table): reduce is the softmax row length, so that reduce values of at most table[255] sum to
// less than FLT_MAX / e^5.
inline void qlinear_softmax_table(float x_scale, index_t reduce, float* table) {
  const float limit =
      std::numeric_limits<float>::max() / static_cast<float>(reduce > 0 ? reduce : 1);
  const double shift = std::max(0.0, std::log(static_cast<double>(limit)) - 5.0) / x_scale;
  for (int k = 0; k < 256; ++k)
    table[k] = static_cast<float>(std::exp((k - 255 + shift) * static_cast<double>(x_scale)));
}

// ORT's output multiplier: floor(1 / y_scale), the division in float.
inline float qlinear_softmax_multiplier(float y_scale) {
  return std::floor(1.0f / y_scale);
}

// True when table[255] * multiplier (the largest product the kernel forms) is finite in float.
inline bool qlinear_softmax_fits(const float* table, float multiplier) {
  const float largest = table[255] * multiplier;
  return multiplier > 0 && largest <= std::numeric_limits<float>::max();
}

namespace qsoftmax_detail {

// One row of n codes x[i * stride] -> y[i * stride].
template <typename T>
inline void softmax_row(const T* x, const float* table, float multiplier, int32_t y_zero_point,
                        index_t n, index_t stride, T* y) {
  if (n == 0) return;
  int32_t max = x[0];
  for (index_t i = 1; i < n; ++i) max = std::max<int32_t>(max, x[i * stride]);
  float sum = 0.0f;
  for (index_t i = 0; i < n; ++i) sum += table[255 - (max - x[i * stride])];
  constexpr int32_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  for (index_t i = 0; i < n; ++i) {
    const float e = table[255 - (max - x[i * stride])];
    // e * multiplier <= table[255] * multiplier is finite (qlinear_softmax_fits) and e <= sum,
    // so the quotient lies in [0, multiplier].
    const float q = std::nearbyint(e * multiplier / sum);
    const int32_t v = static_cast<int32_t>(q) + y_zero_point;
    y[i * stride] = static_cast<T>(std::min(hi, std::max(lo, v)));
  }
}

}  // namespace qsoftmax_detail

// x and y viewed as [outer, reduce, inner]: a softmax over the middle axis for each (outer,
// inner) position. table from qlinear_softmax_table(x_scale, reduce), multiplier from
// qlinear_softmax_multiplier(y_scale).
template <typename T>
inline void qlinear_softmax_ref(const T* x, const float* table, float multiplier,
                                int32_t y_zero_point, index_t outer, index_t reduce, index_t inner,
                                T* y) {
  static_assert(sizeof(T) == 1, "8-bit tensors only");
  for (index_t o = 0; o < outer; ++o)
    for (index_t j = 0; j < inner; ++j) {
      const index_t first = o * reduce * inner + j;
      qsoftmax_detail::softmax_row(x + first, table, multiplier, y_zero_point, reduce, inner,
                                   y + first);
    }
}

}  // namespace onnxc

#endif  // ONNXC_QSOFTMAX_H
