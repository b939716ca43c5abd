// CumSum / CumProd / TopK / Compress / NonZero / Unique kernels against brute-force formulas
// written independently of the kernels.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <vector>

#include "onnxc/scan_ops.h"

using namespace onnxc;

TEST_CASE("cumsum_ref and cumprod_ref on every mode", "[scan-kernels]") {
  // [outer 2, n 4, inner 3]; y[o, j, i] as an explicit sum/product over the chosen range.
  std::vector<double> x(24);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 1.0 + static_cast<double>(i % 5) * 0.5;
  for (bool exclusive : {false, true})
    for (bool reverse : {false, true}) {
      std::vector<double> s(24), p(24);
      cumsum_ref(x.data(), s.data(), 2, 4, 3, exclusive, reverse);
      cumprod_ref(x.data(), p.data(), 2, 4, 3, exclusive, reverse);
      for (int o = 0; o < 2; ++o)
        for (int j = 0; j < 4; ++j)
          for (int i = 0; i < 3; ++i) {
            double ws = 0, wp = 1;
            for (int t = 0; t < 4; ++t) {
              const bool in = reverse ? (exclusive ? t > j : t >= j) : (exclusive ? t < j : t <= j);
              if (!in) continue;
              ws += x[(o * 4 + t) * 3 + i];
              wp *= x[(o * 4 + t) * 3 + i];
            }
            REQUIRE(s[(o * 4 + j) * 3 + i] == Approx(ws));
            REQUIRE(p[(o * 4 + j) * 3 + i] == Approx(wp));
          }
    }
  const int32_t xi[] = {2147483647, 1};
  int32_t yi[2];
  cumsum_ref(xi, yi, 1, 2, 1, false, false);  // wraps as numpy does
  CHECK(yi[1] == INT32_MIN);
}

TEST_CASE("topk_ref against a full sort, ties by index", "[scan-kernels]") {
  std::mt19937 rng(11);
  const index_t outer = 3, n = 9, inner = 2, k = 4;
  std::vector<int> x(outer * n * inner);
  for (auto& v : x) v = static_cast<int>(rng() % 5);  // many ties
  for (int largest : {0, 1}) {
    std::vector<int> values(outer * k * inner);
    std::vector<int64_t> indices(values.size());
    std::vector<index_t> order(n);
    topk_ref(TopKParams{outer, n, inner, k, largest}, x.data(), values.data(), indices.data(),
             order.data());
    for (index_t o = 0; o < outer; ++o)
      for (index_t i = 0; i < inner; ++i) {
        std::vector<std::pair<int, index_t>> row;
        for (index_t j = 0; j < n; ++j)
          row.push_back({largest ? -x[(o * n + j) * inner + i] : x[(o * n + j) * inner + i], j});
        std::sort(row.begin(), row.end());  // by key, then by index
        for (index_t j = 0; j < k; ++j) {
          REQUIRE(indices[(o * k + j) * inner + i] == row[j].second);
          REQUIRE(values[(o * k + j) * inner + i] == x[(o * n + row[j].second) * inner + i]);
        }
      }
  }
}

TEST_CASE("compress_ref, nonzero_ref and unique_ref", "[scan-kernels]") {
  const float x[] = {1, 2, 3, 4, 5, 6};  // [2, 3]
  const int64_t sel[] = {0, 2};
  float y[4];
  compress_ref(x, y, 2, 3, 1, sel, 2);
  CHECK(std::vector<float>(y, y + 4) == std::vector<float>{1, 3, 4, 6});

  const int z[] = {0, 3, 0, 0, 0, 7};  // [2, 3]: non-zeros at (0, 1), (1, 2)
  const index_t dims[] = {2, 3};
  REQUIRE(nonzero_count(z, 6) == 2);
  int64_t coords[4];
  nonzero_ref(z, dims, 2, 6, 2, coords);
  CHECK(std::vector<int64_t>(coords, coords + 4) == std::vector<int64_t>{0, 1, 1, 2});

  const int u[] = {5, 3, 5, 1, 3, 5};
  int64_t first[6], inverse[6], counts[6];
  const index_t nu = unique_ref(u, 1, 6, 1, true, first, inverse, counts);
  REQUIRE(nu == 3);  // 1, 3, 5
  CHECK(std::vector<int64_t>(first, first + 3) == std::vector<int64_t>{3, 1, 0});
  CHECK(std::vector<int64_t>(counts, counts + 3) == std::vector<int64_t>{1, 2, 3});
  CHECK(std::vector<int64_t>(inverse, inverse + 6) == std::vector<int64_t>{2, 1, 2, 0, 1, 2});
}
