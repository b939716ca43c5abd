// Expansion of ONNX Runtime's com.microsoft operators into standard ONNX nodes.
//
// ONNX Runtime's tools (the transformer optimizer, the QOperator quantizer, a session saved at the
// `extended` level) write ops of the `com.microsoft` domain, version 1, which ORT's
// docs/ContribOperators.md specifies and its CPU kernels (onnxruntime/contrib_ops/cpu) define
// where the text is silent. Each op expanded here is exactly a composition of standard ONNX ops,
// so it is rewritten into them on the ModelProto, before import, like a model-local function:
//   - the IR, the importer and every pass see ordinary nodes, and the existing passes fuse them
//     back (FusedConv -> Conv + activation, which fuse-epilogue fuses again; the QLinear* ops ->
//     DequantizeLinear -> op -> QuantizeLinear, which lower-qdq lowers to integer kernels where
//     it can);
//   - emitted nodes take the model's ai.onnx opset, so each rule emits only ops that exist there
//     (or refuses, naming the opset it needs);
//   - value names are "NODE/what", unique in the model; constants become initializers of the
//     node's graph.
// One small function per op, in a table per group: contrib_fused.cpp (session-optimizer fusions,
// Gelu family), contrib_transformer.cpp (SkipLayerNormalization, EmbedLayerNormalization and
// QEmbedLayerNormalization, RotaryEmbedding), contrib_attention.cpp (Attention, QAttention,
// MultiHeadAttention), contrib_qlinear.cpp (QOperator quantized ops, DynamicQuantizeMatMul). A
// com.microsoft op without a rule is left for the importer: it runs through its own handler where
// one exists (DynamicQuantizeLSTM, in integers: ops/nn/recurrent.cpp), else is refused: "op X
// (com.microsoft) is not supported".
#include "frontend/contrib_expander.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "frontend/contrib_expand_util.h"
#include "frontend/proto_names.h"

namespace onnxc {
namespace contrib {

// ---- Expansion --------------------------------------------------------------------------------

const onnx::AttributeProto* Expansion::attr(const std::string& name) const {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}
int64_t Expansion::attr_i(const std::string& name, int64_t def) const {
  const auto* a = attr(name);
  return a ? a->i() : def;
}
float Expansion::attr_f(const std::string& name, float def) const {
  const auto* a = attr(name);
  return a ? a->f() : def;
}
std::string Expansion::attr_s(const std::string& name, const std::string& def) const {
  const auto* a = attr(name);
  return a ? a->s() : def;
}
std::vector<float> Expansion::attr_floats(const std::string& name) const {
  const auto* a = attr(name);
  return a ? std::vector<float>(a->floats().begin(), a->floats().end()) : std::vector<float>();
}
std::vector<int64_t> Expansion::attr_ints(const std::string& name) const {
  const auto* a = attr(name);
  return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : std::vector<int64_t>();
}

std::string Expansion::fresh(const std::string& what) {
  return fresh_proto_name((n.name().empty() ? n.op_type() : n.name()) + "/" + what, used_);
}

onnx::NodeProto* Expansion::emit(const std::string& op_type, std::vector<std::string> inputs,
                                 std::vector<std::string> outputs) {
  onnx::NodeProto* node = out_.Add();
  node->set_op_type(op_type);
  node->set_name(fresh(op_type));
  for (auto& i : inputs) node->add_input(i);
  for (auto& o : outputs) node->add_output(o.empty() ? fresh(op_type + "_out") : o);
  return node;
}

std::string Expansion::emit1(const std::string& op_type, std::vector<std::string> inputs,
                             const std::string& to) {
  return emit(op_type, std::move(inputs), {to})->output(0);
}

std::string Expansion::const_f(std::vector<float> values, std::vector<int64_t> dims) {
  onnx::TensorProto* t = graph_.add_initializer();
  t->set_name(fresh("const"));
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (auto d : dims) t->add_dims(d);
  for (float v : values) t->add_float_data(v);
  return t->name();
}
std::string Expansion::const_i64(std::vector<int64_t> values, std::vector<int64_t> dims) {
  onnx::TensorProto* t = graph_.add_initializer();
  t->set_name(fresh("const"));
  t->set_data_type(onnx::TensorProto::INT64);
  for (auto d : dims) t->add_dims(d);
  for (auto v : values) t->add_int64_data(v);
  return t->name();
}
std::string Expansion::const_i32(std::vector<int32_t> values, std::vector<int64_t> dims) {
  onnx::TensorProto* t = graph_.add_initializer();
  t->set_name(fresh("const"));
  t->set_data_type(onnx::TensorProto::INT32);
  for (auto d : dims) t->add_dims(d);
  for (auto v : values) t->add_int32_data(v);
  return t->name();
}

int Expansion::rank(const std::string& name) const {
  auto it = ranks_.find(name);
  return it == ranks_.end() ? -1 : it->second;
}
const onnx::TensorProto* Expansion::initializer(const std::string& name) const {
  for (const auto& t : graph_.initializer())
    if (t.name() == name) return &t;
  return nullptr;
}

void set_attr(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
void set_attr(onnx::NodeProto* n, const std::string& name, float v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}
void set_attr(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (auto x : v) a->add_ints(x);
}
void set_attr(onnx::NodeProto* n, const std::string& name, const std::string& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

std::string unsqueeze(Expansion& e, const std::string& x, int64_t axis) {
  if (e.opset >= 13) return e.emit1("Unsqueeze", {x, e.const_i64({axis}, {1})});
  onnx::NodeProto* u = e.emit("Unsqueeze", {x}, {""});
  set_attr(u, "axes", std::vector<int64_t>{axis});
  return u->output(0);
}

// ORT's MLAS activations (onnxruntime/core/mlas/inc/mlas.h MLAS_ACTIVATION, filled by
// contrib_ops/cpu/fused_activation.cc): params are LeakyRelu {alpha}, Clip {min, max},
// HardSigmoid {alpha, beta}, and for FusedGemm also Elu {alpha}, Selu {alpha, gamma},
// ThresholdedRelu {alpha}.
bool emit_activation(Expansion& e, const std::string& act, const std::vector<float>& params,
                     const std::string& x, const std::string& y) {
  auto param = [&](size_t i, float def) {
    return i < params.size() && !std::isnan(params[i]) ? params[i] : def;  // NaN: not given
  };
  if (act.empty()) {
    e.emit("Identity", {x}, {y});
  } else if (act == "Relu" || act == "Sigmoid" || act == "Tanh" || act == "Softplus" ||
             act == "Softsign") {
    e.emit(act, {x}, {y});
  } else if (act == "LeakyRelu" || act == "Elu" || act == "ThresholdedRelu") {
    set_attr(e.emit(act, {x}, {y}), "alpha", param(0, act == "LeakyRelu" ? 0.01f : 1.0f));
  } else if (act == "HardSigmoid") {
    auto* node = e.emit(act, {x}, {y});
    set_attr(node, "alpha", param(0, 0.2f));
    set_attr(node, "beta", param(1, 0.5f));
  } else if (act == "Selu") {
    auto* node = e.emit(act, {x}, {y});
    set_attr(node, "alpha", param(0, 1.67326319217681884765625f));
    set_attr(node, "gamma", param(1, 1.05070102214813232421875f));
  } else if (act == "Clip") {
    if (params.size() != 2) return e.fail("activation Clip takes 2 activation_params (min, max)");
    if (e.opset >= 11) {
      e.emit("Clip", {x, e.const_f({params[0]}), e.const_f({params[1]})}, {y});
    } else {
      auto* node = e.emit("Clip", {x}, {y});
      set_attr(node, "min", params[0]);
      set_attr(node, "max", params[1]);
    }
  } else {
    return e.fail(
        "activation '{}' is not supported (Relu, Sigmoid, Tanh, LeakyRelu, Clip, "
        "HardSigmoid, Elu, Selu, ThresholdedRelu, Softplus, Softsign)",
        act);
  }
  return true;
}

}  // namespace contrib

namespace {

using contrib::ExpandRule;

const std::vector<ExpandRule>& all_rules() {
  static const std::vector<ExpandRule> rules = [] {
    std::vector<ExpandRule> r;
    for (auto group : {contrib::fused_rules, contrib::transformer_rules, contrib::attention_rules,
                       contrib::qlinear_rules})
      for (const auto& rule : group()) r.push_back(rule);
    return r;
  }();
  return rules;
}

const ExpandRule* rule_for(const onnx::NodeProto& n) {
  const std::string& domain = n.domain() == "ai.onnx" ? std::string() : n.domain();
  for (const auto& r : all_rules())
    if (n.op_type() == r.op_type && domain == r.domain) return &r;
  return nullptr;
}

// Ranks a rule may ask for: graph inputs, outputs, value_info and initializers, then a forward
// walk over a few shape-preserving or rank-reducing producers (the mask_index chain the
// transformer optimizer writes: Cast -> ReduceSum(keepdims=0)).
std::map<std::string, int> known_ranks(const onnx::GraphProto& g) {
  std::map<std::string, int> r;
  auto typed = [&](const onnx::ValueInfoProto& v) {
    if (v.type().has_tensor_type() && v.type().tensor_type().has_shape())
      r[v.name()] = v.type().tensor_type().shape().dim_size();
  };
  for (const auto& v : g.input()) typed(v);
  for (const auto& v : g.output()) typed(v);
  for (const auto& v : g.value_info()) typed(v);
  std::map<std::string, const onnx::TensorProto*> inits;
  for (const auto& t : g.initializer()) {
    r[t.name()] = t.dims_size();
    inits[t.name()] = &t;
  }
  static const char* kSameRank[] = {"Cast", "Relu", "Sigmoid", "Tanh", "Neg", "Abs", "Identity"};
  for (const auto& n : g.node()) {
    if (n.output_size() == 0 || n.input_size() == 0 || r.count(n.output(0))) continue;
    auto in = r.find(n.input(0));
    if (in == r.end()) continue;
    const bool same = std::any_of(std::begin(kSameRank), std::end(kSameRank),
                                  [&](const char* op) { return n.op_type() == op; });
    if (n.domain().empty() && same) {
      r[n.output(0)] = in->second;
    } else if (n.domain().empty() && n.op_type() == "ReduceSum") {
      int64_t keepdims = 1;
      size_t axes = 0;
      bool known = false;
      for (const auto& a : n.attribute()) {
        if (a.name() == "keepdims") keepdims = a.i();
        if (a.name() == "axes") axes = a.ints_size(), known = true;
      }
      if (n.input_size() > 1) {
        auto t = inits.find(n.input(1));
        if (t != inits.end()) {
          axes = t->second->dims_size() == 0 ? 1 : t->second->dims(0);
          known = true;
        }
      }
      if (keepdims)
        r[n.output(0)] = in->second;
      else if (known)
        r[n.output(0)] = in->second - static_cast<int>(axes);
    }
  }
  return r;
}

// Ops ORT writes only for the machine or the provider that saved the model: refused by name with
// what to do instead (issue 35), rather than as unknown ops.
std::string host_specific(const onnx::NodeProto& n) {
  static const char* kGpuOnly[] = {"NhwcConv", "GroupNorm", "SkipGroupNorm", "BiasSplitGelu",
                                   "BiasAdd"};
  const bool nchwc = n.domain() == "com.microsoft.nchwc" ||
                     (n.domain() == "com.microsoft" &&
                      (n.op_type() == "ReorderInput" || n.op_type() == "ReorderOutput"));
  if (nchwc)
    return "NCHWc blocked layout of the machine that saved the model (a session saved at "
           "optimization level `all`); save the session at level `extended` for a portable model";
  if (n.domain() == "com.microsoft" &&
      std::any_of(std::begin(kGpuOnly), std::end(kGpuOnly),
                  [&](const char* op) { return n.op_type() == op; }))
    return "this com.microsoft op exists only for ONNX Runtime's GPU execution providers; save "
           "the model with the CPU provider";
  return "";
}

class Expander {
 public:
  Expander(onnx::ModelProto& model, Diagnostics& diag) : model_(model), diag_(diag) {
    for (const auto& os : model.opset_import())
      if (os.domain().empty() || os.domain() == "ai.onnx") opset_ = static_cast<int>(os.version());
    collect_proto_names(model.graph(), used_);
  }

  bool run() {
    expand_graph(*model_.mutable_graph());
    return ok_;
  }

 private:
  void expand_graph(onnx::GraphProto& g) {
    bool any = false;
    for (auto& n : *g.mutable_node()) {
      for (auto& a : *n.mutable_attribute()) {
        if (a.has_g()) expand_graph(*a.mutable_g());
        for (auto& sg : *a.mutable_graphs()) expand_graph(sg);
      }
      if (std::string why = host_specific(n); !why.empty()) {
        diag_.node_error(n.name().empty() ? n.op_type() : n.name(), n.domain() + " " + n.op_type(),
                         "{}", why);
        ok_ = false;
      }
      any = any || rule_for(n);
    }
    if (!any) return;
    const std::map<std::string, int> ranks = known_ranks(g);
    google::protobuf::RepeatedPtrField<onnx::NodeProto> out;
    for (auto& n : *g.mutable_node()) {
      const ExpandRule* rule = rule_for(n);
      if (!rule) {
        *out.Add() = std::move(n);
        continue;
      }
      contrib::Expansion e(n, g, opset_, used_, out, ranks, diag_);
      if (!rule->fn(e)) ok_ = false;
    }
    g.mutable_node()->Swap(&out);
  }

  onnx::ModelProto& model_;
  Diagnostics& diag_;
  int opset_ = 1;
  std::set<std::string> used_;
  bool ok_ = true;
};

}  // namespace

bool expand_contrib_ops(onnx::ModelProto& model, Diagnostics& diag) {
  return Expander(model, diag).run();
}

std::vector<std::string> expanded_contrib_ops(const std::string& domain) {
  std::vector<std::string> names;
  for (const auto& r : all_rules())
    if (domain == r.domain) names.push_back(r.op_type);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace onnxc
