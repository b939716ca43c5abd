// Every size constant of the generated header agrees with the IR it was generated from: the
// header is parsed as text (as a caller's build sees it), and each constant compared with sizes
// recomputed here from the module's shapes and dtypes, and with the --max-bytes budget.
#include <catch2/catch.hpp>
#include <map>
#include <regex>

#include "codegen/cpp_emitter.h"
#include "driver/pipeline.h"
#include "harness/model_builder.h"
#include "ir/stack_bound.h"

using namespace onnxc;
using onnxc::testing::ModelBuilder;

namespace {

constexpr int kFloat = onnx::TensorProto::FLOAT;
constexpr int kInt64 = onnx::TensorProto::INT64;

// name -> values of every `constexpr std::size_t kName = N;` or `kName[] = {N, ...};` line.
std::map<std::string, std::vector<uint64_t>> header_constants(const std::string& header) {
  std::map<std::string, std::vector<uint64_t>> out;
  std::regex line(R"(constexpr std::size_t (k\w+)(\[\])? = \{?([0-9, ]*)\}?;)");
  for (auto it = std::sregex_iterator(header.begin(), header.end(), line);
       it != std::sregex_iterator(); ++it) {
    std::vector<uint64_t> values;
    std::string list = (*it)[3];
    std::regex number("[0-9]+");
    for (auto n = std::sregex_iterator(list.begin(), list.end(), number);
         n != std::sregex_iterator(); ++n)
      values.push_back(std::stoull(n->str()));
    out[(*it)[1]] = values;
  }
  return out;
}

// Bytes of a value recomputed from its shape: elements times the element size.
uint64_t expected_bytes(const Value& v) {
  uint64_t n = 1;
  for (int64_t d : v.shape) n *= static_cast<uint64_t>(d);
  return n * (v.dtype == DataType::kInt64 ? 8 : 4);
}

void check_header_against_ir(ModelBuilder& mb, int64_t max_bytes = kMaxTensorBytes) {
  Diagnostics diag;
  ImportOptions options;
  options.max_bytes = max_bytes;
  auto module = lower_model(mb.write(), options, diag);
  INFO(diag.str());
  REQUIRE(module);
  CodegenOptions cg;
  cg.name = "m";
  cg.header_file = "m.h";
  cg.weights = WeightsMode::kExternal;  // kWeightsSize is then the .bin's size
  GeneratedCode code;
  REQUIRE(generate_cpp(*module, cg, code, diag));
  auto k = header_constants(code.header);
  const Graph& g = *module->graph;
  CHECK(k.at("kWorkspaceSize") == std::vector<uint64_t>{module->memory.arena_bytes});
  CHECK(k.at("kLiveBytesLowerBound") ==
        std::vector<uint64_t>{module->memory.live_bytes_lower_bound});
  CHECK(k.at("kWeightsSize") == std::vector<uint64_t>{code.weights.size()});
  CHECK(k.at("kMaxStackBytes") == std::vector<uint64_t>{max_stack_bytes(*module->target)});
  CHECK(k.at("kNumInputs") == std::vector<uint64_t>{g.inputs.size()});
  CHECK(k.at("kNumOutputs") == std::vector<uint64_t>{g.outputs.size()});
  std::vector<uint64_t> in, out;
  for (const Value* v : g.inputs) in.push_back(expected_bytes(*v));
  for (const Value* v : g.outputs) out.push_back(expected_bytes(*v));
  in.push_back(0);  // the list's terminator
  out.push_back(0);
  CHECK(k.at("kInputBytes") == in);
  CHECK(k.at("kOutputBytes") == out);
  for (const auto& [name, values] : k)  // sizes of data; the stack bound is not one
    if (name != "kMaxStackBytes")
      for (uint64_t v : values) CHECK(v <= static_cast<uint64_t>(max_bytes));
  // Counts of the model's description (codegen/model_info.cpp; these models have none).
  CHECK(k.at("kNumMetadataProps") == std::vector<uint64_t>{0});
  CHECK(k.at("kNumTrainingInfos") == std::vector<uint64_t>{0});
  CHECK(k.size() == 11);  // a new size constant belongs in this test
}

}  // namespace

TEST_CASE("header constants match the IR: one input, constant weights", "[codegen][header]") {
  ModelBuilder mb;
  mb.input("x", kFloat, {2, 3}).output("y", kFloat, {2, 3}).initializer("b", {3}, {1, 2, 3});
  mb.node("Add", {"x", "b"}, {"sum"}, "add");
  mb.node("Relu", {"sum"}, {"h"}, "relu");
  mb.node("Neg", {"h"}, {"y"}, "neg");
  check_header_against_ir(mb);
}

TEST_CASE("header constants match the IR: several inputs and outputs of two dtypes",
          "[codegen][header]") {
  ModelBuilder mb;
  mb.input("a", kFloat, {4, 5}).input("b", kFloat, {1, 5});
  mb.output("sum", kFloat, {4, 5}).output("shape", kInt64, {2}).output("t", kFloat, {5, 4});
  mb.node("Add", {"a", "b"}, {"sum"}, "add");
  mb.node("Shape", {"a"}, {"shape"}, "shape");
  mb.node("Transpose", {"sum"}, {"t"}, "tr");
  check_header_against_ir(mb);
}

TEST_CASE("header constants match the IR under a tight --max-bytes", "[codegen][header]") {
  ModelBuilder mb;
  mb.input("x", kFloat, {64}).output("y", kFloat, {64});
  mb.node("Relu", {"x"}, {"h"}, "relu");
  mb.node("Neg", {"h"}, {"y"}, "neg");
  check_header_against_ir(mb, 256);
  Diagnostics diag;
  ImportOptions options;
  options.max_bytes = 255;  // the 256-byte tensors no longer fit
  CHECK_FALSE(lower_model(mb.write(), options, diag));
  CHECK_THAT(diag.str(), Catch::Contains("needs 256 bytes, more than --max-bytes 255"));
}

// kMaxStackBytes comes from a table measured per target (ir/stack_bound.h); the qemu_embedded
// test re-measures it with the target compilers. Every target needs a row, and a bound of at
// least the kernel-stack limit the target promises for a single kernel frame.
TEST_CASE("every target has a stack bound of at least one kernel frame", "[codegen][header]") {
  for (const Target& t : all_targets()) {
    INFO(t.name);
    CHECK(max_stack_bytes(t) >= t.max_kernel_stack);
    CHECK(max_stack_bytes(t) % 256 == 0);
  }
  CHECK(max_stack_bytes(*with_max_scratch(*find_target("cortex-m4"), 4096)) ==
        max_stack_bytes(*find_target("cortex-m4")));
}
