// ONNX backend-test cases on disk: the folder layout (CASE/model.onnx and
// CASE/test_data_set_N/{input,output}_K.pb) and the flat light/ layout (light_X.onnx and
// light_X_output_0.pb, inputs synthesized as arange(n) / n).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace onnxc {

// How one input_K.pb / output_K.pb maps onto TestData::inputs / outputs: a TensorProto is one
// tensor; a SequenceProto its `count` tensors; an OptionalProto its tensor, its sequence's
// tensors, or none when empty (`absent`). The generated code takes them flattened in this order.
struct DataLayout {
  ValueKind kind = ValueKind::kTensor;
  bool absent = false;
  size_t first = 0;  // index of its first tensor
  size_t count = 1;
};

struct TestData {
  std::vector<std::filesystem::path> input_files, output_files;
  std::vector<Tensor> inputs, outputs;                  // flattened (see DataLayout)
  std::vector<DataLayout> input_layout, output_layout;  // one per file
};

struct TestCase {
  std::string name;  // "node/test_abs", "light/light_resnet50"
  std::filesystem::path model;
  bool light = false;
  double rtol = 0;  // per-case override (light densenet121 uses 2e-3); 0 means the default
  std::vector<TestData> datasets;
};

// kPassRandom: the graph draws random numbers (an op's random_range()); its outputs matched the
// expected ones in type and shape and lie in the op's range, but are not the reference's values.
enum class CaseStatus { kPass, kFail, kUnsupported, kPassRandom };
struct CaseResult {
  CaseStatus status = CaseStatus::kFail;
  std::string detail;
  bool specialized = false;  // passed with small run-time inputs compiled in as constants
};

// Expands the command-line paths: a case folder, a folder of case folders, a light_*.onnx file
// or a folder of them. Sorted by name; `filter` keeps names containing it.
std::vector<TestCase> discover_test_cases(const std::vector<std::string>& paths,
                                          const std::string& filter, std::string* error);

// --cases FILE: keeps the cases named in `list_file` (one "folder/case" per line, as printed by
// `onnxc test`; blank lines and lines starting with '#' are skipped). A listed name that is not
// among `cases` is an error, so a list cannot silently shrink when the suite moves.
bool keep_listed_cases(std::vector<TestCase>& cases, const std::string& list_file,
                       std::string* error);

// Reads the .pb files of every data set: TensorProto, or SequenceProto/OptionalProto of tensors
// where the model declares a sequence/optional. Fails (unsupported) on maps and strings.
bool load_case_data(TestCase& tc, std::string* error);

// Decodes the bytes of one input_K.pb / output_K.pb file as `kind` (a TensorProto, a
// SequenceProto or an OptionalProto), appending its tensors to `into`; false (with `error` set,
// or empty for a message that does not parse) on anything else. Never trusts the bytes: the
// fuzz target tests/fuzz/fuzz_test_data.cpp feeds it arbitrary input.
bool parse_test_value(const std::string& bytes, ValueKind kind, std::vector<Tensor>& into,
                      DataLayout& layout, std::string* error);

// light/ cases ship no inputs: each graph input gets arange(n) / n as float32.
void synthesize_light_inputs(TestCase& tc, const Graph& graph);

}  // namespace onnxc
