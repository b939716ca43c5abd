// Reduce and ArgMax/ArgMin handlers: axes as attribute or constant input by opset, keepdims,
// noop_with_empty_axes, per-opset types, errors naming the rule, and folding.
#include "onnxc/reduce.h"

#include <catch2/catch.hpp>

#include "ops/infer_harness.h"

using namespace onnxc;
using onnxc::testing::InferHarness;

namespace {
const DataType F = DataType::kFloat;
const DataType I64 = DataType::kInt64;
}  // namespace

TEST_CASE("Reduce axes attribute (before the input opset) and keepdims", "[reduce]") {
  InferHarness h("ReduceMean", 13);
  h.input(F, {2, 3, 4});
  h.attr_ints("axes", {-1, 0});
  h.attr_int("keepdims", 0);
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{3});
  // Kept dim 1 between reduced dims 0 and 2: outer [3] (stride 4), reduced [2, 4], inner 1.
  CHECK(h.emit().find("p = {/*outer_rank=*/1, /*outer_dims=*/{3}, /*outer_strides=*/{4}, "
                      "/*red_rank=*/2, /*red_dims=*/{2, 4}, /*red_strides=*/{12, 1}, "
                      "/*outer_count=*/3, /*inner=*/1, /*red_count=*/8};") != std::string::npos);
}

TEST_CASE("Reduce axes input from opset 13 (ReduceSum) and 18 (the others)", "[reduce]") {
  SECTION("constant axes input") {
    InferHarness h("ReduceSum", 13);
    h.input(F, {2, 3, 4});
    h.constant<int64_t>(I64, {1}, {1});
    REQUIRE(h.infer());
    CHECK(h.out().shape == Shape{2, 1, 4});
    CHECK(h.emit().find("onnxc::reduce_ref<onnxc::ReduceSumOp>(p, x0, y0);") != std::string::npos);
  }
  SECTION("axes must be constant") {
    InferHarness h("ReduceMax", 18);
    h.input(F, {2, 3});
    h.input(I64, {1});
    CHECK_FALSE(h.infer());
    CHECK(h.error() == "node 'n' (ReduceMax): axes input must be a constant");
  }
  SECTION("the attribute is gone once axes is an input") {
    InferHarness h("ReduceMean", 18);
    h.input(F, {2, 3});
    h.attr_ints("axes", {0});
    CHECK_FALSE(h.infer());
    CHECK(h.error().find("axes is an input from opset 18") != std::string::npos);
  }
  SECTION("and it is not an input before") {
    InferHarness h("ReduceMean", 17);
    h.input(F, {2, 3});
    h.constant<int64_t>(I64, {1}, {0});
    CHECK_FALSE(h.infer());
    CHECK(h.error().find("axes is an attribute before opset 18") != std::string::npos);
  }
}

TEST_CASE("Reduce without axes reduces all dims unless noop_with_empty_axes", "[reduce]") {
  InferHarness all("ReduceL2", 18);
  all.input(F, {2, 3});
  REQUIRE(all.infer());
  CHECK(all.out().shape == Shape{1, 1});
  InferHarness noop("ReduceSumSquare", 18);
  noop.input(F, {2, 3});
  noop.constant<int64_t>(I64, {0}, {});
  noop.attr_int("noop_with_empty_axes", 1);
  REQUIRE(noop.infer());
  CHECK(noop.out().shape == Shape{2, 3});
  // noop_with_empty_axes does not exist before the axes input: ignored.
  InferHarness old("ReduceSumSquare", 13);
  old.input(F, {2, 3});
  old.attr_int("noop_with_empty_axes", 1);
  old.attr_int("keepdims", 0);
  REQUIRE(old.infer());
  CHECK(old.out().shape == Shape{});
}

TEST_CASE("Reduce rejects bad axes and types", "[reduce]") {
  SECTION("duplicate axis") {
    InferHarness h("ReduceProd", 13);
    h.input(F, {2, 3});
    h.attr_ints("axes", {1, -1});
    CHECK_FALSE(h.infer());
    CHECK(h.error() == "node 'n' (ReduceProd): axis 1 is listed twice in axes");
  }
  SECTION("axis out of range") {
    InferHarness h("ReduceMin", 13);
    h.input(F, {2, 3});
    h.attr_ints("axes", {2});
    CHECK_FALSE(h.infer());
    CHECK(h.error().find("axes entry 2 is out of range for rank 2") != std::string::npos);
  }
  SECTION("ReduceMax: int8 from 12, bool from 20") {
    InferHarness i8("ReduceMax", 11);
    i8.input(DataType::kInt8, {2});
    CHECK_FALSE(i8.infer());
    CHECK(i8.error().find("int8 is not supported at opset 11") != std::string::npos);
    InferHarness i8ok("ReduceMax", 12);
    i8ok.input(DataType::kInt8, {2});
    CHECK(i8ok.infer());
    InferHarness b("ReduceMin", 18);
    b.input(DataType::kBool, {2});
    CHECK_FALSE(b.infer());
    InferHarness bok("ReduceMin", 20);
    bok.input(DataType::kBool, {2});
    CHECK(bok.infer());
  }
  SECTION("ReduceSum has no bool") {
    InferHarness h("ReduceSum", 20);
    h.input(DataType::kBool, {2});
    CHECK_FALSE(h.infer());
  }
}

TEST_CASE("Reduce folds constant inputs with the runtime kernel", "[reduce]") {
  InferHarness h("ReduceProd", 13);
  h.constant<int64_t>(I64, {3}, {2, 3, 7});  // e.g. a shape tensor
  h.attr_int("keepdims", 0);
  REQUIRE(h.infer());
  REQUIRE(h.fold());
  CHECK(h.folded().to_ints() == std::vector<int64_t>{42});
}

TEST_CASE("ArgMax/ArgMin shapes, int64 output and select_last_index", "[reduce]") {
  InferHarness h("ArgMax", 13);
  h.input(F, {2, 3, 4});
  h.attr_int("axis", -2);
  h.attr_int("keepdims", 0);
  h.attr_int("select_last_index", 1);
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{2, 4});
  CHECK(h.out().dtype == I64);
  CHECK(h.emit().find("onnxc::arg_reduce_ref<true>(x0, y0, /*outer=*/2, /*axis=*/3, /*inner=*/4, "
                      "/*select_last=*/true);") != std::string::npos);
  InferHarness old("ArgMin", 11);  // select_last_index does not exist before 12
  old.input(F, {2, 3});
  old.attr_int("select_last_index", 1);
  REQUIRE(old.infer());
  CHECK(old.out().shape == Shape{1, 3});
  CHECK(
      old.emit().find("onnxc::arg_reduce_ref<false>(x0, y0, /*outer=*/1, /*axis=*/2, /*inner=*/3, "
                      "/*select_last=*/false);") != std::string::npos);
  InferHarness bad("ArgMax", 13);
  bad.input(F, {2, 3});
  bad.attr_int("axis", 2);
  CHECK_FALSE(bad.infer());
  CHECK(bad.error() == "node 'n' (ArgMax): axis 2 is out of range for rank 2");
}

TEST_CASE("ArgMin folds", "[reduce]") {
  InferHarness h("ArgMin", 13);
  h.constant<float>(F, {2, 2}, {3, 1, 0, 5});
  h.attr_int("axis", 1);
  REQUIRE(h.infer());
  REQUIRE(h.fold());
  CHECK(h.folded().to_ints() == std::vector<int64_t>{1, 0});
}
