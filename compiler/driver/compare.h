// Output comparison for `onnxc test`: floats within atol + rtol * |expected| (NaN equals NaN,
// infinities must match), integers, bools and raw bit formats exactly.
#pragma once

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

}  // namespace onnxc
