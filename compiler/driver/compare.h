// Output comparison for `onnxc test`: floats within atol + rtol * |expected| (NaN equals NaN,
// infinities must match), integers, bools and raw bit formats exactly.
#pragma once

#include <cmath>
#include <string>

#include "ir/ir.h"

namespace onnxc {

struct Tolerance {
  double rtol = 1e-3;
  double atol = 1e-7;
};

struct Comparison {
  bool ok = true;
  std::string detail;  // for a mismatch: the worst element, its value, the expected one, the error
};

Comparison compare_tensors(const Tensor& actual, const Tensor& expected, const Tolerance& tol);

// For an output drawn at random (its expected values come from another generator): the type and
// shape must match, and every value lie in [low, high] (be finite when unbounded), and be a
// whole number when `integral`.
struct ValueRange {
  double low = -HUGE_VAL, high = HUGE_VAL;
  bool integral = false;
};
Comparison compare_random(const Tensor& actual, const Tensor& expected, const ValueRange& range);

}  // namespace onnxc
