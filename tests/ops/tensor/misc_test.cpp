// EyeLike, ReverseSequence, Det and Einsum handlers: shapes, refusals, emitted calls and folding.
#include <catch2/catch.hpp>

#include "ops/infer_harness.h"

using namespace onnxc;
using onnxc::testing::InferHarness;

namespace {
const DataType F = DataType::kFloat;
const DataType D = DataType::kDouble;
}  // namespace

TEST_CASE("EyeLike takes dtype and k", "[misc_ops]") {
  InferHarness h("EyeLike", 22);
  h.constant<int32_t>(DataType::kInt32, {2, 3}, {0, 0, 0, 0, 0, 0});
  h.attr_int("dtype", static_cast<int>(D));
  h.attr_int("k", 1);
  REQUIRE(h.infer());
  CHECK(h.out().dtype == D);
  REQUIRE(h.fold());
  const double* y = h.folded().as<double>();
  CHECK(std::vector<double>(y, y + 6) == std::vector<double>{0, 1, 0, 0, 0, 1});
  InferHarness bad("EyeLike", 22);
  bad.input(F, {2, 2, 2});
  CHECK_FALSE(bad.infer());
  CHECK(bad.error().find("input must be 2-D") != std::string::npos);
}

TEST_CASE("ReverseSequence reverses the first lens[b] steps", "[misc_ops]") {
  // time_axis 0, batch_axis 1: x[t, b] = 10 t + b; lens {3, 1}.
  InferHarness h("ReverseSequence", 10);
  h.constant<float>(F, {3, 2}, {0, 1, 10, 11, 20, 21});
  h.constant<int64_t>(DataType::kInt64, {2}, {3, 1});
  REQUIRE(h.infer());
  REQUIRE(h.fold());
  const float* y = h.folded().as<float>();
  CHECK(std::vector<float>(y, y + 6) == std::vector<float>{20, 1, 10, 11, 0, 21});
  InferHarness bad("ReverseSequence", 10);
  bad.input(F, {3, 2});
  bad.input(DataType::kInt64, {3});
  CHECK_FALSE(bad.infer());
  CHECK(bad.error().find("sequence_lens must have shape [2]") != std::string::npos);
}

TEST_CASE("Det of a batch of matrices", "[misc_ops]") {
  InferHarness h("Det", 22);
  h.constant<float>(F, {2, 2, 2}, {1, 2, 3, 4, 2, 0, 0, 3});
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{2});
  CHECK(h.node().scratch_bytes == 4 * sizeof(float));
  REQUIRE(h.fold());
  CHECK(h.folded().as<float>()[0] == Approx(-2));
  CHECK(h.folded().as<float>()[1] == Approx(6));
  InferHarness bad("Det", 22);
  bad.input(F, {2, 3});
  CHECK_FALSE(bad.infer());
}

TEST_CASE("Einsum parses explicit and implicit equations", "[misc_ops]") {
  InferHarness mm("Einsum", 12);
  mm.input(D, {5, 2, 3});
  mm.input(D, {5, 3, 4});
  mm.node().attributes["equation"].kind = Attribute::Kind::kString;
  mm.node().attributes["equation"].s = "bij, bjk -> bik";
  REQUIRE(mm.infer());
  CHECK(mm.out().shape == Shape{5, 2, 4});
  InferHarness implicit("Einsum", 12);  // "ij,jk": output ik (labels used once, sorted)
  implicit.constant<double>(D, {2, 2}, {1, 2, 3, 4});
  implicit.constant<double>(D, {2, 2}, {5, 6, 7, 8});
  implicit.node().attributes["equation"].kind = Attribute::Kind::kString;
  implicit.node().attributes["equation"].s = "ij,jk";
  REQUIRE(implicit.infer());
  REQUIRE(implicit.fold());
  const double* y = implicit.folded().as<double>();
  CHECK(std::vector<double>(y, y + 4) == std::vector<double>{19, 22, 43, 50});
  InferHarness diag("Einsum", 12);
  diag.constant<double>(D, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  diag.node().attributes["equation"].kind = Attribute::Kind::kString;
  diag.node().attributes["equation"].s = "...ii->...i";
  REQUIRE(diag.infer());
  REQUIRE(diag.fold());
  y = diag.folded().as<double>();
  CHECK(std::vector<double>(y, y + 4) == std::vector<double>{1, 4, 5, 8});
  InferHarness bad("Einsum", 12);
  bad.input(D, {2, 3});
  bad.input(D, {4, 5});
  bad.node().attributes["equation"].kind = Attribute::Kind::kString;
  bad.node().attributes["equation"].s = "ij,jk->ik";
  CHECK_FALSE(bad.infer());
  CHECK(bad.error().find("label 'j' of 'ij,jk->ik' has sizes 3 and 4") != std::string::npos);
}
