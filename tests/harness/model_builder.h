// Builds small ModelProtos in tests with the protobuf API, and writes them to temporary files.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "base/temp_dir.h"
#include "onnx.pb.h"

namespace onnxc::testing {

class ModelBuilder {
 public:
  explicit ModelBuilder(int opset = 17, int64_t ir_version = 8) {
    model_.set_ir_version(ir_version);
    model_.set_producer_name("onnxc-tests");
    auto* os = model_.add_opset_import();
    os->set_domain("");
    os->set_version(opset);
    model_.mutable_graph()->set_name("test");
  }

  // dims: numbers, or -1 for a symbolic dim named by `params` at the same position.
  ModelBuilder& input(const std::string& name, int elem_type, const std::vector<int64_t>& dims,
                      const std::vector<std::string>& params = {}) {
    fill_value_info(model_.mutable_graph()->add_input(), name, elem_type, dims, params);
    return *this;
  }
  ModelBuilder& output(const std::string& name, int elem_type, const std::vector<int64_t>& dims,
                       const std::vector<std::string>& params = {}) {
    fill_value_info(model_.mutable_graph()->add_output(), name, elem_type, dims, params);
    return *this;
  }
  ModelBuilder& initializer(const std::string& name, const std::vector<int64_t>& dims,
                            const std::vector<float>& values) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    for (float v : values) t->add_float_data(v);
    return *this;
  }
  // An integer initializer (int8, uint8, int32, ... elem_type), values stored as int32_data.
  ModelBuilder& int_initializer(const std::string& name, int elem_type,
                                const std::vector<int64_t>& dims,
                                const std::vector<int32_t>& values) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(elem_type);
    for (int64_t d : dims) t->add_dims(d);
    for (int32_t v : values) t->add_int32_data(v);
    return *this;
  }
  onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& name = "") {
    auto* n = model_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name.empty() ? op + "_" + std::to_string(model_.graph().node_size()) : name);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return *n;
  }
  static void int_attr(onnx::NodeProto& n, const std::string& name, int64_t v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void ints_attr(onnx::NodeProto& n, const std::string& name,
                        const std::vector<int64_t>& v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }

  onnx::ModelProto& proto() { return model_; }

  // Serializes into a fresh temporary folder; returns the model path.
  std::string write(const std::string& file = "model.onnx") const {
    static std::vector<std::unique_ptr<onnxc::TempDir>> dirs;  // removed when the tests exit
    dirs.push_back(std::make_unique<onnxc::TempDir>("onnxc-test-"));
    auto path = dirs.back()->path() / file;
    std::ofstream out(path, std::ios::binary);
    model_.SerializeToOstream(&out);
    return path.string();
  }

  // A node of a subgraph (a Loop body, an If branch).
  static onnx::NodeProto* add_node(onnx::GraphProto& g, const std::string& op,
                                   const std::vector<std::string>& inputs,
                                   const std::vector<std::string>& outputs,
                                   const std::string& name) {
    auto* n = g.add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return n;
  }
  // A tensor ValueInfo (a subgraph's inputs and outputs); dims as for input().
  static void fill_value_info(onnx::ValueInfoProto* vi, const std::string& name, int elem_type,
                              const std::vector<int64_t>& dims,
                              const std::vector<std::string>& params = {}) {
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem_type);
    auto* shape = tt->mutable_shape();
    for (size_t i = 0; i < dims.size(); ++i) {
      auto* d = shape->add_dim();
      if (dims[i] >= 0)
        d->set_dim_value(dims[i]);
      else
        d->set_dim_param(i < params.size() ? params[i] : "N");
    }
  }

 private:
  onnx::ModelProto model_;
};

}  // namespace onnxc::testing
