// matmul-as-gemm on IR text (FileCheck-style) and numerically against the graph without it.
#include <catch2/catch.hpp>

#include "harness/filecheck.h"
#include "passes/fusion_harness.h"
#include "passes/pass_harness.h"

using namespace onnxc;
using onnxc::testing::filecheck;
using onnxc::testing::ModelBuilder;

namespace {

std::mt19937 rng(31);

// x [2, 3, 5] @ w [5, 6] (+ c [6]) -> m.
ModelBuilder linear_model(bool bias) {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {2, 3, 5});
  mb.initializer("w", {5, 6}, onnxc::testing::random_values(30, rng));
  mb.node("MatMul", {"x", "w"}, {"m"}, "matmul");
  if (bias) {
    mb.initializer("c", {6}, onnxc::testing::random_values(6, rng));
    mb.node("Add", {"m", "c"}, {"a"}, "add");
  }
  return mb;
}

}  // namespace

TEST_CASE("matmul-as-gemm: a linear layer over a batch is one Gemm between two views",
          "[passes][fusion]") {
  ModelBuilder mb = linear_model(true);
  mb.input("r", onnx::TensorProto::FLOAT, {2, 3, 6});
  mb.node("Add", {"a", "r"}, {"s"}, "residual");
  mb.node("Relu", {"s"}, {"y"}, "relu");
  mb.node("Neg", {"y"}, {"z"}, "neg");  // a graph output's Reshape would copy: y is not one
  mb.output("z", onnx::TensorProto::FLOAT, {2, 3, 6});
  auto l = onnxc::testing::lower(mb, true);
  INFO(l.ir);
  CHECK(filecheck(l.ir, {"CHECK-NOT: MatMul@",
                         "CHECK: %x_rows: float[6x5] = Reshape@13(%x, %matmul/rows_shape)",
                         "CHECK-NEXT: %r_rows: float[6x6] = Reshape@13(%r, "
                         "%matmul/residual_rows_shape)",
                         "CHECK-NEXT: %y_rows: float[6x6] = Gemm@13(%x_rows, %w, %c, %r_rows) "
                         "{fused_activation=\"Relu\"}",
                         "CHECK-NEXT: %y: float[2x3x6] = Reshape@13(%y_rows, "
                         "%matmul/unrows_shape)",
                         "CHECK-NEXT: %z: float[2x3x6] = Neg@13(%y)"}) == "");
  CHECK(l.stats.at("MatMuls made Gemms") == 1);
  onnxc::testing::check_same_results(mb);

  // The Reshapes are views: the Gemm writes the graph output's buffer, nothing is copied.
  auto r = onnxc::testing::run_passes(mb);
  REQUIRE(r.ok);
  CHECK(r.stats.find("MatMuls made Gemms") != std::string::npos);
  CHECK(filecheck(r.ir_after["assign-storage"],
                  {"CHECK: %x_rows: view of %x+0; no code", "CHECK: %r_rows: view of %r+0; no code",
                   "CHECK: Gemm@13", "CHECK: %y: view of %y_rows+0; no code"}) == "");
}

TEST_CASE("matmul-as-gemm: a 2-D MatMul by a constant becomes a Gemm in place, transA kept",
          "[passes][fusion]") {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {5, 3});
  mb.initializer("w", {6, 5}, onnxc::testing::random_values(30, rng));
  mb.node("Transpose", {"x"}, {"xt"}, "xt");
  mb.node("Transpose", {"w"}, {"wt"}, "wt");
  mb.node("MatMul", {"xt", "wt"}, {"y"}, "matmul");
  mb.output("y", onnx::TensorProto::FLOAT, {3, 6});
  auto l = onnxc::testing::lower(mb, true);
  INFO(l.ir);
  CHECK(filecheck(l.ir, {"CHECK-NOT: Reshape",
                         "CHECK: %y: float[3x6] = Gemm@13(%x, %wt) {transA=1}", "CHECK-NEXT: }"}) ==
        "");
  onnxc::testing::check_same_results(mb);
}

TEST_CASE("matmul-as-gemm leaves MatMuls that are not linear layers", "[passes][fusion]") {
  SECTION("B is a run-time value") {
    ModelBuilder mb(13);
    mb.input("x", onnx::TensorProto::FLOAT, {2, 3, 5});
    mb.input("w", onnx::TensorProto::FLOAT, {5, 6});
    mb.node("MatMul", {"x", "w"}, {"y"}, "matmul");
    mb.output("y", onnx::TensorProto::FLOAT, {2, 3, 6});
    auto l = onnxc::testing::lower(mb, true);
    CHECK(filecheck(l.ir, {"CHECK: %y: float[2x3x6] = MatMul@13(%x, %w)"}) == "");
  }
  SECTION("B has batch dims") {
    ModelBuilder mb(13);
    mb.input("x", onnx::TensorProto::FLOAT, {2, 3, 5});
    mb.initializer("w", {2, 5, 6}, onnxc::testing::random_values(60, rng));
    mb.node("MatMul", {"x", "w"}, {"y"}, "matmul");
    mb.output("y", onnx::TensorProto::FLOAT, {2, 3, 6});
    auto l = onnxc::testing::lower(mb, true);
    CHECK(filecheck(l.ir, {"CHECK: %y: float[2x3x6] = MatMul@13(%x, %w)"}) == "");
  }
  SECTION("with batch dims, Y is a graph output") {
    ModelBuilder mb = linear_model(false);
    mb.output("m", onnx::TensorProto::FLOAT, {2, 3, 6});
    auto l = onnxc::testing::lower(mb, true);
    CHECK(filecheck(l.ir, {"CHECK: %m: float[2x3x6] = MatMul@13(%x, %w)"}) == "");
  }
  SECTION("--disable-pass=matmul-as-gemm") {
    ModelBuilder mb = linear_model(false);
    mb.output("m", onnx::TensorProto::FLOAT, {2, 3, 6});
    auto kept = onnxc::testing::run_passes(mb, onnxc::testing::disable({"matmul-as-gemm"}));
    REQUIRE(kept.ok);
    CHECK(filecheck(kept.ir_after["dead-code"], {"CHECK: %m: float[2x3x6] = MatMul@13(%x, %w)"}) ==
          "");
  }
}
