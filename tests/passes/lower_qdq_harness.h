// Shared by the lower-qdq tests (lower_qdq_test.cpp: products, pools, Add/Mul, Concat;
// lower_qdq_lookup_test.cpp: lookup tables, Softmax, Where): lowering a model with the pass on
// and off, and comparing the two. Each test file gets its own copies (an unnamed namespace), so
// each draws from its own seeded generator.
#pragma once
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "passes/fusion_harness.h"

namespace onnxc::testing::qdq {
namespace {

using onnxc::testing::ModelBuilder;

std::mt19937 rng(41);

struct Lowered {
  std::unique_ptr<Module> module;
  std::map<std::string, int64_t> stats;
  std::string ir;
};

Lowered lower_qdq(ModelBuilder& mb, bool qdq) {
  Lowered l;
  Diagnostics diag;
  l.module = import_model(mb.proto(), ImportOptions{}, diag);
  REQUIRE(l.module);
  PassOptions options;
  options.stop_after = "dead-code";
  if (!qdq) options.disabled.insert("lower-qdq");
  PassManager pm(options);
  const bool ok = pm.run(*l.module, diag);
  INFO(diag.str());
  REQUIRE(ok);
  for (const PassRecord& r : pm.records())
    if (r.name == "lower-qdq")
      for (const auto& [what, n] : r.counters) l.stats[what] += n;
  l.ir = print_graph(*l.module->graph);
  return l;
}

// Random float values in [-2, 2] for each of the module's graph inputs.
std::vector<Tensor> random_inputs(const Module& m) {
  std::vector<Tensor> inputs;
  for (const Value* v : m.graph->inputs) {
    Tensor t = Tensor::zeros(DataType::kFloat, v->shape);
    std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
    for (int64_t i = 0; i < t.numel(); ++i) t.as<float>()[i] = dist(rng);
    inputs.push_back(std::move(t));
  }
  return inputs;
}

// Lowered and float graphs agree within one step of y_scale on random inputs in [-2, 2], and
// the outputs take several levels (so the comparison is not between two constants).
void check_within_one_step(ModelBuilder& mb, float y_scale) {
  Lowered lowered = lower_qdq(mb, true), plain = lower_qdq(mb, false);
  const std::vector<Tensor> inputs = random_inputs(*plain.module);
  const std::vector<Tensor> want = onnxc::testing::run_graph(*plain.module, inputs);
  const std::vector<Tensor> got = onnxc::testing::run_graph(*lowered.module, inputs);
  REQUIRE(got.size() == want.size());
  std::set<float> levels;
  int exact = 0;
  for (int64_t i = 0; i < want[0].numel(); ++i) {
    const float w = want[0].as<float>()[i], x = got[0].as<float>()[i];
    INFO("element " << i << " lowered " << x << " float graph " << w);
    REQUIRE(std::fabs(x - w) <= y_scale * 1.0001f);
    levels.insert(w);
    exact += x == w;
  }
  CHECK(levels.size() >= 5);
  CHECK(exact * 10 >= want[0].numel() * 9);  // one-step differences are rare ties, not the rule
}

std::vector<int32_t> random_ints(size_t n, int lo, int hi) {
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<int32_t> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

void quantize_io(ModelBuilder& mb, const std::string& x, const std::string& xq, const char* scale,
                 const char* zp, const std::string& xd) {
  mb.node("QuantizeLinear", {x, scale, zp}, {xq});
  mb.node("DequantizeLinear", {xq, scale, zp}, {xd});
}

// An 8-bit graph input's values: element i holds the byte i % 256 (every value of the type), or
// for `pairs`, the byte i % 256 (first) and i / 256 (second) of 65536 elements.
Tensor all_bytes(DataType type, int64_t n, bool high_byte) {
  Tensor t = Tensor::zeros(type, {n});
  for (int64_t i = 0; i < n; ++i) t.data[i] = static_cast<uint8_t>(high_byte ? i >> 8 : i);
  return t;
}

DataType ir_type(int onnx_type) {
  return onnx_type == onnx::TensorProto::INT8 ? DataType::kInt8 : DataType::kUint8;
}

// A zero point for `type` (given as for uint8, moved by -128 for int8).
int zero_of(int onnx_type, int uint8_zero) {
  return onnx_type == onnx::TensorProto::INT8 ? uint8_zero - 128 : uint8_zero;
}

// Runs the lowered and the float graph on `inputs`; returns both 8-bit outputs as ints.
std::pair<std::vector<int>, std::vector<int>> run_both(ModelBuilder& mb,
                                                       const std::vector<Tensor>& inputs) {
  Lowered lowered = lower_qdq(mb, true), plain = lower_qdq(mb, false);
  const std::vector<Tensor> got = onnxc::testing::run_graph(*lowered.module, inputs);
  const std::vector<Tensor> want = onnxc::testing::run_graph(*plain.module, inputs);
  REQUIRE(got.size() == 1);
  REQUIRE(want.size() == 1);
  REQUIRE(got[0].dtype == want[0].dtype);
  std::pair<std::vector<int>, std::vector<int>> r;
  for (int64_t i = 0; i < got[0].numel(); ++i) {
    r.first.push_back(static_cast<int>(got[0].int_at(i)));
    r.second.push_back(static_cast<int>(want[0].int_at(i)));
  }
  return r;
}

}  // namespace
}  // namespace onnxc::testing::qdq
