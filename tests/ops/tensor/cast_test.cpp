// Cast / CastLike / Constant / ConstantOfShape handlers: the versions' attribute forms (`to` as a
// type name before opset 6, saturate from 19, round_mode from 24, value_* from 12), types gated by
// opset, errors naming the rule, emitted kernel calls and folding through the same kernels.
#include <catch2/catch.hpp>
#include <cstring>
#include <memory>

#include "ops/infer_harness.h"

using namespace onnxc;
using onnxc::testing::InferHarness;

namespace {

const DataType F = DataType::kFloat;

void attr_tensor(InferHarness& h, const std::string& name, Tensor t) {
  Attribute& a = h.node().attributes[name];
  a.kind = Attribute::Kind::kTensor;
  a.t = std::make_shared<const Tensor>(std::move(t));
}

Tensor one_byte_tensor(DataType t, uint8_t bits, Shape shape = {1}) {
  Tensor v = Tensor::zeros(t, std::move(shape));
  v.data[0] = bits;
  return v;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("Cast sets the target type and keeps the shape", "[cast]") {
  InferHarness h("Cast", 13);
  h.input(F, {2, 3});
  h.attr_int("to", static_cast<int64_t>(DataType::kInt64));
  REQUIRE(h.infer());
  CHECK(h.out().dtype == DataType::kInt64);
  CHECK(h.out().shape == Shape{2, 3});
  CHECK(contains(h.emit(), "onnxc::cast_ref<float, int64_t>(x0, y0, /*n=*/6, p);"));
}

TEST_CASE("Cast before opset 6 names the type with a string", "[cast]") {
  InferHarness h("Cast", 1);
  h.input(DataType::kInt32, {4});
  h.attr_string("to", "FLOAT16");
  REQUIRE(h.infer());
  CHECK(h.out().dtype == DataType::kFloat16);
  InferHarness bad("Cast", 1);
  bad.input(F, {4});
  bad.attr_string("to", "REAL");
  CHECK_FALSE(bad.infer());
  CHECK(bad.error() == "node 'n' (Cast): 'to' names no data type: 'REAL'");
  InferHarness int_form("Cast", 5);
  int_form.input(F, {4});
  int_form.attr_int("to", 7);
  CHECK_FALSE(int_form.infer());
  CHECK(contains(int_form.error(), "'to' must be a type name string before opset 6"));
  InferHarness string_form("Cast", 6);
  string_form.input(F, {4});
  string_form.attr_string("to", "INT64");
  CHECK_FALSE(string_form.infer());
  CHECK(contains(string_form.error(), "'to' must be an int (a TensorProto.DataType) from opset 6"));
}

TEST_CASE("Cast rejects unknown types, string casts it lacks and types newer than the opset",
          "[cast]") {
  InferHarness missing("Cast", 13);
  missing.input(F, {4});
  CHECK_FALSE(missing.infer());
  CHECK(missing.error() == "node 'n' (Cast): attribute 'to' is required");
  InferHarness str6("Cast", 6);  // strings from Cast-9
  str6.input(F, {4});
  str6.attr_int("to", static_cast<int64_t>(DataType::kString));
  CHECK_FALSE(str6.infer());
  CHECK(contains(str6.error(), "casting from or to string needs opset 9 or later"));
  InferHarness str8("Cast", 19);  // float8 has no string form here
  str8.input(DataType::kFloat8E4M3FN, {4});
  str8.attr_int("to", static_cast<int64_t>(DataType::kString));
  CHECK_FALSE(str8.infer());
  CHECK(contains(str8.error(), "casting between string and float8e4m3fn is not supported"));
  InferHarness bad("Cast", 13);
  bad.input(F, {4});
  bad.attr_int("to", 99);
  CHECK_FALSE(bad.infer());
  CHECK(contains(bad.error(), "'to' is not a valid data type: 99"));
  InferHarness complex("Cast", 13);
  complex.input(F, {4});
  complex.attr_int("to", static_cast<int64_t>(DataType::kComplex64));
  CHECK_FALSE(complex.infer());
  CHECK(contains(complex.error(), "type complex64 is not supported by Cast"));
  InferHarness f8("Cast", 13);
  f8.input(F, {4});
  f8.attr_int("to", static_cast<int64_t>(DataType::kFloat8E4M3FN));
  CHECK_FALSE(f8.infer());
  CHECK(contains(f8.error(), "type float8e4m3fn needs opset 19 or later (model imports opset 13)"));
  InferHarness int2("Cast", 24);
  int2.input(DataType::kInt2, {4});
  int2.attr_int("to", static_cast<int64_t>(DataType::kInt8));
  CHECK_FALSE(int2.infer());
  CHECK(contains(int2.error(), "type int2 needs opset 25"));
}

TEST_CASE("Cast saturate and round_mode exist from opsets 19 and 24", "[cast]") {
  InferHarness early("Cast", 13);
  early.input(F, {4});
  early.attr_int("to", 10);
  early.attr_int("saturate", 0);
  CHECK_FALSE(early.infer());
  CHECK(contains(early.error(), "attribute 'saturate' exists from opset 19"));
  InferHarness range("Cast", 19);
  range.input(F, {4});
  range.attr_int("to", 17);
  range.attr_int("saturate", 2);
  CHECK_FALSE(range.infer());
  CHECK(contains(range.error(), "saturate must be 0 or 1, got 2"));
  InferHarness mode("Cast", 23);
  mode.input(F, {4});
  mode.attr_int("to", 17);
  mode.attr_string("round_mode", "up");
  CHECK_FALSE(mode.infer());
  CHECK(contains(mode.error(), "attribute 'round_mode' exists from opset 24"));
  InferHarness bad_mode("Cast", 25);
  bad_mode.input(F, {4});
  bad_mode.attr_int("to", 24);
  bad_mode.attr_string("round_mode", "even");
  CHECK_FALSE(bad_mode.infer());
  CHECK(contains(bad_mode.error(), "round_mode must be 'up', 'down' or 'nearest', got 'even'"));

  InferHarness h("Cast", 25);
  h.input(DataType::kFloat16, {3});
  h.attr_int("to", static_cast<int64_t>(DataType::kFloat8E8M0));
  h.attr_int("saturate", 0);
  h.attr_string("round_mode", "nearest");
  REQUIRE(h.infer());
  const std::string code = h.emit();
  CHECK(contains(code,
                 "static constexpr onnxc::CastParams p = {/*saturate=*/false, "
                 "/*round_mode=*/onnxc::E8M0Rounding::kNearest};"));
  CHECK(contains(code, "onnxc::cast_ref<onnxc::float16, onnxc::float8e8m0>(x0, y0, /*n=*/3, p);"));
}

TEST_CASE("Cast emits the specialized float16 and bfloat16 kernels", "[cast]") {
  InferHarness h("Cast", 13);
  h.input(F, {5});
  h.attr_int("to", static_cast<int64_t>(DataType::kFloat16));
  REQUIRE(h.infer());
  CHECK(contains(h.emit(), "onnxc::f32_f16_cast__scalar(x0, y0, /*n=*/5, p);"));
  InferHarness b("Cast", 13);
  b.input(DataType::kBFloat16, {5});
  b.attr_int("to", static_cast<int64_t>(F));
  REQUIRE(b.infer());
  CHECK(contains(b.emit(), "onnxc::bf16_f32_cast__scalar(x0, y0, /*n=*/5, p);"));
}

TEST_CASE("Cast folds constants through the kernels, packing sub-byte results", "[cast]") {
  InferHarness h("Cast", 21);
  h.constant<float>(F, {5}, {-9, -1, 0, 7, 15});
  h.attr_int("to", static_cast<int64_t>(DataType::kInt4));
  REQUIRE(h.infer());
  REQUIRE(h.fold());
  const Tensor& y = h.folded();
  CHECK(y.dtype == DataType::kInt4);
  REQUIRE(y.data.size() == 3);
  CHECK(y.data[0] == 0xF7);
  CHECK(y.data[1] == 0x70);
  CHECK(y.data[2] == 0x0F);

  InferHarness f8("Cast", 19);
  f8.constant<float>(F, {3}, {1e6f, -1e6f, 0.47892547f});
  f8.attr_int("to", static_cast<int64_t>(DataType::kFloat8E4M3FN));
  f8.attr_int("saturate", 0);
  REQUIRE(f8.infer());
  REQUIRE(f8.fold());
  CHECK(f8.folded().data == std::vector<uint8_t>{0x7F, 0xFF, 0x2F});

  InferHarness b("Cast", 13);
  b.constant<double>(DataType::kDouble, {3}, {0.0, -2.5, 1e300});
  b.attr_int("to", static_cast<int64_t>(DataType::kBool));
  REQUIRE(b.infer());
  REQUIRE(b.fold());
  CHECK(b.folded().data == std::vector<uint8_t>{0, 1, 1});
}

TEST_CASE("CastLike takes the type of its second input", "[cast]") {
  InferHarness h("CastLike", 15);
  h.input(DataType::kInt32, {2, 2});
  h.input(DataType::kFloat16, {0});
  REQUIRE(h.infer());
  CHECK(h.out().dtype == DataType::kFloat16);
  CHECK(h.out().shape == Shape{2, 2});
  CHECK(contains(h.emit(), "onnxc::cast_ref<int32_t, onnxc::float16>(x0, y0, /*n=*/4, p);"));
  InferHarness early("CastLike", 15);
  early.input(F, {2});
  early.input(DataType::kFloat8E5M2, {0});
  CHECK_FALSE(early.infer());
  CHECK(contains(early.error(), "type float8e5m2 needs opset 19"));
  InferHarness one("CastLike", 19);
  one.input(F, {2});
  CHECK_FALSE(one.infer());
  CHECK(contains(one.error(), "takes 2 to 2 inputs, got 1"));
}

TEST_CASE("Constant produces a compile-time value from each attribute form", "[cast][constant]") {
  InferHarness h("Constant", 13);
  h.attr_float("value_float", 2.5f);
  REQUIRE(h.infer());
  REQUIRE(h.out().is_constant());
  CHECK(h.out().dtype == F);
  CHECK(h.out().shape.empty());
  CHECK(h.out().constant->as<float>()[0] == 2.5f);

  InferHarness ints("Constant", 12);
  ints.attr_ints("value_ints", {3, -1, 4});
  REQUIRE(ints.infer());
  CHECK(ints.out().dtype == DataType::kInt64);
  CHECK(ints.out().constant->to_ints() == std::vector<int64_t>{3, -1, 4});

  InferHarness t("Constant", 1);
  attr_tensor(t, "value", one_byte_tensor(DataType::kFloat8E5M2, 0x3C, {1, 1}));
  REQUIRE(t.infer());
  CHECK(t.out().dtype == DataType::kFloat8E5M2);
  CHECK(t.out().shape == Shape{1, 1});
  CHECK(t.emit().empty());

  InferHarness s("Constant", 12);
  s.attr_string("value_string", "hello");
  REQUIRE(s.infer());
  CHECK(s.out().dtype == DataType::kString);
  CHECK(s.out().constant->strings == std::vector<std::string>{"hello"});
}

TEST_CASE("Constant errors name the rule", "[cast][constant]") {
  InferHarness early("Constant", 11);
  early.attr_float("value_float", 1);
  CHECK_FALSE(early.infer());
  CHECK(contains(early.error(),
                 "attribute 'value_float' exists from opset 12 (model imports opset 11)"));
  InferHarness two("Constant", 13);
  two.attr_float("value_float", 1);
  two.attr_int("value_int", 1);
  CHECK_FALSE(two.infer());
  CHECK(contains(two.error(), "needs exactly one of value"));
  InferHarness sparse("Constant", 10);  // sparse_value is an opset 11 attribute
  sparse.node().attributes["sparse_value"].kind = Attribute::Kind::kSparseTensor;
  CHECK_FALSE(sparse.infer());
  CHECK(contains(sparse.error(), "attribute 'sparse_value' exists from opset 11"));
  InferHarness kind("Constant", 13);
  kind.attr_int("value_float", 1);
  CHECK_FALSE(kind.infer());
  CHECK(contains(kind.error(), "attribute 'value_float' must be of type float, got int"));
}

TEST_CASE("ConstantOfShape fills the shape with the value's type", "[cast][constant]") {
  InferHarness h("ConstantOfShape", 9);
  h.constant<int64_t>(DataType::kInt64, {2}, {2, 3});
  REQUIRE(h.infer());
  CHECK(h.out().dtype == F);
  CHECK(h.out().shape == Shape{2, 3});
  REQUIRE(h.fold());
  CHECK(h.folded().as<float>()[5] == 0.0f);
  CHECK(contains(h.emit(), "onnxc::fill_value_ref<float>(y0, /*n=*/6, /*value=*/0.0f);"));

  InferHarness i("ConstantOfShape", 9);
  i.constant<int64_t>(DataType::kInt64, {1}, {3});
  Tensor v = Tensor::zeros(DataType::kInt64, {1});
  v.as<int64_t>()[0] = INT64_MIN;
  attr_tensor(i, "value", v);
  REQUIRE(i.infer());
  CHECK(i.out().dtype == DataType::kInt64);
  REQUIRE(i.fold());
  CHECK(i.folded().as<int64_t>()[2] == INT64_MIN);
  CHECK(contains(i.emit(),
                 "onnxc::fill_value_ref<int64_t>(y0, /*n=*/3, "
                 "/*value=*/int64_t{-9223372036854775807 - 1});"));

  InferHarness h16("ConstantOfShape", 9);
  h16.constant<int64_t>(DataType::kInt64, {1}, {2});
  Tensor one = Tensor::zeros(DataType::kFloat16, {1});
  one.data = {0x00, 0x3C};
  attr_tensor(h16, "value", one);
  REQUIRE(h16.infer());
  REQUIRE(h16.fold());
  CHECK(h16.folded().data == std::vector<uint8_t>{0x00, 0x3C, 0x00, 0x3C});
  CHECK(contains(h16.emit(),
                 "onnxc::fill_value_ref<onnxc::float16>(y0, /*n=*/2, "
                 "/*value=*/onnxc::float16{15360});"));

  InferHarness p("ConstantOfShape", 21);
  p.constant<int64_t>(DataType::kInt64, {1}, {3});
  attr_tensor(p, "value", one_byte_tensor(DataType::kInt4, 0x0E));
  REQUIRE(p.infer());
  REQUIRE(p.fold());
  CHECK(p.folded().data == std::vector<uint8_t>{0xEE, 0x0E});
  CHECK(contains(p.emit(), "onnxc::fill_packed_ref<onnxc::int4x2>(y0, /*n=*/3, /*code=*/14u);"));

  InferHarness scalar("ConstantOfShape", 9);
  scalar.constant<int64_t>(DataType::kInt64, {0}, {});
  REQUIRE(scalar.infer());
  CHECK(scalar.out().shape.empty());
}

TEST_CASE("ConstantOfShape errors name the rule", "[cast][constant]") {
  InferHarness runtime("ConstantOfShape", 9);
  runtime.input(DataType::kInt64, {2});
  CHECK_FALSE(runtime.infer());
  CHECK(contains(runtime.error(), "shape input must be a constant"));
  InferHarness negative("ConstantOfShape", 9);
  negative.constant<int64_t>(DataType::kInt64, {2}, {2, -1});
  CHECK_FALSE(negative.infer());
  CHECK(contains(negative.error(), "shape has a negative dim -1"));
  InferHarness two("ConstantOfShape", 9);
  two.constant<int64_t>(DataType::kInt64, {1}, {2});
  attr_tensor(two, "value", Tensor::zeros(F, {2}));
  CHECK_FALSE(two.infer());
  CHECK(contains(two.error(), "value must hold exactly one element, has 2"));
  InferHarness bf("ConstantOfShape", 19);
  bf.constant<int64_t>(DataType::kInt64, {1}, {2});
  attr_tensor(bf, "value", Tensor::zeros(DataType::kBFloat16, {1}));
  CHECK_FALSE(bf.infer());
  CHECK(
      contains(bf.error(), "value type bfloat16 needs opset 20 or later (model imports opset 19)"));
  InferHarness type("ConstantOfShape", 9);
  type.constant<int32_t>(DataType::kInt32, {1}, {2});
  CHECK_FALSE(type.infer());
  CHECK(contains(type.error(), "has type int32, expected one of: int64"));
}

TEST_CASE("Cast to string sizes its slots for the longest string of the type", "[cast]") {
  struct Case {
    DataType from;
    int64_t capacity;  // "-1.2345678e-308", "-9223372036854775808", "-128", "255", "1"
  };
  for (const Case& c : {Case{F, 15}, Case{DataType::kDouble, 15}, Case{DataType::kFloat16, 15},
                        Case{DataType::kInt64, 20}, Case{DataType::kInt8, 4},
                        Case{DataType::kUint8, 3}, Case{DataType::kBool, 1}}) {
    InferHarness h("Cast", 19);
    h.input(c.from, {3});
    h.attr_int("to", static_cast<int64_t>(DataType::kString));
    REQUIRE(h.infer());
    CHECK(h.out().dtype == DataType::kString);
    CHECK(h.out().string_slot() == c.capacity + 1);
  }
}
