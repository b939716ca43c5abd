#include "driver/test_case.h"

#include <fmt/format.h>

#include <algorithm>

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

bool load_case_data(TestCase& tc, std::string* error) {
  auto load = [&](const fs::path& file, std::vector<Tensor>& into) {
    onnx::TensorProto proto;
    std::string err;
    Tensor t;
    bool parsed = load_tensor_proto(file.string(), proto, &err);
    if (parsed && !proto.GetReflection()->GetUnknownFields(proto).empty()) {
      parsed = false;
      err = "not a TensorProto";
    }
    if (!parsed || !tensor_from_proto(proto, t, &err)) {
      *error = fmt::format("{}: {} (sequence, map and optional test data are not supported)",
                           file.filename().string(), err);
      return false;
    }
    if (t.dtype == DataType::kString) {
      *error = "string tensors are not supported";
      return false;
    }
    into.push_back(std::move(t));
    return true;
  };
  for (auto& d : tc.datasets) {
    for (const auto& f : d.input_files)
      if (!load(f, d.inputs)) return false;
    for (const auto& f : d.output_files)
      if (!load(f, d.outputs)) return false;
  }
  return true;
}

void synthesize_light_inputs(TestCase& tc, const Graph& graph) {
  for (auto& d : tc.datasets) {
    d.inputs.clear();
    for (const Value* in : graph.inputs) {
      Tensor t = Tensor::zeros(DataType::kFloat, in->shape);
      int64_t n = t.numel();
      for (int64_t i = 0; i < n; ++i)
        t.as<float>()[i] = static_cast<float>(i) / static_cast<float>(n);
      d.inputs.push_back(std::move(t));
    }
  }
}

}  // namespace onnxc
