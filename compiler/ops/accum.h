// The accumulator of float kernels (runtime_support/onnxc/accum.h), decided per target by the
// handlers' infer(): on targets whose FPU has no double precision (Fpu::kSingle, and kNone,
// where double is emulated too and costs twice float) float kernels compute in float; elsewhere
// in double, as before. emit() prints the decision as the kernel call's last argument.
#pragma once

#include <string>

#include "ir/target.h"

namespace onnxc {

// Whether float kernels accumulate in float on target t.
inline bool float_accumulates(const Target& t) {
  return t.fpu != Fpu::kDouble;
}

// The kernel call's trailing argument for the decision: nothing (the kernels' default,
// Accum<double>) or ", onnxc::Accum<float>{}".
inline std::string accum_arg(bool float_accum) {
  return float_accum ? ", onnxc::Accum<float>{}" : "";
}

}  // namespace onnxc
