// The precision float kernels compute their sums and scalars in (issue 16: single-precision
// targets do only float math in float kernels).
//
// Kernels whose float form accumulates in double (normalization statistics, pooling averages,
// reductions) take a last argument Accum<A>{}, defaulted to Accum<double>, and compute in
// accum_t<T, A>. The compiler decides A from the target's FPU (ops/accum.h) and prints
// `onnxc::Accum<float>{}` only for targets without double-precision hardware, where double math
// links slow soft-double routines; other targets print nothing and keep double.
//
// Long float sums stay accurate with compensated summation: Sum<float> carries the rounding
// error of every addition into the next, so a float mean of a million elements is as good as a
// double one to within float rounding. Sum<double> is a plain sum, the same arithmetic as before.
#ifndef ONNXC_ACCUM_H
#define ONNXC_ACCUM_H

#include <type_traits>

namespace onnxc {

// A tag naming the accumulator type: passed, never read.
template <typename A>
struct Accum {};

// What a kernel over elements T computes in: double tensors always in double, every other float
// type in A.
template <typename T, typename A>
using accum_t = std::conditional_t<std::is_same_v<T, double>, double, A>;

// A running sum in C: plain for double; for float, compensated: the rounding error of each
// addition (Knuth's branch-free TwoSum, exact whatever the magnitudes) is carried into the next
// addend, so the error stays at a few float ulps of the sum plus O(n u^2) of the sum of
// magnitudes instead of growing with n (Kahan's summation, robust to cancellation).
template <typename C>
struct Sum {
  C sum = 0, carry = 0;

  void add(C v) {
    if constexpr (std::is_same_v<C, double>) {
      sum += v;
    } else {
      const C y = v + carry;
      const C t = sum + y;
      const C y_part = t - sum;
      carry = (sum - (t - y_part)) + (y - y_part);
      sum = t;
    }
  }
  C value() const {
    if constexpr (std::is_same_v<C, double>)
      return sum;
    else
      return sum + carry;
  }
};

}  // namespace onnxc

#endif  // ONNXC_ACCUM_H
