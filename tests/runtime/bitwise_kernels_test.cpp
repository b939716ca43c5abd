// Bitwise / Shrink / Swish / BitCast kernels on hand-checked values.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "onnxc/bitwise.h"

using namespace onnxc;

TEST_CASE("bitwise functors on signed and unsigned types", "[bitwise-kernels]") {
  CHECK(BitAnd{}(int8_t{-1}, int8_t{0x35}) == 0x35);
  CHECK(BitOr{}(uint16_t{0xF000}, uint16_t{0x000F}) == 0xF00F);
  CHECK(BitXor{}(uint64_t{~0ull}, uint64_t{1}) == ~1ull);
  CHECK(BitNot{}(int32_t{0}) == -1);
  CHECK(BitNot{}(uint8_t{0x0F}) == 0xF0);
}

TEST_CASE("ShrinkFn and Swish", "[bitwise-kernels]") {
  const ShrinkFn soft{0.5f, 0.5f};
  CHECK(soft(2.0f) == 1.5f);
  CHECK(soft(-2.0f) == -1.5f);
  CHECK(soft(0.25f) == 0.0f);
  CHECK(ShrinkFn{1.0f, 0.0f}(int8_t{-3}) == -3);
  CHECK(ShrinkFn{1.0f, 0.0f}(int8_t{1}) == 0);
  const Swish swish{1.0f, 0.0f};
  CHECK(swish(1.0) == Approx(1.0 / (1.0 + std::exp(-1.0))));
  CHECK(swish(-100.0f) == Approx(0.0).margin(1e-30));  // no overflow for large |x|
  CHECK(std::isfinite(swish(-1000.0f)));
}

TEST_CASE("bitcast_ref copies the bit pattern", "[bitwise-kernels]") {
  const double x[] = {1.0, -2.5};
  int64_t y[2];
  bitcast_ref(x, y, sizeof x);
  CHECK(y[0] == 0x3FF0000000000000LL);
  uint64_t bits;
  std::memcpy(&bits, &x[1], 8);
  CHECK(static_cast<uint64_t>(y[1]) == bits);
}
