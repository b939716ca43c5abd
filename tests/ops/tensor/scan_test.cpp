// CumSum / CumProd / TopK / Compress / NonZero / Unique handlers: the [outer, n, inner] views,
// refusals of run-time values that decide shapes, and folding (values worked out by hand).
#include <catch2/catch.hpp>

#include "ops/infer_harness.h"

using namespace onnxc;
using onnxc::testing::InferHarness;

namespace {
const DataType F = DataType::kFloat;
const DataType I64 = DataType::kInt64;

template <typename T>
std::vector<T> values(const Tensor& t) {
  return std::vector<T>(t.as<T>(), t.as<T>() + t.numel());
}
}  // namespace

TEST_CASE("CumSum needs a constant axis and emits the [outer, n, inner] view", "[scan_ops]") {
  InferHarness h("CumSum", 14);
  h.input(F, {2, 3, 4});
  h.constant<int64_t>(I64, {}, {-2});
  h.attr_int("reverse", 1);
  REQUIRE(h.infer());
  CHECK(h.emit().find("onnxc::cumsum_ref(x0, y0, /*outer=*/2, /*n=*/3, /*inner=*/4, "
                      "/*exclusive=*/false, /*reverse=*/true);") != std::string::npos);
  InferHarness run_time("CumSum", 14);
  run_time.input(F, {2, 3});
  run_time.input(I64, {});
  CHECK_FALSE(run_time.infer());
  CHECK(run_time.error().find("axis input must be a constant") != std::string::npos);
  InferHarness ints("CumSum", 11);
  ints.input(DataType::kUint8, {3});
  ints.constant<int64_t>(I64, {}, {0});
  CHECK_FALSE(ints.infer());
}

TEST_CASE("CumProd folds exclusive products", "[scan_ops]") {
  InferHarness h("CumProd", 26);
  h.constant<double>(DataType::kDouble, {4}, {1, 2, 3, 4});
  h.constant<int64_t>(I64, {}, {0});
  h.attr_int("exclusive", 1);
  REQUIRE(h.infer());
  REQUIRE(h.fold());
  CHECK(values<double>(h.folded()) == std::vector<double>{1, 1, 2, 6});
}

TEST_CASE("TopK: shapes, scratch, refusals and folding", "[scan_ops]") {
  InferHarness h("TopK", 11);
  h.input(F, {3, 5});
  h.constant<int64_t>(I64, {1}, {2});
  h.outputs(2);
  REQUIRE(h.infer());
  CHECK(h.out(0).shape == Shape{3, 2});
  CHECK(h.out(1).dtype == I64);
  CHECK(h.node().scratch_bytes == 5 * sizeof(index_t));
  InferHarness big("TopK", 11);
  big.input(F, {3, 5});
  big.constant<int64_t>(I64, {1}, {6});
  big.outputs(2);
  CHECK_FALSE(big.infer());
  CHECK(big.error().find("K = 6 must be in [0, 5]") != std::string::npos);
  InferHarness fold("TopK", 11);
  fold.constant<float>(F, {5}, {3, 1, 3, 7, 0});
  fold.constant<int64_t>(I64, {1}, {3});
  fold.outputs(2);
  fold.attr_int("largest", 0);
  REQUIRE(fold.infer());
  REQUIRE(fold.fold());
  CHECK(values<float>(fold.folded(0)) == std::vector<float>{0, 1, 3});
  CHECK(values<int64_t>(fold.folded(1)) == std::vector<int64_t>{4, 1, 0});
  InferHarness v1("TopK", 1);
  v1.input(F, {4, 6});
  v1.attr_int("k", 3);
  v1.attr_int("axis", 0);
  v1.outputs(2);
  REQUIRE(v1.infer());
  CHECK(v1.out(0).shape == Shape{3, 6});
}

TEST_CASE("Compress with a constant condition is a gather, otherwise refused", "[scan_ops]") {
  InferHarness h("Compress", 11);
  h.input(F, {3, 2});
  h.constant<bool>(DataType::kBool, {2}, {false, true});
  h.attr_int("axis", -1);
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{3, 1});
  CHECK(h.emit().find("selected[] = {1};") != std::string::npos);
  InferHarness flat("Compress", 11);
  flat.constant<float>(F, {2, 2}, {1, 2, 3, 4});
  flat.constant<bool>(DataType::kBool, {3}, {true, false, true});
  REQUIRE(flat.infer());
  REQUIRE(flat.fold());
  CHECK(values<float>(flat.folded()) == std::vector<float>{1, 3});
  InferHarness run_time("Compress", 11);
  run_time.input(F, {3, 2});
  run_time.input(DataType::kBool, {3});
  CHECK_FALSE(run_time.infer());
  CHECK(run_time.error().find("condition input must be a constant") != std::string::npos);
  CHECK(run_time.error().find("not supported") != std::string::npos);
}

TEST_CASE("NonZero and Unique fold constants and refuse run-time data", "[scan_ops]") {
  InferHarness nz("NonZero", 13);
  nz.constant<int64_t>(I64, {2, 2}, {1, 0, 0, 5});
  REQUIRE(nz.infer());
  CHECK(values<int64_t>(nz.folded()) == std::vector<int64_t>{0, 1, 0, 1});
  InferHarness rt("NonZero", 13);
  rt.input(F, {2, 2});
  CHECK_FALSE(rt.infer());
  CHECK(rt.error().find("must be a constant") != std::string::npos);

  InferHarness u("Unique", 11);
  u.constant<float>(F, {6}, {2, 1, 1, 3, 4, 3});
  u.outputs(4);
  u.attr_int("sorted", 0);
  REQUIRE(u.infer());
  CHECK(values<float>(u.folded(0)) == std::vector<float>{2, 1, 3, 4});
  CHECK(values<int64_t>(u.folded(1)) == std::vector<int64_t>{0, 1, 3, 4});
  CHECK(values<int64_t>(u.folded(2)) == std::vector<int64_t>{0, 1, 1, 2, 3, 2});
  CHECK(values<int64_t>(u.folded(3)) == std::vector<int64_t>{1, 2, 2, 1});
  InferHarness rows("Unique", 11);  // rows [1 0], [0 1], [1 0] sorted -> [0 1], [1 0]
  rows.constant<int64_t>(I64, {3, 2}, {1, 0, 0, 1, 1, 0});
  rows.outputs(4);
  rows.attr_int("axis", 0);
  REQUIRE(rows.infer());
  CHECK(rows.out(0).shape == Shape{2, 2});
  CHECK(values<int64_t>(rows.folded(0)) == std::vector<int64_t>{0, 1, 1, 0});
  CHECK(values<int64_t>(rows.folded(2)) == std::vector<int64_t>{1, 0, 1});
}
