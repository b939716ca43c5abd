// ScatterND / ScatterElements / Scatter / GatherND handlers: shapes, params, errors and folding
// (expected values worked out by hand from the spec's definitions).
#include <catch2/catch.hpp>

#include "ops/infer_harness.h"

using namespace onnxc;
using onnxc::testing::InferHarness;

namespace {
const DataType F = DataType::kFloat;
const DataType I64 = DataType::kInt64;

std::vector<float> floats(const Tensor& t) {
  return std::vector<float>(t.as<float>(), t.as<float>() + t.numel());
}
}  // namespace

TEST_CASE("ScatterND writes slices and folds with reductions", "[scatter_gather]") {
  // data [4, 2]; indices [[1], [3], [1]] pick rows; updates [3, 2].
  InferHarness h("ScatterND", 18);
  h.constant<float>(F, {4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  h.constant<int64_t>(I64, {3, 1}, {1, 3, 1});
  h.constant<float>(F, {3, 2}, {10, 20, 30, 40, 50, 60});
  h.node().attributes["reduction"].kind = Attribute::Kind::kString;
  h.node().attributes["reduction"].s = "add";
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{4, 2});
  REQUIRE(h.fold());
  // row 1: 3+10+50, 4+20+60; row 3: 7+30, 8+40.
  CHECK(floats(h.folded()) == std::vector<float>{1, 2, 63, 84, 5, 6, 37, 48});
  CHECK(h.emit().find("onnxc::scatter_nd_ref(p, x0, x1, x2, y0);") != std::string::npos);
}

TEST_CASE("ScatterND checks the updates shape and constant indices", "[scatter_gather]") {
  InferHarness bad("ScatterND", 13);
  bad.input(F, {4, 2});
  bad.input(I64, {3, 1});
  bad.input(F, {3, 3});
  CHECK_FALSE(bad.infer());
  CHECK(bad.error().find("expected 3x2") != std::string::npos);
  InferHarness range("ScatterND", 13);
  range.input(F, {4, 2});
  range.constant<int64_t>(I64, {1, 1}, {4});
  range.input(F, {1, 2});
  CHECK_FALSE(range.infer());
  CHECK(range.error().find("index 4 is out of range") != std::string::npos);
  InferHarness old("ScatterND", 16);
  old.input(F, {4, 2});
  old.input(I64, {1, 1});
  old.input(F, {1, 2});
  old.node().attributes["reduction"].kind = Attribute::Kind::kString;
  old.node().attributes["reduction"].s = "max";
  CHECK_FALSE(old.infer());
  CHECK(old.error().find("reduction 'max' is not valid at opset 16") != std::string::npos);
}

TEST_CASE("ScatterElements and Scatter fold along an axis", "[scatter_gather]") {
  for (const char* op : {"ScatterElements", "Scatter"}) {
    InferHarness h(op, std::string(op) == "Scatter" ? 10 : 13);
    h.constant<float>(F, {1, 5}, {1, 2, 3, 4, 5});
    h.constant<int64_t>(I64, {1, 2}, {1, -2});
    h.constant<float>(F, {1, 2}, {1.1f, 2.1f});
    h.attr_int("axis", 1);
    REQUIRE(h.infer());
    REQUIRE(h.fold());
    CHECK(floats(h.folded()) == std::vector<float>{1, 1.1f, 3, 2.1f, 5});
  }
  InferHarness bad("ScatterElements", 13);
  bad.input(F, {2, 2});
  bad.input(I64, {2, 2});
  bad.input(F, {2, 1});
  CHECK_FALSE(bad.infer());
  CHECK(bad.error().find("must have the shape of indices") != std::string::npos);
}

TEST_CASE("GatherND with batch_dims", "[scatter_gather]") {
  // data [2, 2, 2], indices [[1], [0]] with batch_dims 1 -> [[2, 3], [4, 5]].
  InferHarness h("GatherND", 13);
  h.constant<float>(F, {2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  h.constant<int64_t>(I64, {2, 1}, {1, 0});
  h.attr_int("batch_dims", 1);
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{2, 2});
  REQUIRE(h.fold());
  CHECK(floats(h.folded()) == std::vector<float>{2, 3, 4, 5});
  InferHarness full("GatherND", 11);
  full.input(F, {2, 3});
  full.input(I64, {4, 2});
  REQUIRE(full.infer());
  CHECK(full.out().shape == Shape{4});
  InferHarness bad("GatherND", 13);
  bad.input(F, {2, 3});
  bad.input(I64, {4, 3});
  CHECK_FALSE(bad.infer());
  CHECK(bad.error().find("indices.shape[-1] = 3 must be in [1, rank(data) - batch_dims = 2]") !=
        std::string::npos);
}
