#include "passes/fusion_util.h"

#include <algorithm>
#include <set>

#include "ops/op.h"
#include "ops/registry.h"

namespace onnxc::fusion {
namespace {

int subgraph_uses(const Graph& g, const std::string& name) {
  int n = 0;
  for (const auto& node : g.nodes) {
    for (const Value* in : node->inputs) n += in && in->name == name;
    for (const auto& [attr_name, a] : node->attributes) {
      if (a.g) n += subgraph_uses(*a.g, name);
      for (const auto& sg : a.graphs) n += subgraph_uses(*sg, name);
    }
  }
  return n;
}

}  // namespace

int count_uses(const Graph& g, const Value* v) {
  int n = v->is_graph_output ? 1 : 0;
  for (const Value* o : g.outputs) n += o == v && !v->is_graph_output;
  for (const auto& node : g.nodes) {
    for (const Value* in : node->inputs) n += in == v;
    for (const auto& [attr_name, a] : node->attributes) {
      if (a.g) n += subgraph_uses(*a.g, v->name);
      for (const auto& sg : a.graphs) n += subgraph_uses(*sg, v->name);
    }
  }
  return n;
}

Node* sole_user(const Graph& g, const Value* v) {
  if (!v || v->is_graph_output || count_uses(g, v) != 1) return nullptr;
  for (const auto& node : g.nodes)
    for (const Value* in : node->inputs)
      if (in == v) return node.get();
  return nullptr;  // used by a subgraph only
}

size_t position(const Graph& g, const Node* n) {
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].get() == n) return i;
  return g.nodes.size();
}

bool reinfer(Node& n, const Target& target, Diagnostics& diag, const char* pass) {
  InferContext ctx(n, diag, target);
  const size_t before = diag.count();
  if (n.handler->infer(ctx) && diag.count() == before) return true;
  diag.node_error(n.name, n.op_type, "internal error: {} produced a node its op rejects", pass);
  return false;
}

Value* add_value(Graph& g, const std::string& base) {
  std::string name = base;
  for (int i = 1; g.find_value(name); ++i) name = base + "_" + std::to_string(i);
  return g.add_value(name);
}

Value* add_constant(Graph& g, const std::string& base, Tensor t) {
  Value* v = add_value(g, base);
  v->set_constant(std::move(t));
  return v;
}

void take_output(Node& producer, Value* from, Value* to) {
  for (Value*& o : producer.outputs)
    if (o == from) o = to;
  to->producer = &producer;
  from->producer = nullptr;
}

std::unique_ptr<Node> clone_op(const Node& n) {
  auto c = std::make_unique<Node>();
  c->name = n.name;
  c->op_type = n.op_type;
  c->domain = n.domain;
  c->opset = n.opset;
  c->attributes = n.attributes;
  c->inputs = n.inputs;
  return c;
}

void erase_nodes(Graph& g, const std::vector<const Node*>& dead) {
  std::set<const Node*> d(dead.begin(), dead.end());
  for (const Node* n : dead)  // their outputs now have no producer (unless taken over)
    for (Value* o : n->outputs)
      if (o && o->producer == n) o->producer = nullptr;
  g.nodes.erase(
      std::remove_if(g.nodes.begin(), g.nodes.end(),
                     [&](const std::unique_ptr<Node>& n) { return d.count(n.get()) > 0; }),
      g.nodes.end());
}

const float* float_data(const Value* v) {
  if (!v || !v->is_constant() || v->dtype != DataType::kFloat) return nullptr;
  return v->constant->as<float>();
}

}  // namespace onnxc::fusion

namespace onnxc::fusion {

bool per_channel_constant(const Value* c, const Shape& out, size_t axis,
                          std::vector<double>& per_channel) {
  if (!c || !c->is_constant() || c->dtype != DataType::kFloat || c->shape.size() > out.size() ||
      axis >= out.size())
    return false;
  const size_t lead = out.size() - c->shape.size();
  for (size_t d = 0; d < c->shape.size(); ++d) {
    const int64_t dim = c->shape[d];
    if (dim == 1) continue;
    if (d + lead != axis || dim != out[axis]) return false;
  }
  const int64_t channels = out[axis];
  const bool varies = c->numel() == channels && channels != 1;
  per_channel.resize(static_cast<size_t>(channels));
  const float* data = c->constant->as<float>();
  for (int64_t i = 0; i < channels; ++i) per_channel[static_cast<size_t>(i)] = data[varies ? i : 0];
  return true;
}

Value* other_operand(const Node& n, const Value* v) {
  if (n.inputs.size() != 2 || n.input(0) == n.input(1)) return nullptr;
  if (n.input(0) == v) return n.input(1);
  if (n.input(1) == v) return n.input(0);
  return nullptr;
}

bool is_op(const Node* n, const char* op) {
  return n && n->op_type == op && n->domain.empty();
}

int64_t int_attr(const Node& n, const char* name, int64_t def) {
  const Attribute* a = n.attr(name);
  return a && a->kind == Attribute::Kind::kInt ? a->i : def;
}

float float_attr(const Node& n, const char* name, float def) {
  const Attribute* a = n.attr(name);
  return a && a->kind == Attribute::Kind::kFloat ? a->f : def;
}

bool retarget(Node& n, const char* op, int opset, const char* domain) {
  const OpHandler* h = OpRegistry::instance().find(domain, op, opset);
  if (!h) return false;
  n.domain = domain;
  n.op_type = op;
  n.opset = opset;
  n.handler = h;
  n.state.reset();
  n.scratch_bytes = 0;
  return true;
}

}  // namespace onnxc::fusion
