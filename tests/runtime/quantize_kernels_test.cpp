// Quantization kernels: the spec's examples (Operators.md), hand-computed rounding (half to even),
// saturation and packing, and brute-force products written independently of the kernels.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>
#include <tuple>
#include <vector>

#include "onnxc/quantize.h"

using namespace onnxc;

namespace {

QuantizeParams per_tensor(index_t n) {
  return {1, 1, n, QuantGranularity::kTensor, 0, true, QuantPrecision::kFloat};
}

// The unpacked 4-bit code of element i of a packed byte array (low nibble first).
unsigned nibble(const std::vector<uint8_t>& bytes, size_t i) {
  return (bytes[i / 2] >> (4 * (i % 2))) & 0xF;
}

}  // namespace

TEST_CASE("quantize_linear_ref to uint8 rounds half to even and saturates", "[quantize-kernels]") {
  // The spec example plus ties: 3/2 = 1.5 -> 2, 1/2 = 0.5 -> 0, 5/2 = 2.5 -> 2, -1/2 -> -0.
  const float x[] = {0, 2, 3, 1000, -254, -1000, 1, 5, -1, -3};
  const float scale = 2;
  const uint8_t zp = 128;
  uint8_t y[10];
  quantize_linear_ref<float, float, uint8_t>(x, &scale, &zp, y, per_tensor(10));
  CHECK(std::vector<int>(y, y + 10) ==
        std::vector<int>{128, 129, 130, 255, 1, 0, 128, 130, 128, 126});
  // Without a zero point the default is 0 (and the output saturates at 0 for negatives).
  quantize_linear_ref<float, float, uint8_t>(x, &scale, nullptr, y, per_tensor(10));
  CHECK(std::vector<int>(y, y + 4) == std::vector<int>{0, 1, 2, 255});
}

TEST_CASE("the float-only rounding of narrow types equals the double rounding",
          "[quantize-kernels]") {
  // saturate_round_narrow (int8..uint16 outputs, no double) against saturate_round (the
  // reference's nearbyint in double): every half step in [-300, 300], values around 2^17 and
  // 2^22, infinities, NaN, and random floats of all magnitudes, for each range and zero point.
  std::vector<float> values = {0.0f,      -0.0f,      INFINITY,   -INFINITY,   NAN,   131071.5f,
                               131072.0f, -131072.5f, 4194303.5f, -4194304.5f, 1e30f, -1e-30f};
  for (int k = -600; k <= 600; ++k) values.push_back(0.5f * static_cast<float>(k));
  std::mt19937 rng(9);
  std::uniform_int_distribution<uint32_t> bits;
  for (int i = 0; i < 200000; ++i) {
    const uint32_t b = bits(rng);
    float v;
    std::memcpy(&v, &b, 4);
    values.push_back(v);
    values.push_back(
        std::ldexp(static_cast<float>(b % 4096) - 2048.0f, -(static_cast<int>(b >> 28))));
  }
  struct Range {
    int32_t lo, hi, zp;
  };
  for (const Range& r : {Range{-128, 127, 0}, Range{-128, 127, -128}, Range{0, 255, 128},
                         Range{-32768, 32767, 100}, Range{0, 65535, 65535}}) {
    for (float v : values) {
      const int64_t want = quant_detail::saturate_round(v, r.zp, r.lo, r.hi);
      const int32_t got = quant_detail::saturate_round_narrow(v, r.zp, r.lo, r.hi);
      if (got != want) {
        INFO("v " << v << " zp " << r.zp << " range [" << r.lo << ", " << r.hi << "]");
        REQUIRE(got == want);
      }
    }
  }
}

TEST_CASE("quantize_linear_ref per axis matches the spec's axis example", "[quantize-kernels]") {
  const float x[] = {-162, 10, -100, 232, -20,  -50,  -76,  0,    0,
                     252,  32, -44,  245, -485, -960, -270, -375, -470};
  const float scale[] = {2, 4, 5};
  const uint8_t zp[] = {84, 24, 196};
  uint8_t y[18];
  const QuantizeParams p = {1, 3, 6, QuantGranularity::kAxis, 0, true, QuantPrecision::kFloat};
  quantize_linear_ref<float, float, uint8_t>(x, scale, zp, y, p);
  // x / scale + zp by hand (every quotient here is exact or far from a tie).
  CHECK(std::vector<int>(y, y + 18) ==
        std::vector<int>{3, 89, 34, 200, 74, 59, 5, 24, 24, 87, 32, 13, 245, 99, 4, 142, 121, 102});
  // Dequantizing gives x back.
  float back[18];
  dequantize_linear_ref<uint8_t, float, float>(y, scale, zp, back, p);
  for (int i = 0; i < 18; ++i) CHECK(back[i] == x[i]);
}

TEST_CASE("quantize/dequantize blocked along an axis, with a partial last block",
          "[quantize-kernels]") {
  // x [2, 5], axis 1, block 2: scale [2, 3]; element (r, c) uses scale[r][c / 2].
  std::vector<float> x = {1, 2, 3, 4, 5, -1, -2, -3, -4, -50};
  const float scale[] = {1, 2, 4, 0.5f, 1, 10};
  const int8_t zp[] = {0, 1, -1, 2, 0, 3};
  int8_t y[10];
  const QuantizeParams p = {2, 5, 1, QuantGranularity::kBlocked, 2, true, QuantPrecision::kFloat};
  quantize_linear_ref<float, float, int8_t>(x.data(), scale, zp, y, p);
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 5; ++c) {
      const int k = r * 3 + c / 2;
      const double want = std::max(
          -128.0, std::min(127.0, double{std::nearbyint(x[r * 5 + c] / scale[k])} + zp[k]));
      CHECK(y[r * 5 + c] == static_cast<int>(want));
    }
  float back[10];
  dequantize_linear_ref<int8_t, float, float>(y, scale, zp, back, p);
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 5; ++c) {
      const int k = r * 3 + c / 2;
      CHECK(back[r * 5 + c] == static_cast<float>((y[r * 5 + c] - zp[k]) * scale[k]));
    }
}

TEST_CASE("quantize_linear_ref packs int4 / uint2 with saturation", "[quantize-kernels]") {
  // x [3, 4], scales (2, 3, 4) along axis 0, zero point 1: -30/3 + 1 = -9 saturates to -8.
  const float x[] = {0, 2.5f, 4.8f, 8.6f, -30, -20, 6, 9, 12, 15, 16, 40};
  const float scale[] = {2, 3, 4};
  const std::vector<uint8_t> zp_bytes = {0x11, 0x01};  // three int4 ones
  std::vector<uint8_t> y(6, 0xFF);
  const QuantizeParams p = {1, 3, 4, QuantGranularity::kAxis, 0, true, QuantPrecision::kFloat};
  quantize_linear_ref<float, float, int4x2>(x, scale,
                                            reinterpret_cast<const int4x2*>(zp_bytes.data()),
                                            reinterpret_cast<int4x2*>(y.data()), p);
  // 0+1, 1.25->1 +1, 2.4->2 +1, 4.3->4 +1 = 5; -10+1 -> -8, -6.67->-7+1 = -6, 2+1, 3+1;
  // 3+1, 3.75->4 +1, 4+1, 10+1 -> 7.
  const int want[] = {1, 2, 3, 5, -8, -6, 3, 4, 4, 5, 5, 7};
  for (size_t i = 0; i < 12; ++i) CHECK(nibble(y, i) == (static_cast<unsigned>(want[i]) & 0xF));
  // uint2 (4 per byte), 5 elements: the padding bits of the last byte are zero.
  const float u[] = {0, 1, 2, 3, 9};
  const float one = 1;
  uint8_t packed[2] = {0xFF, 0xFF};
  quantize_linear_ref<float, float, uint2x4>(u, &one, nullptr, reinterpret_cast<uint2x4*>(packed),
                                             per_tensor(5));
  CHECK(packed[0] == (0 | 1 << 2 | 2 << 4 | 3 << 6));
  CHECK(packed[1] == 3);
  // Dequantize int4 back (per tensor, scale 2, zero point 1): codes 0x0 and 0x9 (-7).
  const uint8_t q[] = {0x90};
  const uint8_t zq[] = {0x01};
  const float two = 2;
  float d[2];
  dequantize_linear_ref<int4x2, float, float>(reinterpret_cast<const int4x2*>(q), &two,
                                              reinterpret_cast<const int4x2*>(zq), d,
                                              per_tensor(2));
  CHECK(d[0] == -2.0f);
  CHECK(d[1] == -16.0f);
}

TEST_CASE("quantize_linear_ref to float8 saturates unless saturate=0", "[quantize-kernels]") {
  const float x[] = {0, 1, 2, 100000, 200};
  const float scale = 2;
  float8e4m3fn y[5];
  quantize_linear_ref<float, float, float8e4m3fn>(x, &scale, nullptr, y, per_tensor(5));
  // 0, 0.5 = 2^-1 (exponent 6: 0x30), 1 (0x38), 448 (max: 0x7E), 100 = 1.5625 * 2^6 (0x6C).
  CHECK(y[0].bits == 0x00);
  CHECK(y[1].bits == 0x30);
  CHECK(y[2].bits == 0x38);
  CHECK(y[3].bits == 0x7E);
  CHECK(y[4].bits == 0x6C);
  QuantizeParams p = per_tensor(5);
  p.saturate = false;
  quantize_linear_ref<float, float, float8e4m3fn>(x, &scale, nullptr, y, p);
  CHECK(y[3].bits == 0x7F);  // NaN: e4m3fn has no infinity
  // e5m2 reaches 57344: 50000 rounds to 49152 (0x7A); 1e6 overflows to infinity.
  const float big[] = {100000, 2000000};
  float8e5m2 z[2];
  QuantizeParams p2 = p;
  p2.inner = 2;
  quantize_linear_ref<float, float, float8e5m2>(big, &scale, nullptr, z, p2);
  CHECK(z[0].bits == 0x7A);
  CHECK(z[1].bits == 0x7C);
  // float8 back to float16 through a float16 scale.
  const float16 h2 = {0x4000};  // 2.0
  float16 out[5];
  dequantize_linear_ref<float8e4m3fn, float16, float16>(y, &h2, nullptr, out, per_tensor(5));
  CHECK(to_float(out[1]) == 1.0f);
  CHECK(to_float(out[4]) == 192.0f);  // 100 was stored as 96 = 1.5 * 2^6
}

TEST_CASE("quantize_linear_ref to float4e2m1 saturates at 6", "[quantize-kernels]") {
  const float x[] = {0, 1, 2.5f, -7, 100};
  const float one = 1;
  uint8_t y[3] = {0xFF, 0xFF, 0xFF};
  quantize_linear_ref<float, float, float4e2m1x2>(
      x, &one, nullptr, reinterpret_cast<float4e2m1x2*>(y), per_tensor(5));
  // codes: 0 -> 0, 1 -> 0b0010, 2.5 ties to 2 (0b0100), -7 -> -6 (0b1111), 100 -> 6 (0b0111).
  CHECK(y[0] == (0x0 | 0x2 << 4));
  CHECK(y[1] == (0x4 | 0xF << 4));
  CHECK(y[2] == 0x7);
}

TEST_CASE("quantize_linear_ref precision rounds x, scale and quotient", "[quantize-kernels]") {
  const float x[] = {2049};  // not a float16: rounds to 2048 at float16 precision
  const float one = 1;
  int16_t y;
  QuantizeParams p = per_tensor(1);
  quantize_linear_ref<float, float, int16_t>(x, &one, nullptr, &y, p);
  CHECK(y == 2049);
  p.precision = QuantPrecision::kFloat16;
  quantize_linear_ref<float, float, int16_t>(x, &one, nullptr, &y, p);
  CHECK(y == 2048);
  const float bx[] = {257};  // bfloat16 has 8 significant bits: 256
  p.precision = QuantPrecision::kBFloat16;
  quantize_linear_ref<float, float, int16_t>(bx, &one, nullptr, &y, p);
  CHECK(y == 256);
}

TEST_CASE("dynamic_quantize_linear_ref follows the spec's example", "[quantize-kernels]") {
  const float x[] = {0, 2, -3, -2.5f, 1.34f, 0.5f};
  uint8_t y[6], zp;
  float scale;
  dynamic_quantize_linear_ref(x, y, &scale, &zp, 6);
  CHECK(scale == 5.0f / 255.0f);
  CHECK(zp == 153);  // round(3 / (5/255)) = round(153)
  CHECK(std::vector<int>(y, y + 6) == std::vector<int>{153, 255, 0, 26, 221, 179});
  const float zeros[] = {0, 0};
  dynamic_quantize_linear_ref(zeros, y, &scale, &zp, 2);
  CHECK(scale == 1.0f);
  CHECK(zp == 0);
  CHECK(y[0] == 0);
}

namespace {

QuantMatMulParams plain_matmul(index_t m, index_t n, index_t k) {
  QuantMatMulParams p{};
  p.mm.batch_rank = 0;
  p.mm.batch_count = 1;
  p.mm.m = m, p.mm.n = n, p.mm.k = k;
  p.a_axis = p.b_axis = p.y_axis = QuantAxis::kTensor;
  return p;
}

}  // namespace

TEST_CASE("matmul_integer_ref: spec example and per-row / per-column zero points",
          "[quantize-kernels]") {
  const uint8_t a[] = {11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0};
  const uint8_t b[] = {1, 4, 2, 5, 3, 6};
  const uint8_t az = 12, bz = 0;
  int32_t y[8];
  matmul_integer_ref<uint8_t, uint8_t>(plain_matmul(4, 2, 3), a, b, &az, &bz, y);
  CHECK(std::vector<int>(y, y + 8) == std::vector<int>{-38, -83, -44, -98, -50, -113, -56, -128});

  std::mt19937 rng(3);
  std::uniform_int_distribution<int> d(-128, 127);
  const int m = 3, n = 4, k = 5;
  std::vector<int8_t> sa(m * k), sb(k * n), za(m), zb(n);
  for (auto* v : {&sa, &sb, &za, &zb})
    for (auto& e : *v) e = static_cast<int8_t>(d(rng));
  QuantMatMulParams p = plain_matmul(m, n, k);
  p.a_axis = QuantAxis::kRow;
  p.b_axis = QuantAxis::kColumn;
  std::vector<int32_t> out(m * n);
  matmul_integer_ref<int8_t, int8_t>(p, sa.data(), sb.data(), za.data(), zb.data(), out.data());
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      int64_t want = 0;
      for (int t = 0; t < k; ++t)
        want += (int64_t{sa[i * k + t]} - za[i]) * (int64_t{sb[t * n + j]} - zb[j]);
      CHECK(out[i * n + j] == want);
    }
}

TEST_CASE("matmul_integer_ref with per-batch zero points", "[quantize-kernels]") {
  // A [2, 2, 3] with a_zero_point [2, 2, 1]; B [3, 2] shared, b_zero_point [2] per column.
  const int8_t a[] = {1, -2, 3, 4, 5, -6, -7, 8, 9, 10, -11, 12};
  const int8_t b[] = {2, -1, 0, 3, -4, 5};
  const int8_t az[] = {1, -1, 2, -2}, bz[] = {1, -1};
  QuantMatMulParams p = plain_matmul(2, 2, 3);
  p.mm.batch_rank = 1;
  p.mm.batch_dims[0] = 2;
  p.mm.a_strides[0] = 6;
  p.mm.b_strides[0] = 0;
  p.mm.batch_count = 2;
  p.a_axis = QuantAxis::kRow;
  p.b_axis = QuantAxis::kColumn;
  p.a_param_strides[0] = 2;
  p.b_param_strides[0] = 0;
  int32_t y[8];
  matmul_integer_ref<int8_t, int8_t>(p, a, b, az, bz, y);
  for (int bi = 0; bi < 2; ++bi)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) {
        int want = 0;
        for (int t = 0; t < 3; ++t)
          want += (a[bi * 6 + i * 3 + t] - az[bi * 2 + i]) * (b[t * 2 + j] - bz[j]);
        CHECK(y[bi * 4 + i * 2 + j] == want);
      }
}

TEST_CASE("qlinear_matmul_ref: the spec's 2-D example, saturating, and float16 scales",
          "[quantize-kernels]") {
  const uint8_t a[] = {208, 236, 0, 238, 3, 214, 255, 29};
  const uint8_t b[] = {152, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247};
  const float as = 0.0066f, bs = 0.00705f, ys = 0.0107f;
  const uint8_t az = 113, bz = 114, yz = 118;
  uint8_t y[6];
  qlinear_matmul_ref<uint8_t, uint8_t, float, uint8_t>(plain_matmul(2, 3, 4), a, &as, &az, b, &bs,
                                                       &bz, &ys, &yz, y);
  CHECK(std::vector<int>(y, y + 6) == std::vector<int>{168, 115, 255, 1, 66, 151});
  // float16 scales: the multiplier is a_scale * b_scale / y_scale rounded to float16 at each step.
  // 1 * 0.5 / 0.25 = 2 exactly: acc 3 -> 6 + 1.
  const uint8_t one[] = {3}, unit[] = {1};
  const float16 h1 = to_float16(1.0), h05 = to_float16(0.5), h025 = to_float16(0.25);
  const uint8_t z0 = 0, z1 = 1;
  uint8_t r;
  qlinear_matmul_ref<uint8_t, uint8_t, float16, uint8_t>(plain_matmul(1, 1, 1), one, &h1, &z0, unit,
                                                         &h05, &z0, &h025, &z1, &r);
  CHECK(r == 7);
}

namespace {

// Direct convolution on a zero-padded copy of (x - x_zp): an independent formulation.
std::vector<int32_t> naive_conv(const std::vector<int>& x, int c_in, int h, int w_in,
                                const std::vector<int>& w, int c_out, int kh, int kw, int pad,
                                int stride, int group, int oh, int ow) {
  const int hp = h + 2 * pad, wp = w_in + 2 * pad;
  std::vector<int> padded(c_in * hp * wp, 0);
  for (int c = 0; c < c_in; ++c)
    for (int i = 0; i < h; ++i)
      for (int j = 0; j < w_in; ++j)
        padded[(c * hp + i + pad) * wp + j + pad] = x[(c * h + i) * w_in + j];
  std::vector<int32_t> y(c_out * oh * ow, 0);
  const int cg = c_in / group, mg = c_out / group;
  for (int m = 0; m < c_out; ++m)
    for (int i = 0; i < oh; ++i)
      for (int j = 0; j < ow; ++j)
        for (int c = 0; c < cg; ++c)
          for (int u = 0; u < kh; ++u)
            for (int v = 0; v < kw; ++v)
              y[(m * oh + i) * ow + j] +=
                  padded[((m / mg * cg + c) * hp + i * stride + u) * wp + j * stride + v] *
                  w[((m * cg + c) * kh + u) * kw + v];
  return y;
}

}  // namespace

TEST_CASE("conv_integer_ref: spec example and a grouped, strided, padded brute force",
          "[quantize-kernels]") {
  // ConvInteger's example with padding 1: w_zero_point (0, 1) zeroes the second filter.
  const uint8_t x[] = {2, 3, 4, 5, 6, 7, 8, 9, 10};
  const uint8_t w[] = {1, 1, 1, 1, 1, 1, 1, 1};
  const uint8_t xz = 1, wz[] = {0, 1};
  QuantConvParams q{};
  q.conv = {1, 1, 2, 1, {1, 1, 3}, {1, 1, 4}, {1, 1, 2}, {1, 1, 1}, {1, 1, 1}, {0, 0, 1}, 0};
  q.conv.in[1] = 3, q.conv.out[1] = 4, q.conv.kernel[1] = 2, q.conv.pad[1] = 1;
  q.w_zp_per_channel = true;
  int32_t y[32];
  conv_integer_ref<uint8_t, uint8_t>(q, x, w, &xz, wz, y);
  const std::vector<int> first = {1, 3, 5, 3, 5, 12, 16, 9, 11, 24, 28, 15, 7, 15, 17, 9};
  CHECK(std::vector<int>(y, y + 16) == first);
  for (int i = 16; i < 32; ++i) CHECK(y[i] == 0);

  // 4 channels in 2 groups, 4 filters, 5x6 input, 3x2 kernel, stride 2, pad 1.
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> d(-128, 127);
  const int c_in = 4, h = 5, wi = 6, c_out = 4, kh = 3, kw = 2, pad = 1, stride = 2, group = 2;
  const int oh = (h + 2 * pad - kh) / stride + 1, ow = (wi + 2 * pad - kw) / stride + 1;
  std::vector<int8_t> sx(c_in * h * wi), sw(c_out * (c_in / group) * kh * kw);
  for (auto& v : sx) v = static_cast<int8_t>(d(rng));
  for (auto& v : sw) v = static_cast<int8_t>(d(rng));
  const int8_t sxz = 5, swz = -3;
  std::vector<int> dx(sx.size()), dw(sw.size());
  for (size_t i = 0; i < sx.size(); ++i) dx[i] = sx[i] - sxz;
  for (size_t i = 0; i < sw.size(); ++i) dw[i] = sw[i] - swz;
  const auto want = naive_conv(dx, c_in, h, wi, dw, c_out, kh, kw, pad, stride, group, oh, ow);
  QuantConvParams g{};
  g.conv = {1,
            c_in,
            c_out,
            group,
            {1, h, wi},
            {1, oh, ow},
            {1, kh, kw},
            {1, stride, stride},
            {1, 1, 1},
            {0, pad, pad},
            0};
  std::vector<int32_t> got(want.size());
  conv_integer_ref<int8_t, int8_t>(g, sx.data(), sw.data(), &sxz, &swz, got.data());
  CHECK(got == want);
}

TEST_CASE("qlinear_conv_ref requantizes per channel with bias, ties to even",
          "[quantize-kernels]") {
  // 1x1 convolution of 4 pixels, 2 output channels: multipliers 0.5 * 0.25 / 0.125 = 1 and
  // 0.5 * 0.125 / 0.125 = 0.5.
  const uint8_t x[] = {10, 11, 13, 250};
  const uint8_t w[] = {2, 1};
  const float xs = 0.5f, ws[] = {0.25f, 0.125f}, ys = 0.125f;
  const uint8_t xz = 10, wz = 0, yz = 100;
  const int32_t bias[] = {1, 0};
  QuantConvParams q{};
  q.conv = {1, 1, 2, 1, {1, 1, 4}, {1, 1, 4}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, 0};
  q.w_scale_per_channel = true;
  uint8_t y[8];
  qlinear_conv_ref<uint8_t, uint8_t, uint8_t>(q, x, &xs, &xz, w, ws, &wz, &ys, &yz, bias, y);
  // channel 0: acc = 2 * (x - 10) + 1 = 1, 3, 7, 481 -> +100, saturating at 255.
  // channel 1: acc = x - 10 = 0, 1, 3, 240 -> * 0.5 = 0, 0.5 -> 0, 1.5 -> 2, 120 -> +100.
  CHECK(std::vector<int>(y, y + 8) == std::vector<int>{101, 103, 107, 255, 100, 100, 102, 220});
}

TEST_CASE("requantize in integers is round-half-even of the exact acc * multiplier",
          "[quantize-kernels]") {
  // The exact value of acc * m (a 31-bit by 24-bit product) fits long double's 64-bit or
  // 113-bit significand; std::nearbyint rounds it half to even.
  auto exact = [](int32_t acc, float m, int32_t zp, long double lo, long double hi) {
    long double r = std::nearbyint(static_cast<long double>(acc) * m) + zp;
    return static_cast<int>(r < lo ? lo : r > hi ? hi : r);
  };
  std::mt19937 rng(7);
  std::uniform_int_distribution<int32_t> any_acc(INT32_MIN, INT32_MAX), small_acc(-70000, 70000);
  std::uniform_real_distribution<float> frac(0.5f, 1.0f);
  std::uniform_int_distribution<int> exponent(-70, 30), zero_point(-20, 20);
  int ties = 0;
  for (int i = 0; i < 200000; ++i) {
    const float m = std::ldexp(frac(rng), exponent(rng)) * (i % 7 == 0 ? -1.0f : 1.0f);
    const int32_t acc = i % 3 == 0 ? any_acc(rng) : small_acc(rng);
    const int32_t zp = zero_point(rng);
    const quant_detail::FixedMultiplier f = quant_detail::fixed_multiplier(m);
    REQUIRE(quant_detail::requantize<int8_t>(acc, f, zp) == exact(acc, m, zp, -128, 127));
    REQUIRE(quant_detail::requantize<uint8_t>(acc, f, zp + 100) == exact(acc, m, zp + 100, 0, 255));
    // Ties: acc * m = k + 1/2 for the multiplier 2^-e.
    const int e = 1 + i % 20;
    const int32_t tie_acc = static_cast<int32_t>((i % 64 - 32) * (1 << e) + (1 << (e - 1)));
    const float tie_m = std::ldexp(1.0f, -e);
    ties +=
        std::fabs(static_cast<double>(tie_acc) * tie_m - std::floor(tie_acc * 1.0 * tie_m)) == 0.5;
    REQUIRE(quant_detail::requantize<int8_t>(tie_acc, quant_detail::fixed_multiplier(tie_m), 0) ==
            exact(tie_acc, tie_m, 0, -128, 127));
  }
  CHECK(ties == 200000);
  // Zero, subnormal, huge and non-finite multipliers.
  const float specials[] = {0.0f, 1e-45f, 1e-30f, 3e7f, -3e7f, 1e30f};
  for (float m : specials)
    for (int32_t acc : {0, 1, -1, 1000, INT32_MIN, INT32_MAX})
      CHECK(quant_detail::requantize<int8_t>(acc, quant_detail::fixed_multiplier(m), 3) ==
            exact(acc, m, 3, -128, 127));
  CHECK(quant_detail::requantize<uint8_t>(5, quant_detail::fixed_multiplier(INFINITY), 0) == 255);
}

// The QAddParams the compiler derives (ops/quant/qelementwise.cpp), restated: the larger
// multiplier in [2^21, 2^22].
QAddParams qadd_params(double sa, double sb, double sy, int za, int zb, int zy, bool is_signed,
                       bool relu) {
  const double larger = std::max(sa, sb) / sy;
  const int shift = 21 - static_cast<int>(std::floor(std::log2(larger)));
  return {static_cast<int32_t>(std::nearbyint(std::ldexp(sa / sy, shift))),
          static_cast<int32_t>(std::nearbyint(std::ldexp(sb / sy, shift))),
          shift,
          za,
          zb,
          zy,
          relu ? zy : (is_signed ? -128 : 0),
          is_signed ? 127 : 255};
}

template <typename T>
void check_qlinear_add(std::mt19937& rng, bool relu, int& ties) {
  constexpr bool kSigned = std::is_signed_v<T>;
  std::uniform_real_distribution<double> log_ratio(-8.5, 10.5), log_scale(-12, 0);
  std::uniform_int_distribution<int> value(kSigned ? -128 : 0, kSigned ? 127 : 255);
  for (int trial = 0; trial < 200; ++trial) {
    const double sy = std::exp2(log_scale(rng));
    const double sa = sy * std::exp2(log_ratio(rng)), sb = sy * std::exp2(log_ratio(rng));
    const int za = value(rng), zb = value(rng), zy = value(rng);
    const QAddParams p = qadd_params(sa, sb, sy, za, zb, zy, kSigned, relu);
    REQUIRE(p.shift >= 10);
    REQUIRE(p.shift <= 30);
    std::vector<T> a(256), b(256), y(256);
    for (int i = 0; i < 256; ++i)
      a[i] = static_cast<T>(value(rng)), b[i] = static_cast<T>(value(rng));
    a[0] = kSigned ? -128 : 0, b[0] = kSigned ? 127 : 255;  // the extremes of the int32 sum
    a[1] = kSigned ? 127 : 255, b[1] = kSigned ? 127 : 255;
    qlinear_add_ref(p, a.data(), b.data(), y.data(), 256);
    for (int i = 0; i < 256; ++i) {
      const double exact = ((a[i] - za) * sa + (b[i] - zb) * sb) / sy;
      const double rounded = std::nearbyint(exact);  // half to even (default rounding mode)
      const double want = std::min<double>(p.y_max, std::max<double>(p.y_min, rounded + zy));
      INFO("a " << int(a[i]) << " b " << int(b[i]) << " exact " << exact);
      REQUIRE(std::fabs(y[i] - want) <= 1);
      // The multipliers' rounding (half a unit of 2^-shift each) moves the sum by at most this
      // many steps; only that close to a tie may the result differ from the exact rounding.
      const double band =
          0.5 * (std::abs(a[i] - za) + std::abs(b[i] - zb)) / std::ldexp(1.0, p.shift);
      if (std::fabs(std::fabs(exact - std::floor(exact)) - 0.5) <= band)
        ties += y[i] != want;
      else
        REQUIRE(y[i] == want);
    }
  }
}

TEST_CASE("qlinear_add_ref is the correctly rounded sum, in integers, away from ties",
          "[quantize-kernels]") {
  std::mt19937 rng(11);
  int ties = 0;
  for (const bool relu : {false, true}) {
    check_qlinear_add<int8_t>(rng, relu, ties);
    check_qlinear_add<uint8_t>(rng, relu, ties);
  }
  CHECK(ties < 400);  // of 204,800 sums: near-ties are rare
}

TEST_CASE("qlinear_add_ref rounds exact halves to even", "[quantize-kernels]") {
  // a_scale / y_scale = 1/2, b_scale / y_scale = 0: y = round_half_even(a / 2).
  const QAddParams p = {1 << 21, 0, 22, 0, 0, 0, -128, 127};
  const int8_t a[] = {1, 3, 5, -1, -3, 127, -128}, b[7] = {};
  int8_t y[7];
  qlinear_add_ref(p, a, b, y, 7);
  CHECK(std::vector<int>(y, y + 7) == std::vector<int>{0, 2, 2, 0, -2, 64, -64});
}

TEST_CASE("qlinear_mul_ref rounds exact halves to even and saturates", "[quantize-kernels]") {
  // multiplier * 2^-shift = 2^30 * 2^-31 = 1/2: y = round_half_even(a * b / 2).
  const QMulParams p = {1 << 30, 31, 0, 0, 0, -128, 127};
  const int8_t a[] = {1, 3, 5, -1, -3, 127, -128, 7, 0}, b[] = {1, 1, 1, 1, 1, 1, 1, -5, 9};
  int8_t y[9];
  qlinear_mul_ref(p, a, b, y, 9);
  CHECK(std::vector<int>(y, y + 9) == std::vector<int>{0, 2, 2, 0, -2, 64, -64, -18, 0});
  // Zero points, saturation and a fused Relu (y_min = y_zero_point), uint8, in place.
  const QMulParams q = {1 << 30, 30, 10, 20, 100, 100, 255};  // multiplier 1
  uint8_t u[] = {12, 11, 9, 255, 10};
  const uint8_t v[] = {23, 21, 21, 255, 0};
  qlinear_mul_ref(q, u, v, u, 5);
  // (2 * 3, 1 * 1, -1 * 1, 245 * 235, 0 * -20) + 100, clamped to [100, 255]
  CHECK(std::vector<int>(u, u + 5) == std::vector<int>{106, 101, 100, 255, 100});
}

TEST_CASE("qlinear_mul_ref rounds exact halves to even under a rounded multiplier",
          "[quantize-kernels]") {
  // M = 5/12 and 1/6 have no finite binary form: the multiplier round(M * 2^shift) is above the
  // exact value for 5/12 (by 1/3 unit) and below it for 1/6 (by 1/3); p = 6 * odd and 3 * odd
  // make the exact halves 2.5, 7.5, ... and 0.5, 1.5, ... that must round to even either way.
  for (const auto [num, den, step] : {std::tuple{5, 12, 6}, std::tuple{1, 6, 3}}) {
    const double m = double(num) / den;
    const int shift = 30 - static_cast<int>(std::floor(std::log2(m)));
    const QMulParams p = {
        static_cast<int32_t>(std::nearbyint(std::ldexp(m, shift))), shift, 0, 0, 0, -128, 127};
    std::vector<int8_t> a, b;
    for (int odd = -41; odd <= 41; odd += 2)
      if (std::abs(step * odd) <= 127) a.push_back(static_cast<int8_t>(step * odd)), b.push_back(1);
    std::vector<int8_t> y(a.size());
    qlinear_mul_ref(p, a.data(), b.data(), y.data(), static_cast<index_t>(a.size()));
    for (size_t i = 0; i < a.size(); ++i) {
      INFO("p " << int(a[i]) << " multiplier " << p.multiplier << " shift " << shift);
      // a * num / den is an exact half in double; nearbyint rounds it to even.
      CHECK(int(y[i]) == static_cast<int>(std::nearbyint(double(a[i] * num) / den)));
    }
    CHECK(a.size() >= 20);
  }
}

TEST_CASE("qlinear_lookup_ref indexes the table by the input's byte, also in place",
          "[quantize-kernels]") {
  uint8_t table_u[256];
  int8_t table_s[256];
  for (int k = 0; k < 256; ++k)
    table_u[k] = static_cast<uint8_t>(255 - k), table_s[k] = static_cast<int8_t>(k * 3 + 1);
  int8_t xs[256];
  uint8_t xu[256], yu[256];
  for (int i = 0; i < 256; ++i)
    xs[i] = static_cast<int8_t>(i - 128), xu[i] = static_cast<uint8_t>(i);
  qlinear_lookup_ref(xs, table_u, yu, 256);  // int8 -> uint8
  for (int i = 0; i < 256; ++i) REQUIRE(yu[i] == table_u[static_cast<uint8_t>(xs[i])]);
  int8_t ys[256];
  qlinear_lookup_ref(xu, table_s, ys, 256);  // uint8 -> int8
  for (int i = 0; i < 256; ++i) REQUIRE(ys[i] == table_s[xu[i]]);
  int8_t in_place[256];
  std::memcpy(in_place, xs, sizeof(xs));
  qlinear_lookup_ref(in_place, table_s, in_place, 256);  // int8 -> int8, y = x
  for (int i = 0; i < 256; ++i) REQUIRE(in_place[i] == table_s[static_cast<uint8_t>(xs[i])]);
}

namespace {

// The QScale of m as the compiler forms it (ops/quant/qelementwise.cpp qlinear_scale).
QScale scale_of(double m) {
  const int shift = 30 - static_cast<int>(std::floor(std::log2(m)));
  return {static_cast<int32_t>(std::nearbyint(std::ldexp(m, shift))), shift};
}

// round_half_even(v) + zp saturated to T, or -1000 when v lies within 1e-9 of a half that is not
// exactly one (there either neighbour is right: the kernels round once, from a rounded multiplier).
template <typename T>
int rounded_or_near_tie(long double v, int zp) {
  const long double frac = v - std::floor(v);
  if (frac != 0.5L && std::fabs(frac - 0.5L) < 1e-9L) return -1000;
  const long double lo = std::is_signed_v<T> ? -128 : 0, hi = std::is_signed_v<T> ? 127 : 255;
  return static_cast<int>(std::min(hi, std::max(lo, std::nearbyint(v) + zp)));
}

}  // namespace

TEST_CASE("qlinear_concat_ref copies or requantizes each input along the axis",
          "[quantize-kernels]") {
  // Three inputs of [2, k, 3] (k = 1, 2, 2) concatenated on axis 1: outer 2, extents 3, 6, 6.
  // Input 0 has the output's scale and zero point (copied); 1 and 2 other ones.
  const float sy = 0.06f, sx[3] = {0.06f, 0.05f, 0.125f};
  const int zy = -3, zx[3] = {-3, 0, 10};
  const index_t extent[3] = {3, 6, 6};
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> byte(-128, 127);
  std::vector<int8_t> x[3];
  for (int k = 0; k < 3; ++k)
    for (index_t i = 0; i < 2 * extent[k]; ++i) x[k].push_back(static_cast<int8_t>(byte(rng)));
  x[2][0] = 127, x[2][1] = -128;  // (x - 10) * 0.125 / 0.06: saturates both ways
  QConcatInput in[3];
  for (int k = 0; k < 3; ++k)
    in[k] = {extent[k], k == 0, zx[k], k == 0 ? QScale{0, 16} : scale_of(double(sx[k]) / sy)};
  const int8_t* sources[3] = {x[0].data(), x[1].data(), x[2].data()};
  std::vector<int8_t> y(30);
  qlinear_concat_ref(sources, in, 3, 2, zy, y.data());
  size_t at = 0;
  for (index_t o = 0; o < 2; ++o)
    for (int k = 0; k < 3; ++k)
      for (index_t i = 0; i < extent[k]; ++i, ++at) {
        const int v = x[k][o * extent[k] + i];
        const int want =
            k == 0 ? v : rounded_or_near_tie<int8_t>((long double)(v - zx[k]) * sx[k] / sy, zy);
        INFO("input " << k << " row " << o << " element " << i << " x " << v);
        if (want != -1000) CHECK(int(y[at]) == want);
      }
  CHECK(int(y[9]) == 127);
  CHECK(int(y[10]) == -128);
}

TEST_CASE("qlinear_concat_ref rounds exact halves to even", "[quantize-kernels]") {
  // x_scale / y_scale = 0.125 / 0.75 = 1/6, no finite binary form: x = 3 * odd gives the halves
  // 0.5, 1.5, ... that the float graph (exact there) rounds to even.
  std::vector<uint8_t> x;
  for (int odd = 1; 3 * odd <= 255; odd += 2) x.push_back(uint8_t(3 * odd));
  const QConcatInput in = {index_t(x.size()), false, 0, scale_of(1.0 / 6)};
  const uint8_t* sources[1] = {x.data()};
  std::vector<uint8_t> y(x.size());
  qlinear_concat_ref(sources, &in, 1, 1, 0, y.data());
  for (size_t i = 0; i < x.size(); ++i)
    CHECK(int(y[i]) == static_cast<int>(std::nearbyint(double(x[i]) / 6)));
}

namespace {

// A plain 2-D average pool of (x - zx) requantized with x_scale / (y_scale * count), rounded half
// to even, written from the ONNX reference's loops (not PoolParams'): the window at oh starts at
// oh * stride - pad_begin and ends at min(start + kernel, in + pad_end); count_include_pad counts
// that span, else the taps inside the input.
template <typename T>
std::vector<int> plain_avgpool(const std::vector<T>& x, int channels, int h, int w, int k,
                               int stride, int pad_begin, int pad_end, int out_h, int out_w,
                               bool include_pad, float sx, float sy, int zx, int zy) {
  std::vector<int> y;
  for (int c = 0; c < channels; ++c)
    for (int oh = 0; oh < out_h; ++oh)
      for (int ow = 0; ow < out_w; ++ow) {
        const int h0 = oh * stride - pad_begin, w0 = ow * stride - pad_begin;
        const int h1 = std::min(h0 + k, h + pad_end), w1 = std::min(w0 + k, w + pad_end);
        long sum = 0, taps = 0;
        for (int ih = std::max(h0, 0); ih < std::min(h1, h); ++ih)
          for (int iw = std::max(w0, 0); iw < std::min(w1, w); ++iw, ++taps)
            sum += int(x[(c * h + ih) * w + iw]) - zx;
        const long count = include_pad ? long(h1 - h0) * (w1 - w0) : taps;
        y.push_back(rounded_or_near_tie<T>((long double)sum * sx / ((long double)sy * count), zy));
      }
  return y;
}

}  // namespace

TEST_CASE("qlinear_avgpool_ref against a plain pool with and without the padding counted",
          "[quantize-kernels]") {
  // 2 channels of 7 x 7, kernel 3, stride 2, pads 1 begin and 1 end, ceil_mode: out 4 x 4, the
  // last window reaching past the declared padding (its extra positions never count).
  const int channels = 2, h = 7, w = 7, k = 3, stride = 2, out = 4;
  const float sx = 0.05f, sy = 0.037f;
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> x(channels * h * w);
  for (auto& v : x) v = static_cast<uint8_t>(byte(rng));
  for (const bool include_pad : {false, true}) {
    INFO("count_include_pad " << include_pad);
    QAvgPoolParams p{};
    p.pool = {channels,  {1, h, w}, {1, out, out}, {1, k, k},   {1, stride, stride},
              {1, 1, 1}, {0, 1, 1}, {0, 1, 1},     include_pad, 0,
              2.0f};
    p.x_zero_point = 128, p.y_zero_point = 120;
    p.min_count = 1, p.max_count = 9;
    std::vector<QScale> scales;
    for (int c = 1; c <= 9; ++c) scales.push_back(scale_of(double(sx) / (double(sy) * c)));
    std::vector<uint8_t> y(channels * out * out);
    qlinear_avgpool_ref(p, scales.data(), x.data(), y.data());
    const std::vector<int> want =
        plain_avgpool(x, channels, h, w, k, stride, 1, 1, out, out, include_pad, sx, sy, 128, 120);
    for (size_t i = 0; i < y.size(); ++i) {
      INFO("output " << i);
      if (want[i] != -1000) CHECK(int(y[i]) == want[i]);
    }
  }
}

TEST_CASE("qlinear_avgpool_ref rounds exact halves to even and saturates", "[quantize-kernels]") {
  // One 1 x 4 row, kernel 2, stride 2, int8, scales equal: y = round_half_even((a + b) / 2).
  QAvgPoolParams p{};
  p.pool = {3,         {1, 1, 4}, {1, 1, 2}, {1, 1, 2}, {1, 1, 2}, {1, 1, 1},
            {0, 0, 0}, {0, 0, 0}, 0,         0,         2.0f};
  p.min_count = 2, p.max_count = 2;
  const QScale half = {1 << 30, 31};
  const int8_t x[12] = {1, 0, 3, 0, -1, 0, -3, 0, 127, 127, -128, -127};
  int8_t y[6];
  qlinear_avgpool_ref(p, &half, x, y);
  CHECK(std::vector<int>(y, y + 6) == std::vector<int>{0, 2, 0, -2, 127, -128});
  // Zero points: y_zero_point 100 saturates the 127 window.
  p.x_zero_point = -1, p.y_zero_point = 100;
  qlinear_avgpool_ref(p, &half, x, y);
  // (3, 5, 1, -1, 256, -253) / 2 rounded to even, plus 100, saturated.
  CHECK(std::vector<int>(y, y + 6) == std::vector<int>{102, 102, 100, 100, 127, -26});
}
