// fold-batchnorm on IR text (FileCheck-style) and numerically: the folded graph computes what
// the unfused one does, through the same kernels.
#include <catch2/catch.hpp>

#include "harness/filecheck.h"
#include "passes/fusion_harness.h"

using namespace onnxc;
using onnxc::testing::filecheck;
using onnxc::testing::ModelBuilder;

namespace {

std::mt19937 rng(7);

// x [1, 3, 6, 6] -> Conv(w [4, 3, 3, 3], b?) -> conv_out [1, 4, 4, 4].
ModelBuilder conv_model(bool bias, bool const_weights = true) {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {1, 3, 6, 6});
  if (const_weights)
    mb.initializer("w", {4, 3, 3, 3}, onnxc::testing::random_values(108, rng));
  else
    mb.input("w", onnx::TensorProto::FLOAT, {4, 3, 3, 3});
  if (bias) mb.initializer("b", {4}, onnxc::testing::random_values(4, rng));
  mb.node("Conv",
          bias ? std::vector<std::string>{"x", "w", "b"} : std::vector<std::string>{"x", "w"},
          {"conv_out"}, "conv");
  return mb;
}

void add_bn(ModelBuilder& mb, const std::string& in, const std::string& out, int64_t c) {
  mb.initializer("scale", {c},
                 onnxc::testing::random_values(static_cast<size_t>(c), rng, 0.5f, 2.0f));
  mb.initializer("shift", {c}, onnxc::testing::random_values(static_cast<size_t>(c), rng));
  mb.initializer("mean", {c}, onnxc::testing::random_values(static_cast<size_t>(c), rng));
  mb.initializer("var", {c},
                 onnxc::testing::random_values(static_cast<size_t>(c), rng, 0.1f, 2.0f));
  mb.node("BatchNormalization", {in, "scale", "shift", "mean", "var"}, {out}, "bn");
}

}  // namespace

TEST_CASE("fold-batchnorm folds Conv -> BatchNormalization into the weights and bias",
          "[passes][fusion]") {
  for (bool bias : {true, false}) {
    ModelBuilder mb = conv_model(bias);
    add_bn(mb, "conv_out", "y", 4);
    mb.output("y", onnx::TensorProto::FLOAT, {1, 4, 4, 4});
    auto l = onnxc::testing::lower(mb, true);
    INFO(l.ir);
    CHECK(filecheck(l.ir, {"CHECK: %w_folded: float[4x3x3x3] = constant",
                           "CHECK: %conv_bias_folded: float[4] = constant",
                           "CHECK-NOT: BatchNormalization",
                           "CHECK: %y: float[1x4x4x4] = Conv@13(%x, %w_folded, %conv_bias_folded)",
                           "CHECK-NEXT: }"}) == "");
    CHECK(l.stats.at("BatchNormalization folded") == 1);
    onnxc::testing::check_same_results(mb);
  }
}

TEST_CASE("fold-batchnorm folds a chain BN -> Mul -> Add of per-channel constants",
          "[passes][fusion]") {
  ModelBuilder mb = conv_model(false);
  add_bn(mb, "conv_out", "bn_out", 4);
  mb.initializer("k", {4, 1, 1}, onnxc::testing::random_values(4, rng));
  mb.initializer("c", {1, 4, 1, 1}, onnxc::testing::random_values(4, rng));
  mb.node("Mul", {"k", "bn_out"}, {"mul_out"}, "mul");
  mb.node("Add", {"mul_out", "c"}, {"y"}, "add");
  mb.output("y", onnx::TensorProto::FLOAT, {1, 4, 4, 4});
  auto l = onnxc::testing::lower(mb, true);
  INFO(l.ir);
  CHECK(filecheck(l.ir, {"CHECK-NOT: BatchNormalization", "CHECK-NOT: Mul@", "CHECK-NOT: Add@",
                         "CHECK: %y: float[1x4x4x4] = Conv@13(%x, %w_folded", "CHECK-NEXT: }"}) ==
        "");
  CHECK(l.module->graph->nodes.size() == 1);
  onnxc::testing::check_same_results(mb);
}

TEST_CASE("fold-batchnorm folds into Gemm and 2-D MatMul", "[passes][fusion]") {
  SECTION("Gemm with transB and a C row") {
    ModelBuilder mb(13);
    mb.input("x", onnx::TensorProto::FLOAT, {3, 5});
    mb.initializer("w", {6, 5}, onnxc::testing::random_values(30, rng));
    mb.initializer("c", {6}, onnxc::testing::random_values(6, rng));
    auto& gemm = mb.node("Gemm", {"x", "w", "c"}, {"g"}, "gemm");
    ModelBuilder::int_attr(gemm, "transB", 1);
    onnxc::testing::float_attr(gemm, "beta", 0.5f);
    onnxc::testing::float_attr(gemm, "alpha", 2.0f);
    add_bn(mb, "g", "y", 6);
    mb.output("y", onnx::TensorProto::FLOAT, {3, 6});
    auto l = onnxc::testing::lower(mb, true);
    INFO(l.ir);
    CHECK(filecheck(l.ir, {"CHECK-NOT: BatchNormalization",
                           "CHECK: %y: float[3x6] = Gemm@13(%x, %w_folded, %gemm_c_folded) "
                           "{alpha=2, beta=1, transB=1}"}) == "");
    onnxc::testing::check_same_results(mb);
  }
  SECTION("MatMul gains a bias input") {
    ModelBuilder mb(13);
    mb.input("x", onnx::TensorProto::FLOAT, {3, 5});
    mb.initializer("w", {5, 6}, onnxc::testing::random_values(30, rng));
    mb.node("MatMul", {"x", "w"}, {"m"}, "matmul");
    add_bn(mb, "m", "y", 6);
    mb.output("y", onnx::TensorProto::FLOAT, {3, 6});
    auto l = onnxc::testing::lower(mb, true, {"matmul-as-gemm"});
    INFO(l.ir);
    CHECK(filecheck(l.ir,
                    {"CHECK-NOT: BatchNormalization",
                     "CHECK: %y: float[3x6] = MatMul@13(%x, %w_folded, %matmul_bias_folded)"}) ==
          "");
    onnxc::testing::check_same_results(mb);
  }
}

TEST_CASE("fold-batchnorm leaves what it must not fold", "[passes][fusion]") {
  SECTION("the Conv output is also a graph output") {
    ModelBuilder mb = conv_model(true);
    add_bn(mb, "conv_out", "y", 4);
    mb.output("y", onnx::TensorProto::FLOAT, {1, 4, 4, 4});
    mb.output("conv_out", onnx::TensorProto::FLOAT, {1, 4, 4, 4});
    auto l = onnxc::testing::lower(mb, true);
    CHECK(filecheck(l.ir, {"CHECK: %conv_out: float[1x4x4x4] = Conv@13(%x, %w, %b)",
                           "CHECK: %y: float[1x4x4x4] = BatchNormalization@13(%conv_out"}) == "");
    onnxc::testing::check_same_results(mb);
  }
  SECTION("the Conv output has another user") {
    ModelBuilder mb = conv_model(true);
    add_bn(mb, "conv_out", "y", 4);
    mb.node("Relu", {"conv_out"}, {"z"}, "relu");
    mb.output("y", onnx::TensorProto::FLOAT, {1, 4, 4, 4});
    mb.output("z", onnx::TensorProto::FLOAT, {1, 4, 4, 4});
    auto l = onnxc::testing::lower(mb, true);
    CHECK(filecheck(l.ir, {"CHECK: = Conv@13(%x, %w, %b)",
                           "CHECK: BatchNormalization@13(%conv_out"}) == "");
  }
  SECTION("the weights are not constant") {
    ModelBuilder mb = conv_model(true, false);
    add_bn(mb, "conv_out", "y", 4);
    mb.output("y", onnx::TensorProto::FLOAT, {1, 4, 4, 4});
    auto l = onnxc::testing::lower(mb, true);
    CHECK(filecheck(l.ir, {"CHECK: BatchNormalization@13(%conv_out"}) == "");
    CHECK(l.stats.empty());
  }
  SECTION("a Mul constant that broadcasts along a spatial axis") {
    ModelBuilder mb = conv_model(true);
    mb.initializer("k", {1, 1, 1, 4}, onnxc::testing::random_values(4, rng));
    mb.node("Mul", {"conv_out", "k"}, {"y"}, "mul");
    mb.output("y", onnx::TensorProto::FLOAT, {1, 4, 4, 4});
    auto l = onnxc::testing::lower(mb, true);
    CHECK(filecheck(l.ir, {"CHECK: %conv_out: float[1x4x4x4] = Conv@13(%x, %w, %b)",
                           "CHECK: %y: float[1x4x4x4] = Mul@13(%conv_out, %k)"}) == "");
  }
  SECTION("BatchNormalization after a 3-D MatMul (its channel axis is not the last)") {
    ModelBuilder mb(13);
    mb.input("x", onnx::TensorProto::FLOAT, {2, 6, 5});
    mb.initializer("w", {5, 6}, onnxc::testing::random_values(30, rng));
    mb.node("MatMul", {"x", "w"}, {"m"}, "matmul");
    add_bn(mb, "m", "y", 6);
    mb.output("y", onnx::TensorProto::FLOAT, {2, 6, 6});
    auto l = onnxc::testing::lower(mb, true, {"matmul-as-gemm"});
    CHECK(filecheck(l.ir, {"CHECK: %m: float[2x6x6] = MatMul@13(%x, %w)",
                           "CHECK: BatchNormalization@13(%m"}) == "");
    onnxc::testing::check_same_results(mb);
  }
}
