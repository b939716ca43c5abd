// Validator rules, from the ONNX IR spec (IR.md, Versioning.md) and onnx's own checker. Each
// check reports and moves on, so one run lists every problem in the model. The official
// conformance models (onnx-backend-tests) are all valid: every rule here accepts each of them.
#include "frontend/validator.h"

#include <google/protobuf/unknown_field_set.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_set>

#include "base/checked_math.h"
#include "frontend/validator_rules.h"
#include "ir/dtype.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

constexpr int64_t kMaxIrVersion = 13;
// IR version from which attributes must carry their `type` (as onnx's checker enforces).
constexpr int64_t kAttributeTypeRequiredSince = 2;
// IR version from which a subgraph initializer may not share a name with a subgraph input.
constexpr int64_t kSubgraphInitializerInputDistinctSince = 4;

std::string canonical_domain(const std::string& domain) {
  return domain == "ai.onnx" ? "" : domain;
}

std::string display_domain(const std::string& domain) {
  return domain.empty() ? "ai.onnx" : domain;
}

// Value names visible at a point of a graph: its own definitions so far, then enclosing graphs'.
struct Scope {
  const Scope* parent = nullptr;
  std::unordered_set<std::string> names;

  bool contains(const std::string& name) const {
    for (const Scope* s = this; s; s = s->parent)
      if (s->names.count(name)) return true;
    return false;
  }
  bool outer_contains(const std::string& name) const { return parent && parent->contains(name); }
};

// ---- Tensors -----------------------------------------------------------------------------------

// The typed TensorProto field each data type is stored in when raw_data is not used.
enum class DataField { kFloat, kInt32, kString, kInt64, kDouble, kUint64 };

DataField data_field_of(DataType t) {
  switch (t) {
    case DataType::kFloat:
    case DataType::kComplex64:
      return DataField::kFloat;
    case DataType::kDouble:
    case DataType::kComplex128:
      return DataField::kDouble;
    case DataType::kInt64:
      return DataField::kInt64;
    case DataType::kUint32:
    case DataType::kUint64:
      return DataField::kUint64;
    case DataType::kString:
      return DataField::kString;
    default:
      return DataField::kInt32;
  }
}

const char* data_field_name(DataField f) {
  switch (f) {
    case DataField::kFloat:
      return "float_data";
    case DataField::kInt32:
      return "int32_data";
    case DataField::kString:
      return "string_data";
    case DataField::kInt64:
      return "int64_data";
    case DataField::kDouble:
      return "double_data";
    case DataField::kUint64:
      return "uint64_data";
  }
  return "?";
}

int64_t data_field_size(const onnx::TensorProto& t, DataField f) {
  switch (f) {
    case DataField::kFloat:
      return t.float_data_size();
    case DataField::kInt32:
      return t.int32_data_size();
    case DataField::kString:
      return t.string_data_size();
    case DataField::kInt64:
      return t.int64_data_size();
    case DataField::kDouble:
      return t.double_data_size();
    case DataField::kUint64:
      return t.uint64_data_size();
  }
  return 0;
}

// Entries of the typed field needed for `numel` elements: complex numbers take two, and
// sub-byte types are packed into int32_data entries as into bytes (two 4-bit, four 2-bit).
int64_t data_field_entries(DataType t, int64_t numel) {
  if (t == DataType::kComplex64 || t == DataType::kComplex128) return 2 * numel;
  int bits = dtype_info(t).bits;
  if (bits > 0 && bits < 8) return (numel * bits + 7) / 8;
  return numel;
}

// ---- Attributes --------------------------------------------------------------------------------

using AttrType = onnx::AttributeProto::AttributeType;

// The value fields an attribute sets, as the attribute types they belong to.
std::vector<AttrType> attribute_value_types(const onnx::AttributeProto& a) {
  using A = onnx::AttributeProto;
  std::vector<AttrType> set;
  if (a.has_f()) set.push_back(A::FLOAT);
  if (a.has_i()) set.push_back(A::INT);
  if (a.has_s()) set.push_back(A::STRING);
  if (a.has_t()) set.push_back(A::TENSOR);
  if (a.has_g()) set.push_back(A::GRAPH);
  if (a.has_sparse_tensor()) set.push_back(A::SPARSE_TENSOR);
  if (a.has_tp()) set.push_back(A::TYPE_PROTO);
  if (a.floats_size()) set.push_back(A::FLOATS);
  if (a.ints_size()) set.push_back(A::INTS);
  if (a.strings_size()) set.push_back(A::STRINGS);
  if (a.tensors_size()) set.push_back(A::TENSORS);
  if (a.graphs_size()) set.push_back(A::GRAPHS);
  if (a.sparse_tensors_size()) set.push_back(A::SPARSE_TENSORS);
  if (a.type_protos_size()) set.push_back(A::TYPE_PROTOS);
  return set;
}

bool is_list_type(AttrType t) {
  using A = onnx::AttributeProto;
  return t == A::FLOATS || t == A::INTS || t == A::STRINGS || t == A::TENSORS || t == A::GRAPHS ||
         t == A::SPARSE_TENSORS || t == A::TYPE_PROTOS;
}

// A closed (proto2) enum field holding a value the schema does not list is parsed into the
// unknown fields, and the field reads as unset: this finds the value, to name it in a message.
std::optional<uint64_t> unknown_enum_value(const google::protobuf::Message& m, int field) {
  const google::protobuf::UnknownFieldSet& unknown = m.GetReflection()->GetUnknownFields(m);
  for (int i = 0; i < unknown.field_count(); ++i)
    if (unknown.field(i).number() == field &&
        unknown.field(i).type() == google::protobuf::UnknownField::TYPE_VARINT)
      return unknown.field(i).varint();
  return std::nullopt;
}

std::string attr_type_name(AttrType t) {
  return onnx::AttributeProto::AttributeType_Name(t);
}

// ---- The validator -----------------------------------------------------------------------------

// Where a list of nodes lives: the main graph (or a subgraph of it), or a function body.
struct NodeContext {
  const std::set<std::string>* domains;            // imported opset domains, canonical spelling
  bool in_function;                                // ref_attr_name is only legal in function bodies
  const std::map<std::string, int64_t>* versions;  // imported opset version per domain
};

class Validator {
 public:
  Validator(const onnx::ModelProto& m, Diagnostics& d) : model_(m), diag_(d) {}

  void run() {
    check_model_header();
    if (model_.has_graph()) {
      Scope root;
      check_graph(model_.graph(), root, "", "main graph", /*is_main=*/true,
                  {&model_domains_, false, &model_versions_});
      check_main_outputs(model_.graph());
    }
    check_functions();
    check_function_recursion(model_, diag_);
    check_training_info();
  }

 private:
  // ---- model -------------------------------------------------------------------------------

  void check_model_header() {
    int64_t ir = model_.ir_version();
    if (!model_.has_ir_version())
      diag_.error("model has no ir_version (it is required; known versions are 1..{})",
                  kMaxIrVersion);
    else if (ir < 1 || ir > kMaxIrVersion)
      diag_.error("ir_version {} is not a known ONNX IR version (1..{})", ir, kMaxIrVersion);
    if (ir >= 3 && model_.opset_import_size() == 0)
      diag_.error("model has no opset_import (required from IR version 3 on)");
    // Before IR version 3 models did not list opsets; the default domain is implied.
    check_opset_imports(model_.opset_import(), "model", model_domains_);
    for (const auto& os : model_.opset_import())
      model_versions_[canonical_domain(os.domain())] = os.version();
    if (model_.opset_import_size() == 0) model_domains_.insert("");
    if (!model_.has_graph()) diag_.error("model has no graph");
  }

  void check_opset_imports(
      const google::protobuf::RepeatedPtrField<onnx::OperatorSetIdProto>& imports,
      const std::string& owner, std::set<std::string>& domains) {
    for (const auto& os : imports) {
      std::string domain = canonical_domain(os.domain());
      if (!domains.insert(domain).second)
        diag_.error("{} opset_import lists domain '{}' more than once", owner,
                    display_domain(domain));
      if (os.version() < 1)
        diag_.error("{} opset_import of domain '{}' has version {}; versions start at 1", owner,
                    display_domain(domain), os.version());
      else if (domain.empty() && os.version() > kMaxOpset)
        diag_.error("{} opset_import ai.onnx version {} is newer than the newest known ({})", owner,
                    os.version(), kMaxOpset);
    }
  }

  void check_functions() {
    std::set<std::tuple<std::string, std::string, std::string>> ids;
    for (const auto& f : model_.functions()) {
      std::string where = "function '" + f.domain() + ":" + f.name() + "'";
      if (f.name().empty()) diag_.error("a model-local function has no name");
      if (!ids.emplace(f.domain(), f.name(), f.overload()).second)
        diag_.error("{} is defined more than once (domain, name, overload must be unique)", where);
      // A function body sees the function's own opset imports and, leniently, the model's.
      std::set<std::string> domains;
      check_opset_imports(f.opset_import(), where, domains);
      domains.insert(model_domains_.begin(), model_domains_.end());
      std::map<std::string, int64_t> versions = model_versions_;
      for (const auto& os : f.opset_import())
        versions[canonical_domain(os.domain())] = os.version();
      Scope scope;
      for (const auto& in : f.input())
        if (const char* broken = define(scope, in))
          diag_.error("{}: input '{}' {}", where, in, broken);
      check_nodes(f.node(), scope, f.name() + "/", {&domains, true, &versions});
      for (const auto& out : f.output())
        if (!scope.contains(out))
          diag_.error("{}: output '{}' is not produced by any node or input", where, out);
    }
  }

  // ---- training info -----------------------------------------------------------------------

  // Each TrainingInfoProto (IR.md, "Training Related Information"): its algorithm graph (required)
  // and initialization graph (optional) are checked like the main graph, seeing the main graph's
  // initializers (the state variables they share); each binding maps a state variable (an
  // initializer of the main graph or of the algorithm graph, once per binding) to an output of
  // its graph. onnxc compiles none of it; the importer keeps a summary for the header and inspect.
  void check_training_info() {
    Scope states;
    for (const auto& init : model_.graph().initializer()) states.names.insert(init.name());
    for (const auto& sparse : model_.graph().sparse_initializer())
      states.names.insert(sparse.values().name());
    for (int i = 0; i < model_.training_info_size(); ++i) {
      const onnx::TrainingInfoProto& t = model_.training_info(i);
      const std::string where = fmt::format("training_info[{}]", i);
      std::set<std::string> algorithm_outputs, initialization_outputs;
      Scope variables = states;
      if (!t.has_algorithm()) {
        diag_.error("{} has no algorithm graph (it is required)", where);
      } else {
        check_graph(t.algorithm(), states, where + "/algorithm/", where + " algorithm graph",
                    /*is_main=*/false, {&model_domains_, false, &model_versions_});
        for (const auto& out : t.algorithm().output()) algorithm_outputs.insert(out.name());
        for (const auto& init : t.algorithm().initializer()) variables.names.insert(init.name());
      }
      if (t.has_initialization()) {
        check_graph(t.initialization(), states, where + "/initialization/",
                    where + " initialization graph", /*is_main=*/false,
                    {&model_domains_, false, &model_versions_});
        for (const auto& out : t.initialization().output())
          initialization_outputs.insert(out.name());
      } else if (t.initialization_binding_size() > 0) {
        diag_.error("{} has an initialization_binding but no initialization graph", where);
      }
      check_binding(t.initialization_binding(), variables, initialization_outputs,
                    where + " initialization_binding", "initialization");
      if (t.has_algorithm())  // else the error above says enough
        check_binding(t.update_binding(), variables, algorithm_outputs, where + " update_binding",
                      "algorithm");
    }
  }

  void check_binding(const google::protobuf::RepeatedPtrField<onnx::StringStringEntryProto>& b,
                     const Scope& variables, const std::set<std::string>& outputs,
                     const std::string& where, const char* graph) {
    std::set<std::string> keys;
    for (const auto& e : b) {
      if (!variables.names.count(e.key()))
        diag_.error(
            "{}: '{}' is not an initializer of the main graph or of the algorithm graph (a "
            "binding's key names a state variable)",
            where, e.key());
      if (!keys.insert(e.key()).second)
        diag_.error("{}: state variable '{}' is bound more than once", where, e.key());
      if (!outputs.count(e.value()))
        diag_.error("{}: '{}' is not an output of the {} graph", where, e.value(), graph);
    }
  }

  // ---- graphs ------------------------------------------------------------------------------

  // Adds a definition of `name` to `scope`; returns the rule it breaks, or nullptr.
  static const char* define(Scope& scope, const std::string& name) {
    if (!scope.names.insert(name).second) return "is assigned more than once (graphs are SSA)";
    if (scope.outer_contains(name)) return "shadows a name of an enclosing graph (not allowed)";
    return nullptr;
  }

  // `prefix` qualifies node names in errors (subgraph nodes as "outer/attr/inner"); `where` names
  // the graph in errors not tied to a node.
  // The main graph's outputs are all a caller can read of a run: without any, the generated run()
  // computes nothing observable, which is a broken model, not one to compile. (Subgraphs of If,
  // Loop and Scan have their own output rules, checked where the op is.)
  void check_main_outputs(const onnx::GraphProto& g) {
    if (g.output_size() == 0)
      diag_.error("main graph has no outputs (a model's results are its main graph's outputs)");
  }

  void check_graph(const onnx::GraphProto& g, const Scope& outer, const std::string& prefix,
                   const std::string& where, bool is_main, const NodeContext& ctx) {
    if (g.name().empty()) diag_.error("{} has no name (every graph must specify one)", where);
    Scope scope{&outer, {}};
    std::set<std::string> input_names;
    for (const auto& in : g.input()) {
      if (in.name().empty()) {
        diag_.error("{}: an input has no name", where);
        continue;
      }
      check_value_info(in, where + " input", is_main);
      check_input_size(in, where + " input");
      input_names.insert(in.name());
      if (const char* broken = define(scope, in.name()))
        diag_.error("{} input '{}' {}", where, in.name(), broken);
    }
    bool initializer_may_be_input =
        is_main || model_.ir_version() < kSubgraphInitializerInputDistinctSince;
    auto define_initializer = [&](const std::string& name, const std::string& what) {
      if (name.empty()) {
        diag_.error("{}: {} has no name", where, what);
      } else if (!input_names.count(name)) {
        if (const char* broken = define(scope, name))
          diag_.error("{} {} '{}' {}", where, what, name, broken);
      } else if (!initializer_may_be_input) {
        diag_.error(
            "{} {} '{}' has the name of a subgraph input (not allowed from IR version {} on)",
            where, what, name, kSubgraphInitializerInputDistinctSince);
      }
    };
    for (const auto& init : g.initializer()) {
      check_tensor(init, where + " initializer '" + init.name() + "'");
      define_initializer(init.name(), "initializer");
    }
    for (const auto& sparse : g.sparse_initializer()) {
      check_sparse_tensor(sparse, where + " sparse initializer '" + sparse.values().name() + "'");
      define_initializer(sparse.values().name(), "sparse initializer");
    }
    check_nodes(g.node(), scope, prefix, ctx);
    for (const auto& out : g.output()) {
      if (out.name().empty()) {
        diag_.error("{}: an output has no name", where);
        continue;
      }
      check_value_info(out, where + " output", is_main);
      if (!scope.contains(out.name()))
        diag_.error("{} output '{}' is not produced by any node, input or initializer", where,
                    out.name());
    }
    for (const auto& vi : g.value_info()) check_value_info(vi, where + " value_info", false);
  }

  void check_nodes(const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes, Scope& scope,
                   const std::string& prefix, const NodeContext& ctx) {
    // Every output of the list, to tell a use before its definition from an undefined name.
    std::unordered_set<std::string> produced;
    for (const auto& n : nodes) produced.insert(n.output().begin(), n.output().end());
    std::unordered_set<std::string> node_names;
    for (int i = 0; i < nodes.size(); ++i) {
      const onnx::NodeProto& n = nodes[i];
      std::string label = prefix + (n.name().empty() ? "#" + std::to_string(i) : n.name());
      if (!n.name().empty() && !node_names.insert(n.name()).second)
        diag_.node_error(label, n.op_type(),
                         "another node of the same graph has this name "
                         "(node names are unique per graph)");
      check_node(n, label, scope, produced, ctx);
      for (const auto& out : n.output())
        if (const char* broken = out.empty() ? nullptr : define(scope, out))
          diag_.node_error(label, n.op_type(), "output '{}' {}", out, broken);
    }
  }

  void check_node(const onnx::NodeProto& n, const std::string& label, const Scope& scope,
                  const std::unordered_set<std::string>& produced, const NodeContext& ctx) {
    const std::string& op = n.op_type();
    if (op.empty()) diag_.node_error(label, "?", "op_type is empty; every node names its operator");
    if (!ctx.domains->count(canonical_domain(n.domain())))
      diag_.node_error(label, op,
                       "domain '{}' has no opset_import (every node's domain must be imported)",
                       display_domain(n.domain()));
    if (n.output_size() == 0) diag_.node_error(label, op, "node has no outputs");
    if (n.domain() == kOnnxcDomain)
      diag_.node_error(label, op, "domain '{}' is onnxc's own, for nodes its passes make",
                       kOnnxcDomain);
    for (const auto& in : n.input()) {
      if (in.empty() || scope.contains(in)) continue;  // "" is an absent optional input
      if (produced.count(in))
        diag_.node_error(label, op,
                         "input '{}' is used before the node that produces it "
                         "(nodes must be in topological order)",
                         in);
      else
        diag_.node_error(label, op,
                         "input '{}' is not defined by any node, graph input or initializer", in);
    }
    std::set<std::string> attr_names;
    for (const auto& a : n.attribute()) {
      if (a.name().empty())
        diag_.node_error(label, op, "an attribute has no name");
      else if (!attr_names.insert(a.name()).second)
        diag_.node_error(label, op, "attribute '{}' appears more than once", a.name());
      check_attribute(a, label, op, scope, ctx);
    }
    check_attribute_names(n, label, ctx);
  }

  // ONNX's checker rejects an attribute the op's schema does not declare (a typo such as
  // "axsi" would otherwise be silently ignored and the default used), and one of another type
  // (a FLOAT axis would be read as the default). Ops and versions missing from the spec's
  // changelogs (other domains, newer versions) are not checked; nor are untyped attributes of
  // IR versions before 2 or references to function attributes (typed where they are bound).
  void check_attribute_names(const onnx::NodeProto& n, const std::string& label,
                             const NodeContext& ctx) {
    auto version = ctx.versions->find(canonical_domain(n.domain()));
    if (n.attribute_size() == 0 || version == ctx.versions->end()) return;
    int since = 0;
    const char* declared = declared_attributes(n.domain(), n.op_type(), version->second, &since);
    if (!declared) return;
    for (const auto& a : n.attribute()) {
      if (a.name().empty()) continue;
      std::string type = declared_type(declared, a.name());
      if (type.empty()) {
        std::string names = declared_names(declared);
        diag_.node_error(label, n.op_type(), "unknown attribute '{}': {}-{} declares {}", a.name(),
                         n.op_type(), since,
                         names.empty() ? std::string("no attributes") : "only " + names);
      } else if (a.type() != onnx::AttributeProto::UNDEFINED && a.ref_attr_name().empty() &&
                 attr_type_name(a.type()) != type) {
        diag_.node_error(label, n.op_type(), "attribute '{}' is {}; {}-{} declares it {}", a.name(),
                         attr_type_name(a.type()), n.op_type(), since, type);
      }
    }
  }

  void check_attribute(const onnx::AttributeProto& a, const std::string& label,
                       const std::string& op, const Scope& scope, const NodeContext& ctx) {
    using A = onnx::AttributeProto;
    std::vector<AttrType> values = attribute_value_types(a);
    if (!a.ref_attr_name().empty()) {
      if (!ctx.in_function)
        diag_.node_error(label, op,
                         "attribute '{}' refers to a function attribute ('{}') "
                         "outside a function body",
                         a.name(), a.ref_attr_name());
      if (!values.empty())
        diag_.node_error(label, op, "attribute '{}' refers to '{}' and also holds a value",
                         a.name(), a.ref_attr_name());
      return;
    }
    if (values.size() > 1) {
      std::string fields;
      for (AttrType t : values) fields += (fields.empty() ? "" : ", ") + attr_type_name(t);
      diag_.node_error(label, op,
                       "attribute '{}' holds {} values ({}); an attribute holds exactly one",
                       a.name(), values.size(), fields);
    } else if (a.type() == A::UNDEFINED) {
      if (std::optional<uint64_t> raw = unknown_enum_value(a, A::kTypeFieldNumber))
        diag_.node_error(label, op, "attribute '{}' has type {}, not an AttributeProto type",
                         a.name(), *raw);
      else if (model_.ir_version() >= kAttributeTypeRequiredSince)
        diag_.node_error(label, op, "attribute '{}' has no type (required from IR version {} on)",
                         a.name(), kAttributeTypeRequiredSince);
      else if (values.empty())
        diag_.node_error(label, op, "attribute '{}' holds no value", a.name());
    } else if (values.empty() ? !is_list_type(a.type()) : values[0] != a.type()) {
      // An empty list is a legal value; a scalar type needs its field.
      diag_.node_error(
          label, op, "attribute '{}' has type {} but {}", a.name(), attr_type_name(a.type()),
          values.empty() ? "no value" : "holds a value of type " + attr_type_name(values[0]));
    }
    std::string what = "node '" + label + "' (" + op + ") attribute '" + a.name() + "'";
    if (a.has_t()) check_tensor(a.t(), what);
    for (const auto& t : a.tensors()) check_tensor(t, what);
    if (a.has_sparse_tensor()) check_sparse_tensor(a.sparse_tensor(), what);
    for (const auto& s : a.sparse_tensors()) check_sparse_tensor(s, what);
    std::string sub_prefix = label + "/" + a.name() + "/";
    if (a.has_g()) check_graph(a.g(), scope, sub_prefix, "subgraph " + what, false, ctx);
    for (const auto& g : a.graphs())
      check_graph(g, scope, sub_prefix, "subgraph " + what, false, ctx);
  }

  // ---- values and tensors ------------------------------------------------------------------

  // Main graph inputs and outputs must be typed, with a rank; elsewhere types are optional but,
  // when present, must be well formed.
  void check_value_info(const onnx::ValueInfoProto& vi, const std::string& what, bool is_main) {
    std::string where = what + " '" + vi.name() + "'";
    if (!vi.has_type()) {
      if (is_main) diag_.error("{} has no type (main graph inputs and outputs are typed)", where);
      return;
    }
    check_type(vi.type(), where, is_main);
  }

  void check_type(const onnx::TypeProto& type, const std::string& where, bool strict) {
    using T = onnx::TypeProto;
    switch (type.value_case()) {
      case T::kTensorType:
        check_tensor_type(type.tensor_type().elem_type(), type.tensor_type().has_shape(),
                          type.tensor_type().shape(), where, strict);
        break;
      case T::kSparseTensorType:
        check_tensor_type(type.sparse_tensor_type().elem_type(),
                          type.sparse_tensor_type().has_shape(), type.sparse_tensor_type().shape(),
                          where, strict);
        break;
      case T::kSequenceType:
        if (type.sequence_type().has_elem_type())
          check_type(type.sequence_type().elem_type(), where + " (sequence element)", false);
        else if (strict)
          diag_.error("{} is a sequence without an element type", where);
        break;
      case T::kOptionalType:
        if (type.optional_type().has_elem_type())
          check_type(type.optional_type().elem_type(), where + " (optional element)", false);
        else if (strict)
          diag_.error("{} is an optional without an element type", where);
        break;
      case T::kMapType: {
        int key = type.map_type().key_type();
        bool integral_or_string =
            is_valid_dtype(key) &&
            (is_integer(static_cast<DataType>(key)) || key == static_cast<int>(DataType::kString));
        if (!integral_or_string && (strict || key != 0))
          diag_.error("{} is a map with key type {}; keys are integers or strings", where, key);
        if (type.map_type().has_value_type())
          check_type(type.map_type().value_type(), where + " (map value)", false);
        break;
      }
      case T::kOpaqueType:
        break;
      case T::VALUE_NOT_SET:
        if (strict) diag_.error("{} has a type with no kind (tensor, sequence, ...)", where);
        break;
    }
  }

  void check_tensor_type(int elem_type, bool has_shape, const onnx::TensorShapeProto& shape,
                         const std::string& where, bool strict) {
    if (!is_valid_dtype(elem_type) && (strict || elem_type != 0))
      diag_.error("{} has invalid elem_type {} (valid: 1..{})", where, elem_type, kMaxDataType);
    if (strict && !has_shape)
      diag_.error("{} has no shape; main graph inputs and outputs need at least a rank", where);
    for (int i = 0; i < shape.dim_size(); ++i)
      if (shape.dim(i).has_dim_value() && shape.dim(i).dim_value() < 0)
        diag_.error("{} has negative size {} in dimension {}", where, shape.dim(i).dim_value(), i);
  }

  // A graph input's static dims must give a size that int64 can count and that fits the 1 TiB a
  // tensor may hold (symbolic dims are pinned, and checked, at import). Outputs are derived: their
  // sizes are checked by inference, and against the declaration after it.
  void check_input_size(const onnx::ValueInfoProto& vi, const std::string& where) {
    if (!vi.type().has_tensor_type() || !is_valid_dtype(vi.type().tensor_type().elem_type()))
      return;
    std::vector<int64_t> dims;
    for (const auto& d : vi.type().tensor_type().shape().dim())
      if (d.has_dim_value()) dims.push_back(d.dim_value());
    if (std::any_of(dims.begin(), dims.end(), [](int64_t d) { return d < 0; })) return;
    auto type = static_cast<DataType>(vi.type().tensor_type().elem_type());
    std::optional<int64_t> numel = checked_numel(dims);
    std::optional<int64_t> bytes = numel ? checked_bytes(*numel, dtype_info(type).bits) : numel;
    if (numel && bytes && *bytes <= kMaxTensorBytes) return;
    diag_.error("{} '{}' of shape {} has {}: a tensor may hold at most 2^40 bytes (1 TiB)", where,
                vi.name(), fmt::format("{}", fmt::join(dims, "x")),
                !numel   ? std::string("more elements than int64 can count")
                : !bytes ? fmt::format("{} elements, more than 2^63 bytes", *numel)
                         : fmt::format("{} elements, {} bytes", *numel, *bytes));
  }

  // Returns the element count, or -1 after reporting invalid dims.
  int64_t check_dims(const google::protobuf::RepeatedField<int64_t>& dims,
                     const std::string& what) {
    int64_t numel = 1;
    for (int64_t d : dims) {
      if (d < 0) {
        diag_.error("{}: negative dimension {}", what, d);
        return -1;
      }
      // Bound the count so that later byte computations (count * bits) cannot overflow.
      if (d > 0 && numel > (std::numeric_limits<int64_t>::max() / 128) / d) {
        diag_.error("{}: dims overflow the element count", what);
        return -1;
      }
      numel *= d;
    }
    return numel;
  }

  void check_tensor(const onnx::TensorProto& t, const std::string& what) {
    if (!is_valid_dtype(t.data_type())) {
      diag_.error("{}: invalid data_type {} (valid: 1..{})", what, t.data_type(), kMaxDataType);
      return;
    }
    int64_t numel = check_dims(t.dims(), what);
    if (numel < 0) return;
    auto type = static_cast<DataType>(t.data_type());
    if (std::optional<int64_t> bytes = checked_bytes(numel, dtype_info(type).bits);
        !bytes || *bytes > kMaxTensorBytes) {
      diag_.error("{}: {} elements of {} are more than 2^40 bytes (1 TiB), the largest tensor",
                  what, numel, dtype_name(type));
      return;
    }
    // A segment holds part of a larger tensor; external data is sized by the loader.
    if (t.has_segment()) check_segment(t, numel, what, diag_);
    if (t.data_location() == onnx::TensorProto::EXTERNAL || t.has_segment()) return;
    int fields = !t.raw_data().empty();
    DataField used = DataField::kFloat;
    for (DataField f : {DataField::kFloat, DataField::kInt32, DataField::kString, DataField::kInt64,
                        DataField::kDouble, DataField::kUint64}) {
      if (data_field_size(t, f) > 0) {
        ++fields;
        used = f;
      }
    }
    if (numel == 0) {
      if (fields != 0) diag_.error("{}: has 0 elements but holds data", what);
      return;
    }
    if (fields != 1) {
      diag_.error("{}: holds data in {} fields; a tensor uses exactly one", what, fields);
      return;
    }
    if (!t.raw_data().empty()) {
      if (type == DataType::kString)
        diag_.error("{}: string data cannot be stored in raw_data (use string_data)", what);
      else if (t.raw_data().size() != dtype_bytes(type, numel))
        diag_.error("{}: has {} bytes of raw_data; its dims and {} type need {}", what,
                    t.raw_data().size(), dtype_name(type), dtype_bytes(type, numel));
      return;
    }
    DataField expected = data_field_of(type);
    if (used != expected) {
      diag_.error("{}: {} data belongs in {}, not {}", what, dtype_name(type),
                  data_field_name(expected), data_field_name(used));
      return;
    }
    if (data_field_size(t, used) != data_field_entries(type, numel))
      diag_.error("{}: has {} entries in {}; its dims need {}", what, data_field_size(t, used),
                  data_field_name(used), data_field_entries(type, numel));
  }

  void check_sparse_tensor(const onnx::SparseTensorProto& s, const std::string& what) {
    check_dims(s.dims(), what);
    check_tensor(s.values(), what + " values");
    check_tensor(s.indices(), what + " indices");
    if (s.indices().data_type() != static_cast<int>(DataType::kInt64))
      diag_.error("{}: sparse indices must be int64", what);
    else
      check_sparse_indices(s, what, diag_);
  }

  const onnx::ModelProto& model_;
  Diagnostics& diag_;
  std::set<std::string> model_domains_;
  std::map<std::string, int64_t> model_versions_;
};

}  // namespace

bool validate_model(const onnx::ModelProto& model, Diagnostics& diag) {
  size_t before = diag.count();
  Validator(model, diag).run();
  return diag.count() == before;
}

}  // namespace onnxc
