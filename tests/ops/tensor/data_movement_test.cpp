// Data-movement handlers: output shapes and the simplified strided views infer() builds, the
// differences between opset versions (Split's split/num_outputs, Slice's attributes, Pad's inputs,
// Tile-1), errors naming the rule broken, emitted calls, and folding of constant inputs.
#include <catch2/catch.hpp>
#include <limits>

#include "onnxc/transform.h"
#include "ops/infer_harness.h"

using namespace onnxc;
using onnxc::testing::InferHarness;

namespace {

const DataType F = DataType::kFloat;
const DataType I64 = DataType::kInt64;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::vector<int64_t> folded_ints(const InferHarness& h, size_t i = 0) {
  return h.folded(i).to_ints();
}

}  // namespace

TEST_CASE("Transpose: default reverses the axes, NCHW->NHWC becomes a batched 2-D transpose",
          "[data-movement]") {
  InferHarness h("Transpose", 13);
  h.input(F, {2, 3, 4});
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{4, 3, 2});
  InferHarness n("Transpose", 21);
  n.input(F, {2, 16, 8, 8});
  n.attr_ints("perm", {0, 2, 3, 1});
  REQUIRE(n.infer());
  CHECK(n.out().shape == Shape{2, 8, 8, 16});
  // [N, HW, C] read from [N, C, HW]: rank 3 after merging H and W.
  CHECK(contains(n.emit(),
                 "p = {/*rank=*/3, /*dims=*/{2, 64, 16}, /*in_strides=*/{1024, 1, 64}, "
                 "/*offset=*/0, /*numel=*/2048};"));
  CHECK(contains(n.emit(), "onnxc::strided_copy__transpose_tiled(p, x0, y0);"));
  InferHarness bad("Transpose", 13);
  bad.input(F, {2, 3});
  bad.attr_ints("perm", {0, 0});
  CHECK_FALSE(bad.infer());
  CHECK(bad.error() ==
        "node 'n' (Transpose): perm {0, 0} is not a permutation of the 2 input axes");
}

TEST_CASE("Transpose folds any element size", "[data-movement]") {
  InferHarness h("Transpose", 13);
  h.constant<int64_t>(I64, {2, 3}, {1, 2, 3, 4, 5, 6});
  REQUIRE(h.infer());
  REQUIRE(h.fold());
  CHECK(folded_ints(h) == std::vector<int64_t>{1, 4, 2, 5, 3, 6});
}

TEST_CASE("Slice from inputs: negative steps, clamping, default axes", "[data-movement]") {
  InferHarness h("Slice", 13);
  h.constant<float>(F, {2, 5}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  h.constant<int64_t>(I64, {2}, {0, -1});
  h.constant<int64_t>(I64, {2}, {1000, -1000});  // clamped to 2 and to "before index 0"
  h.absent_input();
  h.constant<int64_t>(I64, {2}, {1, -2});
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{2, 3});
  REQUIRE(h.fold());
  const float* y = h.folded().as<float>();
  CHECK(std::vector<float>(y, y + 6) == std::vector<float>{4, 2, 0, 9, 7, 5});
  InferHarness empty("Slice", 13);
  empty.input(F, {4});
  empty.constant<int64_t>(I64, {1}, {3});
  empty.constant<int64_t>(I64, {1}, {1});
  REQUIRE(empty.infer());
  CHECK(empty.out().shape == Shape{0});
}

TEST_CASE("Slice-1 reads attributes, later versions need constant inputs", "[data-movement]") {
  InferHarness h("Slice", 1);
  h.input(F, {3, 4, 5});
  h.attr_ints("starts", {1, -2});
  h.attr_ints("ends", {3, 100});
  h.attr_ints("axes", {0, 2});
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{2, 4, 2});
  CHECK(contains(h.emit(),
                 "p = {/*rank=*/2, /*dims=*/{8, 2}, /*in_strides=*/{5, 1}, "
                 "/*offset=*/23, /*numel=*/16};"));  // axes 0 and 1 merge
  InferHarness dyn("Slice", 10);
  dyn.input(F, {3});
  dyn.input(I64, {1});
  dyn.constant<int64_t>(I64, {1}, {2});
  CHECK_FALSE(dyn.infer());
  CHECK(contains(dyn.error(), "starts input must be a constant"));
  InferHarness zero("Slice", 13);
  zero.input(F, {3});
  zero.constant<int64_t>(I64, {1}, {0});
  zero.constant<int64_t>(I64, {1}, {2});
  zero.constant<int64_t>(I64, {1}, {0});
  zero.constant<int64_t>(I64, {1}, {0});
  CHECK_FALSE(zero.infer());
  CHECK(contains(zero.error(), "steps must be non-zero"));
}

TEST_CASE("Slice: steps of any int64, INT64_MIN included, take at most one element past the dim",
          "[data-movement]") {
  const int64_t kMin = std::numeric_limits<int64_t>::min();
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  InferHarness h("Slice", 13);
  h.constant<float>(F, {4, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  h.constant<int64_t>(I64, {2}, {-1, 0});
  h.constant<int64_t>(I64, {2}, {kMin, kMax});
  h.constant<int64_t>(I64, {2}, {0, 1});
  h.constant<int64_t>(I64, {2}, {kMin, kMax});
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{1, 1});  // row 3 going back, column 0 going forward
  REQUIRE(h.fold());
  CHECK(h.folded().as<float>()[0] == 6);
}

TEST_CASE("Expand: output is the broadcast of the input and target shapes", "[data-movement]") {
  InferHarness h("Expand", 8);
  h.constant<int64_t>(I64, {3, 1}, {1, 2, 3});
  h.constant<int64_t>(I64, {3}, {2, 1, 2});
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{2, 3, 2});
  REQUIRE(h.fold());
  CHECK(folded_ints(h) == std::vector<int64_t>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3});
  InferHarness bad("Expand", 13);
  bad.input(F, {3, 2});
  bad.constant<int64_t>(I64, {1}, {4});
  CHECK_FALSE(bad.infer());
  CHECK(contains(bad.error(), "shape {4} does not broadcast with the input shape 3x2"));
}

TEST_CASE("Tile: repeats input (6+) and the tiles/axis inputs of Tile-1", "[data-movement]") {
  InferHarness h("Tile", 13);
  h.constant<int64_t>(I64, {2, 2}, {0, 1, 2, 3});
  h.constant<int64_t>(I64, {2}, {2, 3});
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{4, 6});
  REQUIRE(h.fold());
  CHECK(folded_ints(h) == std::vector<int64_t>{0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3,
                                               0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3});
  InferHarness t1("Tile", 1);
  t1.input(F, {2, 3});
  t1.constant<int64_t>(I64, {}, {4});
  t1.constant<int64_t>(I64, {}, {1});
  REQUIRE(t1.infer());
  CHECK(t1.out().shape == Shape{2, 12});
  InferHarness bad("Tile", 13);
  bad.input(F, {2, 3});
  bad.constant<int64_t>(I64, {1}, {2});
  CHECK_FALSE(bad.infer());
  CHECK(contains(bad.error(), "repeats has 1 entries for an input of rank 2"));
}

TEST_CASE("DepthToSpace (DCR, CRD) and SpaceToDepth round-trip", "[data-movement]") {
  std::vector<int64_t> x(16);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int64_t>(i);
  InferHarness dcr("DepthToSpace", 13);
  dcr.constant<int64_t>(I64, {1, 4, 2, 2}, x);
  dcr.attr_int("blocksize", 2);
  REQUIRE(dcr.infer());
  CHECK(dcr.out().shape == Shape{1, 1, 4, 4});
  REQUIRE(dcr.fold());
  // DCR: y[h*2+bh][w*2+bw] = x[(bh*2+bw)][h][w]
  CHECK(folded_ints(dcr) ==
        std::vector<int64_t>{0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15});
  InferHarness back("SpaceToDepth", 13);
  back.constant<int64_t>(I64, {1, 1, 4, 4}, folded_ints(dcr));
  back.attr_int("blocksize", 2);
  REQUIRE(back.infer());
  CHECK(back.out().shape == Shape{1, 4, 2, 2});
  REQUIRE(back.fold());
  CHECK(folded_ints(back) == x);
  InferHarness crd("DepthToSpace", 11);
  crd.input(F, {1, 8, 2, 3});
  crd.attr_int("blocksize", 2);
  crd.attr_string("mode", "CRD");
  REQUIRE(crd.infer());
  CHECK(crd.out().shape == Shape{1, 2, 4, 6});
  InferHarness bad("SpaceToDepth", 1);
  bad.input(F, {1, 1, 3, 4});
  bad.attr_int("blocksize", 2);
  CHECK_FALSE(bad.infer());
  CHECK(contains(bad.error(), "height 3 and width 4 must be multiples of blocksize 2"));
}

TEST_CASE("Concat: axis required from opset 4, default 1 before, shapes checked",
          "[data-movement]") {
  InferHarness h("Concat", 1);
  h.input(F, {2, 3});
  h.input(F, {2, 5});
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{2, 8});
  std::string code = h.emit();
  CHECK(contains(code,
                 "onnxc::block_copy_ref(x0, y0 + 0, /*outer=*/2, /*block=*/3, "
                 "/*x_stride=*/3, /*y_stride=*/8);"));
  CHECK(contains(code,
                 "onnxc::block_copy_ref(x1, y0 + 3, /*outer=*/2, /*block=*/5, "
                 "/*x_stride=*/5, /*y_stride=*/8);"));
  InferHarness missing("Concat", 4);
  missing.input(F, {2});
  CHECK_FALSE(missing.infer());
  CHECK(missing.error() == "node 'n' (Concat): attribute 'axis' is required");
  InferHarness bad("Concat", 13);
  bad.input(F, {2, 3});
  bad.input(F, {3, 3});
  bad.attr_int("axis", -1);
  CHECK_FALSE(bad.infer());
  CHECK(contains(bad.error(), "input 1 has shape 3x3, which differs from 2x3 off axis 1"));
}

TEST_CASE("Concat folds shape vectors", "[data-movement]") {
  InferHarness h("Concat", 13);
  h.constant<int64_t>(I64, {1}, {7});
  h.constant<int64_t>(I64, {0}, {});
  h.constant<int64_t>(I64, {2}, {-1, 3});
  h.attr_int("axis", 0);
  REQUIRE(h.infer());
  REQUIRE(h.fold());
  CHECK(folded_ints(h) == std::vector<int64_t>{7, -1, 3});
}

TEST_CASE("Split: equal parts, attribute and input sizes, opset-18 uneven num_outputs",
          "[data-movement]") {
  InferHarness even("Split", 11);
  even.input(F, {6, 2});
  even.outputs(3);
  REQUIRE(even.infer());
  CHECK(even.out(2).shape == Shape{2, 2});
  InferHarness attr("Split", 2);
  attr.input(F, {2, 6});
  attr.outputs(2);
  attr.attr_int("axis", 1);
  attr.attr_ints("split", {2, 4});
  REQUIRE(attr.infer());
  CHECK(attr.out(1).shape == Shape{2, 4});
  CHECK(contains(attr.emit(),
                 "onnxc::block_copy_ref(x0 + 2, y1, /*outer=*/2, /*block=*/4, "
                 "/*x_stride=*/6, /*y_stride=*/4);"));
  InferHarness in("Split", 13);
  in.constant<int64_t>(I64, {5}, {1, 2, 3, 4, 5});
  in.constant<int64_t>(I64, {2}, {1, 4});
  in.outputs(2);
  REQUIRE(in.infer());
  REQUIRE(in.fold());
  CHECK(folded_ints(in, 1) == std::vector<int64_t>{2, 3, 4, 5});
  InferHarness uneven("Split", 18);
  uneven.input(F, {7});
  uneven.outputs(3);
  uneven.attr_int("num_outputs", 3);
  REQUIRE(uneven.infer());
  CHECK((uneven.out(0).shape == Shape{3} && uneven.out(2).shape == Shape{1}));
  InferHarness old("Split", 13);
  old.input(F, {7});
  old.outputs(3);
  CHECK_FALSE(old.infer());
  CHECK(contains(old.error(), "axis dim 7 does not split evenly into 3 outputs"));
  InferHarness sum("Split", 13);
  sum.input(F, {7});
  sum.constant<int64_t>(I64, {2}, {3, 3});
  sum.outputs(2);
  CHECK_FALSE(sum.infer());
  CHECK(contains(sum.error(), "split sizes {3, 3} do not add up to the axis dim 7"));
}

TEST_CASE("Gather: output shape, negative constant indices fold, range checked",
          "[data-movement]") {
  InferHarness h("Gather", 13);
  h.input(F, {5, 4, 3});
  h.input(DataType::kInt32, {2, 2});
  h.attr_int("axis", 1);
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{5, 2, 2, 3});
  CHECK(contains(h.emit(),
                 "onnxc::gather_ref(x0, x1, y0, /*outer=*/5, /*axis_dim=*/4, "
                 "/*inner=*/3, /*num_indices=*/4);"));
  InferHarness shape("Gather", 13);
  shape.constant<int64_t>(I64, {3}, {2, 3, 4});
  shape.constant<int64_t>(I64, {}, {-1});
  REQUIRE(shape.infer());
  CHECK(shape.out().shape == Shape{});
  REQUIRE(shape.fold());
  CHECK(folded_ints(shape) == std::vector<int64_t>{4});
  InferHarness bad("Gather", 13);
  bad.input(F, {3});
  bad.constant<int64_t>(I64, {1}, {3});
  CHECK_FALSE(bad.infer());
  CHECK(contains(bad.error(), "index 3 is out of range for an axis of 3 elements"));
}

TEST_CASE("GatherElements: output takes the indices' shape", "[data-movement]") {
  InferHarness h("GatherElements", 13);
  h.constant<int64_t>(I64, {2, 2}, {1, 2, 3, 4});
  h.constant<int64_t>(I64, {2, 2}, {0, 0, 1, 0});
  h.attr_int("axis", 1);
  REQUIRE(h.infer());
  REQUIRE(h.fold());
  CHECK(folded_ints(h) == std::vector<int64_t>{1, 1, 4, 3});
  InferHarness bad("GatherElements", 11);
  bad.input(F, {2, 2});
  bad.input(I64, {2});
  CHECK_FALSE(bad.infer());
  CHECK(contains(bad.error(), "must have the rank of data"));
}

TEST_CASE("Pad: attributes before opset 11, inputs after, axes from 18, wrap from 19",
          "[data-movement]") {
  InferHarness p2("Pad", 2);
  p2.input(F, {2, 3});
  p2.attr_ints("pads", {0, 1, 0, 2});
  p2.attr_float("value", 1.5f);
  REQUIRE(p2.infer());
  CHECK(p2.out().shape == Shape{2, 6});
  CHECK(contains(p2.emit(), "onnxc::pad_ref(p, x0, y0, 1.5f);"));
  InferHarness p11("Pad", 11);
  p11.input(F, {2, 3});
  p11.constant<int64_t>(I64, {4}, {1, 0, 0, 0});
  p11.input(F, {});
  REQUIRE(p11.infer());
  CHECK(p11.out().shape == Shape{3, 3});
  CHECK(contains(p11.emit(), "onnxc::pad_ref(p, x0, y0, x2[0]);"));
  InferHarness p18("Pad", 18);
  p18.constant<int64_t>(I64, {2, 2}, {1, 2, 3, 4});
  p18.constant<int64_t>(I64, {2}, {1, 1});
  p18.absent_input();
  p18.constant<int64_t>(I64, {1}, {-1});
  p18.attr_string("mode", "edge");
  REQUIRE(p18.infer());
  REQUIRE(p18.fold());
  CHECK(folded_ints(p18) == std::vector<int64_t>{1, 1, 2, 2, 3, 3, 4, 4});
  InferHarness wrap("Pad", 18);
  wrap.input(F, {2});
  wrap.constant<int64_t>(I64, {2}, {1, 1});
  wrap.attr_string("mode", "wrap");
  CHECK_FALSE(wrap.infer());
  CHECK(contains(wrap.error(),
                 "mode 'wrap' is not one of constant, reflect, edge (wrap needs opset 19)"));
  InferHarness crop("Pad", 13);
  crop.input(F, {2});
  crop.constant<int64_t>(I64, {2}, {-2, -1});
  CHECK_FALSE(crop.infer());
  CHECK(contains(crop.error(), "pads -2, -1 remove more than the 2 elements of axis 0"));
}

TEST_CASE("Trilu reads k at run time and folds", "[data-movement]") {
  InferHarness h("Trilu", 14);
  h.input(F, {3, 4, 5});
  h.input(I64, {});
  h.attr_int("upper", 0);
  REQUIRE(h.infer());
  CHECK(contains(h.emit(),
                 "onnxc::trilu_ref(x0, y0, /*batch=*/3, /*rows=*/4, /*cols=*/5, "
                 "/*k=*/static_cast<onnxc::index_t>(x1[0]), /*upper=*/false);"));
  InferHarness f("Trilu", 14);
  f.constant<int64_t>(I64, {2, 2}, {1, 2, 3, 4});
  REQUIRE(f.infer());
  REQUIRE(f.fold());
  CHECK(folded_ints(f) == std::vector<int64_t>{1, 2, 0, 4});
  InferHarness bad("Trilu", 14);
  bad.input(F, {3});
  CHECK_FALSE(bad.infer());
  CHECK(contains(bad.error(), "input must have rank >= 2"));
}

TEST_CASE("OneHot inserts depth at axis, depth must be constant", "[data-movement]") {
  InferHarness h("OneHot", 11);
  h.input(I64, {2, 3});
  h.constant<float>(F, {}, {4});
  h.input(F, {2});
  h.attr_int("axis", 1);
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{2, 4, 3});
  CHECK(
      contains(h.emit(), "onnxc::one_hot_ref(x0, x2, y0, /*outer=*/2, /*depth=*/4, /*inner=*/3);"));
  InferHarness dyn("OneHot", 11);
  dyn.input(I64, {2});
  dyn.input(I64, {});
  dyn.input(F, {2});
  CHECK_FALSE(dyn.infer());
  CHECK(contains(dyn.error(), "depth input must be a constant"));
}

TEST_CASE("data movement rejects packed and string element types clearly", "[data-movement]") {
  InferHarness h("Transpose", 21);
  h.input(DataType::kInt4, {2, 2});
  CHECK_FALSE(h.infer());
  CHECK(h.error() == "node 'n' (Transpose): packed 4-bit type int4 is not supported");
  InferHarness s("Concat", 13);
  s.input(DataType::kString, {2});
  s.attr_int("axis", 0);
  CHECK_FALSE(s.infer());
  CHECK(contains(s.error(), "string tensors are not supported"));
}
