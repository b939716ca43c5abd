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
  // The softmax axis is the last of the [outer, axis, inner] view: the row kernel.
  CHECK(h.emit().find("onnxc::f32_softmax_rows__scalar(x0, y0, /*outer=*/2, /*axis=*/60);") !=
        std::string::npos);
  InferHarness h2("LogSoftmax", 1);
  h2.input(F, {2, 3, 4, 5});
  h2.attr_int("axis", 2);
  REQUIRE(h2.infer());
  CHECK(h2.emit().find("onnxc::f32_logsoftmax_rows__scalar(x0, y0, /*outer=*/6, /*axis=*/20);") !=
        std::string::npos);
}

TEST_CASE("Softmax from opset 13 normalizes one axis (default -1)", "[softmax]") {
  InferHarness h("Softmax", 13);
  h.input(F, {2, 3, 4, 5});
  REQUIRE(h.infer());
  CHECK(h.emit().find("onnxc::f32_softmax_rows__scalar(x0, y0, /*outer=*/24, /*axis=*/5);") !=
        std::string::npos);
  InferHarness h1("Softmax", 13);  // a middle axis: the general kernel
  h1.input(F, {2, 3, 4, 5});
  h1.attr_int("axis", 1);
  REQUIRE(h1.infer());
  CHECK(h1.emit().find(
            "onnxc::f32_softmax_any__scalar(x0, y0, /*outer=*/2, /*axis=*/3, /*inner=*/20);") !=
        std::string::npos);
  InferHarness h2("Hardmax", 13);
  h2.input(F, {2, 3, 4, 5});
  h2.attr_int("axis", 1);
  REQUIRE(h2.infer());
  CHECK(h2.emit().find("onnxc::hardmax_ref(x0, y0, /*outer=*/2, /*axis=*/3, /*inner=*/20);") !=
        std::string::npos);
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
  CHECK(t.error().find("type int32 is not supported at opset 13") != std::string::npos);
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

TEST_CASE("Loss ops: output shapes by reduction, scratch for SCE's log-probabilities",
          "[softmax]") {
  InferHarness none("NegativeLogLikelihoodLoss", 13);
  none.input(F, {2, 3, 4});
  none.input(DataType::kInt64, {2, 4});
  none.node().attributes["reduction"].kind = Attribute::Kind::kString;
  none.node().attributes["reduction"].s = "none";
  REQUIRE(none.infer());
  CHECK(none.out().shape == Shape{2, 4});
  InferHarness sce("SoftmaxCrossEntropyLoss", 13);
  sce.input(F, {2, 3, 4});
  sce.input(DataType::kInt32, {2, 4});
  REQUIRE(sce.infer());
  CHECK(sce.out().shape == Shape{});
  CHECK(sce.node().scratch_bytes == 2 * 3 * 4 * sizeof(float));
  CHECK(sce.emit().find("onnxc::softmax_cross_entropy_ref(p, x0, x1, "
                        "static_cast<const float*>(nullptr), y0, log_prob);") != std::string::npos);
  InferHarness bad("NegativeLogLikelihoodLoss", 13);
  bad.input(F, {2, 3, 4});
  bad.input(DataType::kInt64, {2, 3});
  CHECK_FALSE(bad.infer());
  CHECK(bad.error().find("target has shape 2x3, expected 2x4") != std::string::npos);
}
