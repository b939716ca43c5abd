#include "driver/test_case.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "frontend/importer.h"
#include "frontend/model_loader.h"

namespace onnxc {
namespace fs = std::filesystem;

namespace {

void add_case_folder(const fs::path& dir, std::vector<TestCase>& out) {
  TestCase tc;
  tc.name = dir.parent_path().filename().string() + "/" + dir.filename().string();
  tc.model = dir / "model.onnx";
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0)
      sets.push_back(e.path());
  std::sort(sets.begin(), sets.end());
  for (const auto& s : sets) {
    TestData d;
    for (int k = 0; fs::exists(s / fmt::format("input_{}.pb", k)); ++k)
      d.input_files.push_back(s / fmt::format("input_{}.pb", k));
    for (int k = 0; fs::exists(s / fmt::format("output_{}.pb", k)); ++k)
      d.output_files.push_back(s / fmt::format("output_{}.pb", k));
    tc.datasets.push_back(std::move(d));
  }
  out.push_back(std::move(tc));
}

void add_light_model(const fs::path& model, std::vector<TestCase>& out) {
  TestCase tc;
  std::string stem = model.stem().string();
  tc.name = model.parent_path().filename().string() + "/" + stem;
  tc.model = model;
  tc.light = true;
  if (stem.find("densenet121") != std::string::npos) tc.rtol = 2e-3;  // per the suite's README
  TestData d;
  d.output_files.push_back(model.parent_path() / (stem + "_output_0.pb"));
  tc.datasets.push_back(std::move(d));
  out.push_back(std::move(tc));
}

bool is_light_model(const fs::path& p) {
  return p.extension() == ".onnx" && p.filename().string().rfind("light_", 0) == 0;
}

}  // namespace

std::vector<TestCase> discover_test_cases(const std::vector<std::string>& paths,
                                          const std::string& filter, std::string* error) {
  std::vector<TestCase> cases;
  for (const auto& arg : paths) {
    fs::path p(arg);
    std::error_code ec;
    if (is_light_model(p) && fs::exists(p)) {
      add_light_model(p, cases);
    } else if (fs::exists(p / "model.onnx")) {
      add_case_folder(p, cases);
    } else if (fs::is_directory(p, ec)) {
      std::vector<fs::path> entries;
      for (const auto& e : fs::directory_iterator(p)) entries.push_back(e.path());
      std::sort(entries.begin(), entries.end());
      for (const auto& e : entries) {
        if (fs::exists(e / "model.onnx"))
          add_case_folder(e, cases);
        else if (is_light_model(e))
          add_light_model(e, cases);
      }
    } else {
      *error = fmt::format(
          "'{}' is not a test case folder, a folder of cases or a light_*.onnx file", arg);
      return {};
    }
  }
  if (!filter.empty())
    cases.erase(
        std::remove_if(cases.begin(), cases.end(),
                       [&](const TestCase& c) { return c.name.find(filter) == std::string::npos; }),
        cases.end());
  std::stable_sort(cases.begin(), cases.end(),
                   [](const TestCase& a, const TestCase& b) { return a.name < b.name; });
  return cases;
}

bool keep_listed_cases(std::vector<TestCase>& cases, const std::string& list_file,
                       std::string* error) {
  std::ifstream in(list_file);
  if (!in) {
    *error = fmt::format("cannot read the case list '{}'", list_file);
    return false;
  }
  std::set<std::string> listed;
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty() && line[0] != '#') listed.insert(line);
  }
  std::set<std::string> found;
  std::vector<TestCase> kept;
  for (auto& c : cases)
    if (listed.count(c.name)) found.insert(c.name), kept.push_back(std::move(c));
  for (const auto& name : listed)
    if (!found.count(name)) {
      *error = fmt::format("'{}' (listed in {}) is not among the cases given", name, list_file);
      return false;
    }
  cases = std::move(kept);
  return true;
}

namespace {

// Reads `bytes` as a message of type M with nothing left unknown.
template <typename M>
bool parse_exact(const std::string& bytes, M& m) {
  return m.ParseFromString(bytes) && m.GetReflection()->GetUnknownFields(m).empty();
}

std::string read_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Appends one tensor.
bool add_tensor(const onnx::TensorProto& proto, std::vector<Tensor>& into, std::string* error) {
  Tensor t;
  if (!tensor_from_proto(proto, t, error)) return false;
  into.push_back(std::move(t));
  return true;
}

bool add_sequence(const onnx::SequenceProto& seq, std::vector<Tensor>& into, DataLayout& layout,
                  std::string* error) {
  if (seq.elem_type() != onnx::SequenceProto::TENSOR && seq.tensor_values_size() == 0 &&
      seq.elem_type() != onnx::SequenceProto::UNDEFINED) {
    *error = "a sequence of non-tensors is not supported";
    return false;
  }
  layout.count = static_cast<size_t>(seq.tensor_values_size());
  for (const auto& t : seq.tensor_values())
    if (!add_tensor(t, into, error)) return false;
  return true;
}

}  // namespace

bool parse_test_value(const std::string& bytes, ValueKind kind, std::vector<Tensor>& into,
                      DataLayout& layout, std::string* error) {
  layout = DataLayout{};
  layout.kind = kind;
  layout.first = into.size();
  if (kind == ValueKind::kSequence) {
    onnx::SequenceProto seq;
    return parse_exact(bytes, seq) && add_sequence(seq, into, layout, error);
  }
  if (kind == ValueKind::kOptional) {
    onnx::OptionalProto opt;
    if (!parse_exact(bytes, opt)) return false;
    if (opt.has_tensor_value()) return add_tensor(opt.tensor_value(), into, error);
    if (opt.has_sequence_value()) return add_sequence(opt.sequence_value(), into, layout, error);
    layout.absent = true;
    layout.count = 0;
    return true;
  }
  onnx::TensorProto proto;
  return parse_exact(bytes, proto) && add_tensor(proto, into, error);
}

namespace {

// One file, read as the type the model declares for it (null: a TensorProto).
bool load_value(const fs::path& file, const onnx::TypeProto* type, std::vector<Tensor>& into,
                std::vector<DataLayout>& layouts, std::string* error) {
  const ValueKind kind = type && type->has_sequence_type()   ? ValueKind::kSequence
                         : type && type->has_optional_type() ? ValueKind::kOptional
                                                             : ValueKind::kTensor;
  DataLayout layout;
  if (!parse_test_value(read_bytes(file), kind, into, layout, error)) {
    if (error->empty()) *error = "cannot be parsed as the type the model declares";
    *error = fmt::format("{}: {}", file.filename().string(), *error);
    return false;
  }
  layouts.push_back(layout);
  return true;
}

// The declared types of the model's graph inputs (initializers left out) and outputs, for
// reading SequenceProto / OptionalProto files.
bool declared_types(const fs::path& model, std::vector<onnx::TypeProto>& inputs,
                    std::vector<onnx::TypeProto>& outputs) {
  onnx::ModelProto proto;
  Diagnostics diag;
  if (!load_model(model.string(), proto, diag)) return false;
  std::set<std::string> initializers;
  for (const auto& init : proto.graph().initializer()) initializers.insert(init.name());
  for (const auto& in : proto.graph().input())
    if (!initializers.count(in.name())) inputs.push_back(in.type());
  for (const auto& out : proto.graph().output()) outputs.push_back(out.type());
  return true;
}

}  // namespace

bool load_case_data(TestCase& tc, std::string* error) {
  // Most cases hold tensors only: read every file as a TensorProto first, and look at the model's
  // declared types only when that fails (sequences and optionals).
  auto load_all = [&](const std::vector<onnx::TypeProto>* in_types,
                      const std::vector<onnx::TypeProto>* out_types) {
    for (auto& d : tc.datasets) {
      d.inputs.clear(), d.outputs.clear(), d.input_layout.clear(), d.output_layout.clear();
      for (size_t k = 0; k < d.input_files.size(); ++k) {
        const onnx::TypeProto* t = in_types && k < in_types->size() ? &(*in_types)[k] : nullptr;
        if (!load_value(d.input_files[k], t, d.inputs, d.input_layout, error)) return false;
      }
      for (size_t k = 0; k < d.output_files.size(); ++k) {
        const onnx::TypeProto* t = out_types && k < out_types->size() ? &(*out_types)[k] : nullptr;
        if (!load_value(d.output_files[k], t, d.outputs, d.output_layout, error)) return false;
      }
    }
    return true;
  };
  if (load_all(nullptr, nullptr)) return true;
  std::vector<onnx::TypeProto> in_types, out_types;
  if (!declared_types(tc.model, in_types, out_types)) return false;
  error->clear();
  return load_all(&in_types, &out_types);
}

void synthesize_light_inputs(TestCase& tc, const Graph& graph) {
  for (auto& d : tc.datasets) {
    d.inputs.clear();
    d.input_layout.clear();
    for (const Value* in : graph.inputs) {
      Tensor t = Tensor::zeros(DataType::kFloat, in->shape);
      int64_t n = t.numel();
      for (int64_t i = 0; i < n; ++i)
        t.as<float>()[i] = static_cast<float>(i) / static_cast<float>(n);
      d.inputs.push_back(std::move(t));
      d.input_layout.push_back(DataLayout{ValueKind::kTensor, false, d.inputs.size() - 1, 1});
    }
  }
}

}  // namespace onnxc
