// Element conversions (onnxc/convert.h) and Cast kernels (onnxc/cast.h): hand-computed codes
// from the Cast spec tables and the ONNX conformance data, exhaustive round trips of every code,
// rounding checked against a brute-force nearest-value search, packing of sub-byte types, and the
// specialized float16/bfloat16 kernels against cast_ref.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "onnxc/cast.h"

using namespace onnxc;

namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

struct FormatCase {
  const char* name;
  MiniFloatFormat format;
  int width;  // bits per code
};

const FormatCase kFormats[] = {
    {"float16", kFloat16Format, 16},          {"bfloat16", kBFloat16Format, 16},
    {"float8e4m3fn", kFloat8E4M3FNFormat, 8}, {"float8e4m3fnuz", kFloat8E4M3FNUZFormat, 8},
    {"float8e5m2", kFloat8E5M2Format, 8},     {"float8e5m2fnuz", kFloat8E5M2FNUZFormat, 8},
    {"float4e2m1", kFloat4E2M1Format, 4},
};

uint32_t encode(const MiniFloatFormat& f, double x, bool saturate = true) {
  return float_to_minifloat(x, f, saturate);
}

}  // namespace

TEST_CASE("float16 codes of hand-picked values", "[convert-kernels]") {
  CHECK(to_float16(1.0).bits == 0x3C00);
  CHECK(to_float16(-2.0).bits == 0xC000);
  CHECK(to_float16(65504.0).bits == 0x7BFF);
  CHECK(to_float16(65519.0).bits == 0x7BFF);
  CHECK(to_float16(65520.0).bits == 0x7C00);  // the midpoint to 65536 ties to even: infinity
  CHECK(to_float16(1e6).bits == 0x7C00);
  CHECK(to_float16(-kInf).bits == 0xFC00);
  CHECK(to_float16(std::ldexp(1.0, -24)).bits == 0x0001);  // smallest subnormal
  CHECK(to_float16(std::ldexp(1.0, -25)).bits == 0x0000);  // half of it ties to even zero
  CHECK(to_float16(std::ldexp(3.0, -26)).bits == 0x0001);
  CHECK(to_float16(-0.0).bits == 0x8000);
  CHECK(to_float16(kNaN).bits == 0x7E00);
  CHECK(to_float16(1.0 + std::ldexp(1.0, -11)).bits == 0x3C00);  // tie: keep the even mantissa
  CHECK(to_float16(1.0 + 3 * std::ldexp(1.0, -11)).bits == 0x3C02);
  CHECK(to_float(float16{0x3555}) == 0.333251953125f);
  CHECK(to_float(float16{0x0001}) == std::ldexp(1.0f, -24));
  CHECK(std::isnan(to_float(float16{0x7E00})));
  // Conformance data: 0.47892547f -> 0x37AA; double input rounds once.
  CHECK(to_float16(0.47892547f).bits == 0x37AA);
  CHECK(to_float16(static_cast<double>(0.47892547f)).bits == 0x37AA);
}

TEST_CASE("bfloat16 rounds to nearest even and keeps NaN quiet", "[convert-kernels]") {
  CHECK(to_bfloat16(0.47892547f).bits == 0x3EF5);
  CHECK(to_bfloat16(0.48033667f).bits == 0x3EF6);
  CHECK(to_bfloat16(kNaN).bits == 0x7FC0);
  CHECK(to_bfloat16(-kInf).bits == 0xFF80);
  CHECK(to_bfloat16(std::numeric_limits<float>::max()).bits == 0x7F80);
  CHECK(to_float(bfloat16{0x3F80}) == 1.0f);
}

TEST_CASE("float8 special values follow the Cast tables for each flavour", "[convert-kernels]") {
  struct Row {
    double x;
    uint32_t e4m3fn, e4m3fnuz, e5m2, e5m2fnuz;
  };
  // saturate = true
  const Row saturated[] = {
      {0.0, 0x00, 0x00, 0x00, 0x00},        {-0.0, 0x80, 0x00, 0x80, 0x00},
      {kNaN, 0x7F, 0x80, 0x7E, 0x80},       {kInf, 0x7E, 0x7F, 0x7B, 0x7F},
      {-kInf, 0xFE, 0xFF, 0xFB, 0xFF},      {1e6, 0x7E, 0x7F, 0x7B, 0x7F},
      {-1e6, 0xFE, 0xFF, 0xFB, 0xFF},       {-1e-7, 0x80, 0x00, 0x80, 0x00},
      {0.47892547, 0x2F, 0x37, 0x38, 0x3C},
  };
  // saturate = false
  const Row unsaturated[] = {
      {-0.0, 0x80, 0x00, 0x80, 0x00},  {kNaN, 0x7F, 0x80, 0x7E, 0x80},
      {-kNaN, 0xFF, 0x80, 0xFE, 0x80}, {kInf, 0x7F, 0x80, 0x7C, 0x80},
      {-kInf, 0xFF, 0x80, 0xFC, 0x80}, {1e6, 0x7F, 0x80, 0x7C, 0x80},
      {-1e6, 0xFF, 0x80, 0xFC, 0x80},
  };
  for (const Row& r : saturated) {
    INFO("x = " << r.x);
    CHECK(to_float8e4m3fn(r.x).bits == r.e4m3fn);
    CHECK(to_float8e4m3fnuz(r.x).bits == r.e4m3fnuz);
    CHECK(to_float8e5m2(r.x).bits == r.e5m2);
    CHECK(to_float8e5m2fnuz(r.x).bits == r.e5m2fnuz);
  }
  for (const Row& r : unsaturated) {
    INFO("x = " << r.x);
    CHECK(to_float8e4m3fn(r.x, false).bits == r.e4m3fn);
    CHECK(to_float8e4m3fnuz(r.x, false).bits == r.e4m3fnuz);
    CHECK(to_float8e5m2(r.x, false).bits == r.e5m2);
    CHECK(to_float8e5m2fnuz(r.x, false).bits == r.e5m2fnuz);
  }
  // Around the largest finite values: 464 ties to 448 (even), 470 rounds past it.
  CHECK(to_float8e4m3fn(464.0, false).bits == 0x7E);
  CHECK(to_float8e4m3fn(470.0, false).bits == 0x7F);
  CHECK(to_float8e5m2(61440.0, false).bits == 0x7C);
  CHECK(to_float8e5m2(61439.0, false).bits == 0x7B);
  // Smallest subnormals: 2^-9 (e4m3fn), 2^-10 (e4m3fnuz), 2^-16 (e5m2), 2^-17 (e5m2fnuz).
  CHECK(to_float8e4m3fn(std::ldexp(1.0, -9)).bits == 0x01);
  CHECK(to_float8e4m3fnuz(std::ldexp(1.0, -10)).bits == 0x01);
  CHECK(to_float8e5m2(std::ldexp(1.0, -16)).bits == 0x01);
  CHECK(to_float8e5m2fnuz(std::ldexp(1.0, -17)).bits == 0x01);
  // Decoding: largest values and NaNs (FNUZ NaN reads as negative NaN).
  CHECK(to_float(float8e4m3fn{0x7E}) == 448.0f);
  CHECK(to_float(float8e4m3fnuz{0x7F}) == 240.0f);
  CHECK(to_float(float8e5m2{0x7B}) == 57344.0f);
  CHECK(to_float(float8e5m2fnuz{0x7F}) == 57344.0f);
  CHECK(to_float(float8e5m2{0x7C}) == kInf);
  CHECK(float_bits(to_float(float8e4m3fn{0xFF})) == 0xFFC00000u);
  CHECK(float_bits(to_float(float8e4m3fnuz{0x80})) == 0xFFC00000u);
  CHECK(float_bits(to_float(float8e5m2fnuz{0x80})) == 0xFFC00000u);
}

TEST_CASE("float4e2m1 saturates and maps NaN to the negative-zero code", "[convert-kernels]") {
  // Inputs and codes of the conformance case test_cast_FLOAT_to_FLOAT4E2M1.
  const double x[] = {0.48, 0.25, 1.05, -3.5, -8, 9, 1e6, 1e-7, kNaN, kInf, -kInf, -4, 0.01, -0.0};
  const uint8_t codes[] = {0x1, 0x0, 0x2, 0xE, 0xF, 0x7, 0x7, 0x0, 0x8, 0x7, 0xF, 0xE, 0x0, 0x8};
  for (size_t i = 0; i < sizeof codes; ++i) {
    INFO("x = " << x[i]);
    CHECK(to_float4e2m1(static_cast<float>(x[i])).bits == codes[i]);
  }
  const float values[] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  for (uint8_t c = 0; c < 8; ++c) {
    CHECK(to_float(float4e2m1{c}) == values[c]);
    CHECK(to_float(float4e2m1{static_cast<uint8_t>(c | 8)}) == -values[c]);
  }
}

TEST_CASE("every finite code of every small float survives decode then encode",
          "[convert-kernels]") {
  for (const FormatCase& fc : kFormats) {
    INFO(fc.name);
    for (uint32_t code = 0; code < (1u << fc.width); ++code) {
      const float v = minifloat_to_float(code, fc.format);
      if (std::isnan(v)) continue;
      REQUIRE(encode(fc.format, v, false) == code);
      // Saturation turns the infinities of float8e5m2 into its largest finite value.
      if (!std::isinf(v) || !fc.format.saturable) REQUIRE(encode(fc.format, v, true) == code);
    }
  }
}

TEST_CASE("small-float rounding picks the nearest code, ties to even", "[convert-kernels]") {
  // Brute force over the non-negative finite values of each 8-bit and 4-bit format (beyond the
  // largest, the nearest is the largest: saturation).
  std::mt19937 rng(7);
  for (const FormatCase& fc : kFormats) {
    if (fc.width > 8) continue;
    INFO(fc.name);
    std::vector<std::pair<double, uint32_t>> table;
    const uint32_t sign_bit = 1u << (fc.width - 1);
    for (uint32_t code = 0; code < sign_bit; ++code) {
      const float v = minifloat_to_float(code, fc.format);
      if (!std::isnan(v) && !std::isinf(v)) table.push_back({v, code});
    }
    const double max_value = table.back().first;
    std::uniform_real_distribution<double> dist(0, max_value * 1.02);
    std::vector<double> samples;
    for (size_t k = 0; k + 1 < table.size(); ++k) {  // exact midpoints and their neighbours
      const double mid = (table[k].first + table[k + 1].first) / 2;
      samples.insert(samples.end(), {mid, std::nextafter(mid, 0.0), std::nextafter(mid, 1e9)});
    }
    for (int k = 0; k < 3000; ++k) samples.push_back(dist(rng));
    for (double x : samples) {
      uint32_t expected = table[0].second;
      double best = x;
      for (const auto& [value, code] : table) {
        const double d = std::fabs(value - x);
        if (d < best || (d == best && (code & 1) == 0)) {
          best = d;
          expected = code;
        }
      }
      INFO("x = " << x);
      REQUIRE(encode(fc.format, x, true) == expected);
      if (expected != 0 || fc.format.specials != FloatSpecials::kFnuz)
        REQUIRE(encode(fc.format, -x, true) == (expected | sign_bit));
    }
  }
}

TEST_CASE("float8e8m0 rounding modes, saturation and decoding", "[convert-kernels]") {
  // test_cast_e8m0_FLOAT_to_FLOAT8E8M0 (round up, saturate).
  const float x[] = {0.0f, 0.124f, 0.25f, 0.5f, 1.1f, 2.0f, 4.0f, 8.0f};
  const uint8_t up[] = {0x00, 0x7C, 0x7D, 0x7E, 0x80, 0x80, 0x81, 0x82};
  for (int i = 0; i < 8; ++i) CHECK(to_float8e8m0(x[i]).bits == up[i]);
  CHECK(to_float8e8m0(1.1, true, E8M0Rounding::kDown).bits == 0x7F);
  CHECK(to_float8e8m0(1.4, true, E8M0Rounding::kNearest).bits == 0x7F);
  CHECK(to_float8e8m0(1.5, true, E8M0Rounding::kNearest).bits == 0x80);  // tie goes up
  CHECK(to_float8e8m0(3e38, true).bits == 0xFE);                         // saturated at 2^127
  CHECK(to_float8e8m0(3e38, false).bits == 0xFF);                        // NaN without saturate
  CHECK(to_float8e8m0(kInf, true).bits == 0xFE);
  CHECK(to_float8e8m0(kInf, false).bits == 0xFF);
  CHECK(to_float8e8m0(kNaN, true).bits == 0xFF);
  CHECK(to_float8e8m0(0.0, false).bits == 0xFF);
  CHECK(to_float(float8e8m0{0x7F}) == 1.0f);
  CHECK(to_float(float8e8m0{0x82}) == 8.0f);
  CHECK(to_float(float8e8m0{0x00}) == std::ldexp(1.0f, -127));
  CHECK(std::isnan(to_float(float8e8m0{0xFF})));
  for (int code = 1; code < 0xFF; ++code)
    REQUIRE(to_float8e8m0(to_float(float8e8m0{static_cast<uint8_t>(code)})).bits == code);
}

TEST_CASE("integer targets truncate then wrap, bool is nonzero", "[convert-kernels]") {
  const CastParams p = {true, E8M0Rounding::kUp};
  CHECK(convert_value<int8_t>(200.0f, p) == -56);
  CHECK(convert_value<int8_t>(-2.9f, p) == -2);
  CHECK(convert_value<uint8_t>(-1.0, p) == 255);
  CHECK(convert_value<int32_t>(kNaN, p) == 0);
  CHECK(convert_value<uint64_t>(1.8446744073709550e19, p) == 18446744073709549568ull);
  CHECK(convert_value<int64_t>(-kInf, p) == std::numeric_limits<int64_t>::min());
  CHECK(convert_value<int8_t>(int16_t{200}, p) == -56);
  CHECK(convert_value<uint16_t>(int8_t{-1}, p) == 0xFFFF);
  CHECK(convert_value<float>(uint64_t{18446744073709551615ull}, p) == 18446744073709551616.0f);
  CHECK(convert_value<double>(int64_t{-5}, p) == -5.0);
  CHECK(convert_value<float16>(int32_t{-3}, p).bits == 0xC200);
  CHECK(convert_value<float8e4m3fn>(int32_t{1000}, p).bits == 0x7E);
  CHECK(convert_value<bool>(kNaN, p));
  CHECK_FALSE(convert_value<bool>(-0.0f, p));
  CHECK(convert_value<bool>(int64_t{256}, p));
  CHECK(convert_value<float>(true, p) == 1.0f);
  CHECK(convert_value<int64_t>(float16{0xC500}, p) == -5);  // -5.0 in float16
  CHECK(convert_value<bool>(float8e5m2fnuz{0x80}, p));      // NaN
  CHECK_FALSE(convert_value<bool>(float8e4m3fn{0x80}, p));  // -0
}

TEST_CASE("cast_ref packs sub-byte outputs low bits first with zero padding", "[convert-kernels]") {
  const CastParams p = {true, E8M0Rounding::kUp};
  // test_cast_FLOAT_to_INT4 / UINT4: -9..15 wrap into 4 bits.
  std::vector<float> x;
  for (int v = -9; v <= 15; ++v) x.push_back(static_cast<float>(v));
  const uint8_t expected[] = {0x87, 0xa9, 0xcb, 0xed, 0x0f, 0x21, 0x43,
                              0x65, 0x87, 0xa9, 0xcb, 0xed, 0x0f};
  int4x2 s4[13];
  uint4x2 u4[13];
  std::memset(s4, 0xFF, sizeof s4);
  cast_ref(x.data(), s4, 25, p);
  cast_ref(x.data(), u4, 25, p);
  for (int i = 0; i < 13; ++i) {
    CHECK(s4[i].bits == expected[i]);
    CHECK(u4[i].bits == expected[i]);
  }
  // Back to int8: sign-extended for int4, not for uint4.
  int8_t s8[25];
  uint8_t u8[25];
  cast_ref(s4, s8, 25, p);
  cast_ref(u4, u8, 25, p);
  CHECK(s8[0] == 7);
  CHECK(s8[1] == -8);
  CHECK(s8[24] == -1);
  CHECK(u8[1] == 8);
  CHECK(u8[24] == 15);
  // int2 / uint2: -3..3, four per byte.
  const float small[] = {-3, -2, -1, 0, 1, 2, 3};
  int2x4 s2[2];
  uint2x4 u2[2];
  cast_ref(small, s2, 7, p);
  cast_ref(small, u2, 7, p);
  CHECK(s2[0].bits == 0x39);
  CHECK(s2[1].bits == 0x39);
  CHECK(u2[1].bits == 0x39);
  float back[7];
  cast_ref(s2, back, 7, p);
  CHECK(std::vector<float>(back, back + 7) == std::vector<float>{1, -2, -1, 0, 1, -2, -1});
  cast_ref(u2, back, 7, p);
  CHECK(std::vector<float>(back, back + 7) == std::vector<float>{1, 2, 3, 0, 1, 2, 3});
  // float4e2m1 through float16 and back.
  const float f4_in[] = {0.48f, 0.25f, 1.05f, -3.5f, -8, 9,     1e6f, 1e-7f,
                         kNaN,  kInf,  kInf,  -kInf, -4, 0.01f, -0.0f};
  const uint8_t f4_bytes[] = {0x01, 0xe2, 0x7f, 0x07, 0x78, 0xf7, 0x0e, 0x08};
  float4e2m1x2 f4[8];
  cast_ref(f4_in, f4, 15, p);
  for (int i = 0; i < 8; ++i) CHECK(f4[i].bits == f4_bytes[i]);
  float16 h[15];
  cast_ref(f4, h, 15, p);
  CHECK(h[3].bits == 0xC400);  // -4
  CHECK(h[8].bits == 0x8000);  // the NaN input became -0
  float4e2m1x2 again[8];
  cast_ref(h, again, 15, p);
  for (int i = 0; i < 8; ++i) CHECK(again[i].bits == f4_bytes[i]);
}

TEST_CASE("packed element access and fills", "[convert-kernels]") {
  const int4x2 s4[] = {{0x8F}, {0x07}};
  CHECK(element_at(s4, 0) == -1);
  CHECK(element_at(s4, 1) == -8);
  CHECK(element_at(s4, 2) == 7);
  CHECK(element_as_double(s4, 1) == -8.0);
  const float4e2m1x2 f4[] = {{0x9E}};
  CHECK(element_as_double(f4, 0) == -4.0);
  CHECK(element_as_double(f4, 1) == -0.5);
  const float8e5m2 f8[] = {{0x3C}};
  CHECK(element_as_double(f8, 0) == 1.0);
  uint2x4 u2[3];
  fill_packed_ref(u2, 9, 2u);
  CHECK(u2[0].bits == 0xAA);
  CHECK(u2[1].bits == 0xAA);
  CHECK(u2[2].bits == 0x02);  // one element, zero padding
  int4x2 s4_fill[2];
  fill_packed_ref(s4_fill, 4, 0xEu);
  CHECK(s4_fill[1].bits == 0xEE);
  float16 h[5];
  fill_value_ref(h, 5, float16{0x3C00});
  CHECK(h[4].bits == 0x3C00);
}

TEST_CASE("float16 kernels match cast_ref on every half and on many floats", "[convert-kernels]") {
  const CastParams p = {true, E8M0Rounding::kUp};
  std::vector<float16> halves(65536);
  for (uint32_t c = 0; c < 65536; ++c) halves[c].bits = static_cast<uint16_t>(c);
  std::vector<float> ref(65536), fast(65536);
  cast_ref(halves.data(), ref.data(), 65536, p);
  f16_f32_cast__scalar(halves.data(), fast.data(), 65536, p);
  for (uint32_t c = 0; c < 65536; ++c) REQUIRE(float_bits(fast[c]) == float_bits(ref[c]));

  // Every half, its neighbours and the midpoints between halves, plus random bit patterns.
  std::vector<float> x;
  for (uint32_t c = 0; c < 65536; ++c) {
    const float v = ref[c];
    x.insert(x.end(), {v, std::nextafter(v, kInf), std::nextafter(v, -kInf)});
    if ((c & 0x7FFF) < 0x7C00)
      x.push_back((v + to_float(float16{static_cast<uint16_t>(c + 1)})) / 2);
  }
  std::mt19937 rng(11);
  for (int k = 0; k < 200000; ++k) x.push_back(float_from_bits(static_cast<uint32_t>(rng())));
  for (index_t n : {index_t(0), index_t(1), index_t(7), static_cast<index_t>(x.size())}) {
    std::vector<float16> a(static_cast<size_t>(n) + 1, float16{0x1234}), b(a);
    cast_ref(x.data(), a.data(), n, p);
    f32_f16_cast__scalar(x.data(), b.data(), n, p);
    for (index_t i = 0; i <= n; ++i) {
      INFO("x = " << x[static_cast<size_t>(i)] << " bits "
                  << float_bits(x[static_cast<size_t>(i)]));
      REQUIRE(a[static_cast<size_t>(i)].bits == b[static_cast<size_t>(i)].bits);
    }
  }
}

TEST_CASE("bfloat16 kernels match cast_ref", "[convert-kernels]") {
  const CastParams p = {true, E8M0Rounding::kUp};
  std::mt19937 rng(13);
  std::vector<float> x = {0.0f,
                          -0.0f,
                          kNaN,
                          -kNaN,
                          kInf,
                          -kInf,
                          std::numeric_limits<float>::max(),
                          std::numeric_limits<float>::denorm_min(),
                          1.00390625f,
                          1.01171875f};
  for (int k = 0; k < 200000; ++k) x.push_back(float_from_bits(static_cast<uint32_t>(rng())));
  std::vector<bfloat16> a(x.size()), b(x.size());
  cast_ref(x.data(), a.data(), static_cast<index_t>(x.size()), p);
  f32_bf16_cast__scalar(x.data(), b.data(), static_cast<index_t>(x.size()), p);
  for (size_t i = 0; i < x.size(); ++i) {
    INFO("bits " << float_bits(x[i]));
    REQUIRE(a[i].bits == b[i].bits);
  }
  std::vector<float> ra(x.size()), rb(x.size());
  cast_ref(a.data(), ra.data(), static_cast<index_t>(x.size()), p);
  bf16_f32_cast__scalar(a.data(), rb.data(), static_cast<index_t>(x.size()), p);
  for (size_t i = 0; i < x.size(); ++i) REQUIRE(float_bits(ra[i]) == float_bits(rb[i]));
}
