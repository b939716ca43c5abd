// Random kernels: reproducibility, ranges, and sample statistics against the distributions'
// moments (mean, variance) and probabilities, computed from the textbook formulas.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "onnxc/random.h"

using namespace onnxc;

TEST_CASE("random_bits is splitmix64's sequence", "[random-kernels]") {
  // splitmix64 seeded with 0: its first outputs (Vigna's reference implementation).
  CHECK(random_bits(0, 0) == 0xe220a8397b1dcdafull);
  CHECK(random_bits(0, 1) == 0x6e789e6aa1b965f4ull);
  CHECK(random_bits(0, 2) == 0x06c45d188009454full);
}

TEST_CASE("unit_uniform stays in 0 <= u < 1 at the extreme draws", "[random-kernels]") {
  CHECK(unit_uniform<float>(0) == 0.0f);
  CHECK(unit_uniform<float>(~0ull) < 1.0f);
  CHECK(unit_uniform<double>(~0ull) < 1.0);
  CHECK(unit_uniform<double>(1ull << 63) == 0.5);
}

TEST_CASE("random_uniform_ref: same key same values, range and moments", "[random-kernels]") {
  const index_t n = 20000;
  std::vector<float> a(n), b(n);
  random_uniform_ref(a.data(), {/*key=*/7, n, /*low=*/-1, /*high=*/3});
  random_uniform_ref(b.data(), {/*key=*/7, n, /*low=*/-1, /*high=*/3});
  CHECK(a == b);
  double sum = 0, sq = 0;
  for (float v : a) {
    REQUIRE(v >= -1.0f);
    REQUIRE(v <= 3.0f);
    sum += v;
    sq += double(v) * v;
  }
  const double mean = sum / n, var = sq / n - mean * mean;
  CHECK(mean == Approx(1.0).margin(0.05));       // (low + high) / 2
  CHECK(var == Approx(16.0 / 12).margin(0.05));  // (high - low)^2 / 12
  std::vector<float> c(n);
  random_uniform_ref(c.data(), {/*key=*/8, n, -1, 3});
  CHECK(c != a);
}

TEST_CASE("random_normal_ref: moments of N(mean, scale^2)", "[random-kernels]") {
  const index_t n = 40000;
  std::vector<double> y(n);
  random_normal_ref(y.data(), {/*key=*/123, n, /*mean=*/2, /*scale=*/0.5});
  double sum = 0, sq = 0;
  int within_one_sd = 0;
  for (double v : y) {
    REQUIRE(std::isfinite(v));
    sum += v;
    sq += v * v;
    within_one_sd += std::fabs(v - 2) < 0.5;
  }
  const double mean = sum / n, var = sq / n - mean * mean;
  CHECK(mean == Approx(2.0).margin(0.01));
  CHECK(var == Approx(0.25).margin(0.01));
  CHECK(double(within_one_sd) / n == Approx(0.6827).margin(0.01));  // erf(1 / sqrt 2)
  float16 h[8];
  random_normal_ref(h, {/*key=*/1, 8, 0, 1});
  for (float16 v : h) CHECK(std::isfinite(to_float(v)));
}

TEST_CASE("bernoulli_ref: 0/1 outputs with P(1) = p", "[random-kernels]") {
  const index_t n = 30000;
  std::vector<float> p(n);
  for (index_t i = 0; i < n; ++i) p[i] = i % 3 == 0 ? 0.0f : i % 3 == 1 ? 1.0f : 0.25f;
  std::vector<int32_t> y(n);
  bernoulli_ref(p.data(), y.data(), {/*key=*/5, n});
  int ones_quarter = 0;
  for (index_t i = 0; i < n; ++i) {
    REQUIRE((y[i] == 0 || y[i] == 1));
    if (i % 3 == 0) REQUIRE(y[i] == 0);
    if (i % 3 == 1) REQUIRE(y[i] == 1);
    if (i % 3 == 2) ones_quarter += y[i];
  }
  CHECK(double(ones_quarter) / (n / 3) == Approx(0.25).margin(0.02));
  bool b[4];
  const double pd[4] = {1, 1, 0, 0};
  bernoulli_ref(pd, b, {/*key=*/9, 4});
  CHECK((b[0] && b[1] && !b[2] && !b[3]));
}

TEST_CASE("multinomial_ref samples classes with softmax probabilities", "[random-kernels]") {
  // Row 0: log-probabilities of 0.5, 0.25, 0.25; row 1: class 2 only (the others are -inf).
  const float x[6] = {std::log(2.0f), 0, 0, -INFINITY, -INFINITY, 7};
  const index_t samples = 20000;
  std::vector<int64_t> y(2 * samples);
  multinomial_ref(x, y.data(), {/*key=*/11, /*batch=*/2, /*classes=*/3, samples});
  int count[3] = {0, 0, 0};
  for (index_t s = 0; s < samples; ++s) {
    REQUIRE((y[s] >= 0 && y[s] < 3));
    ++count[y[s]];
    REQUIRE(y[samples + s] == 2);
  }
  CHECK(double(count[0]) / samples == Approx(0.5).margin(0.02));
  CHECK(double(count[1]) / samples == Approx(0.25).margin(0.02));
}
