// The IR verifier (see verify.h): one walk over the graphs in node order, carrying a scope of
// the values each graph owns and those defined so far, chained to the enclosing graph's scope at
// the parent node.
#include "ir/verify.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

namespace onnxc {
namespace {

// The values a graph owns and those defined so far while walking it; `parent` is the enclosing
// graph's scope as it stood at the node whose subgraph this is.
struct Scope {
  const Scope* parent = nullptr;
  std::unordered_set<const Value*> owned, defined;

  bool owns(const Value* v) const {
    for (const Scope* s = this; s; s = s->parent)
      if (s->owned.count(v)) return true;
    return false;
  }
  bool has_defined(const Value* v) const {
    for (const Scope* s = this; s; s = s->parent)
      if (s->defined.count(v)) return true;
    return false;
  }
};

class Verifier {
 public:
  Verifier(const Module& module, IrStage stage, size_t max_problems)
      : module_(module), stage_(stage), max_problems_(max_problems) {}

  std::vector<std::string> run() {
    verify_graph(*module_.graph, nullptr, true);
    if (stage_ >= IrStage::kMemoryPlanned && !module_.memory.planned)
      problem("the memory plan is missing after plan-memory");
    return std::move(problems_);
  }

 private:
  template <typename... Args>
  void problem(fmt::format_string<Args...> format, Args&&... args) {
    if (problems_.size() < max_problems_)
      problems_.push_back(fmt::format(format, std::forward<Args>(args)...));
  }

  static std::string where(const Node& n) {
    return fmt::format("node '{}' ({})", n.name, n.op_type);
  }

  void verify_graph(const Graph& g, const Scope* parent, bool main) {
    Scope scope;
    scope.parent = parent;
    for (const auto& v : g.values) scope.owned.insert(v.get());
    check_producers(g);
    for (const Value* in : g.inputs) {
      if (!in || !scope.owned.count(in))
        problem("graph '{}': an input is not a value of the graph", g.name);
      else
        scope.defined.insert(in);
    }
    // Defined from the start: constants, and containers the importer built (a sequence or
    // optional graph input is flattened into tensor inputs that it holds).
    for (const auto& v : g.values)
      if (!v->producer && (v->is_constant() || v->is_container() || v->is_graph_input))
        scope.defined.insert(v.get());
    for (const auto& n : g.nodes) verify_node(*n, scope, main);
    for (const Value* out : g.outputs) {
      if (!out || !scope.owns(out))
        problem("graph '{}': an output is not a value of the graph", g.name);
      else if (!scope.has_defined(out))
        problem("graph '{}': output '{}' is never defined", g.name, out->name);
    }
  }

  // Value::producer names a node of the same graph that lists the value among its outputs.
  void check_producers(const Graph& g) {
    std::unordered_set<const Node*> nodes;
    for (const auto& n : g.nodes) nodes.insert(n.get());
    for (const auto& v : g.values) {
      const Node* p = v->producer;
      if (!p) continue;
      bool listed = nodes.count(p) &&
                    std::find(p->outputs.begin(), p->outputs.end(), v.get()) != p->outputs.end();
      if (!listed)
        problem("value '{}': its producer is not a node of graph '{}' that writes it", v->name,
                g.name);
    }
  }

  void verify_node(const Node& n, Scope& scope, bool main) {
    for (const Value* in : n.inputs) {
      if (!in) continue;
      if (!scope.owns(in))
        problem("{}: input is a dangling value (owned by no enclosing graph)", where(n));
      else if (!scope.has_defined(in))
        problem("{}: input '{}' is read before it is defined", where(n), in->name);
      else
        check_typed(n, *in, "input");
    }
    for (const Graph* sub : subgraphs_of(n)) verify_graph(*sub, &scope, false);
    for (const Value* out : n.outputs) {
      if (!out) continue;
      if (!scope.owned.count(out))
        problem("{}: output is not a value of its graph", where(n));
      else if (out->producer != &n)
        problem("{}: output '{}' names another producer", where(n), out->name);
      else if (!scope.defined.insert(out).second)
        problem("{}: output '{}' is defined twice", where(n), out->name);
      else
        check_typed(n, *out, "output");
    }
    check_stage(n, main);
  }

  // From kShapesInferred on, what a node reads or writes is a typed tensor with a static shape.
  void check_typed(const Node& n, const Value& v, const char* role) {
    if (stage_ < IrStage::kShapesInferred) return;
    if (v.is_container())
      problem("{}: {} '{}' is still a {} after inference", where(n), role, v.name,
              value_kind_name(v.kind));
    else if (v.dtype == DataType::kUndefined || !v.has_shape)
      problem("{}: {} '{}' has no type or shape after inference", where(n), role, v.name);
  }

  // Handlers: main-graph nodes are bound by bind-handlers, subgraph nodes when their control-flow
  // node infers its bodies. A node's state is its handler's choice (many ops need none).
  void check_stage(const Node& n, bool main) {
    const IrStage bound = main ? IrStage::kHandlersBound : IrStage::kShapesInferred;
    if (stage_ >= bound && !n.handler) problem("{}: no handler bound", where(n));
    if (stage_ >= IrStage::kMemoryPlanned) check_placement(n, main);
  }

  // From kMemoryPlanned on: every value the node touches is placed; on the main graph (whose
  // offsets are arena offsets) buffers, scratch, views and slices lie where they may.
  void check_placement(const Node& n, bool main) {
    for (const auto* list : {&n.inputs, &n.outputs})
      for (const Value* v : *list)
        if (v && v->storage.kind == Storage::Kind::kUnplanned)
          problem("{}: value '{}' has no placement after plan-memory", where(n), v->name);
    if (!main) return;
    const size_t arena = module_.memory.arena_bytes;
    if (n.scratch_bytes && n.scratch_offset + n.scratch_bytes > arena)
      problem("{}: scratch [{}, +{}) runs past the arena ({} bytes)", where(n), n.scratch_offset,
              n.scratch_bytes, arena);
    for (const Value* v : n.outputs)
      if (v) check_bounds(n, *v, arena);
  }

  void check_bounds(const Node& n, const Value& v, size_t arena) {
    const Storage& s = v.storage;
    if (s.kind == Storage::Kind::kArena && s.offset + v.bytes() > arena)
      problem("{}: '{}' at [{}, +{}) runs past the arena ({} bytes)", where(n), v.name, s.offset,
              v.bytes(), arena);
    if (!s.shares()) return;
    if (!s.alias_of)
      problem("{}: '{}' shares storage ({}) with no value", where(n), v.name,
              storage_kind_name(s.kind));
    else if (s.offset + v.bytes() > s.alias_of->bytes())
      problem("{}: '{}' ({}) at +{} runs past '{}' ({} bytes)", where(n), v.name,
              storage_kind_name(s.kind), s.offset, s.alias_of->name, s.alias_of->bytes());
  }

  const Module& module_;
  IrStage stage_;
  size_t max_problems_;
  std::vector<std::string> problems_;
};

}  // namespace

std::vector<std::string> verify_module(const Module& module, IrStage stage, size_t max_problems) {
  if (!module.graph) return {"the module has no graph"};
  return Verifier(module, stage, max_problems).run();
}

}  // namespace onnxc
