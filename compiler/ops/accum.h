// The accumulator of float kernels (runtime/onnxc/accum.h), decided per target by the
// handlers' infer(): on targets whose FPU has single precision only (Fpu::kSingle, the
// Cortex-M4F) float kernels compute in float, with compensated sums; elsewhere in double, as
// before. Not on targets without an FPU (kNone): there both are emulated, and the compensated
// float sums cost more than plain double ones (measured under QEMU -icount on the Cortex-M0+ CI
// models: 28% more instructions on the smallest one). emit() prints the decision as the kernel
// call's last argument.
#pragma once

#include <string>

#include "ir/target.h"

namespace onnxc {

// Whether float kernels accumulate in float on target t.
inline bool float_accumulates(const Target& t) {
  return t.fpu == Fpu::kSingle;
}

// The kernel call's trailing argument for the decision: nothing (the kernels' default,
// Accum<double>) or ", onnxc::Accum<float>{}".
inline std::string accum_arg(bool float_accum) {
  return float_accum ? ", onnxc::Accum<float>{}" : "";
}

}  // namespace onnxc
