// Integer elementwise handlers (ops/quant/qelementwise.cpp): QLinearMul's parameters against the
// float graph's arithmetic over every pair of 8-bit inputs, QLinearLookup's checks, emitted call,
// folding and in-place permission.
#include "ops/quant/qelementwise.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "ops/infer_harness.h"

using namespace onnxc;
using onnxc::testing::InferHarness;

namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// What the float graph computes for DequantizeLinear(a) * DequantizeLinear(b) -> QuantizeLinear:
// each dequantization rounded to float (dequantize_linear_ref), the product and the quotient by
// y_scale in float (Mul, quantize_linear_ref), rounded half to even, saturated. `exact` says
// whether every one of those float operations was exact.
template <typename T>
int float_graph_mul(int a, int b, float sa, float sb, float sy, int za, int zb, int zy,
                    bool& exact) {
  using LD = long double;  // 64-bit significand: each check below is exact
  const float da = static_cast<float>(a - za) * sa, db = static_cast<float>(b - zb) * sb;
  const float product = da * db, q = product / sy;
  exact = LD(da) == LD(a - za) * LD(sa) && LD(db) == LD(b - zb) * LD(sb) &&
          LD(product) == LD(da) * LD(db) && LD(q) * LD(sy) == LD(product);
  const double lo = std::is_signed_v<T> ? -128 : 0, hi = std::is_signed_v<T> ? 127 : 255;
  return static_cast<int>(std::min(hi, std::max(lo, std::nearbyint(double(q)) + zy)));
}

struct MulScales {
  float sa, sb, sy;
  int za, zb, zy;  // for uint8; int8 shifts each by -128
};

// qlinear_mul_ref over all 65536 pairs: within one step of the float graph always, equal to it
// wherever the float graph's arithmetic is exact. Returns how many exact pairs were halves.
template <typename T>
int check_all_pairs(const MulScales& s, int& exact_pairs) {
  const int shift = std::is_signed_v<T> ? -128 : 0;
  const int za = s.za + shift, zb = s.zb + shift, zy = s.zy + shift;
  QMulParams p{};
  REQUIRE(qlinear_mul_params(s.sa, s.sb, s.sy, za, zb, zy,
                             std::is_signed_v<T> ? DataType::kInt8 : DataType::kUint8, false, p));
  std::vector<T> a(65536), b(65536), y(65536);
  for (int i = 0; i < 65536; ++i) a[i] = static_cast<T>(i & 255), b[i] = static_cast<T>(i >> 8);
  qlinear_mul_ref(p, a.data(), b.data(), y.data(), 65536);
  int halves = 0;
  for (int i = 0; i < 65536; ++i) {
    bool exact = false;
    const int want = float_graph_mul<T>(a[i], b[i], s.sa, s.sb, s.sy, za, zb, zy, exact);
    INFO("a " << int(a[i]) << " b " << int(b[i]) << " float graph " << want << " integer "
              << int(y[i]) << " multiplier " << p.multiplier << " shift " << p.shift);
    REQUIRE(std::abs(int(y[i]) - want) <= 1);
    if (exact) {
      REQUIRE(int(y[i]) == want);
      ++exact_pairs;
      const double v = double(a[i] - za) * (b[i] - zb) * s.sa * s.sb / s.sy;
      halves += v - std::floor(v) == 0.5 && std::fabs(v) < 100;  // a half, not saturated
    }
  }
  return halves;
}

}  // namespace

TEST_CASE("QLinearMul in integers: within one step of the float graph for all 65536 pairs",
          "[qelementwise]") {
  // Scales as tools write them; the ORT contrib case's; powers of two (the float graph is exact
  // everywhere); and 1.25 * 1 / 3, whose multiplier 5/12 has no finite binary form while the
  // float graph is exact at many exact halves (p = 6, 18, 30, ...: 2.5, 7.5, 12.5).
  const MulScales sets[] = {{0.05f, 0.04f, 0.5f, 128, 120, 128},
                            {0.013f, 0.021f, 0.0017f, 121, 133, 128},
                            {0.25f, 0.5f, 0.125f, 128, 128, 128},
                            {1.25f, 1.0f, 3.0f, 128, 127, 130},
                            {0.0071f, 0.0093f, 0.00041f, 140, 101, 90}};
  for (const MulScales& s : sets) {
    INFO("scales " << s.sa << " " << s.sb << " " << s.sy);
    int exact_u8 = 0, exact_s8 = 0;
    const int halves = check_all_pairs<uint8_t>(s, exact_u8) + check_all_pairs<int8_t>(s, exact_s8);
    if (s.sa == 0.25f) CHECK(exact_u8 == 65536);
    if (s.sa == 1.25f) CHECK(halves >= 20);  // the halves rounded to even are exercised
  }
}

TEST_CASE("qlinear_mul_params: a multiplier from 2^30 to 2^31, refusing what does not fit",
          "[qelementwise]") {
  QMulParams p{};
  REQUIRE(qlinear_mul_params(0.5, 0.5, 1.0, 1, 2, 3, DataType::kInt8, true, p));
  CHECK(p.multiplier == (1 << 30));
  CHECK(p.shift == 32);  // 2^30 * 2^-32 = 1/4
  CHECK(p.y_min == 3);   // the fused Relu clamps at y_zero_point
  CHECK(p.y_max == 127);
  REQUIRE(qlinear_mul_params(0.1f, 0.3f, 0.7f, 0, 0, 0, DataType::kUint8, false, p));
  CHECK(p.multiplier >= (1 << 30));
  CHECK(p.y_min == 0);
  CHECK(p.y_max == 255);
  const double m = double(0.1f) * double(0.3f) / double(0.7f);
  CHECK(std::fabs(std::ldexp(double(p.multiplier), -p.shift) / m - 1) < 1e-9);
  // Just below 2^15 (rounds up to 2^31 at shift 16: refused) and 2^15 itself; 2^-33; zero and
  // non-finite scales.
  CHECK_FALSE(qlinear_mul_params(32768.0, 1.0, 1.0, 0, 0, 0, DataType::kInt8, false, p));
  CHECK_FALSE(qlinear_mul_params(std::nextafter(32768.0, 0.0), 1.0, 1.0, 0, 0, 0, DataType::kInt8,
                                 false, p));
  CHECK(qlinear_mul_params(16384.0, 1.0, 1.0, 0, 0, 0, DataType::kInt8, false, p));
  CHECK_FALSE(
      qlinear_mul_params(std::ldexp(1.0, -33), 1.0, 1.0, 0, 0, 0, DataType::kInt8, false, p));
  CHECK(qlinear_mul_params(std::ldexp(1.0, -32), 1.0, 1.0, 0, 0, 0, DataType::kInt8, false, p));
  CHECK(p.shift == 62);
  CHECK_FALSE(qlinear_mul_params(0.0, 1.0, 1.0, 0, 0, 0, DataType::kInt8, false, p));
  CHECK_FALSE(qlinear_mul_params(1.0, INFINITY, 1.0, 0, 0, 0, DataType::kInt8, false, p));
}

TEST_CASE("QLinearMul handler: equal shapes, constant scales, the emitted integer call",
          "[qelementwise]") {
  auto make = [](InferHarness& h, Shape b_shape, float y_scale) {
    h.node().domain = "com.microsoft";
    h.input(DataType::kInt8, {2, 3});
    h.constant(DataType::kFloat, {}, std::vector<float>{0.02f});
    h.constant(DataType::kInt8, {}, std::vector<int>{1});
    h.input(DataType::kInt8, b_shape);
    h.constant(DataType::kFloat, {}, std::vector<float>{0.03f});
    h.constant(DataType::kInt8, {}, std::vector<int>{-2});
    h.constant(DataType::kFloat, {}, std::vector<float>{y_scale});
    h.constant(DataType::kInt8, {}, std::vector<int>{5});
  };
  InferHarness h("QLinearMul", 1);
  make(h, {2, 3}, 0.01f);
  REQUIRE(h.infer());
  CHECK(h.out().dtype == DataType::kInt8);
  CHECK(h.out().shape == Shape{2, 3});
  const std::string code = h.emit();
  CHECK(has(code, "static constexpr onnxc::QMulParams p = {/*multiplier=*/"));
  CHECK(has(code,
            "/*a_zero_point=*/1, /*b_zero_point=*/-2, /*y_zero_point=*/5, /*y_min=*/-128, "
            "/*y_max=*/127};"));
  CHECK(has(code, "onnxc::qlinear_mul_ref(p, x0, x3, y0, /*n=*/6);"));
  InferHarness broadcast("QLinearMul", 1);
  make(broadcast, {1, 3}, 0.01f);
  CHECK_FALSE(broadcast.infer());
  CHECK_THAT(broadcast.error(), Catch::Contains("equal shapes only"));
  InferHarness tiny("QLinearMul", 1);
  make(tiny, {2, 3}, 1e-9f);  // 0.02 * 0.03 / 1e-9 = 6e5 >= 2^15
  CHECK_FALSE(tiny.infer());
  CHECK_THAT(tiny.error(), Catch::Contains("do not fit the integer form"));
}

TEST_CASE("QLinearLookup: the table entry of each input byte, of the table type, in place",
          "[qelementwise]") {
  InferHarness h("QLinearLookup", 1);
  h.node().domain = kOnnxcDomain;
  std::vector<int> x = {-128, -1, 0, 1, 127, 5};
  std::vector<int> table(256);
  for (int k = 0; k < 256; ++k) table[k] = (k * 7 + 3) % 256;
  h.constant(DataType::kInt8, {2, 3}, x);
  h.constant(DataType::kUint8, {256}, table);
  REQUIRE(h.infer());
  CHECK(h.out().dtype == DataType::kUint8);
  CHECK(h.out().shape == Shape{2, 3});
  CHECK(h.node().handler->alias(h.node()).kind == AliasKind::kInPlace);
  CHECK(has(h.emit(), "onnxc::qlinear_lookup_ref(x0, x1, y0, /*n=*/6);"));
  REQUIRE(h.fold());
  for (int i = 0; i < 6; ++i)
    CHECK(int(h.folded().as<uint8_t>()[i]) == table[static_cast<uint8_t>(x[i])]);

  InferHarness short_table("QLinearLookup", 1);
  short_table.node().domain = kOnnxcDomain;
  short_table.input(DataType::kUint8, {4});
  short_table.constant(DataType::kUint8, {255}, std::vector<int>(255));
  CHECK_FALSE(short_table.infer());
  CHECK_THAT(short_table.error(), Catch::Contains("256 values"));
  // A run-time table is read by every element: the output may not overwrite it.
  InferHarness run_time("QLinearLookup", 1);
  run_time.node().domain = kOnnxcDomain;
  run_time.input(DataType::kUint8, {256});
  run_time.input(DataType::kUint8, {256});
  REQUIRE(run_time.infer());
  CHECK(run_time.node().handler->alias(run_time.node()).kind == AliasKind::kNone);
}

namespace {

// What the float graph computes for DequantizeLinear(x) -> Concat -> QuantizeLinear per element:
// (x - zx) * sx rounded to float, divided by sy in float, rounded half to even, plus zy,
// saturated; `exact` says whether both float operations were exact.
template <typename T>
int float_graph_requantize(int x, float sx, int zx, float sy, int zy, bool& exact) {
  using LD = long double;
  const float d = static_cast<float>(x - zx) * sx, q = d / sy;
  exact = LD(d) == LD(x - zx) * LD(sx) && LD(q) * LD(sy) == LD(d);
  const double lo = std::is_signed_v<T> ? -128 : 0, hi = std::is_signed_v<T> ? 127 : 255;
  return static_cast<int>(std::min(hi, std::max(lo, std::nearbyint(double(q)) + zy)));
}

struct ConcatScales {
  float sa, sb, sy;
  int za, zb, zy;  // for uint8; int8 shifts each by -128
};

// QLinearConcat of two [1, 256] constants holding every byte, folded by the handler: within one
// step of the float graph for every value, equal to it wherever its arithmetic is exact. Counts
// the exact values and, of those, the exact halves.
template <typename T>
void check_all_values(const ConcatScales& s, int& exact_values, int& halves) {
  const DataType type = std::is_signed_v<T> ? DataType::kInt8 : DataType::kUint8;
  const int shift = std::is_signed_v<T> ? -128 : 0;
  std::vector<int> bytes(256);
  for (int i = 0; i < 256; ++i) bytes[i] = static_cast<T>(i);
  InferHarness h("QLinearConcat", 1);
  h.node().domain = "com.microsoft";
  h.attr_int("axis", 1);
  h.constant(DataType::kFloat, {}, std::vector<float>{s.sy});
  h.constant(type, {}, std::vector<int>{s.zy + shift});
  h.constant(type, {1, 256}, bytes);
  h.constant(DataType::kFloat, {}, std::vector<float>{s.sa});
  h.constant(type, {}, std::vector<int>{s.za + shift});
  h.constant(type, {1, 256}, bytes);
  h.constant(DataType::kFloat, {}, std::vector<float>{s.sb});
  h.constant(type, {}, std::vector<int>{s.zb + shift});
  REQUIRE(h.infer());
  REQUIRE(h.out().shape == Shape{1, 512});
  REQUIRE(h.fold());
  const T* y = h.folded().as<T>();
  for (int i = 0; i < 512; ++i) {
    const bool second = i >= 256;
    const float sx = second ? s.sb : s.sa;
    const int zx = (second ? s.zb : s.za) + shift, x = bytes[i % 256];
    bool exact = false;
    const int want = float_graph_requantize<T>(x, sx, zx, s.sy, s.zy + shift, exact);
    INFO("input " << second << " x " << x << " float graph " << want << " integer " << int(y[i]));
    REQUIRE(std::abs(int(y[i]) - want) <= 1);
    if (exact) {
      REQUIRE(int(y[i]) == want);
      ++exact_values;
      const long double v = (long double)(x - zx) * sx / s.sy;
      halves += v - std::floor(v) == 0.5L && std::fabs(v) < 100;
    }
  }
}

}  // namespace

TEST_CASE("QLinearConcat in integers: within one step of the float graph for all 256 values",
          "[qelementwise]") {
  // The ORT contrib case's scales; the output's scale with another zero point and a copy; 1/8
  // and 3/4 (the multiplier 1/6 has no finite binary form while the float graph is exact at the
  // halves 0.5, 1.5, ...); powers of two (exact everywhere, saturating); scales as tools write.
  const ConcatScales sets[] = {{0.05f, 0.07f, 0.06f, 128, 110, 125},
                               {0.75f, 0.75f, 0.75f, 131, 128, 128},
                               {0.125f, 0.75f, 0.75f, 128, 128, 130},
                               {0.25f, 0.5f, 0.125f, 100, 128, 128},
                               {0.0039f, 0.0213f, 0.0078f, 0, 3, 0}};
  for (const ConcatScales& s : sets) {
    INFO("scales " << s.sa << " " << s.sb << " " << s.sy);
    int exact_u8 = 0, exact_s8 = 0, halves = 0;
    check_all_values<uint8_t>(s, exact_u8, halves);
    check_all_values<int8_t>(s, exact_s8, halves);
    if (s.sa == 0.25f || s.sa == 0.75f) CHECK(exact_u8 == 512);
    if (s.sa == 0.125f) CHECK(halves >= 20);  // the halves rounded to even are exercised
  }
}

TEST_CASE("QLinearConcat handler: types and shapes, copies, the emitted integer call",
          "[qelementwise]") {
  auto make = [](InferHarness& h, Shape b_shape, float b_scale, int b_zero_point) {
    h.node().domain = "com.microsoft";
    h.attr_int("axis", -1);
    h.constant(DataType::kFloat, {}, std::vector<float>{0.02f});
    h.constant(DataType::kUint8, {}, std::vector<int>{128});
    h.input(DataType::kUint8, {2, 3});
    h.constant(DataType::kFloat, {}, std::vector<float>{0.02f});
    h.constant(DataType::kUint8, {}, std::vector<int>{128});
    h.input(DataType::kUint8, b_shape);
    h.constant(DataType::kFloat, {}, std::vector<float>{b_scale});
    h.constant(DataType::kUint8, {}, std::vector<int>{b_zero_point});
  };
  InferHarness h("QLinearConcat", 1);
  make(h, {2, 5}, 0.01f, 120);
  REQUIRE(h.infer());
  CHECK(h.out().dtype == DataType::kUint8);
  CHECK(h.out().shape == Shape{2, 8});
  const std::string code = h.emit();
  INFO(code);
  // 0.01 / 0.02 = 1/2: multiplier 2^30, shift 31.
  CHECK(has(code,
            "static constexpr onnxc::QConcatInput qconcat_parts[] = {{/*extent=*/3, /*copy=*/true, "
            "/*x_zero_point=*/128, {/*multiplier=*/0, /*shift=*/0}}, {/*extent=*/5, "
            "/*copy=*/false, /*x_zero_point=*/120, {/*multiplier=*/1073741824, /*shift=*/31}}};"));
  CHECK(has(code, "const uint8_t* const qconcat_sources[] = {x2, x5};"));
  CHECK(has(code,
            "onnxc::qlinear_concat_ref<uint8_t>(qconcat_sources, qconcat_parts, /*count=*/2, "
            "/*outer=*/2, "
            "/*y_zero_point=*/128, y0);"));
  InferHarness other_dims("QLinearConcat", 1);
  make(other_dims, {3, 5}, 0.01f, 120);
  CHECK_FALSE(other_dims.infer());
  CHECK_THAT(other_dims.error(), Catch::Contains("only axis 1 may differ"));
  InferHarness huge("QLinearConcat", 1);
  make(huge, {2, 5}, 1e6f, 120);  // 1e6 / 0.02 >= 2^15
  CHECK_FALSE(huge.infer());
  CHECK_THAT(huge.error(), Catch::Contains("does not fit the integer form"));
}
