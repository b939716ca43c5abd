// Resize / Upsample handlers: output shapes from scales and sizes (keep_aspect_ratio_policy,
// axes), refusals, the emitted call, and folding the spec's examples.
#include <catch2/catch.hpp>

#include "ops/infer_harness.h"

using namespace onnxc;
using onnxc::testing::InferHarness;

namespace {
const DataType F = DataType::kFloat;
const DataType I64 = DataType::kInt64;

}  // namespace

TEST_CASE("Resize output shape: floor(scale * size), or sizes", "[resize]") {
  InferHarness h("Resize", 19);
  h.input(F, {1, 3, 5, 7});
  h.absent_input();
  h.constant<float>(F, {4}, {1, 1, 0.6f, 2.5f});
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{1, 3, 3, 17});
  CHECK(h.emit().find("onnxc::resize_nearest_ref(p, off, x0, y0);") != std::string::npos);

  InferHarness s("Resize", 19);
  s.input(F, {1, 1, 4, 6});
  s.absent_input();
  s.absent_input();
  s.constant<int64_t>(I64, {2}, {8, 8});
  s.attr_ints("axes", {2, 3});
  s.attr_string("keep_aspect_ratio_policy", "not_larger");
  s.attr_string("mode", "linear");
  REQUIRE(s.infer());
  CHECK(s.out().shape == Shape{1, 1, 5, 8});  // scale min(8/4, 8/6): 4 -> 5, 6 -> 8
}

TEST_CASE("Resize refuses run-time scales and conflicting inputs", "[resize]") {
  InferHarness h("Resize", 13);
  h.input(F, {1, 1, 2, 2});
  h.absent_input();
  h.input(F, {4});
  CHECK_FALSE(h.infer());
  CHECK(h.error().find("scales input must be a constant") != std::string::npos);

  InferHarness both("Resize", 13);
  both.input(F, {1, 1, 2, 2});
  both.absent_input();
  both.constant<float>(F, {4}, {1, 1, 2, 2});
  both.constant<int64_t>(I64, {4}, {1, 1, 4, 4});
  CHECK_FALSE(both.infer());
  CHECK(both.error().find("exactly one of scales and sizes") != std::string::npos);

  InferHarness ints("Resize", 13);
  ints.input(DataType::kInt32, {1, 1, 2, 2});
  ints.absent_input();
  ints.constant<float>(F, {4}, {1, 1, 2, 2});
  ints.attr_string("mode", "linear");
  CHECK_FALSE(ints.infer());
  CHECK(ints.error().find("float types only") != std::string::npos);
}

TEST_CASE("Resize folds the spec's linear upsampling example", "[resize]") {
  InferHarness h("Resize", 19);
  h.constant<float>(F, {1, 1, 2, 2}, {1, 2, 3, 4});
  h.absent_input();
  h.constant<float>(F, {4}, {1, 1, 2, 2});
  h.attr_string("mode", "linear");
  REQUIRE(h.infer());
  REQUIRE(h.fold());
  const float want[] = {1,   1.25, 1.75, 2,   1.5, 1.75, 2.25, 2.5,
                        2.5, 2.75, 3.25, 3.5, 3,   3.25, 3.75, 4};
  const float* y = h.folded().as<float>();
  for (int i = 0; i < 16; ++i) CHECK(y[i] == Approx(want[i]));
}

TEST_CASE("Resize folds the spec's nearest downsampling example", "[resize]") {
  InferHarness h("Resize", 13);
  h.constant<float>(F, {1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  h.absent_input();
  h.constant<float>(F, {4}, {1, 1, 0.6f, 0.6f});
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{1, 1, 1, 2});
  REQUIRE(h.fold());
  CHECK(h.folded().as<float>()[0] == 1);
  CHECK(h.folded().as<float>()[1] == 3);
}

TEST_CASE("Upsample-9 nearest repeats elements", "[resize]") {
  InferHarness h("Upsample", 9);
  h.constant<float>(F, {1, 1, 2, 2}, {1, 2, 3, 4});
  h.constant<float>(F, {4}, {1, 1, 2, 3});
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{1, 1, 4, 6});
  REQUIRE(h.fold());
  const float* y = h.folded().as<float>();
  CHECK(std::vector<float>(y, y + 6) == std::vector<float>{1, 1, 1, 2, 2, 2});
  CHECK(std::vector<float>(y + 18, y + 24) == std::vector<float>{3, 3, 3, 4, 4, 4});
}

TEST_CASE("Resize-11 tf_half_pixel_for_nn and Resize-10's asymmetric nearest", "[resize]") {
  // tf_half_pixel_for_nn: x_ori = (x + 0.5) / scale -> 1.0 and 3.0 pick elements 1 and 3.
  InferHarness h("Resize", 11);
  h.constant<float>(F, {1, 1, 1, 4}, {1, 2, 3, 4});
  h.constant<float>(F, {0}, {});
  h.constant<float>(F, {4}, {1, 1, 1, 0.5f});
  h.attr_string("coordinate_transformation_mode", "tf_half_pixel_for_nn");
  REQUIRE(h.infer());
  REQUIRE(h.fold());
  CHECK(h.folded().as<float>()[0] == 2);
  CHECK(h.folded().as<float>()[1] == 4);
  InferHarness r13("Resize", 13);
  r13.input(F, {1, 1, 1, 4});
  r13.absent_input();
  r13.constant<float>(F, {4}, {1, 1, 1, 0.5f});
  r13.attr_string("coordinate_transformation_mode", "tf_half_pixel_for_nn");
  CHECK_FALSE(r13.infer());
  // Opset 10 (the old spec example): 2 x 4 scaled by 0.6 -> 1 x 2 = {1, 3}.
  InferHarness r10("Resize", 10);
  r10.constant<float>(F, {1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  r10.constant<float>(F, {4}, {1, 1, 0.6f, 0.6f});
  REQUIRE(r10.infer());
  REQUIRE(r10.fold());
  CHECK(r10.folded().as<float>()[0] == 1);
  CHECK(r10.folded().as<float>()[1] == 3);
}
