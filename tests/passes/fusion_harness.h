// Shared by the fusion pass tests: lower a ModelBuilder model with or without the fusion passes,
// print its IR, and run it on the host through each node's evaluate() (the same kernels as the
// generated code), so a fused graph can be compared with the unfused one numerically.
#pragma once

#include <map>
#include <random>
#include <string>
#include <vector>

#include "frontend/importer.h"
#include "harness/model_builder.h"
#include "ir/printer.h"
#include "onnxc/normalization.h"
#include "ops/op.h"
#include "passes/pass_manager.h"

namespace onnxc::testing {

struct FusionLowered {
  std::unique_ptr<Module> module;
  std::map<std::string, int64_t> stats;  // the fusion passes' counters
  std::string ir;                        // the main graph after dead-code
};

const char* const kFusionPasses[] = {"fuse-matmul-add", "fold-batchnorm", "fuse-swish",
                                     "scale-filters",   "fuse-epilogue",  "matmul-as-gemm"};

// The pipeline up to dead-code, with or without the fusion passes (and without `also_off`).
inline FusionLowered lower(ModelBuilder& mb, bool fuse,
                           std::initializer_list<const char*> also_off = {}) {
  FusionLowered l;
  Diagnostics diag;
  l.module = import_model(mb.proto(), ImportOptions{}, diag);
  REQUIRE(l.module);
  PassOptions options;
  options.stop_after = "dead-code";
  options.verify_each = true;
  if (!fuse) options.disabled.insert(std::begin(kFusionPasses), std::end(kFusionPasses));
  options.disabled.insert(also_off.begin(), also_off.end());
  PassManager pm(options);
  const bool ok = pm.run(*l.module, diag);
  INFO(diag.str());
  REQUIRE(ok);
  for (const PassRecord& r : pm.records())
    for (const char* name : kFusionPasses)
      if (r.name == name)
        for (const auto& [what, n] : r.counters) l.stats[what] += n;
  l.ir = print_graph(*l.module->graph);
  return l;
}

// Runs the graph on float inputs (by graph input order); returns the graph outputs.
inline std::vector<Tensor> run_graph(const Module& m, const std::vector<Tensor>& inputs) {
  std::map<const Value*, Tensor> values;
  const Graph& g = *m.graph;
  for (size_t i = 0; i < g.inputs.size(); ++i) values[g.inputs[i]] = inputs.at(i);
  auto get = [&](const Value* v) -> const Tensor* {
    if (!v) return nullptr;
    if (v->is_constant()) return v->constant.get();
    return &values.at(v);
  };
  for (const auto& n : g.nodes) {
    std::vector<const Tensor*> in;
    for (const Value* v : n->inputs) in.push_back(get(v));
    std::vector<Tensor> out(n->outputs.size());
    for (size_t i = 0; i < n->outputs.size(); ++i)
      if (n->outputs[i]) out[i] = Tensor::zeros(n->outputs[i]->dtype, n->outputs[i]->shape);
    INFO("evaluating " << n->name << " (" << n->op_type << ")");
    if (n->op_type == "BatchNormalization") {  // no evaluate(): the kernel the code would call
      const Shape& xs = in[0]->shape;
      BatchNormParams p{};
      p.batch = xs[0];
      p.channels = xs[1];
      p.spatial = shape_numel(xs) / (xs[0] * xs[1]);
      p.epsilon = n->attr("epsilon") ? n->attr("epsilon")->f : 1e-5f;
      batch_norm_ref(p, in[0]->as<float>(), in[1]->as<float>(), in[2]->as<float>(),
                     in[3]->as<float>(), in[4]->as<float>(), out[0].as<float>());
    } else {
      REQUIRE(n->handler->evaluate(*n, in, out));
    }
    for (size_t i = 0; i < n->outputs.size(); ++i)
      if (n->outputs[i]) values[n->outputs[i]] = std::move(out[i]);
  }
  std::vector<Tensor> result;
  for (const Value* v : g.outputs) result.push_back(*get(v));
  return result;
}

inline Tensor random_tensor(const Shape& shape, std::mt19937& rng) {
  Tensor t = Tensor::zeros(DataType::kFloat, shape);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < t.numel(); ++i) t.as<float>()[i] = dist(rng);
  return t;
}

inline std::vector<float> random_values(size_t n, std::mt19937& rng, float lo = -1.0f,
                                        float hi = 1.0f) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

// Two convolutions, one worth splitting over threads and one not: "big", 16 -> 32 channels 3x3
// dilated 2 on 32x32 (9.4 MFLOP; dilated, so a GEMM, not Winograd), then "small", pointwise
// 32 -> 2 (0.13 MFLOP).
inline onnx::ModelProto split_and_whole_convs() {
  std::mt19937 rng(5);
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {1, 16, 32, 32});
  mb.initializer("w1", {32, 16, 3, 3}, random_values(32 * 16 * 9, rng));
  mb.initializer("w2", {2, 32, 1, 1}, random_values(64, rng));
  auto& big = mb.node("Conv", {"x", "w1"}, {"c"}, "big");
  ModelBuilder::ints_attr(big, "pads", {2, 2, 2, 2});
  ModelBuilder::ints_attr(big, "dilations", {2, 2});
  mb.node("Conv", {"c", "w2"}, {"y"}, "small");
  mb.output("y", onnx::TensorProto::FLOAT, {1, 2, 32, 32});
  return mb.proto();
}

// The fused and unfused graphs agree on random inputs within `tol` (relative to 1 + |want|).
inline void check_same_results(ModelBuilder& mb, float tol = 1e-5f) {
  FusionLowered fused = lower(mb, true), plain = lower(mb, false);
  std::mt19937 rng(1234);
  std::vector<Tensor> inputs;
  for (const Value* v : plain.module->graph->inputs) inputs.push_back(random_tensor(v->shape, rng));
  const std::vector<Tensor> want = run_graph(*plain.module, inputs);
  const std::vector<Tensor> got = run_graph(*fused.module, inputs);
  REQUIRE(got.size() == want.size());
  for (size_t o = 0; o < got.size(); ++o) {
    REQUIRE(got[o].shape == want[o].shape);
    for (int64_t i = 0; i < got[o].numel(); ++i) {
      const float w = want[o].as<float>()[i], x = got[o].as<float>()[i];
      INFO("output " << o << " element " << i << " fused " << x << " unfused " << w);
      REQUIRE(std::fabs(x - w) <= tol * (1.0f + std::fabs(w)));
    }
  }
}

inline void float_attr(onnx::NodeProto& n, const std::string& name, float v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}

inline void string_attr(onnx::NodeProto& n, const std::string& name, const std::string& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

}  // namespace onnxc::testing
