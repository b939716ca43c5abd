// `onnxc inspect --memory`: the plan-memory pass's result as a report (text or JSON): arena bytes,
// the live-bytes lower bound and how far the arena is above it, weight bytes, each kernel's
// scratch, and per tensor its offset, size, life span and storage (own buffer, view, in place).
#pragma once

#include <string>
#include <vector>

#include "ir/ir.h"
#include "passes/memory_planner.h"

namespace onnxc {

// Bytes of the constants the nodes and graph outputs use (the weights blob, before alignment).
size_t weight_bytes(const Graph& graph);

// One tensor of the report: where it lives and when. Values of control-flow subgraphs are live
// over their node's step.
struct TensorRow {
  const Value* v;
  std::string storage, alias_of;
  long long offset;  // in the arena (of its storage root, plus view offsets); -1 when not in it
  Span span;         // the steps (top-level node indices) from its definition to its last use
  std::string subgraph = {};  // control flow: "NODE/GRAPH" for a value of a node's subgraph
};

// Every tensor a node writes (constants aside), in node order, then those of subgraphs.
std::vector<TensorRow> tensor_rows(const Module& module);

// `onnxc inspect --memory`. With --max-arena, `unbanded` is the same model planned without
// patch-rows: the report then gives both layer-by-layer bounds and the extra MACs of the bands.
std::string memory_report(const Module& module, bool json, const Module* unbanded = nullptr);

// `onnxc inspect --memory --svg`: the arena as a picture (passes/memory_picture.cpp). Each
// tensor with a buffer of its own is a box over (steps, offsets), its name, size and steps in a
// tooltip; the arena's top, the live-bytes lower bound and the step where most bytes are live
// are marked. Self-contained SVG: no script, no font or file to fetch.
std::string memory_plan_svg(const Module& module);

}  // namespace onnxc
