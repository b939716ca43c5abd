// ScatterND / ScatterElements / GatherND kernels against the spec's worked examples and against
// direct per-element formulas on random data.
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <vector>

#include "onnxc/scatter_gather.h"

using namespace onnxc;

TEST_CASE("scatter_nd_ref: the spec's example 2 (slices of a 4x4x4 tensor)", "[scatter-kernels]") {
  // data[i, j, k] = values of the spec; indices [[0], [2]] replace blocks 0 and 2.
  std::vector<float> data(64), updates(32), y(64);
  for (int i = 0; i < 64; ++i) data[i] = static_cast<float>(i);
  for (int i = 0; i < 32; ++i) updates[i] = static_cast<float>(100 + i);
  const int64_t idx[] = {0, 2};
  const ScatterNDParams p = {/*numel=*/64,      /*k=*/1,      /*dims=*/{4},
                             /*strides=*/{16},
                             /*num_updates=*/2, /*slice=*/16, /*reduction=*/kScatterNone};
  scatter_nd_ref(p, data.data(), idx, updates.data(), y.data());
  for (int i = 0; i < 64; ++i) {
    const int block = i / 16;
    const float want = block == 0 ? 100 + i % 16 : block == 2 ? 116 + i % 16 : i;
    REQUIRE(y[i] == want);
  }
}

TEST_CASE("scatter_elements_ref: reductions and negative indices", "[scatter-kernels]") {
  // 2x3 data, indices along axis 1; every (row, index) pair accumulates by the formula.
  const float x[] = {1, 2, 3, 4, 5, 6};
  const int32_t idx[] = {0, -1, 0, 2, 2, 1};
  const float upd[] = {10, 20, 30, 40, 50, 60};
  for (int r : {kScatterAdd, kScatterMul, kScatterMax, kScatterMin}) {
    ScatterElementsParams p = {2, 1, {2, 3}, {3, 1}, 3, 6, 6, r};
    float y[6];
    scatter_elements_ref(p, x, idx, upd, y);
    std::vector<float> want(x, x + 6);
    for (int i = 0; i < 6; ++i) {
      const int row = i / 3, col = (idx[i] + 3) % 3;
      float& w = want[row * 3 + col];
      w = r == kScatterAdd   ? w + upd[i]
          : r == kScatterMul ? w * upd[i]
          : r == kScatterMax ? std::max(w, upd[i])
                             : std::min(w, upd[i]);
    }
    CHECK(std::vector<float>(y, y + 6) == want);
  }
}

TEST_CASE("gather_nd_ref matches a per-element formula", "[scatter-kernels]") {
  // data [3, 4, 5]; indices [6, 2] (k = 2) -> y [6, 5] = data[i0, i1, :].
  std::mt19937 rng(3);
  std::vector<double> data(60);
  for (auto& v : data) v = std::uniform_real_distribution<double>(-1, 1)(rng);
  std::vector<int64_t> idx(12);
  for (int t = 0; t < 6; ++t) {
    idx[2 * t] = static_cast<int64_t>(rng() % 3);
    idx[2 * t + 1] = static_cast<int64_t>(rng() % 4) - (t % 2 ? 4 : 0);  // some negative
  }
  const GatherNDParams p = {/*batches=*/1,       /*batch_stride=*/60, /*k=*/2,
                            /*dims=*/{3, 4},
                            /*strides=*/{20, 5}, /*per_batch=*/6,     /*slice=*/5};
  std::vector<double> y(30);
  gather_nd_ref(p, data.data(), idx.data(), y.data());
  for (int t = 0; t < 6; ++t)
    for (int k = 0; k < 5; ++k) {
      const int64_t i0 = idx[2 * t], i1 = (idx[2 * t + 1] + 4) % 4;
      REQUIRE(y[t * 5 + k] == data[static_cast<size_t>(i0 * 20 + i1 * 5 + k)]);
    }
}
