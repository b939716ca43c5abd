// The IR verifier: checks the invariants every pass must keep, so that a pass that breaks the IR
// is caught where it does it rather than as a crash or wrong code three passes later. The pass
// manager runs it after every pass under --verify-each (the conformance tests and the pass tests
// turn it on).
//
// It checks, for the main graph and every subgraph:
//   - order: nodes are in topological order and every input is defined before it is read (by a
//     graph input, a constant, an earlier node, or an enclosing graph before the parent node);
//   - ownership: every value a node or a graph names is owned by that graph or an enclosing one
//     (no dangling pointers into removed values), and each value has one producer, the node
//     that lists it (Value::producer agrees);
//   - from kHandlersBound on: every main-graph node has its handler (subgraph nodes from
//     kShapesInferred on: their control-flow node binds them when it infers its bodies);
//   - from kShapesInferred on: every value a node reads or writes is a typed tensor with a shape
//     (containers are resolved by inference);
//   - from kMemoryPlanned on: the plan exists, every value a node or the caller touches has a
//     placement, arena buffers and node scratch lie inside the arena, and views and slices lie
//     inside the value they share.
// It does NOT check numerics, op-specific attribute rules (handlers do, in infer()), or that the
// plan has no overlapping live buffers (plan-memory checks that itself, check_storage).
#pragma once

#include <string>
#include <vector>

#include "ir/ir.h"

namespace onnxc {

// How far lowering has come: each stage adds invariants to those of the stages before it.
enum class IrStage { kImported, kHandlersBound, kShapesInferred, kMemoryPlanned };

// Every broken invariant, one line each ("node 'conv1' (Conv): input 'x' is read before it is
// defined"), at most `max_problems`; empty when the module is well formed for `stage`.
std::vector<std::string> verify_module(const Module& module, IrStage stage,
                                       size_t max_problems = 20);

}  // namespace onnxc
