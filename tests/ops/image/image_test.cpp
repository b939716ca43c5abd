// Image and detection handlers: output shapes, the constants they require, refusals, and
// folding (NonMaxSuppression always folds).
#include <catch2/catch.hpp>
#include <limits>

#include "ops/infer_harness.h"

using namespace onnxc;
using onnxc::testing::InferHarness;

namespace {
const DataType F = DataType::kFloat;
const DataType I64 = DataType::kInt64;

}  // namespace

TEST_CASE("GridSample output takes the grid's spatial shape", "[image]") {
  InferHarness h("GridSample", 20);
  h.input(F, {2, 3, 5, 6, 7});
  h.input(F, {2, 4, 1, 2, 3});
  h.attr_string("mode", "cubic");
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{2, 3, 4, 1, 2});
  CHECK(h.emit().find("onnxc::grid_sample_ref(p, x0, x1, y0);") != std::string::npos);
  InferHarness bad("GridSample", 16);
  bad.input(F, {1, 1, 4});
  bad.input(F, {1, 3, 1});
  CHECK_FALSE(bad.infer());
  CHECK(bad.error().find("4-D before opset 20") != std::string::npos);
}

TEST_CASE("AffineGrid needs a constant size", "[image]") {
  InferHarness h("AffineGrid", 20);
  h.input(F, {2, 3, 4});
  h.constant<int64_t>(I64, {5}, {2, 1, 4, 5, 6});
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{2, 4, 5, 6, 3});
  InferHarness r("AffineGrid", 20);
  r.input(F, {2, 2, 3});
  r.input(I64, {4});
  CHECK_FALSE(r.infer());
  CHECK(r.error().find("size input must be a constant") != std::string::npos);
}

TEST_CASE("CenterCropPad, Col2Im and MaxUnpool shapes", "[image]") {
  InferHarness c("CenterCropPad", 18);
  c.input(F, {5, 6, 3});
  c.constant<int64_t>(I64, {2}, {3, 9});
  c.attr_ints("axes", {0, -2});
  REQUIRE(c.infer());
  CHECK(c.out().shape == Shape{3, 9, 3});

  InferHarness col("Col2Im", 18);
  col.input(F, {1, 10, 3});
  col.constant<int64_t>(I64, {2}, {3, 5});
  col.constant<int64_t>(I64, {2}, {1, 5});
  REQUIRE(col.infer());
  CHECK(col.out().shape == Shape{1, 2, 3, 5});
  InferHarness badcol("Col2Im", 18);
  badcol.input(F, {1, 10, 11});
  badcol.constant<int64_t>(I64, {2}, {3, 5});
  badcol.constant<int64_t>(I64, {2}, {1, 5});
  CHECK_FALSE(badcol.infer());
  CHECK(badcol.error().find("expected N x (C * 5) x 3") != std::string::npos);

  InferHarness u("MaxUnpool", 11);
  u.input(F, {1, 1, 2, 2});
  u.input(I64, {1, 1, 2, 2});
  u.attr_ints("kernel_shape", {2, 2});
  u.attr_ints("strides", {2, 2});
  REQUIRE(u.infer());
  CHECK(u.out().shape == Shape{1, 1, 4, 4});
}

TEST_CASE("Col2Im, MaxUnpool and DeformConv refuse attributes that overflow int64", "[image]") {
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  InferHarness col("Col2Im", 18);
  col.input(F, {1, 10, 3});
  col.constant<int64_t>(I64, {2}, {3, 5});
  col.constant<int64_t>(I64, {2}, {1, 5});
  col.attr_ints("pads", {kMax, 0, kMax, 0});
  CHECK_FALSE(col.infer());
  CHECK(col.error().find("the padded image or the dilated block on axis 0 overflows") !=
        std::string::npos);
  InferHarness u("MaxUnpool", 11);
  u.input(F, {1, 1, 3, 2});
  u.input(I64, {1, 1, 3, 2});
  u.attr_ints("kernel_shape", {2, 2});
  u.attr_ints("strides", {kMax, 2});
  CHECK_FALSE(u.infer());
  CHECK(u.error().find("the unpooled size on axis 2 overflows int64") != std::string::npos);
  InferHarness d("DeformConv", 19);
  d.input(F, {1, 4, 5, 5});
  d.input(F, {6, 2, 3, 3});
  d.input(F, {1, 2 * 2 * 9, 3, 3});
  d.attr_int("group", 2);
  d.attr_int("offset_group", 2);
  d.attr_ints("dilations", {kMax, 1});
  CHECK_FALSE(d.infer());
  CHECK(d.error().find("the padded input or the dilated kernel overflows") != std::string::npos);
}

TEST_CASE("RoiAlign output is rois x C x output_height x output_width", "[image]") {
  InferHarness h("RoiAlign", 16);
  h.input(F, {2, 3, 10, 10});
  h.input(F, {5, 4});
  h.input(I64, {5});
  h.attr_int("output_height", 4);
  h.attr_int("output_width", 6);
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{5, 3, 4, 6});
  InferHarness bad("RoiAlign", 16);
  bad.input(F, {2, 3, 10, 10});
  bad.input(F, {5, 4});
  bad.input(I64, {5});
  bad.attr_string("coordinate_transformation_mode", "corner");
  CHECK_FALSE(bad.infer());
}

TEST_CASE("NonMaxSuppression folds constant inputs and refuses run-time ones", "[image]") {
  InferHarness h("NonMaxSuppression", 11);
  h.constant<float>(F, {1, 3, 4}, {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, 5, 1, 6});
  h.constant<float>(F, {1, 1, 3}, {0.5f, 0.9f, 0.7f});
  h.constant<int64_t>(I64, {1}, {10});
  h.constant<float>(F, {1}, {0.5f});
  REQUIRE(h.infer());
  REQUIRE(h.out().is_constant());
  CHECK(h.out().shape == Shape{2, 3});
  CHECK(h.out().constant->to_ints() == std::vector<int64_t>{0, 0, 1, 0, 0, 2});
  InferHarness r("NonMaxSuppression", 11);
  r.input(F, {1, 3, 4});
  r.constant<float>(F, {1, 1, 3}, {0.5f, 0.9f, 0.7f});
  CHECK_FALSE(r.infer());
  CHECK(r.error().find("boxes input must be a constant") != std::string::npos);
}

TEST_CASE("DeformConv shapes and refusals", "[image]") {
  InferHarness h("DeformConv", 19);
  h.input(F, {1, 4, 5, 5});
  h.input(F, {6, 2, 3, 3});
  h.input(F, {1, 2 * 2 * 9, 3, 3});
  h.attr_int("group", 2);
  h.attr_int("offset_group", 2);
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{1, 6, 3, 3});
  InferHarness bad("DeformConv", 19);
  bad.input(F, {1, 1, 5, 5, 5});
  bad.input(F, {1, 1, 3, 3, 3});
  bad.input(F, {1, 81, 3, 3, 3});
  CHECK_FALSE(bad.infer());
  CHECK(bad.error().find("only 2-D DeformConv") != std::string::npos);
}
