// Weight blob layout and its C++ form. All constants the generated code reads are packed into one
// blob, each at a 64-byte aligned offset, in ONNX's byte order (little-endian). The external .bin
// starts with a header that marks that order; embedded weights carry a compile-time check. Embedded
// weights are written as concatenated string literals with octal escapes: on g++ 12 -O2 that
// compiles ~5x faster and in ~1/4 of the memory of an integer-list initializer (figures in the
// README).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace onnxc {

struct WeightBlob {
  std::vector<uint8_t> bytes;
  std::map<const Value*, size_t> offsets;  // where each constant value starts
};

// The external .bin's first 64 bytes: an 8-byte magic, then the byte-order mark 0x01020304
// stored in the byte order of the weights after it (ONNX's: little-endian), then zeros. The
// generated run() compares both with its own CPU's before it reads a weight.
constexpr size_t kWeightsHeaderBytes = 64;
constexpr char kWeightsMagic[8] = {'o', 'n', 'n', 'x', 'c', 'w', '1', '\0'};

// Lays out every constant value in `graph` that `used` contains, in value order, after the
// external header when `with_header` (--weights external).
WeightBlob layout_weights(const Graph& graph, const std::vector<const Value*>& used,
                          bool with_header);

// Appends `bytes` as a C++ string-literal initializer body: "..."\n    "..." lines.
void append_string_literal(std::string& out, const std::vector<uint8_t>& bytes);

}  // namespace onnxc
