// Bitwise*, Shrink, Swish and BitCast handlers: types, broadcasting, refusals and folding.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>

#include "ops/infer_harness.h"

using namespace onnxc;
using onnxc::testing::InferHarness;

TEST_CASE("BitwiseAnd broadcasts integer inputs and refuses floats", "[bitwise]") {
  InferHarness h("BitwiseAnd", 18);
  h.constant<int32_t>(DataType::kInt32, {2, 2}, {12, 10, -1, 7});
  h.constant<int32_t>(DataType::kInt32, {2}, {6, 3});
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{2, 2});
  REQUIRE(h.fold());
  const int32_t* y = h.folded().as<int32_t>();
  CHECK(std::vector<int32_t>(y, y + 4) == std::vector<int32_t>{12 & 6, 10 & 3, -1 & 6, 7 & 3});
  CHECK(h.emit().find("onnxc::binary_ref(p, x0, x1, y0, onnxc::BitAnd{});") != std::string::npos);
  InferHarness bad("BitwiseXor", 18);
  bad.input(DataType::kFloat, {2});
  bad.input(DataType::kFloat, {2});
  CHECK_FALSE(bad.infer());
  CHECK(bad.error().find("bitwise ops take integer types") != std::string::npos);
}

TEST_CASE("BitwiseNot flips every bit", "[bitwise]") {
  InferHarness h("BitwiseNot", 18);
  h.constant<uint8_t>(DataType::kUint8, {3}, {0, 5, 255});
  REQUIRE(h.infer());
  REQUIRE(h.fold());
  const uint8_t* y = h.folded().as<uint8_t>();
  CHECK(std::vector<int>(y, y + 3) == std::vector<int>{255, 250, 0});
}

TEST_CASE("Shrink and Swish fold with their attributes", "[bitwise]") {
  InferHarness s("Shrink", 9);
  s.constant<float>(DataType::kFloat, {5}, {-2, -1, 0, 1, 2});
  s.attr_float("lambd", 1.5f);
  s.attr_float("bias", 0.5f);
  REQUIRE(s.infer());
  REQUIRE(s.fold());
  const float* y = s.folded().as<float>();
  CHECK(std::vector<float>(y, y + 5) == std::vector<float>{-1.5f, 0, 0, 0, 1.5f});
  InferHarness w("Swish", 24);
  w.constant<double>(DataType::kDouble, {2}, {0, 2});
  w.attr_float("alpha", 0.5f);
  REQUIRE(w.infer());
  REQUIRE(w.fold());
  CHECK(w.folded().as<double>()[1] == Approx(2.0 / (1.0 + std::exp(-1.0))));
  InferHarness bad("Swish", 24);
  bad.input(DataType::kInt32, {2});
  CHECK_FALSE(bad.infer());
}

TEST_CASE("BitCast keeps the bytes and needs equal widths", "[bitwise]") {
  InferHarness h("BitCast", 26);
  h.constant<float>(DataType::kFloat, {1}, {1.0f});
  h.attr_int("to", static_cast<int>(DataType::kInt32));
  REQUIRE(h.infer());
  REQUIRE(h.fold());
  CHECK(h.folded().dtype == DataType::kInt32);
  CHECK(h.folded().as<int32_t>()[0] == 0x3f800000);
  InferHarness wide("BitCast", 26);
  wide.input(DataType::kFloat, {1});
  wide.attr_int("to", static_cast<int>(DataType::kInt64));
  CHECK_FALSE(wide.infer());
  CHECK(wide.error().find("BitCast needs the same width") != std::string::npos);
  InferHarness to_bool("BitCast", 26);
  to_bool.input(DataType::kUint8, {1});
  to_bool.attr_int("to", static_cast<int>(DataType::kBool));
  CHECK_FALSE(to_bool.infer());
  CHECK(to_bool.error().find("not supported") != std::string::npos);
}
