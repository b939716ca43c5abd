// Pool kernels: the references against hand-computed windows (padding in or out of the average's
// divisor, ceil_mode's extra window, argmax indices in both storage orders, Lp norms, empty
// windows), then the float variants against the references over odd sizes, strides, kernels,
// dilations and padding in 1-D to 3-D.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "onnxc/kernels_parallel.h"
#include "onnxc/pool.h"
#include "onnxc/thread_pool.h"

using namespace onnxc;

namespace {

// Params for `channels` planes; the output size follows floor mode plus `extra` windows per dim
// (ceil_mode's last window), padding begin / end as given.
PoolParams pool_params(index_t channels, std::vector<index_t> in, std::vector<index_t> kernel,
                       std::vector<index_t> stride, std::vector<index_t> dilation,
                       std::vector<index_t> pad, std::vector<index_t> pad_end,
                       std::vector<index_t> extra = {}) {
  PoolParams p{};
  p.channels = channels;
  const size_t lead = 3 - in.size();
  for (size_t d = 0; d < 3; ++d) {
    const bool real = d >= lead;
    const size_t i = d - lead;
    p.in[d] = real ? in[i] : 1;
    p.kernel[d] = real ? kernel[i] : 1;
    p.stride[d] = real ? stride[i] : 1;
    p.dilation[d] = real ? dilation[i] : 1;
    p.pad[d] = real ? pad[i] : 0;
    p.pad_end[d] = real ? pad_end[i] : 0;
    p.out[d] =
        (p.in[d] + p.pad[d] + p.pad_end[d] - (p.kernel[d] - 1) * p.dilation[d] - 1) / p.stride[d] +
        1 + (real && !extra.empty() ? extra[i] : 0);
  }
  p.p = 2.0;
  return p;
}

index_t out_count(const PoolParams& p) {
  return p.channels * p.out[0] * p.out[1] * p.out[2];
}

std::vector<float> iota(int n, float first = 1.0f) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = first + static_cast<float>(i);
  return v;
}

}  // namespace

TEST_CASE("maxpool_ref matches the ONNX MaxPool examples", "[pool-kernels]") {
  const std::vector<float> x = iota(25);  // 1..25 as 5x5
  SECTION("pads 2 around a 3x3 window") {
    const PoolParams p = pool_params(1, {5, 5}, {3, 3}, {1, 1}, {1, 1}, {2, 2}, {2, 2});
    std::vector<float> y(static_cast<size_t>(out_count(p)));
    REQUIRE(y.size() == 49);
    maxpool_ref<float>(p, x.data(), y.data(), nullptr);
    // Row 2 of the 7x7 output (windows over input rows 0..2).
    CHECK(std::vector<float>(y.begin() + 14, y.begin() + 21) ==
          std::vector<float>{11, 12, 13, 14, 15, 15, 15});
    CHECK(y[0] == 1);
    CHECK(y[48] == 25);
  }
  SECTION("argmax indices in row- and column-major order") {
    PoolParams p = pool_params(2, {5, 5}, {2, 2}, {2, 2}, {1, 1}, {0, 0}, {0, 0});
    std::vector<float> x2 = x;
    x2.insert(x2.end(), x.begin(), x.end());  // a second channel, same values
    std::vector<float> y(8);
    std::vector<int64_t> idx(8);
    maxpool_ref<float>(p, x2.data(), y.data(), idx.data());
    CHECK(std::vector<float>(y.begin(), y.begin() + 4) == std::vector<float>{7, 9, 17, 19});
    CHECK(idx == std::vector<int64_t>{6, 8, 16, 18, 31, 33, 41, 43});
    p.storage_order = 1;
    maxpool_ref<float>(p, x2.data(), y.data(), idx.data());
    CHECK(idx == std::vector<int64_t>{6, 16, 8, 18, 31, 41, 33, 43});
  }
  SECTION("3-D column-major indices") {
    // 2x2x2 input, one window covering it all; the max is at (d, h, w) = (1, 1, 0).
    const PoolParams q0 =
        pool_params(1, {2, 2, 2}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0});
    PoolParams q = q0;
    q.storage_order = 1;
    const float v[] = {0, 1, 2, 3, 4, 5, 9, 7};
    float y;
    int64_t at;
    maxpool_ref<float>(q0, v, &y, &at);
    CHECK(at == 6);  // row-major: (d * H + h) * W + w
    maxpool_ref<float>(q, v, &y, &at);
    CHECK(at == 3);  // column-major: d + h * D + w * D * H
    CHECK(y == 9);
  }
  SECTION("a window entirely in the padding yields 0 and index -1") {
    const PoolParams p = pool_params(1, {2}, {2}, {1}, {1}, {3}, {0});
    const float v[] = {-5, -7};
    std::vector<float> y(static_cast<size_t>(out_count(p)));
    std::vector<int64_t> idx(y.size());
    maxpool_ref<float>(p, v, y.data(), idx.data());
    CHECK(y == std::vector<float>{0, 0, -5, -5});
    CHECK(idx == std::vector<int64_t>{-1, -1, 0, 0});
  }
}

TEST_CASE("maxpool_ref on int8, uint8 and float16", "[pool-kernels]") {
  const PoolParams p = pool_params(1, {4}, {2}, {2}, {1}, {0}, {0});
  const int8_t xi[] = {-128, -3, 7, 127};
  int8_t yi[2];
  maxpool_ref<int8_t>(p, xi, yi, nullptr);
  CHECK(int(yi[0]) == -3);
  CHECK(int(yi[1]) == 127);
  const uint8_t xu[] = {0, 255, 9, 8};
  uint8_t yu[2];
  maxpool_ref<uint8_t>(p, xu, yu, nullptr);
  CHECK(int(yu[0]) == 255);
  CHECK(int(yu[1]) == 9);
  const float16 xh[] = {to_float16(-1.5), to_float16(2.5), to_float16(0.25), to_float16(-4)};
  float16 yh[2];
  maxpool_ref<float16>(p, xh, yh, nullptr);
  CHECK(to_float(yh[0]) == 2.5f);
  CHECK(to_float(yh[1]) == 0.25f);
}

TEST_CASE("avgpool_ref counts padding only when asked, never ceil_mode's extra", "[pool-kernels]") {
  const std::vector<float> x = iota(9);  // 1..9 as 3x3
  PoolParams p = pool_params(1, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, {1, 1});
  std::vector<float> y(16);
  avgpool_ref<float>(p, x.data(), y.data());
  CHECK(y[0] == 1.0f);                           // only x[0][0]
  CHECK(y[5] == Approx((1 + 2 + 4 + 5) / 4.0));  // an interior window
  CHECK(y[15] == 9.0f);
  p.count_include_pad = 1;
  avgpool_ref<float>(p, x.data(), y.data());
  CHECK(y[0] == 0.25f);
  CHECK(y[3] == Approx(3 / 4.0));
  SECTION("ceil_mode") {
    // 1..4, kernel 3, stride 2: the ceil window [2, 5) has two taps inside, one past the end.
    PoolParams q = pool_params(1, {4}, {3}, {2}, {1}, {0}, {0}, {1});
    REQUIRE(q.out[2] == 2);
    const std::vector<float> v = iota(4);
    float z[2];
    for (int include : {0, 1}) {
      q.count_include_pad = include;
      avgpool_ref<float>(q, v.data(), z);
      CHECK(z[0] == 2.0f);
      CHECK(z[1] == 3.5f);
    }
  }
  SECTION("dilations") {
    // 1-D 1..6, kernel 2 dilation 3: windows {1, 4}, {2, 5}, {3, 6}.
    const PoolParams q = pool_params(1, {6}, {2}, {1}, {3}, {0}, {0});
    const std::vector<float> v = iota(6);
    float z[3];
    avgpool_ref<float>(q, v.data(), z);
    CHECK(std::vector<float>(z, z + 3) == std::vector<float>{2.5f, 3.5f, 4.5f});
  }
}

TEST_CASE("lppool_ref and the global references", "[pool-kernels]") {
  PoolParams p = pool_params(1, {4}, {2}, {2}, {1}, {0}, {0});
  const float x[] = {3, -4, 1, 0};
  float y[2];
  lppool_ref<float>(p, x, y);
  CHECK(y[0] == Approx(5.0));
  CHECK(y[1] == Approx(1.0));
  p.p = 1.0;
  lppool_ref<float>(p, x, y);
  CHECK(y[0] == Approx(7.0));
  p.p = 3.0;
  lppool_ref<float>(p, x, y);
  CHECK(y[0] == Approx(std::cbrt(27.0 + 64.0)));

  const float planes[] = {1, 2, 3, -6, /* second channel */ -1, -2, -3, -4};
  float g[2];
  global_avgpool_ref<float>(planes, g, 2, 4);
  CHECK(g[0] == 0.0f);
  CHECK(g[1] == -2.5f);
  global_maxpool_ref<float>(planes, g, 2, 4);
  CHECK(g[0] == 3.0f);
  CHECK(g[1] == -1.0f);
  global_lppool_ref<float>(planes, g, 2, 4, 2.0);
  CHECK(g[0] == Approx(std::sqrt(50.0)));
  CHECK(g[1] == Approx(std::sqrt(30.0)));
  double gd[2];
  const double planes_d[] = {1, 2, 3, 4, 5, 6};
  global_avgpool_ref<double>(planes_d, gd, 2, 3);
  CHECK(gd[1] == 5.0);
}

TEST_CASE("f32_maxpool_rows__scalar matches maxpool_ref", "[pool-kernels]") {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  const std::vector<PoolParams> cases = {
      pool_params(3, {9, 11}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}),
      pool_params(2, {111, 111}, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, {1, 1}),
      pool_params(2, {8, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}),
      pool_params(2, {10, 9}, {2, 2}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, {0, 1}),
      pool_params(1, {12, 13}, {4, 3}, {3, 3}, {2, 1}, {2, 1}, {0, 2}),
      pool_params(1, {5, 5}, {2, 2}, {1, 1}, {1, 1}, {3, 3}, {0, 2}),  // windows in padding
      pool_params(4, {37}, {5}, {3}, {2}, {4}, {1}),
      pool_params(2, {5, 6, 7}, {2, 3, 3}, {1, 2, 2}, {2, 1, 1}, {1, 1, 0}, {0, 1, 2}),
      pool_params(1, {40, 70}, {3, 7}, {1, 4}, {1, 1}, {1, 3}, {1, 3}),
  };
  for (const PoolParams& p : cases) {
    std::vector<float> x(static_cast<size_t>(p.channels * p.in[0] * p.in[1] * p.in[2]));
    for (auto& v : x) v = dist(rng);
    const size_t n = static_cast<size_t>(out_count(p));
    std::vector<float> want(n);
    maxpool_ref<float>(p, x.data(), want.data(), nullptr);
    // The variant (the copy this CPU runs), then each run-time ISA copy the CPU can run.
    using Copy = void (*)(const PoolParams&, const float*, float*);
    std::vector<std::pair<const char*, Copy>> copies = {
        {"variant", [](const PoolParams& q, const float* xs,
                       float* ys) { f32_maxpool_rows__scalar(q, xs, ys, nullptr); }},
        {"baseline", pool_detail::maxpool_rows}};
#if defined(ONNXC_X86_ISA_DISPATCH)
    if (ONNXC_CPU_HAS_AVX2_FMA())
      copies.push_back({"avx2_fma", [](const PoolParams& q, const float* xs, float* ys) {
                          in_avx2_fma_copy([&] { pool_detail::maxpool_rows(q, xs, ys); });
                        }});
    if (ONNXC_CPU_HAS_AVX512F())
      copies.push_back({"avx512f", [](const PoolParams& q, const float* xs, float* ys) {
                          in_avx512f_copy([&] { pool_detail::maxpool_rows(q, xs, ys); });
                        }});
#endif
    for (const auto& [name, copy] : copies) {
      std::vector<float> got(n + 1, 777.0f);
      copy(p, x.data(), got.data());
      INFO(name << ": in " << p.in[0] << "x" << p.in[1] << "x" << p.in[2] << " kernel "
                << p.kernel[2] << " stride " << p.stride[2]);
      CHECK(got[n] == 777.0f);
      got.pop_back();
      CHECK(got == want);
    }
  }
}

TEST_CASE("f32_maxpool_rows__scalar split by channel over threads matches the whole kernel",
          "[pool-kernels][threads]") {
  std::mt19937 rng(6);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  ThreadPool pool(2);
  const std::vector<PoolParams> cases = {
      pool_params(64, {112, 112}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}),  // ResNet's stem
      pool_params(5, {9, 11}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}),      // fewer than parts
      pool_params(12, {5, 6, 7}, {2, 3, 3}, {1, 2, 2}, {2, 1, 1}, {1, 1, 0}, {0, 1, 2}),
  };
  for (const PoolParams& p : cases) {
    std::vector<float> x(static_cast<size_t>(p.channels * p.in[0] * p.in[1] * p.in[2]));
    for (auto& v : x) v = dist(rng);
    const size_t n = static_cast<size_t>(out_count(p));
    std::vector<float> want(n);
    f32_maxpool_rows__scalar(p, x.data(), want.data(), nullptr);
    for (const index_t tasks : {2, 3, 16})
      for (const Parallel& par : {kSerial, pool.parallel()}) {
        std::vector<float> got(n + 1, 777.0f);
        f32_maxpool_rows__scalar(p, x.data(), got.data(), nullptr, par, tasks);
        INFO("channels " << p.channels << " tasks " << tasks);
        CHECK(got[n] == 777.0f);
        got.pop_back();
        CHECK(got == want);
      }
  }
}

TEST_CASE("f32_globalavgpool_lanes__scalar matches global_avgpool_ref", "[pool-kernels]") {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (index_t spatial : {1, 15, 16, 17, 49, 169, 3137}) {
    const index_t channels = 3;
    std::vector<float> x(static_cast<size_t>(channels * spatial));
    for (auto& v : x) v = dist(rng);
    float want[3], got[3];
    global_avgpool_ref<float>(x.data(), want, channels, spatial);
    f32_globalavgpool_lanes__scalar(x.data(), got, channels, spatial);
    for (int c = 0; c < 3; ++c) CHECK(got[c] == Approx(want[c]).margin(1e-6));
  }
}
