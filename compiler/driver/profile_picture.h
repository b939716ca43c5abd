// `onnxc bench --profile --svg FILE`: where the time goes, layer by layer, as a picture (issue
// 38). One bar per node that took time, heaviest first (the 40 heaviest), its length the node's
// share of the inference; beside it the node's GFLOP/s and, given the machine's peak
// (--peak-gflops, e.g. from bench/peak.cpp), a second bar: the percentage of that peak reached.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ir/ir.h"

namespace onnxc {

// `node_ns`: (top-level node index, mean nanoseconds per inference), as the profile table's.
// `peak_gflops` 0: no peak bars.
std::string layer_profile_svg(const Graph& graph, const std::string& title,
                              const std::vector<std::pair<size_t, double>>& node_ns,
                              double peak_gflops);

}  // namespace onnxc
