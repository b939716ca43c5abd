// Elementwise handlers: broadcasting (numpy and the opset 1-6 broadcast/axis attributes, PRelu's
// per-channel slopes), per-op types and attributes, Clip's bounds by opset, Dropout's modes,
// attribute-picked functors, errors naming the rule, and folding through the kernels.
#include "onnxc/elementwise.h"

#include <catch2/catch.hpp>
#include <limits>

#include "ops/infer_harness.h"

using namespace onnxc;
using onnxc::testing::InferHarness;

namespace {
const DataType F = DataType::kFloat;
const DataType I32 = DataType::kInt32;
const DataType I64 = DataType::kInt64;
const DataType B = DataType::kBool;
const DataType U8 = DataType::kUint8;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}
}  // namespace

TEST_CASE("Binary ops broadcast numpy-style from opset 7", "[elementwise]") {
  InferHarness h("Add", 14);
  h.input(F, {2, 3, 4});
  h.input(F, {3, 1});
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{2, 3, 4});
  CHECK(h.out().dtype == F);
  CHECK(contains(h.emit(),
                 "{/*rank=*/3, /*dims=*/{2, 3, 4}, /*a_strides=*/{12, 4, 1}, "
                 "/*b_strides=*/{0, 1, 0}, /*c_strides=*/{0, 0, 0}, /*numel=*/24, /*kind=*/0}"));
  CHECK(contains(h.emit(), "onnxc::binary_ref(p, x0, x1, y0, onnxc::Add{});"));

  InferHarness both("Mul", 13);  // both sides broadcast
  both.input(I64, {4, 1});
  both.input(I64, {1, 5});
  REQUIRE(both.infer());
  CHECK(both.out().shape == Shape{4, 5});

  InferHarness bad("Sub", 13);
  bad.input(F, {2, 3});
  bad.input(F, {4});
  CHECK_FALSE(bad.infer());
  CHECK(bad.error() == "node 'n' (Sub): shapes 2x3 and 4 do not broadcast");

  InferHarness types("Div", 13);
  types.input(F, {2});
  types.input(DataType::kDouble, {2});
  CHECK_FALSE(types.infer());
  CHECK(contains(types.error(), "inputs have different types float and double"));
}

TEST_CASE("Opset 1-6 binary ops use the broadcast and axis attributes", "[elementwise]") {
  SECTION("broadcast=1 aligns B at axis") {
    InferHarness h("Add", 6);
    h.input(F, {2, 3, 4, 5});
    h.input(F, {3, 4});
    h.attr_int("broadcast", 1);
    h.attr_int("axis", 1);
    REQUIRE(h.infer());
    CHECK(h.out().shape == Shape{2, 3, 4, 5});
    // B is [1, 3, 4, 1]; the kernel walks 2 x 12 x 5 (the middle dims merge, coalesce_dims).
    CHECK(contains(h.emit(),
                   "/*dims=*/{2, 12, 5}, /*a_strides=*/{60, 5, 1}, /*b_strides=*/{0, 1, 0}"));
  }
  SECTION("broadcast=1 without axis matches trailing dims") {
    InferHarness h("Mul", 1);
    h.input(F, {2, 3});
    h.input(F, {3});
    h.attr_int("broadcast", 1);
    h.attr_ints("consumed_inputs", {0, 0});  // legacy attribute, ignored
    REQUIRE(h.infer());
    CHECK(h.out().shape == Shape{2, 3});
  }
  SECTION("broadcast=0 needs equal shapes") {
    InferHarness h("Sub", 6);
    h.input(F, {2, 3});
    h.input(F, {3});
    CHECK_FALSE(h.infer());
    CHECK(contains(h.error(), "shapes 2x3 and 3 differ and broadcast=0"));
  }
  SECTION("axis must fit B") {
    InferHarness h("Div", 6);
    h.input(F, {2, 3});
    h.input(F, {3, 4});
    h.attr_int("broadcast", 1);
    h.attr_int("axis", 1);
    CHECK_FALSE(h.infer());
    CHECK(contains(h.error(), "axis 1 does not fit B of rank 2 in A of rank 2"));
  }
}

TEST_CASE("PRelu slope broadcasts to X, 1-d slopes per channel", "[elementwise]") {
  InferHarness h("PRelu", 6);  // pytorch's old export: slope [C]
  h.input(F, {2, 3, 4});
  h.constant<float>(F, {3}, {0.25f, 0.5f, 1.0f});
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{2, 3, 4});
  CHECK(contains(h.emit(), "{0, 1, 0}"));  // slope strides: along axis 1 only

  InferHarness numpy("PRelu", 16);
  numpy.input(F, {2, 3, 4});
  numpy.input(F, {4});
  REQUIRE(numpy.infer());
  CHECK(contains(numpy.emit(), "/*dims=*/{6, 4}, /*a_strides=*/{4, 1}, /*b_strides=*/{0, 1}"));

  InferHarness bad("PRelu", 16);
  bad.input(F, {2, 3});
  bad.input(F, {2, 3, 3});  // would grow X
  CHECK_FALSE(bad.infer());
  CHECK(contains(bad.error(), "slope shape 2x3x3 does not broadcast to X shape 2x3"));
}

TEST_CASE("Comparison and logical ops produce bool", "[elementwise]") {
  InferHarness h("Less", 13);
  h.input(I32, {3});
  h.input(I32, {});
  REQUIRE(h.infer());
  CHECK(h.out().dtype == B);
  CHECK(h.out().shape == Shape{3});

  InferHarness logic("And", 7);
  logic.input(F, {3});
  logic.input(F, {3});
  CHECK_FALSE(logic.infer());
  CHECK(contains(logic.error(), "input 0 ('in0') has unsupported type float"));
}

TEST_CASE("Shape subgraphs fold on int64", "[elementwise]") {
  InferHarness add("Add", 14);
  add.constant<int64_t>(I64, {3}, {1, 2, 3});
  add.constant<int64_t>(I64, {}, {10});
  REQUIRE(add.infer());
  REQUIRE(add.fold());
  CHECK(add.folded().as<int64_t>()[2] == 13);

  InferHarness div("Div", 14);
  div.constant<int64_t>(I64, {3}, {-7, 7, 7});
  div.constant<int64_t>(I64, {3}, {2, -2, 1});
  REQUIRE(div.infer());
  REQUIRE(div.fold());
  const int64_t* q = div.folded().as<int64_t>();
  CHECK(q[0] == -3);  // truncation, as the ONNX reference
  CHECK(q[1] == -3);
  CHECK(q[2] == 7);

  InferHarness eq("Equal", 13);
  eq.constant<int64_t>(I64, {2}, {4, -1});
  eq.constant<int64_t>(I64, {}, {-1});
  REQUIRE(eq.infer());
  REQUIRE(eq.fold());
  CHECK(eq.folded().as<bool>()[0] == false);
  CHECK(eq.folded().as<bool>()[1] == true);

  InferHarness where("Where", 16);
  where.constant<bool>(B, {2}, {true, false});
  where.constant<int64_t>(I64, {2}, {1, 2});
  where.constant<int64_t>(I64, {1}, {-5});
  REQUIRE(where.infer());
  REQUIRE(where.fold());
  CHECK(where.folded().as<int64_t>()[0] == 1);
  CHECK(where.folded().as<int64_t>()[1] == -5);
}

TEST_CASE("Integer Div and Mod refuse constants dividing by 0 or MIN by -1", "[elementwise]") {
  InferHarness div("Div", 14);
  div.input(I32, {3});
  div.constant<int32_t>(I32, {3}, {2, 0, 1});  // a run-time dividend: 0 still divides it
  CHECK_FALSE(div.infer());
  CHECK(contains(div.error(), "integer division by zero: the divisor"));
  InferHarness mod("Mod", 13);
  mod.constant<int64_t>(I64, {1}, {7});
  mod.constant<int64_t>(I64, {1}, {0});
  CHECK_FALSE(mod.infer());
  CHECK(contains(mod.error(), "integer modulo by zero"));
  // MIN / -1 only where they meet under broadcasting.
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  InferHarness min_apart("Div", 14);
  min_apart.constant<int32_t>(I32, {2, 1}, {kMin, 4});
  min_apart.constant<int32_t>(I32, {2, 1}, {2, -1});
  REQUIRE(min_apart.infer());
  REQUIRE(min_apart.fold());
  CHECK(min_apart.folded().as<int32_t>()[0] == kMin / 2);
  CHECK(min_apart.folded().as<int32_t>()[1] == -4);
  InferHarness min_met("Div", 14);
  min_met.constant<int32_t>(I32, {2, 1}, {kMin, 4});
  min_met.constant<int32_t>(I32, {1, 2}, {2, -1});
  CHECK_FALSE(min_met.infer());
  CHECK(contains(min_met.error(), "integer division overflows"));
  // Floats divide by zero as IEEE says: not refused.
  InferHarness f("Div", 14);
  f.constant<float>(F, {1}, {1.0f});
  f.constant<float>(F, {1}, {0.0f});
  CHECK(f.infer());
}

TEST_CASE("Pow takes an exponent of another type from opset 12", "[elementwise]") {
  InferHarness h("Pow", 15);
  h.constant<float>(F, {2}, {2.0f, 3.0f});
  h.constant<int64_t>(I64, {}, {3});
  REQUIRE(h.infer());
  CHECK(h.out().dtype == F);
  REQUIRE(h.fold());
  CHECK(h.folded().as<float>()[0] == 8.0f);
  CHECK(h.folded().as<float>()[1] == 27.0f);
}

TEST_CASE("Mod: fmod picks the sign rule, floats need fmod=1", "[elementwise]") {
  InferHarness floor_mod("Mod", 13);
  floor_mod.constant<int32_t>(I32, {2}, {-7, 7});
  floor_mod.constant<int32_t>(I32, {}, {3});
  REQUIRE(floor_mod.infer());
  REQUIRE(floor_mod.fold());
  CHECK(floor_mod.folded().as<int32_t>()[0] == 2);

  InferHarness c_mod("Mod", 13);
  c_mod.constant<int32_t>(I32, {2}, {-7, 7});
  c_mod.constant<int32_t>(I32, {}, {3});
  c_mod.attr_int("fmod", 1);
  REQUIRE(c_mod.infer());
  REQUIRE(c_mod.fold());
  CHECK(c_mod.folded().as<int32_t>()[0] == -1);

  InferHarness bad("Mod", 13);
  bad.input(F, {2});
  bad.input(F, {2});
  CHECK_FALSE(bad.infer());
  CHECK(contains(bad.error(), "unsupported type float (floating-point inputs need fmod=1)"));

  InferHarness bad_attr("Mod", 13);
  bad_attr.input(I32, {2});
  bad_attr.input(I32, {2});
  bad_attr.attr_int("fmod", 2);
  CHECK_FALSE(bad_attr.infer());
  CHECK(contains(bad_attr.error(), "attribute 'fmod' must be one of '0', '1'"));
}

TEST_CASE("Gelu and BitShift pick their functor by attribute", "[elementwise]") {
  InferHarness gelu("Gelu", 20);
  gelu.input(F, {4});
  REQUIRE(gelu.infer());
  CHECK(contains(gelu.emit(), "onnxc::GeluErf{"));

  InferHarness shift("BitShift", 11);
  shift.input(U8, {4});
  shift.input(U8, {4});
  CHECK_FALSE(shift.infer());  // direction is required
  CHECK(contains(shift.error(), "attribute 'direction' must be one of 'LEFT', 'RIGHT'"));

  InferHarness signed_shift("BitShift", 11);
  signed_shift.input(I32, {4});
  signed_shift.input(I32, {4});
  signed_shift.node().attributes["direction"].kind = Attribute::Kind::kString;
  signed_shift.node().attributes["direction"].s = "RIGHT";
  CHECK_FALSE(signed_shift.infer());
  CHECK(contains(signed_shift.error(), "unsupported type int32"));
}

TEST_CASE("Unary ops: attributes, types, bool outputs", "[elementwise]") {
  InferHarness leaky("LeakyRelu", 16);
  leaky.input(F, {2, 2});
  leaky.attr_float("alpha", 0.25f);
  REQUIRE(leaky.infer());
  CHECK(contains(leaky.emit(),
                 "onnxc::unary_ref(x0, y0, /*n=*/4, onnxc::LeakyRelu{/*alpha=*/0.25f, "));

  InferHarness inf("IsInf", 20);  // int attributes
  inf.input(F, {3});
  inf.attr_int("detect_negative", 0);
  REQUIRE(inf.infer());
  CHECK(inf.out().dtype == B);
  CHECK(contains(inf.emit(), "onnxc::IsInf{/*alpha=*/1.0f, /*beta=*/0.0f}"));

  InferHarness wrong_kind("Elu", 6);
  wrong_kind.input(F, {3});
  wrong_kind.attr_int("alpha", 2);
  CHECK_FALSE(wrong_kind.infer());
  CHECK(contains(wrong_kind.error(), "attribute 'alpha' must be of type float"));

  InferHarness neg("Neg", 13);
  neg.input(U8, {3});
  CHECK_FALSE(neg.infer());
  CHECK(contains(neg.error(), "has unsupported type uint8"));

  InferHarness half("Relu", 14);  // half types compute in float
  half.input(DataType::kFloat16, {3});
  REQUIRE(half.infer());
  CHECK(half.out().dtype == DataType::kFloat16);

  InferHarness sqrt("Sqrt", 13);
  sqrt.constant<float>(F, {2}, {4.0f, 9.0f});
  REQUIRE(sqrt.infer());
  REQUIRE(sqrt.fold());
  CHECK(sqrt.folded().as<float>()[1] == 3.0f);
}

TEST_CASE("Max/Min/Sum/Mean are variadic, broadcasting from opset 8", "[elementwise]") {
  InferHarness sum("Sum", 13);
  sum.constant<float>(F, {2, 1}, {1, 2});
  sum.constant<float>(F, {3}, {10, 20, 30});
  sum.constant<float>(F, {}, {100});
  REQUIRE(sum.infer());
  CHECK(sum.out().shape == Shape{2, 3});
  REQUIRE(sum.fold());
  CHECK(sum.folded().as<float>()[0] == 111);
  CHECK(sum.folded().as<float>()[5] == 132);

  InferHarness mean("Mean", 13);
  mean.constant<float>(F, {2}, {1, 2});
  mean.constant<float>(F, {2}, {3, 6});
  REQUIRE(mean.infer());
  REQUIRE(mean.fold());
  CHECK(mean.folded().as<float>()[1] == 4);

  InferHarness old("Max", 6);
  old.input(F, {2, 3});
  old.input(F, {3});
  CHECK_FALSE(old.infer());
  CHECK(contains(old.error(), "inputs must have equal shapes before opset 8, got 2x3 and 3"));
}

TEST_CASE("Clip bounds: attributes before opset 11, optional inputs after", "[elementwise]") {
  SECTION("opset 6 attributes default to +-FLT_MAX") {
    InferHarness h("Clip", 6);
    h.constant<float>(F, {3}, {-INFINITY, 0.5f, 2});
    h.attr_float("max", 1);
    REQUIRE(h.infer());
    REQUIRE(h.fold());
    CHECK(h.folded().as<float>()[0] == -std::numeric_limits<float>::max());
    CHECK(h.folded().as<float>()[2] == 1);
    CHECK(contains(h.emit(), "static const float hi = 1.0f;"));
  }
  SECTION("opset 11: min absent (empty name), max a run-time tensor") {
    InferHarness h("Clip", 13);
    h.input(I64, {4});
    h.absent_input();
    h.input(I64, {});
    REQUIRE(h.infer());
    CHECK(contains(h.emit(),
                   "onnxc::clip_ref<int64_t>(x0, y0, /*n=*/4, /*lo=*/nullptr, /*hi=*/x2);"));
  }
  SECTION("bounds must be scalars of the input type") {
    InferHarness h("Clip", 13);
    h.input(F, {4});
    h.input(F, {2});
    CHECK_FALSE(h.infer());
    CHECK(contains(h.error(), "bound 1 must be a scalar, has shape 2"));
    InferHarness t("Clip", 13);
    t.input(F, {4});
    t.input(DataType::kDouble, {});
    CHECK_FALSE(t.infer());
    CHECK(contains(t.error(), "bound 1 has type double, input has float"));
  }
  SECTION("integers only from opset 12") {
    InferHarness h("Clip", 11);
    h.input(I32, {4});
    CHECK_FALSE(h.infer());
    CHECK(contains(h.error(), "unsupported type int32"));
  }
}

TEST_CASE("Dropout: inference copies, training mode from inputs", "[elementwise]") {
  SECTION("no training input: y = x, mask all true (bool from opset 10)") {
    InferHarness h("Dropout", 13);
    h.constant<float>(F, {3}, {1, 2, 3});
    h.outputs(2);
    REQUIRE(h.infer());
    CHECK(h.out(1).dtype == B);
    REQUIRE(h.fold());
    CHECK(h.folded(0).as<float>()[2] == 3);
    CHECK(h.folded(1).as<bool>()[0]);
    CHECK(contains(h.emit(),
                   "dropout_ref<float, float, bool>(x0, y0, /*mask=*/y1, /*n=*/3, "
                   "/*ratio=*/nullptr, /*training=*/nullptr, /*seed=*/0u);"));
  }
  SECTION("opset 7 mask has the data type") {
    InferHarness h("Dropout", 7);
    h.input(F, {3});
    h.attr_float("ratio", 0.3f);
    h.outputs(2);
    REQUIRE(h.infer());
    CHECK(h.out(1).dtype == F);
  }
  SECTION("a constant zero ratio stays inference even in training mode") {
    InferHarness h("Dropout", 13);
    h.input(F, {3});
    h.constant<float>(F, {}, {0});
    h.constant<bool>(B, {}, {true});
    REQUIRE(h.infer());
    CHECK(contains(h.emit(), "/*ratio=*/nullptr, /*training=*/nullptr, /*seed=*/0u);"));
  }
  SECTION("run-time training mode draws numpy's mask for the seed") {
    InferHarness h("Dropout", 13);
    h.input(F, {5});
    h.input(F, {});
    h.input(B, {});
    h.attr_int("seed", 3);
    REQUIRE(h.infer());
    CHECK(contains(h.emit(),
                   "dropout_ref<float, float, bool>(x0, y0, /*mask=*/nullptr, /*n=*/5, "
                   "/*ratio=*/x1, /*training=*/x2, /*seed=*/3u);"));
  }
  SECTION("ratio and training_mode are inputs only from opset 12") {
    InferHarness h("Dropout", 11);
    h.input(F, {3});
    h.input(F, {});
    CHECK_FALSE(h.infer());
  }
}

TEST_CASE("Identity copies any non-string tensor", "[elementwise]") {
  InferHarness h("Identity", 21);
  h.input(DataType::kInt4, {5});
  REQUIRE(h.infer());
  CHECK(contains(h.emit(), "onnxc::copy_bytes(y0, x0, /*bytes=*/3);"));
}
