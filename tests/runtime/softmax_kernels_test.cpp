// Softmax / LogSoftmax / Hardmax kernels: hand-computed rows, the column path (inner > 1,
// chunked) against the row path on the transposed data, and overflow-free large inputs.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "onnxc/softmax.h"

using namespace onnxc;

TEST_CASE("softmax_ref and log_softmax_ref on a hand-computed row", "[softmax-kernels]") {
  const float x[] = {1, 2, 3};
  float y[3];
  softmax_ref(x, y, 1, 3, 1);
  const double s = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  CHECK(y[0] == Approx(std::exp(1.0) / s));
  CHECK(y[2] == Approx(std::exp(3.0) / s));
  log_softmax_ref(x, y, 1, 3, 1);
  CHECK(y[1] == Approx(2.0 - std::log(s)));
  // exp(1000) overflows; subtracting the maximum first does not.
  const float big[] = {1000, 1000};
  softmax_ref(big, y, 1, 2, 1);
  CHECK(y[0] == Approx(0.5));
  log_softmax_ref(big, y, 1, 2, 1);
  CHECK(y[1] == Approx(-std::log(2.0)));
}

TEST_CASE("softmax kernels along a strided axis match the contiguous rows", "[softmax-kernels]") {
  // x[outer=3, axis=5, inner=70] against its transpose [3, 70, 5] normalized along the last dim.
  const index_t outer = 3, axis = 5, inner = 70;  // 70 > the 64-column chunk
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-5, 5);
  std::vector<float> x(outer * axis * inner), xt(x.size());
  for (auto& v : x) v = dist(rng);
  for (index_t o = 0; o < outer; ++o)
    for (index_t a = 0; a < axis; ++a)
      for (index_t i = 0; i < inner; ++i)
        xt[(o * inner + i) * axis + a] = x[(o * axis + a) * inner + i];
  using Kernel = void (*)(const float*, float*, index_t, index_t, index_t);
  for (Kernel k :
       {Kernel(softmax_ref<float>), Kernel(log_softmax_ref<float>), Kernel(hardmax_ref<float>)}) {
    std::vector<float> y(x.size()), yt(x.size());
    k(x.data(), y.data(), outer, axis, inner);
    k(xt.data(), yt.data(), outer * inner, axis, 1);
    for (index_t o = 0; o < outer; ++o)
      for (index_t a = 0; a < axis; ++a)
        for (index_t i = 0; i < inner; ++i)
          REQUIRE(y[(o * axis + a) * inner + i] ==
                  Approx(yt[(o * inner + i) * axis + a]).margin(1e-6));
  }
}

TEST_CASE("hardmax_ref marks the first maximum", "[softmax-kernels]") {
  const double x[] = {1, 7, 7, 2, 0, 0, 0, 0};
  double y[8];
  hardmax_ref(x, y, 2, 4, 1);
  CHECK(std::vector<double>(y, y + 8) == std::vector<double>{0, 1, 0, 0, 1, 0, 0, 0});
}

TEST_CASE("float poly variants match the references", "[softmax-kernels]") {
  using Kernel = void (*)(const float*, float*, index_t, index_t, index_t);
  struct Pair {
    const char* name;
    Kernel variant, ref;
  };
  const Pair pairs[] = {
      {"f32_softmax_any__scalar", f32_softmax_any__scalar, softmax_ref<float>},
      {"f32_logsoftmax_any__scalar", f32_logsoftmax_any__scalar, log_softmax_ref<float>}};
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> dist(-30, 30);
  // Axis lengths around the 16 lanes, inner extents around the 64-column chunk.
  const index_t shapes[][3] = {{1, 1, 1}, {3, 7, 1},  {2, 16, 1}, {2, 33, 1},  {1, 1000, 1},
                               {2, 5, 3}, {2, 9, 64}, {1, 4, 70}, {3, 17, 130}};
  for (const Pair& k : pairs)
    for (const auto& s : shapes) {
      std::vector<float> x(static_cast<size_t>(s[0] * s[1] * s[2]));
      for (auto& v : x) v = dist(rng);
      std::vector<float> want(x.size()), got(x.size());
      k.ref(x.data(), want.data(), s[0], s[1], s[2]);
      k.variant(x.data(), got.data(), s[0], s[1], s[2]);
      INFO(k.name << " outer " << s[0] << " axis " << s[1] << " inner " << s[2]);
      for (size_t i = 0; i < x.size(); ++i)
        REQUIRE(got[i] == Approx(want[i]).epsilon(2e-6).margin(1e-30));
    }
}

TEST_CASE("nll_loss_ref reductions, weights and ignore_index", "[softmax-kernels]") {
  // logp[N=2, C=3] and targets {2, 0}; weights {1, 2, 3}.
  const float logp[] = {-1, -2, -3, -4, -5, -6};
  const int64_t target[] = {2, 0};
  const float weight[] = {1, 2, 3};
  float y[2];
  nll_loss_ref(NllParams{2, 3, 1, 0, 0, 0}, logp, target, static_cast<const float*>(nullptr), y);
  CHECK(std::vector<float>(y, y + 2) == std::vector<float>{3, 4});
  nll_loss_ref(NllParams{2, 3, 1, 1, 0, 0}, logp, target, weight, y);
  CHECK(y[0] == 3 * 3 + 4 * 1);
  nll_loss_ref(NllParams{2, 3, 1, 2, 0, 0}, logp, target, weight, y);
  CHECK(y[0] == Approx((9.0 + 4.0) / (3 + 1)));                        // the mean is weighted
  nll_loss_ref(NllParams{2, 3, 1, 2, 1, 2}, logp, target, weight, y);  // ignore class 2
  CHECK(y[0] == Approx(4.0));
  const int32_t spatial_target[] = {0, 1};  // [N=1, D=2] over logp viewed as [1, 3, 2]
  nll_loss_ref(NllParams{1, 3, 2, 0, 0, 0}, logp, spatial_target,
               static_cast<const float*>(nullptr), y);
  CHECK(std::vector<float>(y, y + 2) == std::vector<float>{1, 4});
}

TEST_CASE("softmax_cross_entropy_ref is the NLL of log_softmax", "[softmax-kernels]") {
  const double scores[] = {1, 2, 3, 0, 0, 0};  // [2, 3]
  const int64_t labels[] = {2, 1};
  double loss[1], log_prob[6];
  softmax_cross_entropy_ref(NllParams{2, 3, 1, 2, 0, 0}, scores, labels,
                            static_cast<const double*>(nullptr), loss, log_prob);
  const double l0 = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0)) - 3, l1 = std::log(3.0);
  CHECK(log_prob[2] == Approx(-l0));
  CHECK(loss[0] == Approx((l0 + l1) / 2));
}
