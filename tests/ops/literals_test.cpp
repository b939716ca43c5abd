// The C++ literal helpers of ops/op.h that emit() prints constants with.
#include <catch2/catch.hpp>
#include <cstdint>

#include "ops/op.h"

using namespace onnxc;

TEST_CASE("int64 literals, INT64_MIN included", "[ops][literals]") {
  CHECK(cpp_int64(0) == "0");
  CHECK(cpp_int64(-42) == "-42");
  CHECK(cpp_int64(INT64_MAX) == "9223372036854775807");
  // "-9223372036854775808" is unary minus on a constant too large for int64 (a warning, and an
  // error under -Werror), so the smallest value is spelled as an expression.
  CHECK(cpp_int64(INT64_MIN) == "(-9223372036854775807 - 1)");
  CHECK(cpp_ints({1, INT64_MIN, -3}) == "{1, (-9223372036854775807 - 1), -3}");
  CHECK(cpp_ints({}) == "{}");
}
