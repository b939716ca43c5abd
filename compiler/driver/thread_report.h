// `onnxc inspect --threads N`: how the model's kernels split over N threads, and the speedup that
// predicts (see thread_report.cpp for the cost model and what it leaves out).
#pragma once

#include <string>

#include "ir/ir.h"

namespace onnxc {

// The report for m, lowered with --threads N (N >= 2): per split node its parts, grid, largest
// part's share and predicted times; for the model the predicted 1- and N-thread times and their
// ratio.
std::string thread_report(const Module& m);

}  // namespace onnxc
