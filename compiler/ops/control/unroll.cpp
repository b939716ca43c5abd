// Containers through control flow and the graph boundary (see ops/containers.h):
//   - Identity of a sequence/optional: the output holds the same tensors (no code);
//   - If whose branches build containers: the taken branch (the condition must be a compile-time
//     constant) is copied into the enclosing graph in the If's place;
//   - Loop carrying containers or building them: unrolled, one copy of the body per iteration
//     (the trip count must be a compile-time constant and the condition must never end the loop
//     early), so each iteration's sequence positions and lengths are constants;
//   - a Loop that --max-trip-count bounds, with a trip count or condition known only at run time,
//     growing sequences it carries (each starts empty and the body appends one tensor per
//     iteration, its only use of the sequence): a tensor Loop whose extra scan outputs are the
//     appended tensors (ops/control/control_flow.cpp); each such sequence has a run-time length,
//     its tensors the first NODE.trip_count rows of the scan output (Value::rows, Value::count),
//     read only by ConcatFromSequence and SequenceLength (ops/control/sequence.cpp);
//   - sequence/optional outputs of the main graph become tensor outputs.
// Any other sequence whose length is only known at run time is refused, naming the node.
#include <algorithm>
#include <set>

#include "ops/containers.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

// Unrolling copies the body this many times at most (nodes times iterations).
constexpr int64_t kMaxUnrolledNodes = 100000;

bool is_container_op_type(const std::string& op) {
  static const std::set<std::string> kOps = {
      "SequenceConstruct", "SequenceEmpty",  "SequenceInsert",     "SequenceErase",
      "SequenceAt",        "SequenceLength", "SplitToSequence",    "ConcatFromSequence",
      "SequenceMap",       "Optional",       "OptionalHasElement", "OptionalGetElement"};
  return kOps.count(op) > 0;
}

void collect_owned(const Graph& g, std::set<const Value*>& owned) {
  for (const auto& v : g.values) owned.insert(v.get());
  for (const auto& n : g.nodes)
    for (const Graph* sub : subgraphs_of(*n)) collect_owned(*sub, owned);
}

Value* fresh_copy(const Value* v, Graph& into, const std::string& tag) {
  Value* c = into.add_value(v->name + tag);
  c->dtype = v->dtype;
  c->constant = v->constant;
  if (v->constant) {
    c->shape = v->shape;
    c->has_shape = true;
  }
  return c;
}

struct Cloner {
  const std::string& tag;
  std::map<const Value*, Value*>& map;
  std::set<const Value*> owned;  // every value of the body being copied, at any depth

  Value* get(Value* v, Graph& into) {
    if (!v) return nullptr;
    auto it = map.find(v);
    if (it != map.end()) return it->second;
    if (!owned.count(v)) return v;  // an enclosing graph's value: read as is
    Value* c = fresh_copy(v, into, tag);
    map[v] = c;
    return c;
  }

  std::shared_ptr<Graph> graph(const Graph& g) {
    auto ng = std::make_shared<Graph>();
    ng->name = g.name + tag;
    for (Value* in : g.inputs) {
      Value* c = fresh_copy(in, *ng, tag);
      map[in] = c;
      ng->inputs.push_back(c);
    }
    ng->nodes = nodes(g, *ng);
    for (Value* out : g.outputs) ng->outputs.push_back(get(out, *ng));
    return ng;
  }

  std::vector<std::unique_ptr<Node>> nodes(const Graph& g, Graph& into) {
    std::vector<std::unique_ptr<Node>> result;
    for (const auto& n : g.nodes) {
      auto c = std::make_unique<Node>();
      c->name = n->name + tag;
      c->op_type = n->op_type;
      c->domain = n->domain;
      c->opset = n->opset;
      for (Value* in : n->inputs) c->inputs.push_back(get(in, into));
      for (const auto& [name, a] : n->attributes) {
        Attribute copy = a;
        if (a.g) copy.g = graph(*a.g);
        for (auto& sub : copy.graphs) sub = graph(*sub);
        c->attributes[name] = std::move(copy);
      }
      for (Value* out : n->outputs) {
        Value* o = out ? fresh_copy(out, into, tag) : nullptr;
        if (o) {
          o->producer = c.get();
          map[out] = o;
        }
        c->outputs.push_back(o);
      }
      result.push_back(std::move(c));
    }
    return result;
  }
};

Graph* graph_attr(const Node& n, const char* name) {
  const Attribute* a = n.attr(name);
  return a && a->kind == Attribute::Kind::kGraph ? a->g.get() : nullptr;
}

// ---- Identity of a container ---------------------------------------------------------------

class ContainerIdentity final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    copy_container(ctx.node().output(0), ctx.input(0));
    ctx.replace_node({});
    return true;
  }
  void emit(EmitContext&) const override {}
};

// ---- If building containers: inline the taken branch ----------------------------------------

class InlineContainerIf final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, SIZE_MAX)) return false;
    const Tensor* cond = ctx.constant_input(0);
    if (!cond)
      return ctx.fail(
          "the condition must be a constant: the branches build sequences or optionals, which "
          "are resolved at compile time (a choice between them at run time is not supported)");
    const Graph* branch = graph_attr(ctx.node(), cond->int_at(0) ? "then_branch" : "else_branch");
    if (!branch) return ctx.fail("attributes 'then_branch' and 'else_branch' are required");
    if (branch->outputs.size() != ctx.num_outputs())
      return ctx.fail("branch '{}' has {} outputs, the node {}", branch->name,
                      branch->outputs.size(), ctx.num_outputs());
    Graph& g = *ctx.graph();
    std::map<const Value*, Value*> map;
    const std::string tag = "@" + ctx.node().name;
    auto nodes = clone_nodes(*branch, g, tag, map);
    for (size_t i = 0; i < ctx.num_outputs(); ++i)
      if (ctx.has_output(i))
        nodes.push_back(make_node(ctx.node(), "Identity", 16, fmt::format("out{}", i),
                                  {cloned(branch->outputs[i], g, tag, map)},
                                  {ctx.node().output(i)}));
    ctx.replace_node(std::move(nodes));
    return true;
  }
  void emit(EmitContext&) const override {}
};

// ---- Loop growing sequences to a run-time length -------------------------------------------

// The body node that appends a tensor to carried sequence `in` (SequenceInsert without a
// position) giving `out`, when that is all the body does with the sequence; null otherwise.
Node* appending_insert(const Graph& body, const Value* in, const Value* out) {
  Node* p = out->producer;
  const bool appends = p && p->domain.empty() && p->op_type == "SequenceInsert" &&
                       p->inputs.size() >= 2 && p->inputs[0] == in && p->inputs[1] &&
                       (p->inputs.size() == 2 || !p->inputs[2]);
  const int64_t outs = std::count(body.outputs.begin(), body.outputs.end(), out);
  if (!appends || reads(body, in) != 1 || reads(body, out) != 0 || outs != 1 ||
      std::count(body.outputs.begin(), body.outputs.end(), in) != 0)
    return nullptr;
  return p;
}

// The bounded Loop `ctx` infers, whose trip count or condition is known only at run time, as a
// tensor Loop: each carried sequence (empty at the start, appended to once per iteration) leaves
// the carried values and its appended tensor becomes a scan output, and the sequence the node
// gives is that scan output's rows (Value::rows) with NODE.trip_count (Value::count) valid.
bool grow_sequences(InferContext& ctx, Graph& body, size_t N) {
  Node& node = ctx.node();
  Graph& g = *ctx.graph();
  std::vector<size_t> grown;
  std::vector<Node*> inserts;
  for (size_t i = 0; i < N; ++i) {
    const Value* init = node.input(2 + i);
    if (!init || !init->is_container()) continue;
    Node* insert = appending_insert(body, body.inputs[2 + i], body.outputs[1 + i]);
    if (init->kind != ValueKind::kSequence || !init->elements.empty() || init->rows || !insert)
      return ctx.fail(
          "loop-carried '{}': this Loop runs a number of iterations known only at run time "
          "(bounded by --max-trip-count), so a sequence it carries must start empty and grow by "
          "one SequenceInsert at its end per iteration, the body's only use of it",
          init->name);
    grown.push_back(i);
    inserts.push_back(insert);
  }
  if (grown.empty())
    return ctx.fail(
        "the body builds sequences or optionals, resolved at compile time by unrolling, and this "
        "Loop runs a number of iterations known only at run time");
  if (g.declared_outputs.empty())  // only the main graph declares outputs
    return ctx.fail(
        "a Loop growing sequences to a run-time length must be in the main graph (its trip count "
        "becomes a graph output)");
  const size_t K = body.outputs.size() - 1 - N;
  std::vector<Value*> body_in = {body.inputs[0], body.inputs[1]}, body_out = {body.outputs[0]};
  std::vector<Value*> in = {node.input(0), node.input(1)}, out;
  for (size_t i = 0; i < N; ++i)
    if (!std::count(grown.begin(), grown.end(), i)) {
      body_in.push_back(body.inputs[2 + i]);
      body_out.push_back(body.outputs[1 + i]);
      in.push_back(node.input(2 + i));
      out.push_back(node.output(i));
    }
  for (size_t k = 0; k < K; ++k) {
    body_out.push_back(body.outputs[1 + N + k]);
    out.push_back(node.output(N + k));
  }
  Value* count =
      g.add_value(node.name + ".trip_count");  // what ops/control/control_flow.cpp would add
  count->is_graph_output = true;
  g.outputs.push_back(count);
  for (size_t j = 0; j < grown.size(); ++j) {
    Value* seq = node.output(grown[j]);
    Value* rows = g.add_value((seq ? seq->name : node.name) + ".rows");
    rows->sequence_rows = true;
    body_out.push_back(inserts[j]->inputs[1]);
    out.push_back(rows);
    if (seq) {
      set_sequence(seq, DataType::kUndefined, {});
      seq->rows = rows;
      seq->count = count;
    }
    body.nodes.erase(std::find_if(body.nodes.begin(), body.nodes.end(),
                                  [&](const auto& n) { return n.get() == inserts[j]; }));
  }
  out.push_back(count);
  body.inputs = std::move(body_in);
  body.outputs = std::move(body_out);
  if (has_container_ops(body))
    return ctx.fail(
        "the body of a Loop bounded by --max-trip-count may use sequences only to grow the ones "
        "it carries (SequenceInsert at the end)");
  auto loop = std::make_unique<Node>();
  loop->name = node.name;
  loop->op_type = node.op_type;
  loop->opset = node.opset;
  loop->attributes = node.attributes;  // the body graph is shared, rewritten above
  loop->inputs = std::move(in);
  loop->outputs = std::move(out);
  for (Value* o : loop->outputs)
    if (o) o->producer = loop.get();
  std::vector<std::unique_ptr<Node>> nodes;
  nodes.push_back(std::move(loop));
  ctx.replace_node(std::move(nodes));
  return true;
}

// ---- Loop carrying or building containers: unroll ------------------------------------------

class UnrollContainerLoop final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    const Graph* body = graph_attr(ctx.node(), "body");
    if (!body) return ctx.fail("attribute 'body' (a graph) is required");
    if (ctx.num_inputs() < 2) return ctx.fail("needs inputs M and cond (either may be empty)");
    const size_t N = ctx.num_inputs() - 2;
    if (body->inputs.size() != N + 2 || body->outputs.size() < N + 1)
      return ctx.fail("the body has {} inputs and {} outputs for {} loop-carried values",
                      body->inputs.size(), body->outputs.size(), N);
    if (ctx.node().attr(kMaxTripCountAttribute) && ctx.num_outputs() == body->outputs.size() - 1) {
      // bounded: grow_sequences() may take scan outputs
    } else if (body->outputs.size() != N + 1 || ctx.num_outputs() != N)
      return ctx.fail(
          "a Loop that carries or builds sequences is unrolled, and needs exactly its {} "
          "loop-carried values as outputs (scan outputs are not supported)",
          N);
    const Tensor* m = ctx.has_input(0) ? ctx.constant_input(0) : nullptr;
    const Tensor* c = ctx.has_input(1) ? ctx.constant_input(1) : nullptr;
    const bool starts = !c || c->int_at(0) != 0;
    const bool run_time =
        !m || (ctx.has_input(1) && !c) || (starts && !loop_condition_stays(*body));
    if (run_time && ctx.node().attr(kMaxTripCountAttribute))
      return grow_sequences(ctx, *graph_attr(ctx.node(), "body"), N);
    if (!m || (ctx.has_input(1) && !c))
      return ctx.fail(
          "the trip count M (and the condition) must be a constant: the loop carries or builds "
          "sequences or optionals, which are resolved at compile time by unrolling it (a "
          "sequence whose length is known only at run time needs --max-trip-count {}=N)",
          ctx.node().name);
    if (starts && !loop_condition_stays(*body))
      return ctx.fail(
          "the body's condition must never end the loop early (it is unrolled to resolve its "
          "sequences or optionals at compile time)");
    const int64_t trips = starts ? std::max<int64_t>(m->int_at(0), 0) : 0;
    if (trips > kMaxUnrolledNodes / static_cast<int64_t>(body->nodes.size() + 1))
      return ctx.fail("unrolling {} iterations of a {}-node body exceeds {} nodes", trips,
                      body->nodes.size(), kMaxUnrolledNodes);
    Graph& g = *ctx.graph();
    std::vector<Value*> carried;
    for (size_t i = 0; i < N; ++i) carried.push_back(ctx.node().input(2 + i));
    std::vector<std::unique_ptr<Node>> nodes;
    for (int64_t t = 0; t < trips; ++t) {
      const std::string tag = fmt::format("@{}#{}", ctx.node().name, t);
      std::map<const Value*, Value*> map;
      map[body->inputs[0]] = add_int64s(g, body->inputs[0]->name + tag, {t}, true);
      Tensor yes = Tensor::zeros(DataType::kBool, {});
      yes.data[0] = 1;
      map[body->inputs[1]] = g.add_constant(body->inputs[1]->name + tag, yes);
      for (size_t i = 0; i < N; ++i) map[body->inputs[2 + i]] = carried[i];
      auto iteration = clone_nodes(*body, g, tag, map);
      for (auto& n : iteration) nodes.push_back(std::move(n));
      for (size_t i = 0; i < N; ++i) carried[i] = cloned(body->outputs[1 + i], g, tag, map);
    }
    for (size_t i = 0; i < N; ++i)
      if (ctx.has_output(i))
        nodes.push_back(make_node(ctx.node(), "Identity", 16, fmt::format("out{}", i), {carried[i]},
                                  {ctx.node().output(i)}));
    ctx.replace_node(std::move(nodes));
    return true;
  }
  void emit(EmitContext&) const override {}
};

const ContainerIdentity kContainerIdentity;
const InlineContainerIf kInlineContainerIf;
const UnrollContainerLoop kUnrollContainerLoop;

}  // namespace

int64_t reads(const Graph& g, const Value* v) {
  int64_t n = 0;
  for (const auto& node : g.nodes) {
    n += std::count(node->inputs.begin(), node->inputs.end(), v);
    for (const Graph* sub : subgraphs_of(*node)) n += reads(*sub, v);
  }
  return n;
}

bool has_container_ops(const Graph& graph) {
  for (const auto& n : graph.nodes) {
    if (n->domain.empty() && is_container_op_type(n->op_type)) return true;
    for (const Graph* sub : subgraphs_of(*n))
      if (has_container_ops(*sub)) return true;
  }
  return false;
}

const OpHandler* container_handler(const Node& node) {
  if (!node.domain.empty()) return nullptr;
  if (node.op_type == "Identity" && node.input(0) && node.input(0)->is_container())
    return &kContainerIdentity;
  if (node.op_type == "If") {
    for (const char* b : {"then_branch", "else_branch"})
      if (const Graph* g = graph_attr(node, b); g && has_container_ops(*g))
        return &kInlineContainerIf;
  }
  if (node.op_type == "Loop") {
    for (size_t i = 2; i < node.inputs.size(); ++i)
      if (node.inputs[i] && node.inputs[i]->is_container()) return &kUnrollContainerLoop;
    if (const Graph* g = graph_attr(node, "body"); g && has_container_ops(*g))
      return &kUnrollContainerLoop;
  }
  return nullptr;
}

std::vector<std::unique_ptr<Node>> clone_nodes(const Graph& body, Graph& into,
                                               const std::string& tag,
                                               std::map<const Value*, Value*>& map) {
  Cloner c{tag, map, {}};
  collect_owned(body, c.owned);
  for (const auto& [from, to] : map) c.owned.erase(from);
  return c.nodes(body, into);
}

Value* cloned(Value* v, Graph& into, const std::string& tag, std::map<const Value*, Value*>& map) {
  auto it = map.find(v);
  if (it != map.end()) return it->second;
  if (!v->is_constant()) return v;      // an enclosing graph's value
  Value* c = fresh_copy(v, into, tag);  // a body constant (initializer) returned as is
  map[v] = c;
  return c;
}

std::unique_ptr<Node> make_node(const Node& from, const std::string& op, int opset,
                                const std::string& suffix, std::vector<Value*> inputs,
                                std::vector<Value*> outputs) {
  auto n = std::make_unique<Node>();
  n->name = from.name + "/" + suffix;
  n->op_type = op;
  n->opset = opset;
  n->inputs = std::move(inputs);
  n->outputs = std::move(outputs);
  for (Value* o : n->outputs)
    if (o) o->producer = n.get();
  return n;
}

Value* add_int64s(Graph& graph, const std::string& name, const std::vector<int64_t>& v,
                  bool scalar) {
  Tensor t =
      Tensor::zeros(DataType::kInt64, scalar ? Shape{} : Shape{static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.as<int64_t>()[i] = v[i];
  return graph.add_constant(name, std::move(t));
}

void set_sequence(Value* v, DataType dtype, std::vector<Value*> elements) {
  v->kind = ValueKind::kSequence;
  v->dtype = dtype;
  v->elements = std::move(elements);
  v->has_shape = true;
  v->shape.clear();
}

void set_map(Value* v, Value* keys, Value* values) {
  v->kind = ValueKind::kMap;
  v->dtype = values->dtype;
  v->elements = {keys, values};
  v->has_shape = true;
  v->shape.clear();
}

void copy_container(Value* to, const Value* from) {
  to->kind = from->kind;
  to->dtype = from->dtype;
  to->elements = from->elements;
  to->contained = from->contained;
  to->rows = from->rows;
  to->count = from->count;
  to->has_shape = true;
  to->shape.clear();
}

namespace {

// The tensors container `v` holds, depth first, with their output names: NAME.i for a sequence's
// elements, NAME for a present optional's value, NAME.keys and NAME.values for a map's.
void flatten_container(Value* v, const std::string& name,
                       std::vector<std::pair<std::string, Value*>>& out) {
  if (!v->is_container()) {
    out.emplace_back(name, v);
    return;
  }
  for (size_t i = 0; i < v->elements.size(); ++i)
    flatten_container(v->elements[i],
                      v->kind == ValueKind::kOptional ? name
                      : v->kind == ValueKind::kMap
                          ? fmt::format("{}.{}", name, i ? "values" : "keys")
                          : fmt::format("{}.{}", name, i),
                      out);
}

}  // namespace

bool expose_container_outputs(Graph& graph, Diagnostics& diag, const Target& target) {
  std::vector<Value*> outputs;
  for (Value* out : graph.outputs) {
    if (!out->is_container()) {
      outputs.push_back(out);
      continue;
    }
    if (out->rows) {
      diag.error(
          "graph output '{}' is a sequence grown in a Loop bounded by --max-trip-count, so its "
          "length is known only at run time: return its ConcatFromSequence along axis 0 instead",
          out->name);
      return false;
    }
    std::vector<std::pair<std::string, Value*>> tensors;
    flatten_container(out, out->name, tensors);
    for (size_t i = 0; i < tensors.size(); ++i) {
      Value* v = graph.add_value(tensors[i].first);
      v->is_graph_output = true;
      Node from;
      from.name = out->name;
      auto id = make_node(from, "Identity", 16, fmt::format("{}", i), {tensors[i].second}, {v});
      id->handler = OpRegistry::instance().find("", "Identity", 16);
      InferContext ctx(*id, diag, target);
      if (!id->handler || !id->handler->infer(ctx)) return false;
      graph.nodes.push_back(std::move(id));
      outputs.push_back(v);
    }
  }
  graph.outputs = std::move(outputs);
  return true;
}

void drop_container_values(Graph& graph) {
  for (auto& v : graph.values)
    if (v->is_container()) v->producer = nullptr;
  graph.values.erase(std::remove_if(graph.values.begin(), graph.values.end(),
                                    [](const auto& v) { return v->is_container(); }),
                     graph.values.end());
}

}  // namespace onnxc
