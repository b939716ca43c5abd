// The generated header's description of the model: what the ModelProto says about itself
// (producer, domain, version, doc strings, metadata_props) as constants a program can read, and
// the TrainingInfoProtos it carries, which onnxc validates but does not compile. Every string is
// a C++ literal of the model's exact bytes (cpp_string_literal): no model text becomes code.
#include "codegen/model_info.h"

#include <fmt/format.h>

#include "codegen/identifiers.h"

namespace onnxc {
namespace {

// "{"a", "b", nullptr}": the doc strings of `values`, in order.
std::string doc_strings(const std::vector<Value*>& values) {
  std::string s = "{";
  for (const Value* v : values) s += cpp_string_literal(v->doc_string) + ", ";
  return s + "nullptr}";
}

std::string key_value_rows(const Module::KeyValues& kv) {
  std::string s;
  for (const auto& [key, value] : kv)
    s += fmt::format("    {{{}, {}}},\n", cpp_string_literal(key), cpp_string_literal(value));
  return s;
}

std::string training_info_comment(const Module& m) {
  if (m.training_info.empty()) return "// The model carries no TrainingInfoProto.\n";
  std::string s = fmt::format(
      "// The model carries {} TrainingInfoProto(s), validated but not compiled: run() is the "
      "inference\n// graph only.\n",
      m.training_info.size());
  for (size_t i = 0; i < m.training_info.size(); ++i)
    s += fmt::format("//   {}: {}\n", i, training_info_summary(m.training_info[i]));
  return s;
}

}  // namespace

std::string training_info_summary(const Module::TrainingInfo& t) {
  std::string s =
      fmt::format("algorithm '{}' ({} nodes)", escape_model_text(t.algorithm), t.algorithm_nodes);
  if (!t.initialization.empty())
    s += fmt::format(", initialization '{}' ({} nodes)", escape_model_text(t.initialization),
                     t.initialization_nodes);
  for (const auto* binding : {&t.initialization_binding, &t.update_binding})
    for (const auto& [state, output] : *binding)
      s +=
          fmt::format(", {} '{}' <- '{}'", binding == &t.update_binding ? "updates" : "initializes",
                      escape_model_text(state), escape_model_text(output));
  return s;
}

std::string model_description(const Module& m) {
  const Graph& g = *m.graph;
  std::string s =
      "// ---- What the model says about itself (\"\" or 0 where it says nothing) ----\n";
  s += fmt::format("constexpr const char* kProducerName = {};\n",
                   cpp_string_literal(m.producer_name));
  s += fmt::format("constexpr const char* kProducerVersion = {};\n",
                   cpp_string_literal(m.producer_version));
  s += fmt::format("constexpr const char* kModelDomain = {};\n", cpp_string_literal(m.domain));
  s += fmt::format("constexpr std::int64_t kModelVersion = {};\n", m.model_version);
  s += fmt::format("constexpr const char* kModelDocString = {};\n",
                   cpp_string_literal(m.doc_string));
  s += fmt::format("constexpr const char* kGraphName = {};\n", cpp_string_literal(m.graph_name));
  s += fmt::format("constexpr const char* kGraphDocString = {};\n",
                   cpp_string_literal(m.graph_doc_string));
  s += "// Each input's and output's doc_string, in the order of Inputs and Outputs (then "
       "nullptr).\n";
  s += fmt::format("constexpr const char* kInputDocStrings[] = {};\n", doc_strings(g.inputs));
  s += fmt::format("constexpr const char* kOutputDocStrings[] = {};\n", doc_strings(g.outputs));
  s += "// metadata_props: the ModelProto's, then its graph's (IR >= 10), in file order; a\n"
       "// {nullptr, nullptr} row ends the list.\n"
       "struct MetadataProp {\n  const char* key;\n  const char* value;\n};\n";
  s += "constexpr MetadataProp kMetadataProps[] = {\n" + key_value_rows(m.metadata_props) +
       key_value_rows(m.graph_metadata_props) + "    {nullptr, nullptr}};\n";
  s += fmt::format("constexpr std::size_t kNumMetadataProps = {};\n",
                   m.metadata_props.size() + m.graph_metadata_props.size());
  s += training_info_comment(m);
  s += fmt::format("constexpr std::size_t kNumTrainingInfos = {};\n\n", m.training_info.size());
  return s;
}

}  // namespace onnxc
