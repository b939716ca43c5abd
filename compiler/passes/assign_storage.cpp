// assign-storage: decides which values share memory instead of getting a buffer of their own.
//   - Views: when a node's handler says output 0 may alias input 0 (Reshape, Flatten, Squeeze,
//     Unsqueeze, Identity, a Slice of a contiguous range), output 0 becomes a view of input 0 at
//     the handler's byte offset, and its node emits no code. Not when the output is a graph
//     output (the caller's buffer is other memory: the node copies) or the input is a constant.
//     Views of graph inputs are read-only: nothing is ever written in place over them.
//   - In place: when the handler allows it (elementwise ops), output 0 is written over an input of
//     the same dtype and shape whose buffer (with every view of it) dies at that node, lives in
//     the arena (not a graph input, output or constant, nor a view of one), and that no other
//     input of the node shares.
//   - Concat slices: a Concat of one run per input (outer size 1) whose inputs each have their
//     own arena buffer dying at the Concat has each producer write straight into its slice of the
//     output (kSlice); the Concat then runs no code.
// It only sets Value::storage (kView, kInPlace, kSlice) and Node::elided (views, such Concats);
// plan-memory gives the offsets and
// check_storage() proves them. It does not change nodes. Control-flow subgraphs keep plain buffers
// (no views or in-place writes inside them); the values they read count as read by their node.
#include <map>
#include <set>
#include <unordered_map>
#include <vector>

#include "ops/op.h"
#include "passes/memory_planner.h"
#include "passes/passes.h"

namespace onnxc {
namespace {

using K = Storage::Kind;

// storage_root() with path compression, so a chain of n in-place writes costs O(n), not O(n^2).
// Valid because this pass only ever links a value that is still its own root (a fresh output, an
// unplanned Concat input) to another value: a cached root that has since been linked is followed
// onward, never wrong.
class RootCache {
 public:
  const Value* operator()(const Value* v) {
    std::vector<const Value*> path;
    const Value* r = v;
    for (;;) {
      auto it = jump_.find(r);
      const Value* next = nullptr;
      if (it != jump_.end() && it->second != r)
        next = it->second;
      else if (r->storage.shares() && r->storage.alias_of)
        next = r->storage.alias_of;
      else
        break;
      path.push_back(r);
      r = next;
    }
    for (const Value* p : path) jump_[p] = r;
    return r;
  }

 private:
  std::unordered_map<const Value*, const Value*> jump_;
};

// Concat (one run per input): when every input's buffer is its own arena buffer that dies at the
// Concat, each input's producer writes straight into its slice of the output and the Concat
// runs no code. All or nothing, so the Concat never copies a part of its output onto itself.
int64_t concat_slices(Graph& g, RootCache& storage_root) {
  std::map<const Value*, int> last_read;  // per root buffer, after views and in-place
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (const Value* in : g.nodes[i]->inputs)
      if (in) last_read[storage_root(in)] = static_cast<int>(i);
    // Control flow: values its subgraphs read are read by the node itself.
    for (const Value* in : implicit_inputs(*g.nodes[i]))
      last_read[storage_root(in)] = static_cast<int>(i);
  }
  int64_t count = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = *g.nodes[i];
    AliasInfo a = n.handler ? n.handler->alias(n) : AliasInfo{};
    Value* out = n.output(0);
    if (a.kind != AliasKind::kConcat || !out || out->is_graph_output || out->is_constant() ||
        out->storage.kind != K::kUnplanned || n.inputs.empty())
      continue;
    std::vector<Value*> roots;
    bool ok = true;
    for (const Value* in : n.inputs) {
      const Value* root = in ? storage_root(in) : nullptr;
      ok = ok && root && root->producer && !root->is_constant() && !root->is_graph_input &&
           !root->is_graph_output && root->storage.kind == K::kUnplanned &&
           root->bytes() == in->bytes() && offset_in_root(in) == 0 && root->dtype == out->dtype &&
           last_read[root] == static_cast<int>(i);
      for (const Value* r : roots) ok = ok && r != root;  // each input its own buffer
      if (!ok) break;
      roots.push_back(const_cast<Value*>(root));
    }
    if (!ok) continue;
    size_t offset = 0;
    for (Value* root : roots) {
      root->storage = Storage{K::kSlice, out, offset};
      offset += root->bytes();
      ++count;
    }
    n.elided = true;
    // The output's buffer now also holds the inputs' values before the Concat.
    last_read[out] = std::max(last_read.count(out) ? last_read[out] : 0, static_cast<int>(i));
  }
  return count;
}

}  // namespace

bool run_assign_storage(Module& module, PassContext& ctx) {
  Graph& g = *module.graph;
  for (auto& v : g.values)
    if (v->storage.shares()) v->storage = Storage{};
  for (auto& n : g.nodes) n->elided = false;
  RootCache storage_root;
  // Views first: they never end a buffer's life, and in-place decisions need every reader.
  int64_t views = 0, in_place = 0;
  for (auto& n : g.nodes) {
    AliasInfo a = n->handler ? n->handler->alias(*n) : AliasInfo{};
    Value* out = n->output(0);
    const Value* in = n->input(0);
    if (a.kind != AliasKind::kView || !out || !in || out->is_graph_output || out->is_constant() ||
        in->is_constant() || storage_root(in)->is_constant() || out->dtype != in->dtype ||
        a.byte_offset + out->bytes() > in->bytes())
      continue;
    const Value* root = storage_root(in);
    if (root->is_graph_output && !root->is_graph_input) continue;  // the caller's buffer
    out->storage = Storage{K::kView, in, a.byte_offset};
    n->elided = n->outputs.size() == 1;
    ++views;
  }
  // Last reader of each root buffer (over all its views), as node indices.
  std::map<const Value*, int> last_read;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (const Value* in : g.nodes[i]->inputs)
      if (in) last_read[storage_root(in)] = static_cast<int>(i);
    // Control flow: values its subgraphs read are read by the node itself.
    for (const Value* in : implicit_inputs(*g.nodes[i]))
      last_read[storage_root(in)] = static_cast<int>(i);
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = *g.nodes[i];
    AliasInfo a = n.handler ? n.handler->alias(n) : AliasInfo{};
    Value* out = n.output(0);
    if (a.kind != AliasKind::kInPlace || !out || out->is_graph_output || out->is_constant() ||
        out->storage.kind != K::kUnplanned)
      continue;
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      const Value* in = n.inputs[k];
      if (!in || in->dtype != out->dtype || in->shape != out->shape) continue;
      const Value* root = storage_root(in);
      if (root->is_constant() || root->is_graph_input || root->is_graph_output || !root->producer)
        continue;
      if (last_read[root] != static_cast<int>(i)) continue;
      bool shared = false;  // another input reading the same buffer
      for (size_t j = 0; j < n.inputs.size(); ++j)
        shared |= j != k && n.inputs[j] && n.inputs[j] != in && storage_root(n.inputs[j]) == root;
      if (shared) continue;
      out->storage = Storage{K::kInPlace, in, 0};
      // The buffer now lives on through `out`.
      int last = last_read.count(out) ? last_read[out] : static_cast<int>(i);
      last_read[root] = std::max(last, static_cast<int>(i));
      ++in_place;
      break;
    }
  }
  int64_t slices = concat_slices(g, storage_root);
  if (views) ctx.count("tensors aliased (views)", views);
  if (in_place) ctx.count("tensors written in place", in_place);
  if (slices) ctx.count("tensors written into a Concat", slices);
  return views + in_place + slices > 0;
}

}  // namespace onnxc
