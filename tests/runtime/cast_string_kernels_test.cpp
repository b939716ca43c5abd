// The string casts (onnxc/cast_string.h) against the C library they stand in for (glibc, exact):
// formatting against snprintf("%.8g") over random float and double bit patterns, and parsing
// against strtod, strtoll and strtoull over printed doubles, exact halfway points between
// adjacent doubles (printed from long double, which holds them), long random digit strings, hex
// floats, special words, white space and trailing text. Then the kernels over slots, with the
// values onnxruntime-node 1.30 gives (see the header's banner).
#include <catch2/catch.hpp>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "onnxc/cast_string.h"

using namespace onnxc;
namespace csd = onnxc::cast_string_detail;

namespace {

struct Scratch {
  std::vector<unsigned char> bytes = std::vector<unsigned char>(cast_string_scratch_bytes());
  csd::Dec& dec() { return *reinterpret_cast<csd::Dec*>(bytes.data()); }
  csd::ParseScratch& parse() { return *reinterpret_cast<csd::ParseScratch*>(bytes.data()); }
};

std::string ours_g8(double v, Scratch& s) {
  char buf[32];
  return std::string(buf, static_cast<size_t>(csd::format_g8(v, buf, s.dec())));
}

std::string libc_g8(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.8g", v);
  return buf;
}

uint64_t bits_of(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// Parses s both ways; returns "" when they agree, else a description.
std::string parse_mismatch(const std::string& s, Scratch& scratch) {
  double ours = 0;
  const bool ok = csd::parse_double(s.data(), s.data() + s.size(), &ours, scratch.parse());
  char* end = nullptr;
  const double want = std::strtod(s.c_str(), &end);
  const bool want_ok = end != s.c_str();
  if (ok != want_ok)
    return "accepted " + std::to_string(ok) + " vs strtod " + std::to_string(want_ok);
  if (!ok) return "";
  if (std::isnan(want) ? !std::isnan(ours) : bits_of(ours) != bits_of(want)) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.17g vs strtod %.17g", ours, want);
    return buf;
  }
  return "";
}

}  // namespace

TEST_CASE("format_g8 prints what printf(\"%.8g\") prints", "[kernels][cast][strings]") {
  Scratch s;
  std::mt19937_64 rng(11);
  int checked = 0;
  for (int i = 0; i < 400000; ++i) {  // floats: every exponent, random mantissas
    const uint32_t b = static_cast<uint32_t>(rng());
    float f;
    std::memcpy(&f, &b, sizeof f);
    if (!std::isfinite(f)) continue;
    const std::string ours = ours_g8(f, s), want = libc_g8(f);
    if (ours != want) FAIL("float bits " << b << ": " << ours << " vs " << want);
    ++checked;
  }
  for (int i = 0; i < 60000; ++i) {  // doubles
    const uint64_t b = rng();
    double d;
    std::memcpy(&d, &b, sizeof d);
    if (!std::isfinite(d)) continue;
    const std::string ours = ours_g8(d, s), want = libc_g8(d);
    if (ours != want) FAIL("double bits " << b << ": " << ours << " vs " << want);
    ++checked;
  }
  // Ties and carries: values whose 9th digit decides (12345678.5 rounds to even), 99999999.5.
  for (double d : {12345678.5, 12345677.5, 99999999.5, 0.000123456785, 1e-5, 0.0001, 1e8, 1e7,
                   123456789.0, 5e-324, 1.7976931348623157e308, 0.30000001192092896, 100.0, 0.5,
                   2.5, -0.0, 0.0, 1e21, 1.5e-7}) {
    CHECK(ours_g8(d, s) == libc_g8(d));
    ++checked;
  }
  CHECK(checked > 400000);
  CHECK(ours_g8(std::nan(""), s) == "NaN");
  CHECK(ours_g8(-std::nan(""), s) == "NaN");
  CHECK(ours_g8(HUGE_VAL, s) == "INF");
  CHECK(ours_g8(-HUGE_VAL, s) == "-INF");
}

TEST_CASE("parse_double converts as strtod does, bit for bit", "[kernels][cast][strings]") {
  Scratch s;
  std::mt19937_64 rng(12);
  std::vector<std::string> cases = {"0",
                                    "-0",
                                    "1",
                                    "  2",
                                    "\t\n 3.5",
                                    "+4",
                                    "5abc",
                                    "1e",
                                    "1e+",
                                    "1e-2x",
                                    ".5",
                                    "5.",
                                    ".",
                                    "-.e1",
                                    "",
                                    "abc",
                                    "inf",
                                    "-INF",
                                    "+Inf",
                                    "infinity",
                                    "infinit",
                                    "nan",
                                    "NaN",
                                    "-nan(0x1)",
                                    "0x10",
                                    "0X1p-3",
                                    "0x.8",
                                    "0x",
                                    "0xg",
                                    "0x1.fffffffffffff8p1023",
                                    "0x1.fffffffffffffp1023",
                                    "0x1p-1074",
                                    "0x1p-1075",
                                    "0x1.8p-1075",
                                    "0x1p-1076",
                                    "0x123456789abcdef123p0",
                                    "1e400",
                                    "-1e400",
                                    "1e-400",
                                    "2.4703282292062327e-324",
                                    "2.4703282292062328e-324",
                                    "4.9406564584124654e-324",
                                    "1.7976931348623158e308",
                                    "1.7976931348623157e308",
                                    "2.2250738585072011e-308",
                                    "2.2250738585072012e-308",
                                    "9007199254740993",
                                    "9007199254740992.9999999999999999999999",
                                    "1.000000059604644775390625",
                                    "0.000000000000000000000000000000000000000000000000001e51",
                                    "123456789012345678901234567890",
                                    "3.14",
                                    "1e-5",
                                    "1E8",
                                    "100.5",
                                    "  -0.0e0"};
  for (int i = 0; i < 3000; ++i) {
    const uint64_t b = rng();
    double d;
    std::memcpy(&d, &b, sizeof d);
    if (!std::isfinite(d)) continue;
    char buf[1300];
    for (const char* fmt : {"%.17g", "%.8g", "%.3e", "%a"}) {
      std::snprintf(buf, sizeof buf, fmt, d);
      cases.push_back(buf);
    }
    // The exact halfway point between d and the next double up (long double holds it), and
    // numbers a hair above and below it.
    const double next = std::nextafter(d, HUGE_VAL);
    if (std::isfinite(next) && i % 3 == 0) {
      const long double mid = (static_cast<long double>(d) + static_cast<long double>(next)) / 2;
      std::snprintf(buf, sizeof buf, "%.1100Le", mid);
      std::string exact = buf;
      cases.push_back(exact);
      const size_t e = exact.find('e');
      std::string mant = exact.substr(0, e), ex = exact.substr(e);
      while (!mant.empty() && mant.back() == '0') mant.pop_back();
      cases.push_back(mant + ex);
      cases.push_back(mant + "0000000000000000001" + ex);
      std::string below = mant;  // the last nonzero digit lowered by one, then 9s
      below.back() = static_cast<char>(below.back() - 1);
      cases.push_back(below + "99999999999" + ex);
    }
  }
  for (int i = 0; i < 600; ++i) {  // random digit strings, up to 1000 digits, any exponent
    std::string t = rng() % 2 ? "-" : "";
    const int digits = 1 + static_cast<int>(rng() % (i % 10 == 0 ? 1000 : 40));
    const int point = static_cast<int>(rng() % static_cast<uint64_t>(digits + 1));
    for (int k = 0; k < digits; ++k) {
      if (k == point) t += '.';
      t += static_cast<char>('0' + rng() % 10);
    }
    t += "e" + std::to_string(static_cast<int>(rng() % 800) - 400);
    cases.push_back(t);
  }
  for (const std::string& c : cases) {
    const std::string m = parse_mismatch(c, s);
    if (!m.empty()) FAIL("\"" << c << "\": " << m);
  }
  CHECK(cases.size() > 10000);
}

TEST_CASE("parse_int64 and parse_uint64 convert as strtoll and strtoull do",
          "[kernels][cast][strings]") {
  std::mt19937_64 rng(13);
  std::vector<std::string> cases = {"0",
                                    "-1",
                                    "+7",
                                    " 12",
                                    "100.5",
                                    "1e3",
                                    "0x10",
                                    "abc",
                                    "",
                                    "-",
                                    "9223372036854775807",
                                    "9223372036854775808",
                                    "-9223372036854775808",
                                    "-9223372036854775809",
                                    "18446744073709551615",
                                    "18446744073709551616",
                                    "-18446744073709551615",
                                    "99999999999999999999",
                                    "12abc"};
  for (int i = 0; i < 2000; ++i) {
    const int digits = 1 + static_cast<int>(rng() % 21);
    std::string t = rng() % 3 == 0 ? "-" : "";
    for (int k = 0; k < digits; ++k) t += static_cast<char>('0' + rng() % 10);
    cases.push_back(t);
  }
  for (const std::string& c : cases) {
    const char* b = c.data();
    char* end = nullptr;
    errno = 0;
    const long long want = std::strtoll(c.c_str(), &end, 10);
    const bool want_ok = end != c.c_str() && errno != ERANGE;
    int64_t got = 0;
    const bool ok = csd::parse_int64(b, b + c.size(), &got);
    INFO("strtoll \"" << c << "\"");
    REQUIRE(ok == want_ok);
    if (ok) CHECK(got == want);
    errno = 0;
    const unsigned long long uwant = std::strtoull(c.c_str(), &end, 10);
    const bool uwant_ok = end != c.c_str() && errno != ERANGE;
    uint64_t ugot = 0;
    const bool uok = csd::parse_uint64(b, b + c.size(), &ugot);
    INFO("strtoull \"" << c << "\"");
    REQUIRE(uok == uwant_ok);
    if (uok) CHECK(ugot == uwant);
  }
}

TEST_CASE("the string cast kernels give onnxruntime's strings and numbers",
          "[kernels][cast][strings]") {
  Scratch s;
  // float -> string (onnxruntime-node 1.30: printf %.8g, NaN, INF, -INF).
  const float xf[] = {0.3f,   1e-5f,   123456789.0f,  -0.0f,     3.14159265f,
                      5e-45f, 3.4e38f, std::nanf(""), HUGE_VALF, -HUGE_VALF};
  const char* want_f[] = {"0.30000001",    "9.9999997e-06", "1.2345679e+08", "-0",  "3.1415927",
                          "5.6051939e-45", "3.4e+38",       "NaN",           "INF", "-INF"};
  constexpr index_t kSlot = cast_string_capacity<float>() + 1;
  std::vector<char> y(10 * kSlot);
  REQUIRE(cast_to_string_ref(xf, 10, y.data(), kSlot, s.bytes.data()));
  for (int i = 0; i < 10; ++i) CHECK(std::string(y.data() + i * kSlot) == want_f[i]);
  // int64, bool and float16 -> string.
  const int64_t xi[] = {0, -1, INT64_MAX, INT64_MIN};
  std::vector<char> yi(4 * 21);
  REQUIRE(cast_to_string_ref(xi, 4, yi.data(), 21, s.bytes.data()));
  CHECK(std::string(yi.data() + 3 * 21) == "-9223372036854775808");
  const bool xb[] = {true, false};
  char yb[4];
  REQUIRE(cast_to_string_ref(xb, 2, yb, 2, s.bytes.data()));
  CHECK(std::string(yb) == "1");
  CHECK(std::string(yb + 2) == "0");
  const float16 xh[] = {float16{0x3555}, float16{0x0001}};
  std::vector<char> yh(2 * 16);
  REQUIRE(cast_to_string_ref(xh, 2, yh.data(), 16, s.bytes.data()));
  CHECK(std::string(yh.data()) == "0.33325195");
  CHECK(std::string(yh.data() + 16) == "5.9604645e-08");
  // string -> numbers, as onnxruntime's stod / stoll / stoull and truncation give them.
  const char strs[][8] = {"100", "-7", "100.5", " 12", "0x10", "1e3", "+5", "300"};
  int32_t i32[8];
  REQUIRE(cast_from_string_ref(&strs[0][0], 8, 8, i32, s.bytes.data()));
  const int32_t want_i32[] = {100, -7, 100, 12, 0, 1, 5, 300};
  for (int i = 0; i < 8; ++i) CHECK(i32[i] == want_i32[i]);
  uint8_t u8[8];
  REQUIRE(cast_from_string_ref(&strs[0][0], 8, 8, u8, s.bytes.data()));
  CHECK(u8[1] == 249);  // -7 mod 256
  CHECK(u8[7] == 44);   // 300 mod 256
  const char fstrs[][12] = {"0.1", "1e-46", "1e39", "5abc", "  -inf", "1e-40"};
  float f[6];
  REQUIRE(cast_from_string_ref(&fstrs[0][0], 12, 6, f, s.bytes.data()));
  CHECK(f[0] == 0.1f);
  CHECK(f[1] == 0.0f);
  CHECK(f[2] == HUGE_VALF);
  CHECK(f[3] == 5.0f);
  CHECK(f[4] == -HUGE_VALF);
  CHECK(f[5] == static_cast<float>(1e-40));
  bool b[3];
  const char bstrs[][4] = {"2", "0.5", "-1"};
  REQUIRE(cast_from_string_ref(&bstrs[0][0], 4, 3, b, s.bytes.data()));
  CHECK((b[0] && !b[1] && b[2]));
  // No number: the kernel fails (run() returns kErrorCastString).
  const char bad[][4] = {"1", "abc"};
  double d[2];
  CHECK_FALSE(cast_from_string_ref(&bad[0][0], 4, 2, d, s.bytes.data()));
  int64_t big;
  CHECK_FALSE(cast_from_string_ref("99999999999999999999", 21, 1, &big, s.bytes.data()));
}
