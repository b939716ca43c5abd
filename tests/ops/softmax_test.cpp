// Softmax / LogSoftmax / Hardmax handlers: the 2-D coercion before opset 13 against the
// single-axis form after, default axes, errors, and folding.
#include <catch2/catch.hpp>
#include <cmath>

#include "ops/infer_harness.h"

using namespace onnxc;
using onnxc::testing::InferHarness;

namespace {
const DataType F = DataType::kFloat;
}

TEST_CASE("Softmax before opset 13 flattens to 2-D at axis (default 1)", "[softmax]") {
  InferHarness h("Softmax", 11);
  h.input(F, {2, 3, 4, 5});
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{2, 3, 4, 5});
  CHECK(h.emit().find("onnxc::f32_softmax__poly(x0, y0, 2, 60, 1);") != std::string::npos);
  InferHarness h2("LogSoftmax", 1);
  h2.input(F, {2, 3, 4, 5});
  h2.attr_int("axis", 2);
  REQUIRE(h2.infer());
  CHECK(h2.emit().find("onnxc::f32_log_softmax__poly(x0, y0, 6, 20, 1);") != std::string::npos);
}

TEST_CASE("Softmax from opset 13 normalizes one axis (default -1)", "[softmax]") {
  InferHarness h("Softmax", 13);
  h.input(F, {2, 3, 4, 5});
  REQUIRE(h.infer());
  CHECK(h.emit().find("onnxc::f32_softmax__poly(x0, y0, 24, 5, 1);") != std::string::npos);
  InferHarness h2("Hardmax", 13);
  h2.input(F, {2, 3, 4, 5});
  h2.attr_int("axis", 1);
  REQUIRE(h2.infer());
  CHECK(h2.emit().find("onnxc::hardmax_ref(x0, y0, 2, 3, 20);") != std::string::npos);
}

TEST_CASE("Softmax errors name the rule", "[softmax]") {
  InferHarness h("Softmax", 13);
  h.input(F, {2, 3});
  h.attr_int("axis", -3);
  CHECK_FALSE(h.infer());
  CHECK(h.error() == "node 'n' (Softmax): axis -3 is out of range for rank 2");
  InferHarness t("LogSoftmax", 13);
  t.input(DataType::kInt32, {2, 3});
  CHECK_FALSE(t.infer());
  CHECK(t.error().find("has type int32, expected one of: float, double") != std::string::npos);
}

TEST_CASE("Softmax folds constants", "[softmax]") {
  InferHarness h("Softmax", 13);
  h.constant<double>(DataType::kDouble, {2}, {0, std::log(3.0)});
  REQUIRE(h.infer());
  REQUIRE(h.fold());
  const double* y = h.folded().as<double>();
  CHECK(y[0] == Approx(0.25));
  CHECK(y[1] == Approx(0.75));
}
