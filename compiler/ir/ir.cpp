#include "ir/ir.h"

#include <fmt/format.h>

#include <cstring>
#include <limits>
#include <set>

#include "base/checked_math.h"

namespace onnxc {

int64_t shape_numel(const Shape& s) {
  // Saturates instead of wrapping (2^62 x 4 must not read as 0): InferContext::set_output refuses
  // such shapes, so only a shape that is being reported ever gets here with an overflow.
  int64_t n = 1;
  for (int64_t d : s)
    if (d == 0) return 0;
  for (int64_t d : s)
    if (!checked_mul(n, d, &n)) return std::numeric_limits<int64_t>::max();
  return n;
}

std::string shape_str(const Shape& s) {
  if (s.empty()) return "scalar";
  return fmt::format("{}", fmt::join(s, "x"));
}

int64_t Tensor::int_at(int64_t i) const {
  switch (dtype) {
    case DataType::kInt8:
      return as<int8_t>()[i];
    case DataType::kUint8:
      return as<uint8_t>()[i];
    case DataType::kBool:
      return as<uint8_t>()[i] != 0;
    case DataType::kInt16:
      return as<int16_t>()[i];
    case DataType::kUint16:
      return as<uint16_t>()[i];
    case DataType::kInt32:
      return as<int32_t>()[i];
    case DataType::kUint32:
      return as<uint32_t>()[i];
    case DataType::kInt64:
      return as<int64_t>()[i];
    case DataType::kUint64:
      return static_cast<int64_t>(as<uint64_t>()[i]);
    case DataType::kFloat:
      return static_cast<int64_t>(as<float>()[i]);
    case DataType::kDouble:
      return static_cast<int64_t>(as<double>()[i]);
    default:
      return 0;
  }
}

std::vector<int64_t> Tensor::to_ints() const {
  std::vector<int64_t> v(static_cast<size_t>(numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = int_at(static_cast<int64_t>(i));
  return v;
}

double Tensor::double_at(int64_t i) const {
  switch (dtype) {
    case DataType::kFloat:
      return as<float>()[i];
    case DataType::kDouble:
      return as<double>()[i];
    default:
      return static_cast<double>(int_at(i));
  }
}

int64_t Value::string_slot() const {
  int64_t capacity = string_capacity;
  if (constant)
    for (const std::string& s : constant->strings)
      capacity = std::max(capacity, static_cast<int64_t>(s.size()));
  return capacity + 1;
}

Tensor Tensor::zeros(DataType dtype, Shape shape) {
  Tensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  if (dtype == DataType::kString)
    t.strings.assign(static_cast<size_t>(t.numel()), "");
  else
    t.data.assign(dtype_bytes(dtype, t.numel()), 0);
  return t;
}

const char* attribute_kind_name(Attribute::Kind k) {
  static const char* const kNames[] = {
      "undefined", "float",         "int",        "string",         "tensor",
      "graph",     "floats",        "ints",       "strings",        "tensors",
      "graphs",    "sparse_tensor", "type_proto", "sparse_tensors", "type_protos"};
  return kNames[static_cast<int>(k)];
}

const char* storage_kind_name(Storage::Kind k) {
  static const char* const kNames[] = {"unplanned", "arena", "view",   "in-place",
                                       "slice",     "input", "output", "constant"};
  return kNames[static_cast<int>(k)];
}

const char* value_kind_name(ValueKind k) {
  static const char* const kNames[] = {"tensor", "sequence", "optional", "map"};
  return kNames[static_cast<int>(k)];
}

void Value::set_constant(Tensor t) {
  dtype = t.dtype;
  shape = t.shape;
  has_shape = true;
  constant = std::make_shared<const Tensor>(std::move(t));
}

Value* Graph::add_constant(std::string n, Tensor t) {
  Value* v = add_value(std::move(n));
  v->set_constant(std::move(t));
  return v;
}

Value* Graph::add_value(std::string n) {
  auto v = std::make_unique<Value>();
  v->id = static_cast<int>(values.size());
  v->name = std::move(n);
  values.push_back(std::move(v));
  return values.back().get();
}

Node* Graph::add_node(std::unique_ptr<Node> n) {
  nodes.push_back(std::move(n));
  return nodes.back().get();
}

Value* Graph::find_value(const std::string& n) const {
  for (const auto& v : values)
    if (v->name == n) return v.get();
  return nullptr;
}

std::vector<Graph*> subgraphs_of(const Node& node) {
  std::vector<Graph*> gs;
  for (const auto& [name, a] : node.attributes) {
    if (a.g) gs.push_back(a.g.get());
    for (const auto& g : a.graphs)
      if (g) gs.push_back(g.get());
  }
  return gs;
}

namespace {
void collect_owned(const Graph& g, std::set<const Value*>& owned) {
  for (const auto& v : g.values) owned.insert(v.get());
  for (const auto& n : g.nodes)
    for (const Graph* sub : subgraphs_of(*n)) collect_owned(*sub, owned);
}
void collect_reads(const Graph& g, std::vector<Value*>& reads) {
  for (const auto& n : g.nodes) {
    for (Value* in : n->inputs)
      if (in) reads.push_back(in);
    for (const Graph* sub : subgraphs_of(*n)) collect_reads(*sub, reads);
  }
  for (Value* o : g.outputs) reads.push_back(o);
}
void collect_values(const Graph& g, std::vector<Value*>& out, bool self) {
  if (self)
    for (const auto& v : g.values) out.push_back(v.get());
  for (const auto& n : g.nodes)
    for (const Graph* sub : subgraphs_of(*n)) collect_values(*sub, out, true);
}
void collect_nodes(const Graph& g, std::vector<Node*>& out) {
  for (const auto& n : g.nodes)
    for (const Graph* sub : subgraphs_of(*n)) {
      for (const auto& m : sub->nodes) out.push_back(m.get());
      collect_nodes(*sub, out);
    }
}
}  // namespace

std::vector<Value*> implicit_inputs(const Node& node) {
  std::vector<Value*> result;
  auto subs = subgraphs_of(node);
  if (subs.empty()) return result;
  std::set<const Value*> owned, seen;
  std::vector<Value*> reads;
  for (const Graph* g : subs) {
    collect_owned(*g, owned);
    collect_reads(*g, reads);
  }
  for (Value* v : reads)
    if (!owned.count(v) && seen.insert(v).second) result.push_back(v);
  return result;
}

std::vector<Value*> all_values(const Graph& graph) {
  std::vector<Value*> out;
  collect_values(graph, out, true);
  return out;
}

std::vector<Node*> nested_nodes(const Graph& graph) {
  std::vector<Node*> out;
  collect_nodes(graph, out);
  return out;
}

void Graph::remove_dead_nodes() {
  std::set<const Value*> live(outputs.begin(), outputs.end());
  std::vector<std::unique_ptr<Node>> kept;
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    bool used = false;
    for (Value* o : (*it)->outputs) used |= o && live.count(o);
    if (!used) continue;
    for (Value* i : (*it)->inputs)
      if (i) live.insert(i);
    for (Value* i : implicit_inputs(**it)) live.insert(i);  // read by its subgraphs
    kept.push_back(std::move(*it));
  }
  nodes.assign(std::make_move_iterator(kept.rbegin()), std::make_move_iterator(kept.rend()));
}

}  // namespace onnxc
