// Image kernels against values worked out independently: identity grids, hand-reflected
// coordinates, overlap counts for Col2Im, the spec's MaxUnpool and NonMaxSuppression examples,
// RoiAlign on a linear ramp, DeformConv with zero offsets against a direct convolution.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "onnxc/image.h"

using namespace onnxc;

TEST_CASE("grid_sample_ref: an identity grid reproduces the input", "[image-kernels]") {
  // 1 x 2 x 3 x 4 input; with align_corners the pixel centers sit at -1 + 2 i / (L - 1).
  std::vector<float> x(24);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) * 1.5f - 4;
  std::vector<float> grid;
  for (int h = 0; h < 3; ++h)
    for (int w = 0; w < 4; ++w) {
      grid.push_back(-1 + 2.0f * w / 3);
      grid.push_back(-1 + 2.0f * h / 2);
    }
  for (int mode = 0; mode < 3; ++mode) {
    GridSampleParams p{1, 2, 2, {3, 4, 1}, {3, 4, 1}, mode, 0, 1};
    std::vector<float> y(24);
    grid_sample_ref(p, x.data(), grid.data(), y.data());
    for (size_t i = 0; i < y.size(); ++i) REQUIRE(y[i] == Approx(x[i]).margin(1e-5));
  }
}

TEST_CASE("grid_sample_ref padding modes outside the image", "[image-kernels]") {
  // 1-D input {10, 20, 30}, align_corners = 0: coordinate u maps to ((u + 1) * 3 - 1) / 2.
  const float x[] = {10, 20, 30};
  const float grid[] = {-1.5f, 0.0f, 1.0f};  // pixel -1.25, 1.0, 2.5
  float y[3];
  GridSampleParams p{1, 1, 1, {3, 1, 1}, {3, 1, 1}, 1, 0, 0};
  grid_sample_ref(p, x, grid, y);  // zeros: -1.25 has no in-range neighbor; 2.5 is half of 30
  CHECK(y[0] == 0);
  CHECK(y[1] == Approx(20));
  CHECK(y[2] == Approx(15));
  p.padding = 1;  // border: clamped to 0 and 2
  grid_sample_ref(p, x, grid, y);
  CHECK(y[0] == Approx(10));
  CHECK(y[2] == Approx(30));
  p.padding = 2;  // reflection about -0.5 and 2.5: -1.25 -> 0.25
  grid_sample_ref(p, x, grid, y);
  CHECK(y[0] == Approx(12.5));
  CHECK(y[2] == Approx(30));
}

TEST_CASE("affine_grid_ref: identity theta gives the base grid", "[image-kernels]") {
  const float theta[] = {1, 0, 0, 0, 1, 0};
  AffineGridParams p{1, 2, {2, 3, 1}, 0};
  float g[12];
  affine_grid_ref(p, theta, g);
  // Cell centers: x in {-2/3, 0, 2/3}, y in {-1/2, 1/2}.
  CHECK(g[0] == Approx(-2.0 / 3));
  CHECK(g[1] == Approx(-0.5));
  CHECK(g[2] == Approx(0).margin(1e-7));
  CHECK(g[11] == Approx(0.5));
  const float shift[] = {2, 0, 0.5f, 0, -1, 0};  // x' = 2x + 0.5, y' = -y
  p.align_corners = 1;
  affine_grid_ref(p, shift, g);
  CHECK(g[0] == Approx(-1.5));  // x = -1
  CHECK(g[1] == Approx(1));     // y = -1
  CHECK(g[10] == Approx(2.5));  // x = 1
}

TEST_CASE("center_crop_pad_ref crops and pads around the center", "[image-kernels]") {
  const int x[] = {1, 2, 3, 4, 5};
  CropPadParams crop{1, {5}, {2}, {1}};  // (5 - 2) / 2 = 1
  int y[8];
  center_crop_pad_ref(crop, x, y);
  CHECK(std::vector<int>(y, y + 2) == std::vector<int>{2, 3});
  CropPadParams pad{1, {5}, {8}, {-1}};  // (8 - 5) / 2 = 1 zero first
  center_crop_pad_ref(pad, x, y);
  CHECK(std::vector<int>(y, y + 8) == std::vector<int>{0, 1, 2, 3, 4, 5, 0, 0});
}

TEST_CASE("col2im_ref of all-ones columns counts the blocks covering each pixel",
          "[image-kernels]") {
  // 1-channel 4 x 5 image, 2 x 3 blocks, stride (1, 2), dilation (1, 1), pads (1, 0, 0, 1).
  Col2ImParams p{};
  p.batch = 1;
  p.channels = 1;
  p.spatial = 2;
  p.image[0] = 4;
  p.image[1] = 5;
  p.block[0] = 2;
  p.block[1] = 3;
  p.stride[0] = 1;
  p.stride[1] = 2;
  p.dilation[0] = p.dilation[1] = 1;
  p.pad_begin[0] = 1;
  p.pad_begin[1] = 0;
  p.blocks[0] = (4 + 1 + 0 - 1 - 1) / 1 + 1;  // 4
  p.blocks[1] = (5 + 0 + 1 - 2 - 1) / 2 + 1;  // 2
  const std::vector<float> cols(6 * 8, 1.0f);
  std::vector<float> y(20);
  col2im_ref(p, cols.data(), y.data());
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 5; ++c) {
      int count = 0;
      for (int br = 0; br < 4; ++br)
        for (int bc = 0; bc < 2; ++bc)
          if (r >= br - 1 && r <= br && c >= bc * 2 && c <= bc * 2 + 2) ++count;
      CHECK(y[static_cast<size_t>(r * 5 + c)] == count);
    }
}

TEST_CASE("max_unpool_ref places values at their indices, inside a larger output",
          "[image-kernels]") {
  // The spec example: X = {1, 2, 3, 4} at indices {5, 7, 13, 15} of a 4 x 4 unpooled map.
  const float x[] = {1, 2, 3, 4};
  const int64_t idx[] = {5, 7, 13, 15};
  MaxUnpoolParams p{4, 4, {1, 1, 4, 4}, {1, 1, 5, 5}};
  float y[25];
  max_unpool_ref(p, x, idx, y);
  std::vector<float> want(25, 0);
  want[1 * 5 + 1] = 1;
  want[1 * 5 + 3] = 2;
  want[3 * 5 + 1] = 3;
  want[3 * 5 + 3] = 4;
  CHECK(std::vector<float>(y, y + 25) == want);
}

TEST_CASE("roi_align_ref averages samples of a linear ramp", "[image-kernels]") {
  // X[h, w] = h + 10 w on 6 x 6; bilinear sampling of a ramp is exact, so each bin is the
  // ramp at its center when the samples are symmetric within the bin.
  std::vector<float> x(36);
  for (int h = 0; h < 6; ++h)
    for (int w = 0; w < 6; ++w) x[static_cast<size_t>(h * 6 + w)] = static_cast<float>(h + 10 * w);
  const float rois[] = {1, 1, 4, 3};  // x1, y1, x2, y2
  const int64_t batch[] = {0};
  RoiAlignParams p{1, 1, 6, 6, 1, 2, 2, 2, 1.0, 0, 0};
  float y[4];
  roi_align_ref(p, x.data(), rois, batch, y);
  // Bins: y in [1, 2], [2, 3]; x in [1, 2.5], [2.5, 4] -> centers (1.5, 1.75), (1.5, 3.25), ...
  CHECK(y[0] == Approx(1.5 + 10 * 1.75));
  CHECK(y[1] == Approx(1.5 + 10 * 3.25));
  CHECK(y[2] == Approx(2.5 + 10 * 1.75));
  CHECK(y[3] == Approx(2.5 + 10 * 3.25));
}

TEST_CASE("nms_ref on the spec's suppress-by-IoU example", "[image-kernels]") {
  const float boxes[] = {0, 0,  1, 1,  0, 0.1f,  1, 1.1f,  0, -0.1f, 1, 0.9f,
                         0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100,   1, 101};
  const float scores[] = {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f};
  NmsParams p{1, 1, 6, 3, 0.5f, 0.0f, 1, 0};
  int64_t sel[18];
  index_t order[6], kept[6];
  const index_t n = nms_ref(p, boxes, scores, sel, order, kept);
  REQUIRE(n == 3);
  CHECK(std::vector<int64_t>(sel, sel + 9) == std::vector<int64_t>{0, 0, 3, 0, 0, 0, 0, 0, 5});
  p.score_threshold = 0.4f;  // drops box 5
  p.max_per_class = 2;
  CHECK(nms_ref(p, boxes, scores, sel, order, kept) == 2);
}

TEST_CASE("deform_conv_ref with zero offsets and a unit mask is a convolution", "[image-kernels]") {
  const index_t N = 1, C = 2, H = 4, W = 5, OC = 2, KH = 2, KW = 3;
  const index_t OH = (H + 1 + 0 - KH) / 1 + 1, OW = (W + 1 + 1 - KW) / 2 + 1;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> x(N * C * H * W), w(OC * C * KH * KW), b(OC);
  for (auto& v : x) v = dist(rng);
  for (auto& v : w) v = dist(rng);
  for (auto& v : b) v = dist(rng);
  const std::vector<float> offset(static_cast<size_t>(N * 2 * KH * KW * OH * OW), 0.0f);
  const std::vector<float> mask(static_cast<size_t>(N * KH * KW * OH * OW), 1.0f);
  DeformConvParams p{N, C, H, W, OC, OH, OW, KH, KW, 1, 1, 1, 2, 1, 1, 1, 1};
  std::vector<float> y(static_cast<size_t>(N * OC * OH * OW));
  deform_conv_ref(p, x.data(), w.data(), offset.data(), b.data(), mask.data(), y.data());
  for (index_t oc = 0; oc < OC; ++oc)
    for (index_t oh = 0; oh < OH; ++oh)
      for (index_t ow = 0; ow < OW; ++ow) {
        double want = b[static_cast<size_t>(oc)];
        for (index_t c = 0; c < C; ++c)
          for (index_t i = 0; i < KH; ++i)
            for (index_t j = 0; j < KW; ++j) {
              const index_t h = oh - 1 + i, ww = ow * 2 - 1 + j;
              if (h < 0 || h >= H || ww < 0 || ww >= W) continue;
              want += w[static_cast<size_t>(((oc * C + c) * KH + i) * KW + j)] *
                      x[static_cast<size_t>((c * H + h) * W + ww)];
            }
        CHECK(y[static_cast<size_t>((oc * OH + oh) * OW + ow)] == Approx(want).margin(1e-5));
      }
}
