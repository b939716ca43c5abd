// fuse-matmul-add on IR text (FileCheck-style; with matmul-as-gemm off, which would turn the
// MatMuls it leaves into Gemms) and numerically against the unfused graph.
#include <catch2/catch.hpp>

#include "harness/filecheck.h"
#include "passes/fusion_harness.h"

using namespace onnxc;
using onnxc::testing::filecheck;
using onnxc::testing::ModelBuilder;

namespace {
std::mt19937 rng(27);
}  // namespace

TEST_CASE("fuse-matmul-add turns 2-D MatMul + Add(bias row) into Gemm", "[passes][fusion]") {
  for (auto bias_shape : {std::vector<int64_t>{6}, std::vector<int64_t>{1, 6}}) {
    ModelBuilder mb(13);
    mb.input("x", onnx::TensorProto::FLOAT, {3, 5});
    mb.initializer("w", {5, 6}, onnxc::testing::random_values(30, rng));
    mb.initializer("c", bias_shape, onnxc::testing::random_values(6, rng));
    mb.node("MatMul", {"x", "w"}, {"m"}, "matmul");
    mb.node("Add", {"c", "m"}, {"y"}, "add");
    mb.output("y", onnx::TensorProto::FLOAT, {3, 6});
    auto l = onnxc::testing::lower(mb, true, {"matmul-as-gemm"});
    INFO(l.ir);
    const std::string bias = bias_shape.size() == 1 ? "%c" : "%matmul_bias";
    CHECK(filecheck(l.ir,
                    {"CHECK-NOT: MatMul@", "CHECK: %y: float[3x6] = Gemm@13(%x, %w, " + bias + ")",
                     "CHECK-NEXT: }"}) == "");
    CHECK(l.stats.at("MatMul+Add made Gemm") == 1);
    onnxc::testing::check_same_results(mb);
  }
}

TEST_CASE("fuse-matmul-add gives a batched MatMul a bias input", "[passes][fusion]") {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {2, 3, 5});
  mb.input("c", onnx::TensorProto::FLOAT, {6});  // a run-time bias row
  mb.initializer("w", {5, 6}, onnxc::testing::random_values(30, rng));
  mb.node("MatMul", {"x", "w"}, {"m"}, "matmul");
  mb.node("Add", {"m", "c"}, {"y"}, "add");
  mb.output("y", onnx::TensorProto::FLOAT, {2, 3, 6});
  auto l = onnxc::testing::lower(mb, true, {"matmul-as-gemm"});
  INFO(l.ir);
  CHECK(filecheck(l.ir, {"CHECK: %y: float[2x3x6] = MatMul@13(%x, %w, %c)", "CHECK-NEXT: }"}) ==
        "");
  onnxc::testing::check_same_results(mb);
}

TEST_CASE("fuse-matmul-add folds Transposes of the last two axes into transA / transB",
          "[passes][fusion]") {
  SECTION("2-D: MatMul(Transpose(a), b) + Add -> Gemm {transA=1}") {
    ModelBuilder mb(13);
    mb.input("a", onnx::TensorProto::FLOAT, {5, 3}).input("b", onnx::TensorProto::FLOAT, {5, 4});
    mb.initializer("c", {4}, onnxc::testing::random_values(4, rng));
    mb.node("Transpose", {"a"}, {"at"}, "transpose");
    mb.node("MatMul", {"at", "b"}, {"m"}, "matmul");
    mb.node("Add", {"m", "c"}, {"y"}, "add");
    mb.output("y", onnx::TensorProto::FLOAT, {3, 4});
    auto l = onnxc::testing::lower(mb, true, {"matmul-as-gemm"});
    INFO(l.ir);
    CHECK(filecheck(l.ir, {"CHECK-NOT: Transpose@",
                           "CHECK: %y: float[3x4] = Gemm@13(%a, %b, %c) {transA=1}"}) == "");
    onnxc::testing::check_same_results(mb);
  }
  SECTION("batched: MatMul(q, Transpose(k, perm=[0, 2, 1])) -> MatMul {transB=1}") {
    ModelBuilder mb(13);
    mb.input("q", onnx::TensorProto::FLOAT, {2, 3, 8})
        .input("k", onnx::TensorProto::FLOAT, {2, 7, 8});
    auto& t = mb.node("Transpose", {"k"}, {"kt"}, "transpose");
    ModelBuilder::ints_attr(t, "perm", {0, 2, 1});
    mb.node("MatMul", {"q", "kt"}, {"y"}, "matmul");
    mb.output("y", onnx::TensorProto::FLOAT, {2, 3, 7});
    auto l = onnxc::testing::lower(mb, true, {"matmul-as-gemm"});
    INFO(l.ir);
    CHECK(filecheck(l.ir, {"CHECK-NOT: Transpose@",
                           "CHECK: %y: float[2x3x7] = MatMul@13(%q, %k) {transB=1}"}) == "");
    onnxc::testing::check_same_results(mb);
  }
  SECTION("Gemm(a, Transpose(b)) with transB=1 already: the flags cancel") {
    ModelBuilder mb(13);
    mb.input("a", onnx::TensorProto::FLOAT, {3, 5}).input("b", onnx::TensorProto::FLOAT, {5, 4});
    mb.node("Transpose", {"b"}, {"bt"}, "transpose");
    auto& g = mb.node("Gemm", {"a", "bt"}, {"y"}, "gemm");
    ModelBuilder::int_attr(g, "transB", 1);
    mb.output("y", onnx::TensorProto::FLOAT, {3, 4});
    auto l = onnxc::testing::lower(mb, true, {"matmul-as-gemm"});
    INFO(l.ir);
    CHECK(filecheck(l.ir, {"CHECK-NOT: Transpose@",
                           "CHECK: %y: float[3x4] = Gemm@13(%a, %b) {transB=0}"}) == "");
    onnxc::testing::check_same_results(mb);
  }
}

TEST_CASE("fuse-matmul-add leaves what it must not fuse", "[passes][fusion]") {
  SECTION("an Add along another axis") {
    ModelBuilder mb(13);
    mb.input("x", onnx::TensorProto::FLOAT, {3, 5});
    mb.initializer("w", {5, 6}, onnxc::testing::random_values(30, rng));
    mb.initializer("c", {3, 1}, onnxc::testing::random_values(3, rng));
    mb.node("MatMul", {"x", "w"}, {"m"}, "matmul");
    mb.node("Add", {"m", "c"}, {"y"}, "add");
    mb.output("y", onnx::TensorProto::FLOAT, {3, 6});
    auto l = onnxc::testing::lower(mb, true, {"matmul-as-gemm"});
    CHECK(filecheck(l.ir, {"CHECK: %m: float[3x6] = MatMul@13(%x, %w)",
                           "CHECK-NEXT: %y: float[3x6] = Add@13(%m, %c)"}) == "");
  }
  SECTION("the MatMul output has another user") {
    ModelBuilder mb(13);
    mb.input("x", onnx::TensorProto::FLOAT, {3, 5});
    mb.initializer("w", {5, 6}, onnxc::testing::random_values(30, rng));
    mb.initializer("c", {6}, onnxc::testing::random_values(6, rng));
    mb.node("MatMul", {"x", "w"}, {"m"}, "matmul");
    mb.node("Add", {"m", "c"}, {"y"}, "add");
    mb.output("y", onnx::TensorProto::FLOAT, {3, 6}).output("m", onnx::TensorProto::FLOAT, {3, 6});
    auto l = onnxc::testing::lower(mb, true, {"matmul-as-gemm"});
    CHECK(filecheck(l.ir, {"CHECK: %m: float[3x6] = MatMul@13(%x, %w)",
                           "CHECK-NEXT: %y: float[3x6] = Add@13(%m, %c)"}) == "");
  }
  SECTION("a Transpose that does not swap the last two axes") {
    ModelBuilder mb(13);
    mb.input("q", onnx::TensorProto::FLOAT, {3, 2, 8})
        .input("k", onnx::TensorProto::FLOAT, {2, 8, 7});
    auto& t = mb.node("Transpose", {"q"}, {"qt"}, "transpose");
    ModelBuilder::ints_attr(t, "perm", {1, 0, 2});
    mb.node("MatMul", {"qt", "k"}, {"y"}, "matmul");
    mb.output("y", onnx::TensorProto::FLOAT, {2, 3, 7});
    auto l = onnxc::testing::lower(mb, true, {"matmul-as-gemm"});
    CHECK(filecheck(l.ir, {"CHECK: %qt: float[2x3x8] = Transpose@13(%q)",
                           "CHECK: = MatMul@13(%qt, %k)"}) == "");
  }
}
