// scale-filters on IR text (FileCheck-style) and numerically against the unfolded graph.
#include <catch2/catch.hpp>

#include "harness/filecheck.h"
#include "passes/fusion_harness.h"
#include "passes/pass_harness.h"

using namespace onnxc;
using onnxc::testing::filecheck;
using onnxc::testing::ModelBuilder;

namespace {

std::mt19937 rng(31);

// Squeeze-and-excitation as EfficientNet exports it: x [1, 8, 6, 6] -> GlobalAveragePool ->
// Conv(8 -> 8) -> Sigmoid -> s [1, 8, 1, 1]; y = x * s (operands in `order`) -> Conv(w, b),
// w [cout, 8, k, k], named "project".
ModelBuilder se_model(int64_t cout, int64_t k, bool scale_first, int64_t group = 1) {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {1, 8, 6, 6});
  mb.initializer("we", {8, 8, 1, 1}, onnxc::testing::random_values(64, rng));
  mb.initializer("w", {cout, 8 / group, k, k},
                 onnxc::testing::random_values(static_cast<size_t>(cout * 8 / group * k * k), rng));
  mb.initializer("b", {cout}, onnxc::testing::random_values(static_cast<size_t>(cout), rng));
  mb.node("GlobalAveragePool", {"x"}, {"pooled"}, "pool");
  mb.node("Conv", {"pooled", "we"}, {"excite"}, "excite");
  mb.node("Sigmoid", {"excite"}, {"s"}, "gate");
  mb.node("Mul",
          scale_first ? std::vector<std::string>{"s", "x"} : std::vector<std::string>{"x", "s"},
          {"y"}, "scale");
  auto& conv = mb.node("Conv", {"y", "w", "b"}, {"out"}, "project");
  if (k == 3) ModelBuilder::ints_attr(conv, "pads", {1, 1, 1, 1});
  if (group != 1) ModelBuilder::int_attr(conv, "group", group);
  mb.output("out", onnx::TensorProto::FLOAT, {1, cout, 6, 6});
  return mb;
}

}  // namespace

TEST_CASE("scale-filters: x * s[1,C,1,1] -> Conv scales the Conv's filters instead",
          "[passes][fusion]") {
  for (bool scale_first : {false, true}) {
    ModelBuilder mb = se_model(4, 1, scale_first);
    auto l = onnxc::testing::lower(mb, true);
    INFO(l.ir);
    CHECK(filecheck(l.ir, {"CHECK: %w_scaled: float[4x8x1x1] = Mul@13(%w, %s)",
                           "CHECK-NEXT: %out: float[1x4x6x6] = Conv@13(%x, %w_scaled, %b)",
                           "CHECK-NOT: Mul@"}) == "");
    CHECK(l.stats.at("channel scale folded into Conv filters") == 1);
    onnxc::testing::check_same_results(mb);
  }
  // Any kernel and padding: Conv(s * x, W) = Conv(x, W * s) for a group-1 Conv.
  ModelBuilder k3 = se_model(2, 3, false);
  auto l = onnxc::testing::lower(k3, true);
  INFO(l.ir);
  CHECK(filecheck(l.ir, {"CHECK: %w_scaled: float[2x8x3x3] = Mul@13(%w, %s)"}) == "");
  onnxc::testing::check_same_results(k3);

  // --disable-pass=scale-filters keeps the Mul on x.
  ModelBuilder plain = se_model(4, 1, false);
  auto kept = onnxc::testing::run_passes(plain, onnxc::testing::disable({"scale-filters"}));
  REQUIRE(kept.ok);
  CHECK(filecheck(kept.ir_after["dead-code"], {"CHECK: %y: float[1x8x6x6] = Mul@13(%x, %s)"}) ==
        "");
}

TEST_CASE("scale-filters leaves big filters, grouped Convs and shared scaled inputs",
          "[passes][fusion]") {
  SECTION("the filters hold as many values as x") {  // 36 x 8 x 1 x 1 = 288 = 8 x 6 x 6
    ModelBuilder mb = se_model(36, 1, false);
    auto l = onnxc::testing::lower(mb, true);
    INFO(l.ir);
    CHECK(filecheck(l.ir, {"CHECK: %y: float[1x8x6x6] = Mul@13(%x, %s)"}) == "");
    CHECK(l.stats.count("channel scale folded into Conv filters") == 0);
  }
  SECTION("a grouped Conv") {
    ModelBuilder mb = se_model(4, 1, false, 2);
    auto l = onnxc::testing::lower(mb, true);
    INFO(l.ir);
    CHECK(filecheck(l.ir, {"CHECK: %y: float[1x8x6x6] = Mul@13(%x, %s)"}) == "");
    onnxc::testing::check_same_results(mb);
  }
  SECTION("the scaled input is also a graph output") {
    ModelBuilder mb = se_model(4, 1, false);
    mb.output("y", onnx::TensorProto::FLOAT, {1, 8, 6, 6});
    auto l = onnxc::testing::lower(mb, true);
    INFO(l.ir);
    CHECK(filecheck(l.ir, {"CHECK: %y: float[1x8x6x6] = Mul@13(%x, %s)"}) == "");
  }
  SECTION("filters computed after the Mul") {
    ModelBuilder mb(13);
    mb.input("x", onnx::TensorProto::FLOAT, {1, 8, 6, 6});
    mb.input("s", onnx::TensorProto::FLOAT, {1, 8, 1, 1});
    mb.input("w_in", onnx::TensorProto::FLOAT, {2, 8, 1, 1});
    mb.node("Mul", {"x", "s"}, {"y"}, "scale");
    mb.node("Relu", {"w_in"}, {"w"}, "filters");  // after the Mul in node order
    mb.node("Conv", {"y", "w"}, {"out"}, "project");
    mb.output("out", onnx::TensorProto::FLOAT, {1, 2, 6, 6});
    auto l = onnxc::testing::lower(mb, true);
    INFO(l.ir);
    CHECK(filecheck(l.ir, {"CHECK: %y: float[1x8x6x6] = Mul@13(%x, %s)"}) == "");
    onnxc::testing::check_same_results(mb);
  }
  SECTION("a scale that varies along H") {
    ModelBuilder mb(13);
    mb.input("x", onnx::TensorProto::FLOAT, {1, 8, 6, 6});
    mb.input("s", onnx::TensorProto::FLOAT, {1, 1, 6, 1});
    mb.initializer("w", {2, 8, 1, 1}, onnxc::testing::random_values(16, rng));
    mb.node("Mul", {"x", "s"}, {"y"}, "scale");
    mb.node("Conv", {"y", "w"}, {"out"}, "project");
    mb.output("out", onnx::TensorProto::FLOAT, {1, 2, 6, 6});
    auto l = onnxc::testing::lower(mb, true);
    INFO(l.ir);
    CHECK(filecheck(l.ir, {"CHECK: %y: float[1x8x6x6] = Mul@13(%x, %s)"}) == "");
  }
}
