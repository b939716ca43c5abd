// QLinearSoftmax's kernel (onnxc/qsoftmax.h) against an independent formula: the softmax of the
// dequantized row in long double, quantized with the output scale; the kernel must lie within one
// step of it (its output scale is 1 / floor(1 / y_scale) and it sums in float, as ORT does), and
// equal it where the exact value is not near a rounding boundary. Also: a strided axis equals the
// same rows made contiguous, the table's headroom, saturation, and the overflow test.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "onnxc/qsoftmax.h"

using namespace onnxc;

namespace {

std::mt19937 rng(53);

// Quantized softmax of one row of codes, from the definition: y = saturate(round(softmax((x -
// zp) * x_scale) / y_scale) + y_zero_point), in long double; `exact` is the value before rounding.
template <typename T>
std::vector<long double> exact_row(const std::vector<T>& x, float x_scale, float y_scale,
                                   int32_t y_zero_point) {
  long double max = -1e30L, sum = 0;
  for (T v : x) max = std::max<long double>(max, v * static_cast<long double>(x_scale));
  std::vector<long double> e;
  for (T v : x) {
    e.push_back(std::exp(v * static_cast<long double>(x_scale) - max));
    sum += e.back();
  }
  for (auto& v : e) v = v / sum / y_scale + y_zero_point;
  return e;
}

template <typename T>
std::vector<T> random_codes(size_t n, int lo, int hi) {
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(dist(rng));
  return v;
}

// Runs the kernel on `rows` rows of `n` random codes and compares each with exact_row.
template <typename T>
void check_against_formula(index_t rows, index_t n, float x_scale, float y_scale, int32_t y_zp,
                           int lo, int hi) {
  float table[256];
  qlinear_softmax_table(x_scale, n, table);
  const float multiplier = qlinear_softmax_multiplier(y_scale);
  REQUIRE(qlinear_softmax_fits(table, multiplier));
  const std::vector<T> x = random_codes<T>(static_cast<size_t>(rows * n), lo, hi);
  std::vector<T> y(x.size());
  qlinear_softmax_ref(x.data(), table, multiplier, y_zp, rows, n, 1, y.data());
  constexpr long double kLo = std::numeric_limits<T>::min(), kHi = std::numeric_limits<T>::max();
  // The kernel's output scale 1 / floor(1 / y_scale) moves a value v (in steps above the zero
  // point) by v * delta; float sums add a few units in the last place.
  const long double delta = 1 - multiplier * static_cast<long double>(y_scale);
  int exact = 0, near_boundary = 0;
  for (index_t r = 0; r < rows; ++r) {
    const std::vector<T> row(x.begin() + r * n, x.begin() + (r + 1) * n);
    const std::vector<long double> want = exact_row(row, x_scale, y_scale, y_zp);
    for (index_t i = 0; i < n; ++i) {
      const long double w = std::min(kHi, std::max(kLo, want[static_cast<size_t>(i)]));
      const int got = y[static_cast<size_t>(r * n + i)];
      INFO("row " << r << " element " << i << " kernel " << got << " exact " << (double)w);
      REQUIRE(std::fabs(got - w) <= 1.0L);
      const bool rounds_exactly = got == std::nearbyint(w);
      exact += rounds_exactly;
      // Off the nearest code only where the value lies within that move of a boundary.
      const long double move = (want[static_cast<size_t>(i)] - y_zp) * delta + 1e-4L;
      if (!rounds_exactly) near_boundary += std::fabs(w - std::floor(w) - 0.5L) < move;
    }
  }
  CHECK(exact * 10 >= rows * n * 9);
  CHECK(exact + near_boundary == rows * n);
}

}  // namespace

TEST_CASE("qlinear_softmax_ref is within one step of the exact quantized softmax",
          "[qsoftmax-kernels]") {
  SECTION("uint8, y_scale 1/256 (multiplier 256), several row lengths") {
    for (index_t n : {2, 7, 33, 256, 1000})
      check_against_formula<uint8_t>(40, n, 0.05f, 1 / 256.0f, 0, 0, 255);
  }
  SECTION("int8, y_scale 1/256, zero point -128") {
    for (index_t n : {3, 10, 64})
      check_against_formula<int8_t>(40, n, 0.08f, 1 / 256.0f, -128, -128, 127);
  }
  SECTION("narrow input ranges and an output scale that is not 1 / integer") {
    check_against_formula<uint8_t>(60, 12, 0.21f, 0.0041f, 5, 100, 140);
    check_against_formula<int8_t>(60, 12, 0.013f, 0.0039f, -100, -20, 20);
  }
}

TEST_CASE("qlinear_softmax_ref on a strided axis equals the same rows made contiguous",
          "[qsoftmax-kernels]") {
  const index_t outer = 3, reduce = 5, inner = 4;
  float table[256];
  qlinear_softmax_table(0.1f, reduce, table);
  const std::vector<uint8_t> x = random_codes<uint8_t>(outer * reduce * inner, 0, 255);
  std::vector<uint8_t> strided(x.size()), rows(x.size()), transposed(x.size());
  qlinear_softmax_ref(x.data(), table, 256.0f, 3, outer, reduce, inner, strided.data());
  for (index_t o = 0; o < outer; ++o)  // [outer, reduce, inner] -> [outer, inner, reduce]
    for (index_t r = 0; r < reduce; ++r)
      for (index_t j = 0; j < inner; ++j)
        transposed[(o * inner + j) * reduce + r] = x[(o * reduce + r) * inner + j];
  qlinear_softmax_ref(transposed.data(), table, 256.0f, 3, outer * inner, reduce, 1, rows.data());
  for (index_t o = 0; o < outer; ++o)
    for (index_t r = 0; r < reduce; ++r)
      for (index_t j = 0; j < inner; ++j)
        CHECK(strided[(o * reduce + r) * inner + j] == rows[(o * inner + j) * reduce + r]);
}

TEST_CASE("qlinear_softmax_ref saturates, and the table leaves the sum headroom",
          "[qsoftmax-kernels]") {
  float table[256];
  // One dominant code: probability ~1, 256 steps above -128 saturates at 127 (int8).
  qlinear_softmax_table(0.5f, 4, table);
  const int8_t x[4] = {127, -128, -128, -128};
  int8_t y[4];
  qlinear_softmax_ref(x, table, 256.0f, -128, 1, 4, 1, y);
  CHECK(std::vector<int>(y, y + 4) == std::vector<int>{127, -128, -128, -128});
  // The sum of `reduce` maxima stays below FLT_MAX / e^5 (ORT's headroom of 5 in the exponent).
  for (index_t reduce : {1, 10, 100000}) {
    qlinear_softmax_table(0.02f, reduce, table);
    CHECK(static_cast<double>(table[255]) * static_cast<double>(reduce) <=
          std::numeric_limits<float>::max() / std::exp(5.0) * 1.0001);
    CHECK(table[0] < table[255]);
  }
  // Overflow: a multiplier of 1000 against the maximum of a 2-element row is refused.
  qlinear_softmax_table(0.05f, 2, table);
  CHECK(!qlinear_softmax_fits(table, qlinear_softmax_multiplier(0.001f)));
  CHECK(qlinear_softmax_fits(table, qlinear_softmax_multiplier(1 / 256.0f)));
  CHECK(qlinear_softmax_multiplier(1 / 255.0f) <= 255.0f);
}
