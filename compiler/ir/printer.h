// Text form of the IR, for `onnxc inspect --ir` and FileCheck-style pass tests:
//   %conv_out: float[1x64x112x112] = Conv@11(%x, %w, %b) {strides=[2, 2]}  # name=conv1
#pragma once

#include <string>

#include "ir/ir.h"

namespace onnxc {

std::string print_graph(const Graph& graph, int indent = 0);
std::string print_module(const Module& module);
std::string value_type_str(const Value& v);  // "float[1x3x224x224]" or "float[?]"

}  // namespace onnxc
