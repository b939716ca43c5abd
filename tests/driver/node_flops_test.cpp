// FLOP counts of onnxc bench (driver/node_flops.h) for known shapes: each expected value is the
// textbook count, 2 x (output elements) x (multiply-adds per output element), written out.
#include "driver/node_flops.h"

#include <catch2/catch.hpp>

#include "driver/pipeline.h"
#include "harness/model_builder.h"

using namespace onnxc;
using onnxc::testing::ModelBuilder;

namespace {

constexpr int kFloat = onnx::TensorProto::FLOAT;

std::vector<float> filled(size_t n) {
  return std::vector<float>(n, 0.125f);
}

// Lowers the model and returns the FLOPs of its only node named `node`.
int64_t flops_of(ModelBuilder& mb, const std::string& node, int64_t* graph_total = nullptr) {
  Diagnostics diag;
  auto module = lower_model(mb.write(), ImportOptions{}, diag);
  INFO(diag.str());
  REQUIRE(module);
  if (graph_total) *graph_total = graph_flops(*module->graph);
  for (const auto& n : module->graph->nodes)
    if (n->name == node) return node_flops(*n);
  FAIL("no node " << node);
  return -1;
}

}  // namespace

TEST_CASE("Conv counts 2 x outputs x (C/group x kernel taps)", "[driver][flops]") {
  ModelBuilder mb;  // x[1,3,8,8] * W[4,3,3,3], pads 1: y[1,4,8,8], 27 multiply-adds each
  mb.input("x", kFloat, {1, 3, 8, 8}).output("y", kFloat, {1, 4, 8, 8});
  mb.initializer("w", {4, 3, 3, 3}, filled(108));
  ModelBuilder::ints_attr(mb.node("Conv", {"x", "w"}, {"y"}, "conv"), "pads", {1, 1, 1, 1});
  CHECK(flops_of(mb, "conv") == 2 * (4 * 8 * 8) * (3 * 3 * 3));
}

TEST_CASE("a depthwise Conv counts one channel per output", "[driver][flops]") {
  ModelBuilder mb;  // group 4, W[4,1,3,3], no padding: y[1,4,4,4], 9 multiply-adds each
  mb.input("x", kFloat, {1, 4, 6, 6}).output("y", kFloat, {1, 4, 4, 4});
  mb.initializer("w", {4, 1, 3, 3}, filled(36));
  ModelBuilder::int_attr(mb.node("Conv", {"x", "w"}, {"y"}, "dw"), "group", 4);
  CHECK(flops_of(mb, "dw") == 2 * 64 * 9);
}

TEST_CASE("Gemm and batched MatMul count 2 x M x N x K", "[driver][flops]") {
  ModelBuilder gemm;  // A^T with A[5,2]: M 2, K 5, N 3
  gemm.input("a", kFloat, {5, 2}).output("y", kFloat, {2, 3});
  gemm.initializer("b", {5, 3}, filled(15));
  ModelBuilder::int_attr(gemm.node("Gemm", {"a", "b"}, {"y"}, "gemm"), "transA", 1);
  CHECK(flops_of(gemm, "gemm") == 2 * 2 * 3 * 5);

  ModelBuilder mm;  // [2,3,4] x [4,5]: 2 batches of M 3, N 5, K 4
  mm.input("a", kFloat, {2, 3, 4}).input("b", kFloat, {4, 5}).output("y", kFloat, {2, 3, 5});
  mm.node("MatMul", {"a", "b"}, {"y"}, "mm");
  CHECK(flops_of(mm, "mm") == 2 * 2 * 3 * 5 * 4);
}

TEST_CASE("LSTM counts its gate products per step", "[driver][flops]") {
  ModelBuilder mb;  // 3 steps, batch 1, input 2, hidden 4: 4 gates x 4 x (2 + 4) per step
  mb.input("x", kFloat, {3, 1, 2}).output("y", kFloat, {3, 1, 1, 4});
  mb.initializer("w", {1, 16, 2}, filled(32)).initializer("r", {1, 16, 4}, filled(64));
  ModelBuilder::int_attr(mb.node("LSTM", {"x", "w", "r"}, {"y"}, "lstm"), "hidden_size", 4);
  CHECK(flops_of(mb, "lstm") == 2 * 3 * 16 * (2 + 4));
}

TEST_CASE("other ops count one operation per output element, the graph sums its nodes",
          "[driver][flops]") {
  ModelBuilder mb;
  mb.input("a", kFloat, {2, 3}).input("b", kFloat, {3, 4}).output("y", kFloat, {2, 4});
  mb.node("MatMul", {"a", "b"}, {"p"}, "mm");
  mb.node("Neg", {"p"}, {"y"}, "neg");  // not an activation fuse-epilogue folds
  int64_t total = 0;
  CHECK(flops_of(mb, "neg", &total) == 8);
  CHECK(total == 2 * 2 * 4 * 3 + 8);
}
