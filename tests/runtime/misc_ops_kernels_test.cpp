// EyeLike / ReverseSequence / Det / Einsum kernels against formulas written independently.
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <vector>

#include "onnxc/einsum.h"
#include "onnxc/misc_ops.h"

using namespace onnxc;

TEST_CASE("eye_like_ref with a negative diagonal", "[misc-kernels]") {
  int y[12];
  eye_like_ref(y, 4, 3, -1, 1);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 3; ++c) CHECK(y[r * 3 + c] == (c == r - 1 ? 1 : 0));
}

TEST_CASE("reverse_sequence_ref with batch_axis 0", "[misc-kernels]") {
  // x[b, t, f] = 100 b + 10 t + f, [2, 4, 2]; lens {2, 4}.
  float x[16], y[16];
  for (int b = 0; b < 2; ++b)
    for (int t = 0; t < 4; ++t)
      for (int f = 0; f < 2; ++f) x[(b * 4 + t) * 2 + f] = static_cast<float>(100 * b + 10 * t + f);
  const int64_t lens[] = {2, 4};
  const ReverseSequenceParams p = {3, 0, 1, {2, 4, 2}, {8, 2, 1}, 16};
  reverse_sequence_ref(p, x, lens, y);
  for (int b = 0; b < 2; ++b)
    for (int t = 0; t < 4; ++t)
      for (int f = 0; f < 2; ++f) {
        const int src_t = t < lens[b] ? static_cast<int>(lens[b]) - 1 - t : t;
        REQUIRE(y[(b * 4 + t) * 2 + f] == static_cast<float>(100 * b + 10 * src_t + f));
      }
}

TEST_CASE("det_ref against the Leibniz formula for 3x3 and a singular matrix", "[misc-kernels]") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> dist(-2, 2);
  double m[18];
  for (double& v : m) v = dist(rng);
  for (int k = 0; k < 3; ++k) m[9 + 6 + k] = m[9 + k] + m[9 + 3 + k];  // row 2 = row 0 + row 1
  double y[2], lu[9];
  det_ref(m, y, 2, 3, lu);
  auto a = [&](int r, int c) { return m[r * 3 + c]; };
  const double want = a(0, 0) * (a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1)) -
                      a(0, 1) * (a(1, 0) * a(2, 2) - a(1, 2) * a(2, 0)) +
                      a(0, 2) * (a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0));
  CHECK(y[0] == Approx(want));
  CHECK(y[1] == Approx(0).margin(1e-12));
}

TEST_CASE("einsum_ref: batched matmul and a trace", "[misc-kernels]") {
  // "bij,bjk->bik" with b=2, i=2, j=3, k=2: labels b, i, k (output), j (summed).
  std::vector<float> x(12), w(12), y(8);
  for (int i = 0; i < 12; ++i) {
    x[i] = static_cast<float>(i % 7) - 3;
    w[i] = static_cast<float>(i % 5) - 1;
  }
  const EinsumParams p = {2, 3, 4, {2, 2, 2, 3}, {{6, 3, 0, 1}, {6, 0, 1, 2}}, 8, 3};
  const float* ops[] = {x.data(), w.data()};
  einsum_ref(p, ops, y.data());
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 2; ++k) {
        float s = 0;
        for (int j = 0; j < 3; ++j) s += x[b * 6 + i * 3 + j] * w[b * 6 + j * 2 + k];
        REQUIRE(y[(b * 2 + i) * 2 + k] == Approx(s));
      }
  // "ii->": the trace of a 3x3 matrix; label i has stride 3 + 1.
  const double m[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  double t = 0;
  const EinsumParams tr = {1, 0, 1, {3}, {{4}}, 1, 3};
  const double* mops[] = {m};
  einsum_ref(tr, mops, &t);
  CHECK(t == 15);
}
