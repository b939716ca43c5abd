// Float accumulation (onnxc/accum.h, issue 16): Sum<float> is compensated, and the kernels run
// with Accum<float>{} (what single-precision targets get) stay within float rounding of exact
// statistics computed in long double by a different formula (one-pass Welford).
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "onnxc/accum.h"
#include "onnxc/normalization.h"
#include "onnxc/pool.h"

using namespace onnxc;

namespace {

// Values around `center`: a large mean is where float statistics lose precision.
std::vector<float> values_around(size_t n, float center, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> v(n);
  for (auto& x : v) x = center + dist(rng);
  return v;
}

// Mean and population variance by Welford's recurrence in long double.
void exact_stats(const std::vector<float>& x, long double& mean, long double& var) {
  long double m = 0, m2 = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const long double d = x[i] - m;
    m += d / static_cast<long double>(i + 1);
    m2 += d * (x[i] - m);
  }
  mean = m;
  var = m2 / static_cast<long double>(x.size());
}

}  // namespace

TEST_CASE("Sum<float> keeps the error of a long float sum at float rounding", "[accum]") {
  // A million times 0.1f: a plain float sum drifts by percent, the compensated one does not.
  const long double exact = 1e6L * static_cast<long double>(0.1f);
  Sum<float> compensated;
  float plain = 0;
  for (int i = 0; i < 1000000; ++i) compensated.add(0.1f), plain += 0.1f;
  CHECK(std::fabs(compensated.value() - exact) / exact < 1e-7L);
  CHECK(std::fabs(plain - exact) / exact > 1e-3L);  // what compensation is for
  // Sum<double> is the plain sum.
  Sum<double> d;
  for (int i = 0; i < 10; ++i) d.add(0.1);
  double plain_d = 0;
  for (int i = 0; i < 10; ++i) plain_d += 0.1;
  CHECK(d.value() == plain_d);
}

TEST_CASE("float-accumulating LayerNormalization matches exact statistics", "[accum]") {
  const index_t n = 100000;
  const std::vector<float> x = values_around(n, 1000.0f, 1);
  long double mean, var;
  exact_stats(x, mean, var);
  const std::vector<float> scale(n, 1.0f);
  LayerNormParams p{};
  p.rows = 1, p.size = n, p.epsilon = 1e-5f, p.norm_rank = 1, p.norm_dims[0] = n;
  p.scale_strides[0] = 1, p.scale_contiguous = 1;
  std::vector<float> y(n);
  float mean_out, inv_out;
  layer_norm_ref(p, x.data(), scale.data(), static_cast<const float*>(nullptr), y.data(), &mean_out,
                 &inv_out, Accum<float>{});
  const long double inv = 1 / std::sqrt(var + 1e-5L);
  CHECK(std::fabs(mean_out - mean) < 1e-4L);  // float's ulp at 1000 is 6e-5
  CHECK(std::fabs(inv_out - inv) / inv < 1e-5L);
  double worst = 0;
  for (index_t i = 0; i < n; ++i)
    worst = std::fmax(worst, static_cast<double>(std::fabs(y[i] - (x[i] - mean) * inv)));
  CHECK(worst < 2e-4);  // |y| <= 1.8: input rounding at 1000 (3e-5 * inv = 1.8e-4 at worst)
}

TEST_CASE("float-accumulating BatchNorm training, GroupNorm and MVN agree with double", "[accum]") {
  const index_t c = 2, spatial = 20000;
  const std::vector<float> x = values_around(c * spatial, 300.0f, 2);
  const float scale[] = {1.5f, 0.5f}, bias[] = {0.25f, -1.0f}, mean[] = {0, 0}, var[] = {1, 1};
  const BatchNormParams bp{1, c, spatial, 0, 1e-5f, 0.9f};
  std::vector<float> yf(x.size()), yd(x.size());
  float rmf[2], rvf[2], rmd[2], rvd[2];
  batch_norm_training_ref(bp, x.data(), scale, bias, mean, var, yf.data(), rmf, rvf,
                          Accum<float>{});
  batch_norm_training_ref(bp, x.data(), scale, bias, mean, var, yd.data(), rmd, rvd);
  for (size_t i = 0; i < x.size(); ++i) REQUIRE(yf[i] == Approx(yd[i]).margin(1e-4));
  for (int k = 0; k < 2; ++k) {
    CHECK(rmf[k] == Approx(rmd[k]).epsilon(1e-6));
    CHECK(rvf[k] == Approx(rvd[k]).epsilon(1e-4));
  }
  const GroupNormParams gp{1, c, 1, spatial, 0, 1e-5f};
  group_norm_ref(gp, x.data(), scale, bias, yf.data(), Accum<float>{});
  group_norm_ref(gp, x.data(), scale, bias, yd.data());
  for (size_t i = 0; i < x.size(); ++i) REQUIRE(yf[i] == Approx(yd[i]).margin(1e-4));
}

TEST_CASE("float-accumulating average pools agree with double", "[accum]") {
  const index_t channels = 3, spatial = 50000;
  const std::vector<float> x = values_around(channels * spatial, 100.0f, 3);
  float yf[3], yd[3];
  global_avgpool_ref(x.data(), yf, channels, spatial, Accum<float>{});
  global_avgpool_ref(x.data(), yd, channels, spatial);
  for (int k = 0; k < 3; ++k) {
    long double m, v;
    exact_stats(std::vector<float>(x.begin() + k * spatial, x.begin() + (k + 1) * spatial), m, v);
    CHECK(std::fabs(yf[k] - m) < 1e-5L);  // half an ulp at 100 is 3.8e-6
    CHECK(std::fabs(yd[k] - m) < 1e-5L);
  }
}
