// `onnxc inspect --memory`: the plan-memory pass's result as a report (text or JSON): arena bytes,
// the live-bytes lower bound and how far the arena is above it, weight bytes, each kernel's
// scratch, and per tensor its offset, size, life span and storage (own buffer, view, in place).
#pragma once

#include <string>

#include "ir/ir.h"

namespace onnxc {

// Bytes of the constants the nodes and graph outputs use (the weights blob, before alignment).
size_t weight_bytes(const Graph& graph);

std::string memory_report(const Module& module, bool json);

}  // namespace onnxc
