// Quantization handlers: output types (zero point, output_dtype, scale), scale layouts (per
// tensor, per axis, blocked), version rules, the emitted kernel calls, and folding.
#include <catch2/catch.hpp>

#include "ops/infer_harness.h"

using namespace onnxc;
using onnxc::testing::InferHarness;

namespace {
const DataType F = DataType::kFloat;
const DataType U8 = DataType::kUint8;
bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}
}  // namespace

TEST_CASE("QuantizeLinear output type: zero point, output_dtype, or uint8", "[quantize]") {
  InferHarness h("QuantizeLinear", 25);
  h.input(F, {3, 4});
  h.input(F, {3});
  h.input(DataType::kInt4, {3});
  h.attr_int("axis", 0);
  REQUIRE(h.infer());
  CHECK(h.out().dtype == DataType::kInt4);
  CHECK(h.out().shape == Shape{3, 4});
  const std::string code = h.emit();
  CHECK(has(code, "onnxc::quantize_linear_ref<float, float, onnxc::int4x2>(x0, x1, x2, y0, p);"));
  CHECK(
      has(code,
          "/*outer=*/1, /*axis=*/3, /*inner=*/4, /*granularity=*/onnxc::QuantGranularity::kAxis"));

  InferHarness d("QuantizeLinear", 13);
  d.input(F, {2});
  d.input(F, {});
  REQUIRE(d.infer());
  CHECK(d.out().dtype == U8);
  CHECK(has(d.emit(), "quantize_linear_ref<float, float, uint8_t>(x0, x1, nullptr, y0, p);"));

  InferHarness o("QuantizeLinear", 25);
  o.input(F, {3, 4});
  o.input(F, {3, 2});
  o.attr_int("block_size", 2);
  o.attr_int("output_dtype", static_cast<int>(DataType::kInt16));
  REQUIRE(o.infer());
  CHECK(o.out().dtype == DataType::kInt16);
  CHECK(has(o.emit(), "onnxc::QuantGranularity::kBlocked, /*block=*/2"));
}

TEST_CASE("QuantizeLinear errors name the rule", "[quantize]") {
  InferHarness mismatch("QuantizeLinear", 25);
  mismatch.input(F, {4});
  mismatch.input(F, {});
  mismatch.input(DataType::kInt8, {});
  mismatch.attr_int("output_dtype", static_cast<int>(U8));
  CHECK_FALSE(mismatch.infer());
  CHECK(has(mismatch.error(), "output_dtype uint8 differs from the zero point type int8"));

  InferHarness blocked("QuantizeLinear", 25);
  blocked.input(F, {3, 5});
  blocked.input(F, {3, 2});
  blocked.attr_int("block_size", 2);
  CHECK_FALSE(blocked.infer());
  CHECK(has(blocked.error(), "blocked scale must have shape 3x3"));

  InferHarness old("QuantizeLinear", 10);
  old.input(F, {2, 3});
  old.input(F, {3});
  CHECK_FALSE(old.infer());
  CHECK(has(old.error(), "scale must be a single value before opset 13"));

  InferHarness int4("QuantizeLinear", 19);
  int4.input(F, {2});
  int4.input(F, {});
  int4.input(DataType::kInt4, {});
  CHECK_FALSE(int4.infer());
  CHECK(has(int4.error(), "output type int4 needs opset 21"));

  InferHarness axis("QuantizeLinear", 13);
  axis.input(F, {2, 3});
  axis.input(F, {2});
  CHECK_FALSE(axis.infer());
  CHECK(has(axis.error(), "neither one value nor one per index of axis 1"));
}

TEST_CASE("QuantizeLinear precision: the scale type from opset 23, or the attribute",
          "[quantize]") {
  InferHarness h("QuantizeLinear", 23);
  h.input(F, {2});
  h.input(DataType::kFloat16, {});
  REQUIRE(h.infer());
  CHECK(has(h.emit(), "/*precision=*/onnxc::QuantPrecision::kFloat16"));
  InferHarness before("QuantizeLinear", 21);
  before.input(F, {2});
  before.input(DataType::kFloat16, {});
  REQUIRE(before.infer());
  CHECK(has(before.emit(), "/*precision=*/onnxc::QuantPrecision::kFloat}"));
  InferHarness attr("QuantizeLinear", 23);
  attr.input(F, {2});
  attr.input(F, {});
  attr.attr_int("precision", static_cast<int>(DataType::kBFloat16));
  REQUIRE(attr.infer());
  CHECK(has(attr.emit(), "onnxc::QuantPrecision::kBFloat16"));
}

TEST_CASE("QuantizeLinear and DequantizeLinear fold constants", "[quantize]") {
  InferHarness q("QuantizeLinear", 13);
  q.constant<float>(F, {4}, {0, 3, 5, 1000});
  q.constant<float>(F, {}, {2});
  q.constant<int>(U8, {}, {10});
  REQUIRE(q.infer());
  REQUIRE(q.fold());
  const uint8_t* y = q.folded().as<uint8_t>();
  CHECK(std::vector<int>(y, y + 4) == std::vector<int>{10, 12, 12, 255});  // 1.5 -> 2, 2.5 -> 2

  InferHarness d("DequantizeLinear", 13);
  d.constant<int>(U8, {3}, {0, 10, 255});
  d.constant<float>(F, {}, {0.5f});
  d.constant<int>(U8, {}, {10});
  REQUIRE(d.infer());
  CHECK(d.out().dtype == F);
  REQUIRE(d.fold());
  const float* f = d.folded().as<float>();
  CHECK(std::vector<float>(f, f + 3) == std::vector<float>{-5.0f, 0.0f, 122.5f});
}

TEST_CASE("DequantizeLinear output type: output_dtype, else the scale's", "[quantize]") {
  InferHarness h("DequantizeLinear", 25);
  h.input(DataType::kFloat8E4M3FN, {5});
  h.input(DataType::kFloat16, {});
  REQUIRE(h.infer());
  CHECK(h.out().dtype == DataType::kFloat16);
  CHECK(has(h.emit(),
            "onnxc::dequantize_linear_ref<onnxc::float8e4m3fn, onnxc::float16, onnxc::float16>"));
  InferHarness e8("DequantizeLinear", 24);
  e8.input(DataType::kInt8, {5});
  e8.input(DataType::kFloat8E8M0, {});
  CHECK_FALSE(e8.infer());
  CHECK(has(e8.error(),
            "output type float8e8m0 is not float, float16 or bfloat16 (set output_dtype)"));
  InferHarness ok("DequantizeLinear", 24);
  ok.input(DataType::kInt8, {5});
  ok.input(DataType::kFloat8E8M0, {});
  ok.attr_int("output_dtype", static_cast<int>(F));
  REQUIRE(ok.infer());
  CHECK(ok.out().dtype == F);
  InferHarness zp("DequantizeLinear", 21);
  zp.input(DataType::kInt8, {5});
  zp.input(F, {});
  zp.input(U8, {});
  CHECK_FALSE(zp.infer());
  CHECK(has(zp.error(), "zero point type uint8 differs from x type int8"));
}

TEST_CASE("DynamicQuantizeLinear outputs and folding", "[quantize]") {
  InferHarness h("DynamicQuantizeLinear", 11);
  h.constant<float>(F, {3}, {-1, 0, 4});
  h.outputs(3);
  REQUIRE(h.infer());
  CHECK(h.out(0).dtype == U8);
  CHECK(h.out(1).dtype == F);
  CHECK(h.out(1).shape == Shape{});
  CHECK(h.out(2).dtype == U8);
  REQUIRE(h.fold());
  CHECK(h.folded(1).as<float>()[0] == 5.0f / 255.0f);
  CHECK(h.folded(2).as<uint8_t>()[0] == 51);  // 1 / (5/255) = 51
  const uint8_t* y = h.folded(0).as<uint8_t>();
  CHECK(std::vector<int>(y, y + 3) == std::vector<int>{0, 51, 255});
}

TEST_CASE("MatMulInteger shapes, zero-point layouts and folding", "[quantize]") {
  InferHarness h("MatMulInteger", 10);
  h.input(U8, {2, 3, 4});
  h.input(DataType::kInt8, {4, 5});
  h.input(U8, {3});
  h.input(DataType::kInt8, {1, 5});
  REQUIRE(h.infer());
  CHECK(h.out().dtype == DataType::kInt32);
  CHECK(h.out().shape == Shape{2, 3, 5});
  const std::string code = h.emit();
  CHECK(has(code, "onnxc::matmul_integer_ref<uint8_t, int8_t>(p, x0, x1, x2, x3, y0);"));
  CHECK(has(code, "/*a_axis=*/onnxc::QuantAxis::kRow, /*b_axis=*/onnxc::QuantAxis::kColumn"));

  InferHarness batch("MatMulInteger", 10);
  batch.input(U8, {2, 3, 4});
  batch.input(U8, {4, 5});
  batch.input(U8, {2, 3, 1});
  REQUIRE(batch.infer());
  CHECK(has(batch.emit(), "/*a_param_strides=*/{3}, /*b_param_strides=*/{0}"));

  InferHarness bad("MatMulInteger", 10);
  bad.input(U8, {2, 3, 4});
  bad.input(U8, {4, 5});
  bad.input(U8, {3, 2});
  CHECK_FALSE(bad.infer());
  CHECK(has(bad.error(), "a_zero_point of shape 3x2 is neither one value nor one per row of A"));

  InferHarness f("MatMulInteger", 10);
  f.constant<int>(U8, {1, 2}, {3, 4});
  f.constant<int>(U8, {2, 1}, {5, 6});
  f.constant<int>(U8, {}, {1});
  REQUIRE(f.infer());
  REQUIRE(f.fold());
  CHECK(f.folded().as<int32_t>()[0] == 2 * 5 + 3 * 6);
}

TEST_CASE("QLinearMatMul types and emitted call", "[quantize]") {
  InferHarness h("QLinearMatMul", 21);
  h.input(DataType::kInt8, {2, 4});
  h.input(DataType::kFloat16, {1});
  h.input(DataType::kInt8, {1});
  h.input(DataType::kInt8, {4, 3});
  h.input(DataType::kFloat16, {1});
  h.input(DataType::kInt8, {1});
  h.input(DataType::kFloat16, {1});
  h.input(U8, {1});
  REQUIRE(h.infer());
  CHECK(h.out().dtype == U8);
  CHECK(h.out().shape == Shape{2, 3});
  CHECK(has(h.emit(),
            "onnxc::qlinear_matmul_ref<int8_t, int8_t, onnxc::float16, uint8_t>(p, x0, "
            "x1, x2, x3, x4, x5, x6, x7, y0);"));

  InferHarness old("QLinearMatMul", 10);
  old.input(U8, {2, 4});
  old.input(DataType::kFloat16, {});
  old.input(U8, {});
  old.input(U8, {4, 3});
  old.input(DataType::kFloat16, {});
  old.input(U8, {});
  old.input(DataType::kFloat16, {});
  old.input(U8, {});
  CHECK_FALSE(old.infer());
  CHECK(has(old.error(), "scale type float16 is not supported at opset 10"));

  InferHarness f8("QLinearMatMul", 21);
  f8.input(DataType::kFloat8E4M3FN, {2, 4});
  for (int i = 0; i < 7; ++i) f8.input(F, {});
  CHECK_FALSE(f8.infer());
  CHECK(has(f8.error(), "a has type float8e4m3fn; int8 and uint8 are supported"));
}

TEST_CASE("ConvInteger and QLinearConv geometry and layouts", "[quantize]") {
  InferHarness h("ConvInteger", 10);
  h.input(U8, {1, 1, 3, 3});
  h.input(U8, {2, 1, 2, 2});
  h.input(U8, {});
  h.input(U8, {2});
  h.attr_ints("pads", {1, 1, 1, 1});
  REQUIRE(h.infer());
  CHECK(h.out().dtype == DataType::kInt32);
  CHECK(h.out().shape == Shape{1, 2, 4, 4});
  CHECK(has(h.emit(), "/*w_zp_per_channel=*/true"));

  InferHarness f("ConvInteger", 10);
  f.constant<int>(U8, {1, 1, 1, 2}, {3, 5});
  f.constant<int>(U8, {1, 1, 1, 1}, {2});
  f.constant<int>(U8, {}, {1});
  REQUIRE(f.infer());
  REQUIRE(f.fold());
  CHECK(f.folded().as<int32_t>()[0] == 4);
  CHECK(f.folded().as<int32_t>()[1] == 8);

  InferHarness q("QLinearConv", 10);
  q.input(U8, {1, 2, 5, 5});
  q.input(F, {});
  q.input(U8, {});
  q.input(DataType::kInt8, {4, 2, 3, 3});
  q.input(F, {4});
  q.input(DataType::kInt8, {4});
  q.input(F, {});
  q.input(U8, {});
  q.input(DataType::kInt32, {3});
  CHECK_FALSE(q.infer());
  CHECK(has(q.error(), "B has shape 3, expected [4]"));
}

TEST_CASE("DequantizeLinear takes int32 x (no zero point)", "[quantize]") {
  InferHarness d("DequantizeLinear", 10);
  d.constant<int>(DataType::kInt32, {2}, {-4, 6});
  d.constant<float>(F, {}, {0.5f});
  REQUIRE(d.infer());
  REQUIRE(d.fold());
  CHECK(d.folded().as<float>()[0] == -2.0f);
  CHECK(d.folded().as<float>()[1] == 3.0f);
}
