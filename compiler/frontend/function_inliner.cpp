// Inlining of model-local functions (IR spec, "Functions"). A node whose (domain, op_type,
// overload) names a FunctionProto of the model is replaced by the function's body:
//   - values: formal inputs/outputs become the call's actual names (an absent optional input
//     becomes ""); every other body name, at every subgraph depth, becomes `CALL/name` (CALL is the
//     call node's name), suffixed `_2`, `_3`, ... if that is taken, so names stay unique and say
//     where they came from. Body node names get the same prefix.
//   - attributes: an attribute with ref_attr_name takes the call's value of that attribute, else
//     the function's default (attribute_proto), else it is dropped (the spec's "omitted"); this
//     holds inside nested subgraph attributes too. A call attribute the function does not declare,
//     or a referenced value of another type, is refused.
//   - opsets: a body's domains take the model's version (the spec: "implicitly determined by the
//     opset version of the domain included in the model"); a domain only the function imports is
//     added to the model's opset_import; one imported at two versions is refused.
//   - nesting: expanded bodies are expanded again; a call chain that comes back to a function on
//     it is refused as recursion (naming the chain), and chains deeper than kMaxFunctionDepth too.
// Why here and not as an IR pass: a body is not a graph the importer can type on its own (its
// attribute values are unknown until a call binds them, its subgraphs may read body values, its
// nodes import other opsets), so the IR would need unbound attributes and per-node opset tables
// just to hold calls no pass looks into. Expanding on the proto keeps the IR, the importer and
// every pass unchanged: they see ordinary nodes. Not done: emitting functions as C++ functions
// (always inlined), and the value_info of function bodies (types are re-inferred after import).
#include "frontend/function_inliner.h"

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "frontend/proto_names.h"

namespace onnxc {
namespace {

std::string canonical(const std::string& domain) {
  return domain == "ai.onnx" ? "" : domain;
}

using FunctionId = std::tuple<std::string, std::string, std::string>;  // domain, name, overload

std::string id_str(const FunctionId& id) {
  std::string s = (std::get<0>(id).empty() ? "" : std::get<0>(id) + ":") + std::get<1>(id);
  return std::get<2>(id).empty() ? s : s + " (overload '" + std::get<2>(id) + "')";
}

class Inliner {
 public:
  Inliner(onnx::ModelProto& model, Diagnostics& diag, FunctionInlineStats& stats)
      : model_(model), diag_(diag), stats_(stats) {
    for (const auto& f : model.functions())
      functions_[{canonical(f.domain()), f.name(), f.overload()}] = &f;
    for (const auto& os : model.opset_import()) opsets_[canonical(os.domain())] = os.version();
    collect_proto_names(model.graph(), used_);
  }

  bool run() {
    expand_graph(*model_.mutable_graph(), {});
    for (const auto& [domain, version] : added_opsets_) {
      auto* os = model_.add_opset_import();
      os->set_domain(domain);
      os->set_version(version);
    }
    return ok_;
  }

 private:
  // ---- names ------------------------------------------------------------------------------

  std::string fresh(const std::string& want) { return fresh_proto_name(want, used_); }

  // ---- graphs -----------------------------------------------------------------------------

  const onnx::FunctionProto* callee(const onnx::NodeProto& n) const {
    auto it = functions_.find({canonical(n.domain()), n.op_type(), n.overload()});
    return it == functions_.end() ? nullptr : it->second;
  }

  // Expands every call in `g` and its subgraphs; `chain` is the calls being expanded around it.
  void expand_graph(onnx::GraphProto& g, const std::vector<FunctionId>& chain) {
    bool has_call = false;
    for (auto& n : *g.mutable_node()) {
      for (auto& a : *n.mutable_attribute()) {
        if (a.has_g()) expand_graph(*a.mutable_g(), chain);
        for (auto& sg : *a.mutable_graphs()) expand_graph(sg, chain);
      }
      has_call = has_call || callee(n);
    }
    if (!has_call || !ok_) return;
    google::protobuf::RepeatedPtrField<onnx::NodeProto> out;
    for (auto& n : *g.mutable_node()) {
      if (const onnx::FunctionProto* f = callee(n))
        expand_call(n, *f, chain, out);
      else
        *out.Add() = std::move(n);
    }
    g.mutable_node()->Swap(&out);
  }

  void expand_call(const onnx::NodeProto& call, const onnx::FunctionProto& f,
                   std::vector<FunctionId> chain,
                   google::protobuf::RepeatedPtrField<onnx::NodeProto>& out) {
    const FunctionId id{canonical(f.domain()), f.name(), f.overload()};
    const std::string label = call.name().empty() ? call.op_type() : call.name();
    for (const auto& c : chain)
      if (c == id) return fail(call, "recursive function call: {}", chain_str(chain, id));
    chain.push_back(id);
    if (static_cast<int>(chain.size()) > kMaxFunctionDepth)
      return fail(call, "function calls nest deeper than {} levels: {}", kMaxFunctionDepth,
                  chain_str(chain, id));
    stats_.max_depth = std::max(stats_.max_depth, static_cast<int>(chain.size()));
    ++stats_.calls;
    if (!check_opsets(call, f)) return;
    std::map<std::string, const onnx::AttributeProto*> bound;
    if (!bind_attributes(call, f, bound)) return;

    // Formal names -> actual names; everything else defined in the body gets a prefixed name.
    std::map<std::string, std::string> rename;
    for (int i = 0; i < f.input_size(); ++i)
      rename[f.input(i)] = i < call.input_size() ? call.input(i) : "";
    for (int i = 0; i < f.output_size(); ++i)
      if (i < call.output_size() && !call.output(i).empty()) rename[f.output(i)] = call.output(i);
    const std::string prefix = label + "/";

    onnx::GraphProto body;  // the substituted body, then expanded again for nested calls
    for (const auto& bn : f.node()) {
      onnx::NodeProto* n = body.add_node();
      *n = bn;
      n->set_name(fresh(prefix + (bn.name().empty() ? bn.op_type() : bn.name())));
      if (!substitute(*n, bound, rename, prefix, call)) return;
    }
    expand_graph(body, chain);
    stats_.nodes += body.node_size();
    for (auto& n : *body.mutable_node()) *out.Add() = std::move(n);
  }

  std::string chain_str(const std::vector<FunctionId>& chain, const FunctionId& last) const {
    std::string s;
    for (const auto& c : chain) s += id_str(c) + " -> ";
    return s + id_str(last);
  }

  // Renames the node's values (and, recursively, its subgraphs') and resolves attribute refs.
  bool substitute(onnx::NodeProto& n,
                  const std::map<std::string, const onnx::AttributeProto*>& bound,
                  std::map<std::string, std::string>& rename, const std::string& prefix,
                  const onnx::NodeProto& call) {
    auto map_use = [&](std::string* name) {
      if (name->empty()) return;
      auto it = rename.find(*name);
      if (it != rename.end()) *name = it->second;  // else: defined nowhere in the body (validated)
    };
    auto map_def = [&](std::string* name) {
      if (name->empty()) return;
      auto it = rename.find(*name);
      if (it == rename.end()) it = rename.emplace(*name, fresh(prefix + *name)).first;
      *name = it->second;
    };
    for (auto& in : *n.mutable_input()) map_use(&in);
    for (auto& o : *n.mutable_output()) map_def(&o);
    auto* attrs = n.mutable_attribute();
    for (int i = 0; i < attrs->size();) {
      onnx::AttributeProto& a = *attrs->Mutable(i);
      if (!a.ref_attr_name().empty()) {
        auto it = bound.find(a.ref_attr_name());
        if (it == bound.end()) {  // neither given nor defaulted: omitted
          attrs->DeleteSubrange(i, 1);
          continue;
        }
        if (a.type() != onnx::AttributeProto::UNDEFINED && it->second->type() != a.type()) {
          fail(call, "attribute '{}' of node '{}' refers to '{}', which has another type", a.name(),
               n.name(), a.ref_attr_name());
          return false;
        }
        const std::string name = a.name();
        a = *it->second;
        a.set_name(name);
      }
      auto graph = [&](onnx::GraphProto& g) {
        for (auto& v : *g.mutable_input()) map_def(v.mutable_name());
        for (auto& v : *g.mutable_initializer()) map_def(v.mutable_name());
        bool good = true;
        for (auto& sn : *g.mutable_node()) {
          sn.set_name(fresh(prefix + (sn.name().empty() ? sn.op_type() : sn.name())));
          good = good && substitute(sn, bound, rename, prefix, call);
        }
        for (auto& v : *g.mutable_output()) map_use(v.mutable_name());
        for (auto& v : *g.mutable_value_info()) map_use(v.mutable_name());
        return good;
      };
      if (a.has_g() && !graph(*a.mutable_g())) return false;
      for (auto& sg : *a.mutable_graphs())
        if (!graph(sg)) return false;
      ++i;
    }
    return true;
  }

  bool bind_attributes(const onnx::NodeProto& call, const onnx::FunctionProto& f,
                       std::map<std::string, const onnx::AttributeProto*>& bound) {
    std::set<std::string> declared(f.attribute().begin(), f.attribute().end());
    for (const auto& a : f.attribute_proto()) {
      declared.insert(a.name());
      bound[a.name()] = &a;
    }
    for (const auto& a : call.attribute()) {
      if (!declared.count(a.name())) {
        fail(call, "attribute '{}' is not a parameter of function {}", a.name(),
             id_str({canonical(f.domain()), f.name(), f.overload()}));
        return false;
      }
      auto def = bound.find(a.name());
      if (def != bound.end() && def->second->type() != a.type()) {
        fail(call, "attribute '{}' has another type than the function's default", a.name());
        return false;
      }
      bound[a.name()] = &a;
    }
    return true;
  }

  bool check_opsets(const onnx::NodeProto& call, const onnx::FunctionProto& f) {
    for (const auto& os : f.opset_import()) {
      const std::string d = canonical(os.domain());
      auto have = opsets_.find(d);
      if (have == opsets_.end()) {
        opsets_[d] = os.version();
        added_opsets_[d] = os.version();
      } else if (have->second != os.version()) {
        fail(call, "function {} imports domain '{}' at version {}, the model at version {}",
             id_str({canonical(f.domain()), f.name(), f.overload()}), d.empty() ? "ai.onnx" : d,
             os.version(), have->second);
        return false;
      }
    }
    return true;
  }

  template <typename... Args>
  void fail(const onnx::NodeProto& call, fmt::format_string<Args...> f, Args&&... args) {
    diag_.node_error(call.name().empty() ? "?" : call.name(), call.op_type(), f,
                     std::forward<Args>(args)...);
    ok_ = false;
  }

  onnx::ModelProto& model_;
  Diagnostics& diag_;
  FunctionInlineStats& stats_;
  std::map<FunctionId, const onnx::FunctionProto*> functions_;
  std::map<std::string, int64_t> opsets_, added_opsets_;
  std::set<std::string> used_;
  bool ok_ = true;
};

}  // namespace

bool inline_model_functions(onnx::ModelProto& model, Diagnostics& diag,
                            FunctionInlineStats* stats) {
  FunctionInlineStats local;
  if (model.functions_size() == 0) return true;
  Inliner inliner(model, diag, stats ? *stats : local);
  return inliner.run();
}

}  // namespace onnxc
