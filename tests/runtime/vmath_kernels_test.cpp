// The vectorizable float math (onnxc/vmath.h) against libm in double precision.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "onnxc/vmath.h"

using namespace onnxc;

TEST_CASE("exp_poly is accurate over the float range", "[vmath]") {
  double worst = 0;
  for (float v = -87.0f; v <= 88.0f; v += 0.0137f) {
    const double want = std::exp(static_cast<double>(v));
    worst = std::max(worst, std::fabs(exp_poly(v) - want) / want);
  }
  CHECK(worst < 3e-7);
  CHECK(exp_poly(0.0f) == 1.0f);
  CHECK(exp_poly(-1000.0f) < 1e-37f);  // underflow clamps to ~0, no garbage
}

TEST_CASE("sigmoid_poly matches 1 / (1 + e^-x) everywhere, saturating without overflow",
          "[vmath]") {
  for (float v = -120.0f; v <= 120.0f; v += 0.00731f) {
    const double want = 1.0 / (1.0 + std::exp(-static_cast<double>(v)));
    const double got = sigmoid_poly(v);
    // Relative where the result is a normal float; below e^-87 exp_poly clamps (checked below).
    if (want > 1e-37) REQUIRE(std::fabs(got - want) / want < 1e-6);
  }
  CHECK(sigmoid_poly(0.0f) == 0.5f);
  CHECK(sigmoid_poly(1000.0f) == 1.0f);
  CHECK(sigmoid_poly(-1000.0f) >= 0.0f);
  CHECK(sigmoid_poly(-1000.0f) < 1e-37f);
  CHECK(std::isnan(sigmoid_poly(std::numeric_limits<float>::quiet_NaN())));
  CHECK(sigmoid_poly(std::numeric_limits<float>::infinity()) == 1.0f);
  CHECK(sigmoid_poly(-std::numeric_limits<float>::infinity()) < 1e-37f);
}

TEST_CASE("clamp_unit is std::fmax(0, std::fmin(1, v)) for every float class", "[vmath]") {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> values = {0.0f,
                               -0.0f,
                               1.0f,
                               -1.0f,
                               0.5f,
                               1.5f,
                               -inf,
                               inf,
                               std::numeric_limits<float>::quiet_NaN(),
                               std::numeric_limits<float>::denorm_min(),
                               0.99999994f,
                               1.0000001f};
  for (int i = -4000; i <= 4000; ++i) values.push_back(static_cast<float>(i) * 0.000731f);
  for (float v : values) {
    const float want = std::fmax(0.0f, std::fmin(1.0f, v));
    INFO(v);
    CHECK(onnxc::clamp_unit(v) == want);
  }
}

namespace {

// The largest distance in ulps between f(x) and ref(x) (in double, rounded to float) over every
// 61st bit pattern (all exponents, both signs; full scans were run once: ~20 s each); NaN must
// stay NaN.
template <typename F, typename R>
long worst_ulp_on_sample(F f, R ref) {
  long worst = 0;
  for (std::uint64_t b = 0; b < (std::uint64_t{1} << 32); b += 61) {
    const std::uint32_t bits = static_cast<std::uint32_t>(b);
    float x;
    std::memcpy(&x, &bits, sizeof x);
    if (x != x) {
      REQUIRE(f(x) != f(x));
      continue;
    }
    const float got = f(x), want = static_cast<float>(ref(static_cast<double>(x)));
    std::int32_t g, w;
    std::memcpy(&g, &got, sizeof g);
    std::memcpy(&w, &want, sizeof w);
    worst = std::max(worst, std::labs(static_cast<long>(g) - static_cast<long>(w)));
  }
  return worst;
}

}  // namespace

TEST_CASE("erf_poly and tanh_poly are within 2 ulp of libm, odd, NaN kept", "[vmath]") {
  // Lambdas, not function pointers: an always_inline function cannot be called indirectly.
  const auto erf_f = [](float x) { return erf_poly(x); };
  const auto tanh_f = [](float x) { return tanh_poly(x); };
  CHECK(worst_ulp_on_sample(erf_f, [](double x) { return std::erf(x); }) <= 2);
  CHECK(worst_ulp_on_sample(tanh_f, [](double x) { return std::tanh(x); }) <= 2);
  const auto check_odd_limits = [](auto f) {
    CHECK(f(0.0f) == 0.0f);
    CHECK(std::signbit(f(-0.0f)));
    CHECK(f(std::numeric_limits<float>::infinity()) == 1.0f);
    CHECK(f(-std::numeric_limits<float>::infinity()) == -1.0f);
    CHECK(f(-0.7f) == -f(0.7f));
  };
  check_odd_limits(erf_f);
  check_odd_limits(tanh_f);
}
