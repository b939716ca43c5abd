// Shape-op handlers: Shape's start/end (opset 15) and Size as compile-time constants; Reshape's 0,
// -1 and allowzero rules and its attribute form (opset 1); Flatten's axis; Squeeze/Unsqueeze axes
// as attributes (before 13) and inputs (13+); Range's length and its float16 form; errors naming
// the rule; copies and folding; and a whole shape subgraph folding through infer_shapes.
#include <catch2/catch.hpp>

#include "frontend/importer.h"
#include "harness/model_builder.h"
#include "ops/infer_harness.h"

using namespace onnxc;
using onnxc::testing::InferHarness;

namespace {

const DataType F = DataType::kFloat;
const DataType I64 = DataType::kInt64;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("Shape is a constant, start/end slice it from opset 15 only", "[shape-ops]") {
  InferHarness h("Shape", 15);
  h.input(F, {2, 3, 4, 5});
  h.attr_int("start", -3);
  h.attr_int("end", -1);
  REQUIRE(h.infer());
  REQUIRE(h.out().is_constant());
  CHECK(h.out().constant->to_ints() == std::vector<int64_t>{3, 4});
  InferHarness clipped("Shape", 19);
  clipped.input(F, {2, 3});
  clipped.attr_int("start", 5);  // clamped to the rank: empty
  REQUIRE(clipped.infer());
  CHECK(clipped.out().shape == Shape{0});
  InferHarness old("Shape", 13);  // start/end did not exist yet: ignored
  old.input(F, {2, 3});
  old.attr_int("start", 1);
  REQUIRE(old.infer());
  CHECK(old.out().constant->to_ints() == std::vector<int64_t>{2, 3});
}

TEST_CASE("Size is a constant int64 scalar", "[shape-ops]") {
  InferHarness h("Size", 13);
  h.input(DataType::kBool, {2, 3, 4});
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{});
  CHECK(h.out().dtype == I64);
  CHECK(h.out().constant->to_ints() == std::vector<int64_t>{24});
}

TEST_CASE("Reshape: 0 copies a dim, -1 is inferred, allowzero keeps 0 literal", "[shape-ops]") {
  InferHarness h("Reshape", 13);
  h.input(F, {2, 3, 4});
  h.constant<int64_t>(I64, {3}, {0, -1, 2});
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{2, 6, 2});
  CHECK(contains(h.emit(), "onnxc::copy_bytes(y0, x0, /*bytes=*/96);"));
  InferHarness zero("Reshape", 14);
  zero.input(F, {0, 3});
  zero.constant<int64_t>(I64, {3}, {3, 0, 5});
  zero.attr_int("allowzero", 1);
  REQUIRE(zero.infer());
  CHECK(zero.out().shape == Shape{3, 0, 5});
  InferHarness v1("Reshape", 1);  // shape attribute
  v1.input(F, {2, 3});
  v1.attr_ints("shape", {-1});
  REQUIRE(v1.infer());
  CHECK(v1.out().shape == Shape{6});
}

TEST_CASE("Reshape errors name the rule broken", "[shape-ops]") {
  InferHarness two("Reshape", 13);
  two.input(F, {2, 3});
  two.constant<int64_t>(I64, {2}, {-1, -1});
  CHECK_FALSE(two.infer());
  CHECK(two.error() == "node 'n' (Reshape): shape {-1, -1} has more than one -1");
  InferHarness count("Reshape", 13);
  count.input(F, {2, 3});
  count.constant<int64_t>(I64, {2}, {4, 2});
  CHECK_FALSE(count.infer());
  CHECK(contains(count.error(), "cannot reshape 2x3 (6 elements) to 4x2 (8 elements)"));
  InferHarness both("Reshape", 14);
  both.input(F, {0, 3});
  both.constant<int64_t>(I64, {2}, {0, -1});
  both.attr_int("allowzero", 1);
  CHECK_FALSE(both.infer());
  CHECK(contains(both.error(), "with allowzero, shape {0, -1} cannot hold both 0 and -1"));
  InferHarness dyn("Reshape", 13);
  dyn.input(F, {2, 3});
  dyn.input(I64, {2});
  CHECK_FALSE(dyn.infer());
  CHECK(contains(dyn.error(), "shape input must be a constant"));
}

TEST_CASE("Reshape folds constants of any type", "[shape-ops]") {
  InferHarness h("Reshape", 21);
  h.constant<double>(DataType::kDouble, {2, 2}, {1, 2, 3, 4});
  h.constant<int64_t>(I64, {1}, {4});
  REQUIRE(h.infer());
  REQUIRE(h.fold());
  const double* y = h.folded().as<double>();
  CHECK(std::vector<double>(y, y + 4) == std::vector<double>{1, 2, 3, 4});
  CHECK(h.folded().shape == Shape{4});
}

TEST_CASE("Flatten splits the dims at axis (default 1, negative, 0 and rank)", "[shape-ops]") {
  auto flatten = [](int64_t axis) {
    InferHarness h("Flatten", 13);
    h.input(F, {2, 3, 4});
    h.attr_int("axis", axis);
    REQUIRE(h.infer());
    return h.out().shape;
  };
  CHECK(flatten(1) == Shape{2, 12});
  CHECK(flatten(0) == Shape{1, 24});
  CHECK(flatten(3) == Shape{24, 1});
  CHECK(flatten(-1) == Shape{6, 4});
  InferHarness bad("Flatten", 9);
  bad.input(F, {2, 3});
  bad.attr_int("axis", 3);
  CHECK_FALSE(bad.infer());
  CHECK(bad.error() == "node 'n' (Flatten): axis 3 is out of range [-2, 2]");
}

TEST_CASE("Squeeze: attribute axes before 13, input from 13, all unit dims by default",
          "[shape-ops]") {
  InferHarness attr("Squeeze", 11);
  attr.input(F, {1, 3, 1, 2});
  attr.attr_ints("axes", {-2});
  REQUIRE(attr.infer());
  CHECK(attr.out().shape == Shape{1, 3, 2});
  InferHarness in("Squeeze", 13);
  in.input(F, {1, 3, 1, 2});
  in.constant<int64_t>(I64, {1}, {0});
  REQUIRE(in.infer());
  CHECK(in.out().shape == Shape{3, 1, 2});
  InferHarness all("Squeeze", 21);
  all.input(F, {1, 3, 1, 2});
  REQUIRE(all.infer());
  CHECK(all.out().shape == Shape{3, 2});
  InferHarness bad("Squeeze", 13);
  bad.input(F, {1, 3});
  bad.constant<int64_t>(I64, {1}, {1});
  CHECK_FALSE(bad.infer());
  CHECK(contains(bad.error(), "cannot squeeze axis 1 of shape 1x3: its size is not 1"));
}

TEST_CASE("Unsqueeze: axes index the output, in any order, no repeats", "[shape-ops]") {
  InferHarness attr("Unsqueeze", 1);
  attr.input(F, {3, 4});
  attr.attr_ints("axes", {2, 0});
  REQUIRE(attr.infer());
  CHECK(attr.out().shape == Shape{1, 3, 1, 4});
  InferHarness in("Unsqueeze", 13);
  in.constant<int64_t>(I64, {}, {7});
  in.constant<int64_t>(I64, {1}, {-1});
  REQUIRE(in.infer());
  CHECK(in.out().shape == Shape{1});
  REQUIRE(in.fold());
  CHECK(in.folded().to_ints() == std::vector<int64_t>{7});
  InferHarness rep("Unsqueeze", 13);
  rep.input(F, {3});
  rep.constant<int64_t>(I64, {2}, {0, -3});  // -3 is axis 0 of the rank-3 output
  CHECK_FALSE(rep.infer());
  CHECK(contains(rep.error(), "axis 0 is repeated"));
  InferHarness none("Unsqueeze", 13);
  none.input(F, {3});
  CHECK_FALSE(none.infer());
  CHECK(contains(none.error(), "axes are required"));
}

TEST_CASE("Range folds from constant scalars, length per the spec", "[shape-ops]") {
  InferHarness h("Range", 11);
  h.constant<int32_t>(DataType::kInt32, {}, {10});
  h.constant<int32_t>(DataType::kInt32, {}, {4});
  h.constant<int32_t>(DataType::kInt32, {}, {-3});
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{2});
  REQUIRE(h.fold());
  CHECK(h.folded().to_ints() == std::vector<int64_t>{10, 7});
  InferHarness f("Range", 11);
  f.constant<float>(F, {}, {0});
  f.constant<float>(F, {}, {1});
  f.constant<float>(F, {}, {0.3f});
  REQUIRE(f.infer());
  CHECK(f.out().shape == Shape{4});  // ceil(1 / 0.3)
  CHECK(contains(f.emit(), "onnxc::range_ref(/*start=*/0.0f, /*delta=*/0.3f, y0, /*n=*/4);"));
  InferHarness dyn("Range", 11);
  dyn.input(F, {});
  dyn.constant<float>(F, {}, {1});
  dyn.constant<float>(F, {}, {1});
  CHECK_FALSE(dyn.infer());
  CHECK(contains(dyn.error(), "input 0 must be a constant"));
}

TEST_CASE("Range of float16 (opset 27) is computed in float and rounded", "[shape-ops]") {
  auto half = [](InferHarness& h, uint16_t bits) {
    Value* v = h.input(DataType::kFloat16, {});
    Tensor t = Tensor::zeros(DataType::kFloat16, {});
    t.as<uint16_t>()[0] = bits;
    v->constant = std::make_shared<const Tensor>(std::move(t));
  };
  InferHarness h("Range", 27);
  half(h, 0x3c00);  // 1.0
  half(h, 0x4100);  // 2.5
  half(h, 0x3800);  // 0.5
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{3});
  CHECK(
      contains(h.emit(), "onnxc::range_stashed_ref(/*start=*/1.0f, /*delta=*/0.5f, y0, /*n=*/3);"));
  REQUIRE(h.fold());
  const uint16_t* y = h.folded().as<uint16_t>();
  CHECK(std::vector<uint16_t>(y, y + 3) == std::vector<uint16_t>{0x3c00, 0x3e00, 0x4000});
  InferHarness old("Range", 25);
  half(old, 0x3c00);
  half(old, 0x4100);
  half(old, 0x3800);
  CHECK_FALSE(old.infer());
  CHECK(contains(old.error(),
                 "type float16 is not supported (float, double, int16, int32, int64 are)"));
}

TEST_CASE("A sliced Shape -> Squeeze -> Concat -> Reshape subgraph folds away", "[shape-ops]") {
  using onnxc::testing::ModelBuilder;
  ModelBuilder mb(21);
  mb.input("x", onnx::TensorProto::FLOAT, {2, 3, 4})
      .output("y", onnx::TensorProto::FLOAT, {-1, -1}, {"a", "b"});
  auto* minus_one = mb.proto().mutable_graph()->add_initializer();
  minus_one->set_name("minus_one");
  minus_one->set_data_type(onnx::TensorProto::INT64);
  minus_one->add_dims(1);
  minus_one->add_int64_data(-1);
  auto& shape = mb.node("Shape", {"x"}, {"last"}, "shape");  // [4]
  ModelBuilder::int_attr(shape, "start", -1);
  auto& concat = mb.node("Concat", {"minus_one", "last"}, {"target"}, "concat");  // [-1, 4]
  ModelBuilder::int_attr(concat, "axis", 0);
  mb.node("Reshape", {"x", "target"}, {"r"}, "reshape");
  mb.node("Flatten", {"r"}, {"y"}, "flatten");
  Diagnostics diag;
  auto m = import_model(mb.proto(), ImportOptions{}, diag);
  REQUIRE(m);
  REQUIRE(bind_handlers(*m->graph, diag));
  REQUIRE(infer_shapes(*m, diag));
  INFO(diag.str());
  CHECK(m->graph->find_value("target")->constant->to_ints() == std::vector<int64_t>{-1, 4});
  CHECK(m->graph->find_value("y")->shape == Shape{6, 4});
  eliminate_dead_code(*m->graph);
  CHECK(m->graph->nodes.size() == 2);  // Reshape and Flatten remain
}
