// Normalization kernels against hand-computed values and against each other where the ops
// coincide (GroupNormalization with one group per channel is InstanceNormalization; a
// LayerNormalization row is an MVN with scale 1 up to epsilon).
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "onnxc/normalization.h"

using namespace onnxc;

namespace {

std::vector<float> random_vector(size_t n, unsigned seed, float lo = -3, float hi = 3) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

}  // namespace

TEST_CASE("batch_norm_ref applies per-channel statistics", "[normalization-kernels]") {
  // x[1, 2, 2]: channel 0 = {1, 3}, channel 1 = {2, 4}.
  const float x[] = {1, 3, 2, 4}, scale[] = {2, 1}, bias[] = {0, 1}, mean[] = {1, 2},
              var[] = {4, 1};
  float y[4];
  batch_norm_ref(BatchNormParams{1, 2, 2, 0, 0.0, 0.9}, x, scale, bias, mean, var, y);
  CHECK(std::vector<float>(y, y + 4) == std::vector<float>{0, 2, 1, 3});
  // Legacy spatial=0: one parameter per (channel, position).
  const float s2[] = {1, 1, 1, 1}, b2[] = {0, 0, 0, 0}, m2[] = {1, 3, 2, 0}, v2[] = {1, 1, 1, 4};
  batch_norm_ref(BatchNormParams{1, 2, 2, 1, 0.0, 0.9}, x, s2, b2, m2, v2, y);
  CHECK(std::vector<float>(y, y + 4) == std::vector<float>{0, 0, 0, 2});
}

TEST_CASE("batch_norm_training_ref uses batch statistics and updates running ones",
          "[normalization-kernels]") {
  // x[2, 1, 2] = {0, 2, 4, 6}: mean 3, population variance 5.
  const double x[] = {0, 2, 4, 6}, scale[] = {1}, bias[] = {0}, mean[] = {1}, var[] = {1};
  double y[4], rm[1], rv[1];
  batch_norm_training_ref(BatchNormParams{2, 1, 2, 0, 0.0, 0.5}, x, scale, bias, mean, var, y, rm,
                          rv);
  CHECK(y[0] == Approx(-3 / std::sqrt(5.0)));
  CHECK(y[3] == Approx(3 / std::sqrt(5.0)));
  CHECK(rm[0] == Approx(0.5 * 1 + 0.5 * 3));
  CHECK(rv[0] == Approx(0.5 * 1 + 0.5 * 5));
}

TEST_CASE("layer_norm_ref normalizes rows and broadcasts scale and bias",
          "[normalization-kernels]") {
  // Rows of x[2, 2, 3] are normalized over the last two dims (size 6); scale [3] repeats.
  const std::vector<float> x = random_vector(12, 1);
  const float scale[] = {1, 2, 3}, bias[] = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
  LayerNormParams p{};
  p.rows = 2, p.size = 6, p.epsilon = 1e-5, p.norm_rank = 2;
  p.norm_dims[0] = 2, p.norm_dims[1] = 3;
  p.scale_strides[0] = 0, p.scale_strides[1] = 1;
  p.bias_strides[0] = 3, p.bias_strides[1] = 1;
  p.bias_contiguous = 1;
  std::vector<float> y(12), mean(2), inv(2);
  layer_norm_ref(p, x.data(), scale, bias, y.data(), mean.data(), inv.data());
  for (int r = 0; r < 2; ++r) {
    double m = 0, v = 0;
    for (int i = 0; i < 6; ++i) m += x[r * 6 + i] / 6.0;
    for (int i = 0; i < 6; ++i) v += (x[r * 6 + i] - m) * (x[r * 6 + i] - m) / 6.0;
    CHECK(mean[r] == Approx(m));
    CHECK(inv[r] == Approx(1 / std::sqrt(v + 1e-5)));
    for (int i = 0; i < 6; ++i)
      CHECK(y[r * 6 + i] ==
            Approx((x[r * 6 + i] - m) / std::sqrt(v + 1e-5) * scale[i % 3] + 0.5).margin(1e-5));
  }
  // Without bias and outputs for the statistics.
  p.scale_contiguous = 0;
  std::vector<float> y2(12);
  layer_norm_ref(p, x.data(), scale, static_cast<const float*>(nullptr), y2.data(),
                 static_cast<float*>(nullptr), static_cast<float*>(nullptr));
  for (int i = 0; i < 12; ++i) CHECK(y2[i] == Approx(y[i] - 0.5).margin(1e-5));
}

TEST_CASE("group_norm_ref: one group per channel is instance normalization",
          "[normalization-kernels]") {
  const index_t batch = 2, channels = 4, spatial = 5;
  const std::vector<float> x = random_vector(batch * channels * spatial, 2);
  const float scale[] = {1, -1, 2, 0.5f}, bias[] = {0, 1, 2, 3};
  std::vector<float> y(x.size());
  group_norm_ref(GroupNormParams{batch, channels, channels, spatial, 0, 1e-5}, x.data(), scale,
                 bias, y.data());
  for (index_t n = 0; n < batch; ++n)
    for (index_t c = 0; c < channels; ++c) {
      const float* xc = x.data() + (n * channels + c) * spatial;
      double m = 0, v = 0;
      for (index_t i = 0; i < spatial; ++i) m += xc[i] / double(spatial);
      for (index_t i = 0; i < spatial; ++i) v += (xc[i] - m) * (xc[i] - m) / double(spatial);
      for (index_t i = 0; i < spatial; ++i)
        CHECK(y[(n * channels + c) * spatial + i] ==
              Approx((xc[i] - m) / std::sqrt(v + 1e-5) * scale[c] + bias[c]).margin(1e-5));
    }
  // Two groups of two channels, per-group affine (GroupNormalization-18).
  const float gscale[] = {1, 2}, gbias[] = {0, 1};
  group_norm_ref(GroupNormParams{batch, channels, 2, spatial, 1, 1e-5}, x.data(), gscale, gbias,
                 y.data());
  const float* g1 = x.data() + 2 * spatial;  // batch 0, group 1 = channels 2 and 3
  double m = 0, v = 0;
  for (index_t i = 0; i < 2 * spatial; ++i) m += g1[i] / double(2 * spatial);
  for (index_t i = 0; i < 2 * spatial; ++i) v += (g1[i] - m) * (g1[i] - m) / double(2 * spatial);
  CHECK(y[3 * spatial + 1] ==
        Approx((g1[spatial + 1] - m) / std::sqrt(v + 1e-5) * 2 + 1).margin(1e-5));
}

TEST_CASE("lp_norm_ref divides by the L1 or L2 norm, zero norm gives zero",
          "[normalization-kernels]") {
  const float x[] = {3, 0, 4, 0};  // [2 (axis), 2 (inner)]: columns (3, 4) and (0, 0)
  float y[4];
  lp_norm_ref(x, y, 1, 2, 2, 2);
  CHECK(std::vector<float>(y, y + 4) == std::vector<float>{0.6f, 0, 0.8f, 0});
  lp_norm_ref(x, y, 1, 2, 2, 1);
  CHECK(y[0] == Approx(3.0 / 7));
  CHECK(y[1] == 0);
}

TEST_CASE("mean_variance_norm_ref normalizes over the reduced axes", "[normalization-kernels]") {
  // x[2, 3, 4] reduced over dims 0 and 2: 3 groups of 8 elements.
  const std::vector<float> x = random_vector(24, 3);
  const index_t dims[] = {2, 3, 4};
  const bool reduced[] = {true, false, true};
  const ReduceParams p = make_reduce_params(3, dims, reduced);
  std::vector<float> y(24);
  mean_variance_norm_ref(p, x.data(), y.data());
  for (int c = 0; c < 3; ++c) {
    double m = 0, sq = 0;
    for (int n = 0; n < 2; ++n)
      for (int i = 0; i < 4; ++i) {
        const double v = x[(n * 3 + c) * 4 + i];
        m += v / 8;
        sq += v * v / 8;
      }
    const double sd = std::sqrt(sq - m * m) + 1e-9;
    for (int n = 0; n < 2; ++n)
      for (int i = 0; i < 4; ++i)
        CHECK(y[(n * 3 + c) * 4 + i] == Approx((x[(n * 3 + c) * 4 + i] - m) / sd).margin(1e-5));
  }
}

TEST_CASE("f32_layernorm_lanes__scalar matches layer_norm_ref", "[normalization-kernels]") {
  // Row sizes around the 16 lanes; rows with a large mean test the float statistics.
  for (index_t size : {1, 5, 16, 17, 100, 768}) {
    const index_t rows = 3;
    std::vector<float> x = random_vector(static_cast<size_t>(rows * size), 4);
    for (index_t i = 0; i < size; ++i) x[static_cast<size_t>(2 * size + i)] += 1000.0f;
    const std::vector<float> scale = random_vector(static_cast<size_t>(size), 5);
    const std::vector<float> bias = random_vector(static_cast<size_t>(size), 6);
    LayerNormParams p{};
    p.rows = rows, p.size = size, p.epsilon = 1e-5, p.norm_rank = 1;
    p.norm_dims[0] = size, p.scale_strides[0] = 1, p.bias_strides[0] = 1;
    p.scale_contiguous = 1, p.bias_contiguous = 1;
    for (bool with_bias : {true, false}) {
      const float* b = with_bias ? bias.data() : nullptr;
      std::vector<float> want(x.size()), got(x.size()), wm(rows), gm(rows), wi(rows), gi(rows);
      layer_norm_ref(p, x.data(), scale.data(), b, want.data(), wm.data(), wi.data());
      f32_layernorm_lanes__scalar(p, x.data(), scale.data(), b, got.data(), gm.data(), gi.data());
      INFO("size " << size << " bias " << with_bias);
      for (size_t i = 0; i < x.size(); ++i) REQUIRE(got[i] == Approx(want[i]).margin(2e-4));
      for (index_t r = 0; r < rows; ++r) {
        CHECK(gm[r] == Approx(wm[r]).epsilon(1e-6));
        CHECK(gi[r] == Approx(wi[r]).epsilon(2e-4));
      }
    }
  }
}

TEST_CASE("lrn_ref sums squares over the clipped channel window", "[normalization-kernels]") {
  const float x[] = {1, 2, 3};  // [1, 3 channels, 1]
  float y[3];
  // size 3, alpha / size = 1, beta 1, bias 1: windows {0, 1}, {0, 1, 2}, {1, 2}.
  lrn_ref(LrnParams{1, 3, 1, 3, 3.0, 1.0, 1.0}, x, y);
  CHECK(y[0] == Approx(1.0 / 6));
  CHECK(y[1] == Approx(2.0 / 15));
  CHECK(y[2] == Approx(3.0 / 14));
  // Even size 2: the window is {c, c + 1} (floor before, ceil after); beta 0.5.
  lrn_ref(LrnParams{1, 3, 1, 2, 2.0, 0.5, 1.0}, x, y);
  CHECK(y[0] == Approx(1.0 / std::sqrt(6.0)));
  CHECK(y[2] == Approx(3.0 / std::sqrt(10.0)));
}

TEST_CASE("rms_norm_ref and f32_rmsnorm_lanes__scalar divide by the root mean square",
          "[normalization-kernels]") {
  // Row {3, 4}: mean square 12.5; scale {1, 2}.
  const float x[] = {3, 4};
  const float scale[] = {1, 2};
  LayerNormParams p{};
  p.rows = 1, p.size = 2, p.epsilon = 0.0, p.norm_rank = 1;
  p.norm_dims[0] = 2, p.scale_strides[0] = 1, p.scale_contiguous = 1;
  float y[2];
  rms_norm_ref(p, x, scale, y);
  CHECK(y[0] == Approx(3 / std::sqrt(12.5)));
  CHECK(y[1] == Approx(8 / std::sqrt(12.5)));
  for (index_t size : {1, 16, 33, 768}) {
    const std::vector<float> xs = random_vector(static_cast<size_t>(3 * size), 7);
    const std::vector<float> sc = random_vector(static_cast<size_t>(size), 8);
    LayerNormParams q{};
    q.rows = 3, q.size = size, q.epsilon = 1e-5, q.norm_rank = 1;
    q.norm_dims[0] = size, q.scale_strides[0] = 1, q.scale_contiguous = 1;
    std::vector<float> want(xs.size()), got(xs.size());
    rms_norm_ref(q, xs.data(), sc.data(), want.data());
    f32_rmsnorm_lanes__scalar(q, xs.data(), sc.data(), got.data());
    for (size_t i = 0; i < xs.size(); ++i) REQUIRE(got[i] == Approx(want[i]).margin(1e-5));
  }
}
