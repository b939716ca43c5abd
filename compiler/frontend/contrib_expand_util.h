// What one com.microsoft expansion sees (internal to contrib_expander*.cpp): the node, its graph,
// the model's ai.onnx opset, and helpers that emit standard nodes and constants with fresh names.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/diagnostics.h"
#include "onnx.pb.h"

namespace onnxc::contrib {

class Expansion {
 public:
  Expansion(const onnx::NodeProto& node, onnx::GraphProto& graph, int opset,
            std::set<std::string>& used, google::protobuf::RepeatedPtrField<onnx::NodeProto>& out,
            const std::map<std::string, int>& ranks, Diagnostics& diag)
      : n(node), opset(opset), graph_(graph), used_(used), out_(out), ranks_(ranks), diag_(diag) {}

  const onnx::NodeProto& n;
  const int opset;  // the model's ai.onnx opset: emitted nodes must exist there

  // Input i of the node, "" when absent.
  std::string in(int i) const { return i < n.input_size() ? n.input(i) : std::string(); }
  // Output i of the node, "" when absent.
  std::string out(int i) const { return i < n.output_size() ? n.output(i) : std::string(); }
  bool has_in(int i) const { return !in(i).empty(); }

  // Attributes of the node, or the default.
  const onnx::AttributeProto* attr(const std::string& name) const;
  int64_t attr_i(const std::string& name, int64_t def) const;
  float attr_f(const std::string& name, float def) const;
  std::string attr_s(const std::string& name, const std::string& def) const;
  std::vector<float> attr_floats(const std::string& name) const;
  std::vector<int64_t> attr_ints(const std::string& name) const;

  // A fresh value name "NODE/what".
  std::string fresh(const std::string& what);
  // Emits `op_type` (ai.onnx) reading `inputs` and writing `outputs` ("" in outputs: a fresh
  // name). Returns the node, for attributes.
  onnx::NodeProto* emit(const std::string& op_type, std::vector<std::string> inputs,
                        std::vector<std::string> outputs);
  // Emits a one-output node and returns its output (`to` or a fresh name).
  std::string emit1(const std::string& op_type, std::vector<std::string> inputs,
                    const std::string& to = "");
  // Adds a constant initializer and returns its name. dims {} is a scalar.
  std::string const_f(std::vector<float> values, std::vector<int64_t> dims = {});
  std::string const_i64(std::vector<int64_t> values, std::vector<int64_t> dims);
  std::string const_i32(std::vector<int32_t> values, std::vector<int64_t> dims = {});

  // The rank of value `name` where the graph says it (input, initializer, value_info, or a few
  // producers), else -1.
  int rank(const std::string& name) const;
  // The dims of initializer `name`, or nullptr.
  const onnx::TensorProto* initializer(const std::string& name) const;

  // Reports "node 'N' (OP): RULE" and returns false.
  template <typename... Args>
  bool fail(fmt::format_string<Args...> f, Args&&... args) {
    diag_.node_error(n.name().empty() ? n.op_type() : n.name(), "com.microsoft " + n.op_type(), f,
                     std::forward<Args>(args)...);
    return false;
  }

 private:
  onnx::GraphProto& graph_;
  std::set<std::string>& used_;
  google::protobuf::RepeatedPtrField<onnx::NodeProto>& out_;
  const std::map<std::string, int>& ranks_;
  Diagnostics& diag_;
};

// Attribute helpers for emitted nodes.
void set_attr(onnx::NodeProto* n, const std::string& name, int64_t v);
void set_attr(onnx::NodeProto* n, const std::string& name, float v);
void set_attr(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v);
void set_attr(onnx::NodeProto* n, const std::string& name, const std::string& v);

// Unsqueeze(x) at `axis` (axes an attribute before opset 13, an input after).
std::string unsqueeze(Expansion& e, const std::string& x, int64_t axis);

// Emits activation `act` (an ORT MLAS activation name: Relu, Sigmoid, Tanh, LeakyRelu, Clip,
// HardSigmoid, ...) on `x` into `y`, with `params` as ORT orders them. Empty `act`: Identity.
bool emit_activation(Expansion& e, const std::string& act, const std::vector<float>& params,
                     const std::string& x, const std::string& y);

// One expansion: emits the standard nodes for e.n; false after e.fail(...).
using ExpandFn = bool (*)(Expansion& e);
struct ExpandRule {
  const char* op_type;
  ExpandFn fn;
  // ORT registers a few of its own ops in the ai.onnx domain (""), where ONNX has none of that
  // name (SimplifiedLayerNormalization).
  const char* domain = "com.microsoft";
};
// The rules of each group (contrib_fused.cpp, contrib_transformer.cpp, contrib_attention.cpp,
// contrib_qlinear.cpp).
std::vector<ExpandRule> fused_rules();
std::vector<ExpandRule> transformer_rules();
std::vector<ExpandRule> attention_rules();
std::vector<ExpandRule> qlinear_rules();

}  // namespace onnxc::contrib
