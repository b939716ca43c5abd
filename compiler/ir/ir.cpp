#include "ir/ir.h"

#include <fmt/format.h>

#include <cstring>
#include <set>

namespace onnxc {

int64_t shape_numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

std::string shape_str(const Shape& s) {
  if (s.empty()) return "scalar";
  return fmt::format("{}", fmt::join(s, "x"));
}

int64_t Tensor::int_at(int64_t i) const {
  switch (dtype) {
    case DataType::kInt8: return as<int8_t>()[i];
    case DataType::kUint8: return as<uint8_t>()[i];
    case DataType::kBool: return as<uint8_t>()[i] != 0;
    case DataType::kInt16: return as<int16_t>()[i];
    case DataType::kUint16: return as<uint16_t>()[i];
    case DataType::kInt32: return as<int32_t>()[i];
    case DataType::kUint32: return as<uint32_t>()[i];
    case DataType::kInt64: return as<int64_t>()[i];
    case DataType::kUint64: return static_cast<int64_t>(as<uint64_t>()[i]);
    case DataType::kFloat: return static_cast<int64_t>(as<float>()[i]);
    case DataType::kDouble: return static_cast<int64_t>(as<double>()[i]);
    default: return 0;
  }
}

std::vector<int64_t> Tensor::to_ints() const {
  std::vector<int64_t> v(static_cast<size_t>(numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = int_at(static_cast<int64_t>(i));
  return v;
}

double Tensor::double_at(int64_t i) const {
  switch (dtype) {
    case DataType::kFloat: return as<float>()[i];
    case DataType::kDouble: return as<double>()[i];
    default: return static_cast<double>(int_at(i));
  }
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
  static const char* const kNames[] = {"undefined", "float",   "int",     "string",        "tensor",
                                       "graph",     "floats",  "ints",    "strings",       "tensors",
                                       "graphs",    "sparse_tensor", "type_proto", "sparse_tensors",
                                       "type_protos"};
  return kNames[static_cast<int>(k)];
}

const char* storage_kind_name(Storage::Kind k) {
  static const char* const kNames[] = {"unplanned", "arena", "view", "in-place", "input", "output",
                                       "constant"};
  return kNames[static_cast<int>(k)];
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

void Graph::remove_dead_nodes() {
  std::set<const Value*> live(outputs.begin(), outputs.end());
  std::vector<std::unique_ptr<Node>> kept;
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    bool used = false;
    for (Value* o : (*it)->outputs) used |= o && live.count(o);
    if (!used) continue;
    for (Value* i : (*it)->inputs)
      if (i) live.insert(i);
    kept.push_back(std::move(*it));
  }
  nodes.assign(std::make_move_iterator(kept.rbegin()), std::make_move_iterator(kept.rend()));
}

}  // namespace onnxc
