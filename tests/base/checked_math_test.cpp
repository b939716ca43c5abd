#include "base/checked_math.h"

#include <catch2/catch.hpp>
#include <limits>

using namespace onnxc;

TEST_CASE("checked int64 and size_t arithmetic reports overflow", "[support]") {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  int64_t r = 0;
  CHECK(checked_mul(int64_t{1} << 31, int64_t{1} << 31, &r));
  CHECK(r == int64_t{1} << 62);
  CHECK_FALSE(checked_mul(int64_t{1} << 62, int64_t{4}, &r));  // wraps to 0 unchecked
  CHECK_FALSE(checked_add(kMax, int64_t{1}, &r));
  CHECK_FALSE(checked_sub(std::numeric_limits<int64_t>::min(), int64_t{1}, &r));
  CHECK(checked_add(int64_t{-5}, int64_t{3}) == int64_t{-2});
  CHECK_FALSE(checked_mul(kMax, int64_t{2}).has_value());
  size_t s = 0;
  CHECK(checked_mul(size_t{1} << 32, size_t{1} << 31, &s));
  CHECK_FALSE(checked_mul(size_t{1} << 32, size_t{1} << 32, &s));
  CHECK_FALSE(checked_add(std::numeric_limits<size_t>::max(), size_t{1}).has_value());
  CHECK(checked_add(size_t{2}, size_t{3}) == size_t{5});
}

TEST_CASE("checked_numel: negative dims and overflow are refused, a zero dim wins", "[support]") {
  CHECK(checked_numel({}) == int64_t{1});
  CHECK(checked_numel({2, 3, 4}) == int64_t{24});
  CHECK_FALSE(checked_numel({int64_t{1} << 31, int64_t{1} << 31, int64_t{1} << 31}).has_value());
  CHECK_FALSE(checked_numel({int64_t{1} << 62, 4}).has_value());
  CHECK_FALSE(checked_numel({2, -1}).has_value());
  CHECK(checked_numel({int64_t{1} << 62, int64_t{1} << 62, 0}) == int64_t{0});
}

TEST_CASE("checked_bytes rounds sub-byte types up and refuses overflow", "[support]") {
  CHECK(checked_bytes(10, 32) == int64_t{40});
  CHECK(checked_bytes(3, 4) == int64_t{2});  // int4: packed two per byte
  CHECK(checked_bytes(0, 64) == int64_t{0});
  CHECK_FALSE(checked_bytes(int64_t{1} << 62, 32).has_value());
  CHECK_FALSE(checked_bytes(-1, 8).has_value());
  CHECK(*checked_bytes(int64_t{1} << 40, 32) > kMaxTensorBytes);
}

TEST_CASE("checked_strides: row-major strides, overflow refused", "[support]") {
  std::vector<int64_t> st;
  REQUIRE(checked_strides({2, 3, 4}, &st));
  CHECK(st == std::vector<int64_t>{12, 4, 1});
  CHECK_FALSE(checked_strides({int64_t{1} << 32, int64_t{1} << 32, 2}, &st));
}
