// fuse-swish on IR text (FileCheck-style) and numerically against the unfused graph.
#include <catch2/catch.hpp>

#include "harness/filecheck.h"
#include "passes/fusion_harness.h"
#include "passes/pass_harness.h"

using namespace onnxc;
using onnxc::testing::filecheck;
using onnxc::testing::ModelBuilder;

namespace {

std::mt19937 rng(29);

// x [1, 3, 6, 6] -> Conv(w [4, 3, 3, 3], b, pads 1) -> c [1, 4, 6, 6] -> Sigmoid -> s.
ModelBuilder conv_sigmoid_model() {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {1, 3, 6, 6});
  mb.initializer("w", {4, 3, 3, 3}, onnxc::testing::random_values(108, rng));
  mb.initializer("b", {4}, onnxc::testing::random_values(4, rng));
  auto& conv = mb.node("Conv", {"x", "w", "b"}, {"c"}, "conv");
  ModelBuilder::ints_attr(conv, "pads", {1, 1, 1, 1});
  mb.node("Sigmoid", {"c"}, {"s"}, "sigmoid");
  return mb;
}

}  // namespace

TEST_CASE("fuse-swish: Conv -> x * Sigmoid(x) becomes one Conv with a Swish epilogue",
          "[passes][fusion]") {
  ModelBuilder mb = conv_sigmoid_model();
  mb.node("Mul", {"c", "s"}, {"y"}, "mul");
  mb.output("y", onnx::TensorProto::FLOAT, {1, 4, 6, 6});
  auto l = onnxc::testing::lower(mb, true);
  INFO(l.ir);
  CHECK(filecheck(l.ir, {"CHECK-NOT: Sigmoid", "CHECK-NOT: Mul@",
                         "CHECK: %y: float[1x4x6x6] = Conv@13(%x, %w, %b) "
                         "{fused_activation=\"Swish\", fused_alpha=1, pads=[1, 1, 1, 1]}",
                         "CHECK-NEXT: }"}) == "");
  CHECK(l.stats.at("Sigmoid * x fused into Swish") == 1);
  CHECK(l.stats.at("Swish fused") == 1);
  onnxc::testing::check_same_results(mb);
}

TEST_CASE("fuse-swish: Sigmoid(x) * x on a graph input becomes Swish@24 whatever the opset",
          "[passes][fusion]") {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {2, 40});
  mb.node("Sigmoid", {"x"}, {"s"}, "sigmoid");
  mb.node("Mul", {"s", "x"}, {"y"}, "mul");  // the other operand order
  mb.output("y", onnx::TensorProto::FLOAT, {2, 40});
  auto l = onnxc::testing::lower(mb, true);
  INFO(l.ir);
  CHECK(filecheck(l.ir, {"CHECK: %y: float[2x40] = Swish@24(%x) {alpha=1}", "CHECK-NEXT: }"}) ==
        "");
  onnxc::testing::check_same_results(mb);

  // --disable-pass=fuse-swish keeps both nodes.
  auto kept = onnxc::testing::run_passes(mb, onnxc::testing::disable({"fuse-swish"}));
  REQUIRE(kept.ok);
  CHECK(filecheck(kept.ir_after["dead-code"], {"CHECK: %s: float[2x40] = Sigmoid@13(%x)",
                                               "CHECK-NEXT: %y: float[2x40] = Mul@13(%s, %x)"}) ==
        "");
}

TEST_CASE("fuse-swish leaves a Sigmoid with another user, or a Mul by something else",
          "[passes][fusion]") {
  SECTION("the Sigmoid's output is also a graph output") {
    ModelBuilder mb = conv_sigmoid_model();
    mb.node("Mul", {"c", "s"}, {"y"}, "mul");
    mb.output("y", onnx::TensorProto::FLOAT, {1, 4, 6, 6});
    mb.output("s", onnx::TensorProto::FLOAT, {1, 4, 6, 6});
    auto l = onnxc::testing::lower(mb, true);
    INFO(l.ir);
    CHECK(filecheck(l.ir, {"CHECK: = Sigmoid@13(%c)", "CHECK-NEXT: %y: float[1x4x6x6] = Mul@13"}) ==
          "");
    CHECK(l.stats.count("Sigmoid * x fused into Swish") == 0);
  }
  SECTION("the Mul's other operand is not the Sigmoid's input") {
    ModelBuilder mb = conv_sigmoid_model();
    mb.input("z", onnx::TensorProto::FLOAT, {1, 4, 6, 6});
    mb.node("Mul", {"z", "s"}, {"y"}, "mul");
    mb.output("y", onnx::TensorProto::FLOAT, {1, 4, 6, 6});
    auto l = onnxc::testing::lower(mb, true);
    INFO(l.ir);
    CHECK(filecheck(l.ir, {"CHECK: = Conv@13(%x, %w, %b) {fused_activation=\"Sigmoid\"",
                           "CHECK-NEXT: %y: float[1x4x6x6] = Mul@13(%z, %s)"}) == "");
    onnxc::testing::check_same_results(mb);
  }
  SECTION("Mul(s, s)") {
    ModelBuilder mb = conv_sigmoid_model();
    mb.node("Mul", {"s", "s"}, {"y"}, "mul");
    mb.output("y", onnx::TensorProto::FLOAT, {1, 4, 6, 6});
    auto l = onnxc::testing::lower(mb, true);
    INFO(l.ir);
    CHECK(filecheck(l.ir, {"CHECK: = Mul@13(%s, %s)"}) == "");
  }
}

TEST_CASE(
    "fuse-swish: x * HardSigmoid(x) {1/6, 1/2} (hardswish before opset 14) becomes a "
    "HardSwish epilogue, bit for bit",
    "[passes][fusion]") {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {1, 3, 6, 6});
  mb.initializer("w", {4, 3, 3, 3}, onnxc::testing::random_values(108, rng));
  auto& conv = mb.node("Conv", {"x", "w"}, {"c"}, "conv");
  ModelBuilder::ints_attr(conv, "pads", {1, 1, 1, 1});
  auto& gate = mb.node("HardSigmoid", {"c"}, {"s"}, "hardsigmoid");
  onnxc::testing::float_attr(gate, "alpha", static_cast<float>(1.0 / 6));
  mb.node("Mul", {"c", "s"}, {"y"}, "mul");
  mb.output("y", onnx::TensorProto::FLOAT, {1, 4, 6, 6});
  auto l = onnxc::testing::lower(mb, true);
  INFO(l.ir);
  CHECK(filecheck(l.ir, {"CHECK-NOT: HardSigmoid", "CHECK-NOT: Mul@",
                         "CHECK: %y: float[1x4x6x6] = Conv@13(%x, %w) "
                         "{fused_activation=\"HardSwish\", pads=[1, 1, 1, 1]}"}) == "");
  CHECK(l.stats.at("HardSigmoid * x fused into HardSwish") == 1);
  onnxc::testing::check_same_results(mb, 0.0f);
}

TEST_CASE("fuse-swish leaves x * HardSigmoid(x) of other alpha or beta", "[passes][fusion]") {
  for (const auto& [alpha, beta] : {std::pair{0.2f, 0.5f}, std::pair{1.0f / 6, 0.25f}}) {
    ModelBuilder mb(13);
    mb.input("x", onnx::TensorProto::FLOAT, {2, 40});
    auto& gate = mb.node("HardSigmoid", {"x"}, {"s"}, "hardsigmoid");
    onnxc::testing::float_attr(gate, "alpha", alpha);
    onnxc::testing::float_attr(gate, "beta", beta);
    mb.node("Mul", {"x", "s"}, {"y"}, "mul");
    mb.output("y", onnx::TensorProto::FLOAT, {2, 40});
    auto l = onnxc::testing::lower(mb, true);
    INFO(l.ir);
    CHECK(filecheck(l.ir, {"CHECK: %s: float[2x40] = HardSigmoid@13(%x)",
                           "CHECK-NEXT: %y: float[2x40] = Mul@13(%x, %s)"}) == "");
    CHECK(l.stats.count("HardSigmoid * x fused into HardSwish") == 0);
  }
}
