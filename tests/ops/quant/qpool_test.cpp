// Quantized pool handlers (ops/quant/qpool.cpp): QLinearAveragePool's checks, its per-count
// multipliers (only the divisors its windows have), the emitted integer call, and folding against
// the float graph (DequantizeLinear -> AveragePool -> QuantizeLinear, computed here) within one
// step.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "onnxc/quantize.h"
#include "ops/infer_harness.h"

using namespace onnxc;
using onnxc::testing::InferHarness;

namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// X [1, 2, 5, 5] uint8 (all given values), x (0.05, 128), y (0.037, 120); kernel 3, stride 2,
// pads 1.
void make(InferHarness& h, const std::vector<int>& x, bool include_pad) {
  h.node().domain = "com.microsoft";
  h.constant(DataType::kUint8, {1, 2, 5, 5}, x);
  h.constant(DataType::kFloat, {}, std::vector<float>{0.05f});
  h.constant(DataType::kUint8, {}, std::vector<int>{128});
  h.constant(DataType::kFloat, {}, std::vector<float>{0.037f});
  h.constant(DataType::kUint8, {}, std::vector<int>{120});
  h.attr_ints("kernel_shape", {3, 3});
  h.attr_ints("strides", {2, 2});
  h.attr_ints("pads", {1, 1, 1, 1});
  h.attr_int("count_include_pad", include_pad);
}

}  // namespace

TEST_CASE("QLinearAveragePool handler: multipliers per window count and the emitted call",
          "[qpool]") {
  std::vector<int> x(50);
  for (int i = 0; i < 50; ++i) x[i] = (i * 37 + 11) % 256;
  for (const bool include_pad : {false, true}) {
    INFO("count_include_pad " << include_pad);
    InferHarness h("QLinearAveragePool", 1);
    make(h, x, include_pad);
    REQUIRE(h.infer());
    CHECK(h.out().dtype == DataType::kUint8);
    CHECK(h.out().shape == Shape{1, 2, 3, 3});
    const std::string code = h.emit();
    INFO(code);
    // Corners cover 4 input taps, edges 6, the center 9; with the padding counted, all 9.
    CHECK(has(code, include_pad ? "/*min_count=*/9, /*max_count=*/9};"
                                : "/*min_count=*/4, /*max_count=*/9};"));
    CHECK(has(code, "/*x_zero_point=*/128, /*y_zero_point=*/120"));
    CHECK(has(code, "static constexpr onnxc::QScale qpool_scales[] = {{/*multiplier=*/"));
    CHECK(has(code, "onnxc::qlinear_avgpool_ref<uint8_t>(p, qpool_scales, x0, y0);"));
    REQUIRE(h.fold());
    // The float graph: dequantized taps summed in double, divided by the count, rounded to
    // float, divided by y_scale in float, rounded half to even.
    const uint8_t* y = h.folded().as<uint8_t>();
    int exact = 0;
    for (int c = 0; c < 2; ++c)
      for (int oh = 0; oh < 3; ++oh)
        for (int ow = 0; ow < 3; ++ow) {
          double sum = 0;
          int taps = 0;
          for (int ih = std::max(oh * 2 - 1, 0); ih < std::min(oh * 2 + 2, 5); ++ih)
            for (int iw = std::max(ow * 2 - 1, 0); iw < std::min(ow * 2 + 2, 5); ++iw, ++taps)
              sum += static_cast<float>(x[(c * 5 + ih) * 5 + iw] - 128) * 0.05f;
          const float mean = static_cast<float>(sum / (include_pad ? 9 : taps));
          const double want =
              std::min(255.0, std::max(0.0, std::nearbyint(double(mean / 0.037f)) + 120));
          const int got = y[(c * 3 + oh) * 3 + ow];
          INFO("channel " << c << " output " << oh << " " << ow);
          CHECK(std::fabs(got - want) <= 1);
          exact += got == want;
        }
    CHECK(exact >= 16);  // of 18: one-step differences are near-ties
  }
}

TEST_CASE("QLinearAveragePool handler refuses dilations channels_last and unfit scales",
          "[qpool]") {
  const std::vector<int> x(50, 128);
  InferHarness dilated("QLinearAveragePool", 1);
  make(dilated, x, false);
  dilated.attr_ints("dilations", {1, 1});
  CHECK_FALSE(dilated.infer());
  CHECK_THAT(dilated.error(), Catch::Contains("dilations"));
  InferHarness nhwc("QLinearAveragePool", 1);
  make(nhwc, x, false);
  nhwc.attr_int("channels_last", 1);
  CHECK_FALSE(nhwc.infer());
  CHECK_THAT(nhwc.error(), Catch::Contains("channels_last"));
  // x_scale / (y_scale * 9) below 2^-32.
  InferHarness tiny("QLinearAveragePool", 1);
  tiny.node().domain = "com.microsoft";
  tiny.input(DataType::kInt8, {1, 1, 4, 4});
  tiny.constant(DataType::kFloat, {}, std::vector<float>{1e-12f});
  tiny.constant(DataType::kInt8, {}, std::vector<int>{0});
  tiny.constant(DataType::kFloat, {}, std::vector<float>{1.0f});
  tiny.attr_ints("kernel_shape", {3, 3});
  CHECK_FALSE(tiny.infer());
  CHECK_THAT(tiny.error(), Catch::Contains("does not fit the integer form"));
}
