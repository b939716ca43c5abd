// A one-node graph for op handler tests: declare typed inputs (optionally constant), attributes
// and outputs, run the registered handler's infer(), then inspect outputs, state, errors, the
// emitted statements, or fold the node with evaluate().
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/diagnostics.h"
#include "ir/ir.h"
#include "ops/folding.h"
#include "ops/op.h"
#include "ops/registry.h"
#include "passes/passes.h"

namespace onnxc::testing {

class InferHarness {
 public:
  InferHarness(const std::string& op, int opset) {
    auto n = std::make_unique<Node>();
    n->name = "n";
    n->op_type = op;
    n->opset = opset;
    node_ = graph_.add_node(std::move(n));
  }

  // A run-time input of the given type and shape.
  Value* input(DataType t, Shape shape) {
    Value* v = graph_.add_value("in" + std::to_string(node_->inputs.size()));
    v->dtype = t;
    v->shape = std::move(shape);
    v->has_shape = true;
    v->is_graph_input = true;
    node_->inputs.push_back(v);
    return v;
  }
  // A constant input holding `values` (converted to t).
  template <typename T>
  Value* constant(DataType t, Shape shape, const std::vector<T>& values) {
    Value* v = input(t, shape);
    v->is_graph_input = false;
    Tensor tensor = Tensor::zeros(t, shape);
    for (size_t i = 0; i < values.size(); ++i) store(tensor, i, values[i]);
    v->constant = std::make_shared<const Tensor>(std::move(tensor));
    return v;
  }
  // The --target infer() sees (default: generic).
  void target(const Target& t) { target_ = &t; }
  void absent_input() { node_->inputs.push_back(nullptr); }
  void outputs(size_t n) {
    for (size_t i = 0; i < n; ++i) {
      node_->outputs.push_back(graph_.add_value("out" + std::to_string(i)));
      node_->outputs.back()->producer = node_;
    }
  }
  void absent_output() { node_->outputs.push_back(nullptr); }

  void attr_int(const std::string& name, int64_t v) {
    Attribute& a = node_->attributes[name];
    a.kind = Attribute::Kind::kInt;
    a.i = v;
  }
  void attr_float(const std::string& name, float v) {
    Attribute& a = node_->attributes[name];
    a.kind = Attribute::Kind::kFloat;
    a.f = v;
  }
  void attr_string(const std::string& name, std::string v) {
    Attribute& a = node_->attributes[name];
    a.kind = Attribute::Kind::kString;
    a.s = std::move(v);
  }
  void attr_ints(const std::string& name, std::vector<int64_t> v) {
    Attribute& a = node_->attributes[name];
    a.kind = Attribute::Kind::kInts;
    a.ints = std::move(v);
  }

  // Makes output 0 a graph output the model declares with `dims` (-1: symbolic), as ops whose
  // output shape only the declaration gives (ImageDecoder) need.
  void declared_output(std::vector<int64_t> dims) {
    if (node_->outputs.empty()) outputs(1);
    graph_.outputs.push_back(node_->outputs[0]);
    graph_.declared_outputs.push_back({DataType::kUndefined, true, std::move(dims)});
  }

  // Binds the handler and runs infer(); false on any error (see error()).
  bool infer() {
    if (node_->outputs.empty()) outputs(1);
    node_->handler = OpRegistry::instance().find(node_->domain, node_->op_type, node_->opset);
    if (!node_->handler) {
      diag_.error("no handler");
      return false;
    }
    InferContext ctx(*node_, diag_, *target_);
    if (!graph_.outputs.empty()) ctx.set_graph(&graph_);
    return node_->handler->infer(ctx) && diag_.ok();
  }
  std::string error() const { return diag_.ok() ? "" : diag_.errors()[0]; }

  const Value& out(size_t i = 0) const { return *node_->outputs.at(i); }
  Node& node() { return *node_; }
  template <typename S>
  const S& state() const {
    return node_->state_as<S>();
  }

  // The statements emit() writes, inputs named x0, x1, ... and outputs y0, y1, ..., one statement
  // per line (initializers that labeled() wraps are joined back).
  std::string emit() {
    auto ref = [this](const Value* v) -> std::string {
      if (!v) return "nullptr";
      for (size_t i = 0; i < node_->inputs.size(); ++i)
        if (node_->inputs[i] == v) return "x" + std::to_string(i);
      for (size_t i = 0; i < node_->outputs.size(); ++i)
        if (node_->outputs[i] == v) return "y" + std::to_string(i);
      return "?";
    };
    std::string body;
    std::set<std::string> includes;
    EmitContext ctx(*node_, ref, "nullptr", &body, &includes);
    node_->handler->emit(ctx);
    for (const char* wrap : {"{\n        ", "\n        "})
      for (size_t at; (at = body.find(wrap)) != std::string::npos;)
        body.replace(at, std::char_traits<char>::length(wrap), wrap[0] == '{' ? "{" : " ");
    return body;
  }

  // Folds the node (all inputs must be constant); true when evaluate() produced the outputs.
  bool fold() { return fold_node(*node_) && node_->outputs[0]->is_constant(); }
  const Tensor& folded(size_t i = 0) const { return *node_->outputs.at(i)->constant; }

 private:
  template <typename T>
  static void store(Tensor& t, size_t i, T v) {
    switch (t.dtype) {
      case DataType::kFloat:
        t.as<float>()[i] = static_cast<float>(v);
        break;
      case DataType::kDouble:
        t.as<double>()[i] = static_cast<double>(v);
        break;
      case DataType::kInt32:
        t.as<int32_t>()[i] = static_cast<int32_t>(v);
        break;
      case DataType::kInt64:
        t.as<int64_t>()[i] = static_cast<int64_t>(v);
        break;
      case DataType::kUint8:
        t.as<uint8_t>()[i] = static_cast<uint8_t>(v);
        break;
      case DataType::kInt8:
        t.as<int8_t>()[i] = static_cast<int8_t>(v);
        break;
      case DataType::kBool:
        t.as<bool>()[i] = v != T(0);
        break;
      default:
        break;
    }
  }

  Graph graph_;
  Node* node_ = nullptr;
  Diagnostics diag_;
  const Target* target_ = &default_target();
};

}  // namespace onnxc::testing
