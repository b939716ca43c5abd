// Pool handlers: output shapes (ceil_mode and its last-window rule, auto_pad, dilations), the
// attributes and types each opset defines, the Indices output, the kernel each node picks, and
// folding.
#include <catch2/catch.hpp>
#include <string>

#include "ops/infer_harness.h"

using namespace onnxc;
using onnxc::testing::InferHarness;

namespace {

const DataType F = DataType::kFloat;

bool emits(InferHarness& h, const std::string& text) {
  const std::string code = h.emit();
  UNSCOPED_INFO(code);
  return code.find(text) != std::string::npos;
}

}  // namespace

TEST_CASE("MaxPool and AveragePool output shapes", "[pool]") {
  SECTION("floor by default, ceil_mode from opset 10") {
    for (int ceil : {0, 1}) {
      InferHarness h("MaxPool", 12);
      h.input(F, {1, 3, 32, 32});
      h.attr_ints("kernel_shape", {3, 3});
      h.attr_ints("strides", {2, 2});
      h.attr_int("ceil_mode", ceil);
      REQUIRE(h.infer());
      CHECK(h.out().shape == (ceil ? Shape{1, 3, 16, 16} : Shape{1, 3, 15, 15}));
    }
  }
  SECTION("ceil_mode's last window must start inside the input or the leading padding") {
    // 4 + 1 trailing padding, kernel 2, stride 2: ceil gives 3 windows, the third would start
    // at 4, in the trailing padding, so it is dropped. Leading padding keeps it.
    InferHarness h("AveragePool", 19);
    h.input(F, {1, 1, 4, 4});
    h.attr_ints("kernel_shape", {2, 2});
    h.attr_ints("strides", {2, 2});
    h.attr_ints("pads", {0, 0, 1, 1});
    h.attr_int("ceil_mode", 1);
    REQUIRE(h.infer());
    CHECK(h.out().shape == Shape{1, 1, 2, 2});
    InferHarness l("AveragePool", 19);
    l.input(F, {1, 1, 4, 4});
    l.attr_ints("kernel_shape", {2, 2});
    l.attr_ints("strides", {2, 2});
    l.attr_ints("pads", {1, 1, 0, 0});
    l.attr_int("ceil_mode", 1);
    REQUIRE(l.infer());
    CHECK(l.out().shape == Shape{1, 1, 3, 3});
    InferHarness e("AveragePool", 19);
    e.input(F, {1, 1, 4, 4});
    e.attr_ints("kernel_shape", {2, 2});
    e.attr_ints("strides", {3, 3});
    e.attr_int("ceil_mode", 1);
    REQUIRE(e.infer());
    CHECK(e.out().shape == Shape{1, 1, 2, 2});  // ceil(2/3)+1 = 2; window 2 starts at 3 < 4
  }
  SECTION("auto_pad SAME keeps ceil(in / stride); dilations widen the window") {
    InferHarness h("MaxPool", 11);
    h.input(F, {1, 1, 7, 8});
    h.attr_ints("kernel_shape", {3, 3});
    h.attr_ints("strides", {2, 2});
    h.attr_string("auto_pad", "SAME_LOWER");
    REQUIRE(h.infer());
    CHECK(h.out().shape == Shape{1, 1, 4, 4});
    InferHarness d("MaxPool", 10);
    d.input(F, {1, 1, 9, 9, 9});
    d.attr_ints("kernel_shape", {2, 2, 2});
    d.attr_ints("dilations", {2, 3, 4});
    REQUIRE(d.infer());
    CHECK(d.out().shape == Shape{1, 1, 7, 6, 5});
  }
}

TEST_CASE("Pool attributes and types follow the opset", "[pool]") {
  auto error_of = [](const char* op, int opset, auto setup) {
    InferHarness h(op, opset);
    h.input(F, {1, 1, 6, 6});
    h.attr_ints("kernel_shape", {2, 2});
    setup(h);
    CHECK_FALSE(h.infer());
    return h.error();
  };
  CHECK(error_of("MaxPool", 8, [](InferHarness& h) { h.attr_int("ceil_mode", 1); }) ==
        "node 'n' (MaxPool): attribute 'ceil_mode' is defined from opset 10; the model imports "
        "opset 8");
  CHECK(error_of("AveragePool", 11, [](InferHarness& h) {
          h.attr_ints("dilations", {2, 2});
        }).find("'dilations' is defined from opset 19") != std::string::npos);
  CHECK(error_of("AveragePool", 6, [](InferHarness& h) {
          h.attr_int("count_include_pad", 1);
        }).find("'count_include_pad' is defined from opset 7") != std::string::npos);
  CHECK(error_of("MaxPool", 7, [](InferHarness& h) {
          h.attr_int("storage_order", 1);
        }).find("'storage_order' is defined from opset 8") != std::string::npos);
  CHECK(error_of("MaxPool", 12, [](InferHarness& h) {
          h.attr_int("storage_order", 2);
        }).find("storage_order must be 0 (row major) or 1") != std::string::npos);
  CHECK(error_of("LpPool", 11, [](InferHarness& h) {
          h.attr_int("ceil_mode", 1);
        }).find("'ceil_mode' is defined from opset 18") != std::string::npos);
  CHECK(error_of("MaxPool", 12, [](InferHarness& h) {
          h.node().attributes.erase("kernel_shape");
        }).find("'kernel_shape' is required") != std::string::npos);
  // Attributes at their later default are accepted in older versions.
  InferHarness ok("MaxPool", 1);
  ok.input(F, {1, 1, 6, 6});
  ok.attr_ints("kernel_shape", {2, 2});
  ok.attr_int("ceil_mode", 0);
  ok.attr_ints("dilations", {1, 1});
  CHECK(ok.infer());

  InferHarness i8("MaxPool", 11);
  i8.input(DataType::kInt8, {1, 1, 4, 4});
  i8.attr_ints("kernel_shape", {2, 2});
  CHECK_FALSE(i8.infer());
  CHECK(i8.error().find("X has type int8") != std::string::npos);
  InferHarness u8("MaxPool", 12);
  u8.input(DataType::kUint8, {1, 1, 4, 4});
  u8.attr_ints("kernel_shape", {2, 2});
  REQUIRE(u8.infer());
  CHECK(emits(u8, "onnxc::maxpool_ref<uint8_t>(p, x0, y0, nullptr);"));
  InferHarness avg8("AveragePool", 22);
  avg8.input(DataType::kUint8, {1, 1, 4, 4});
  avg8.attr_ints("kernel_shape", {2, 2});
  CHECK_FALSE(avg8.infer());
  InferHarness bf("AveragePool", 19);
  bf.input(DataType::kBFloat16, {1, 1, 4, 4});
  bf.attr_ints("kernel_shape", {2, 2});
  CHECK_FALSE(bf.infer());
}

TEST_CASE("MaxPool's Indices output exists from opset 8", "[pool]") {
  InferHarness h("MaxPool", 8);
  h.input(F, {2, 3, 5, 5});
  h.attr_ints("kernel_shape", {2, 2});
  h.attr_int("storage_order", 1);
  h.outputs(2);
  REQUIRE(h.infer());
  CHECK(h.out(1).dtype == DataType::kInt64);
  CHECK(h.out(1).shape == Shape{2, 3, 4, 4});
  CHECK(emits(h, "onnxc::maxpool_ref<float>(p, x0, y0, y1);"));
  CHECK(emits(h,
              "/*pad_end=*/{0, 0, 0}, /*count_include_pad=*/0, /*storage_order=*/1, "
              "/*p=*/2.0f};"));  // ..., pad_end, count_include_pad, storage_order, p
  InferHarness old("MaxPool", 7);
  old.input(F, {2, 3, 5, 5});
  old.attr_ints("kernel_shape", {2, 2});
  old.outputs(2);
  CHECK_FALSE(old.infer());
}

TEST_CASE("Pools pick their kernel", "[pool]") {
  InferHarness m("MaxPool", 12);
  m.input(F, {1, 64, 112, 112});
  m.attr_ints("kernel_shape", {3, 3});
  m.attr_ints("strides", {2, 2});
  m.attr_ints("pads", {1, 1, 1, 1});
  REQUIRE(m.infer());
  CHECK(emits(m, "onnxc::f32_maxpool_rows__scalar(p, x0, y0, nullptr);"));
  InferHarness a("AveragePool", 11);
  a.input(DataType::kDouble, {1, 2, 6, 6});
  a.attr_ints("kernel_shape", {3, 3});
  a.attr_ints("pads", {1, 1, 1, 1});
  a.attr_int("count_include_pad", 1);
  REQUIRE(a.infer());
  CHECK(emits(a,
              "/*pad=*/{0, 1, 1}, /*pad_end=*/{0, 1, 1}, /*count_include_pad=*/1, "
              "/*storage_order=*/0, /*p=*/2.0f};"));
  CHECK(emits(a, "onnxc::avgpool_ref<double>(p, x0, y0);"));
  InferHarness g("GlobalAveragePool", 1);
  g.input(F, {2, 3, 7, 7});
  REQUIRE(g.infer());
  CHECK(g.out().shape == Shape{2, 3, 1, 1});
  CHECK(
      emits(g, "onnxc::f32_globalavgpool_lanes__scalar(x0, y0, /*channels=*/6, /*spatial=*/49);"));
  InferHarness gm("GlobalMaxPool", 22);
  gm.input(DataType::kFloat16, {1, 4, 2, 3, 5});
  REQUIRE(gm.infer());
  CHECK(gm.out().shape == Shape{1, 4, 1, 1, 1});
  CHECK(emits(gm,
              "onnxc::global_maxpool_ref<onnxc::float16>(x0, y0, /*channels=*/4, "
              "/*spatial=*/30);"));
}

TEST_CASE("LpPool and GlobalLpPool read p as a float in opset 1, an int after", "[pool]") {
  InferHarness v1("LpPool", 1);
  v1.input(F, {1, 1, 4, 4});
  v1.attr_ints("kernel_shape", {2, 2});
  v1.attr_float("p", 3.0f);
  REQUIRE(v1.infer());
  CHECK(emits(v1, "/*p=*/3.0f};"));  // p = 3.0
  CHECK(emits(v1, "onnxc::lppool_ref<float>(p, x0, y0);"));
  InferHarness v2("LpPool", 2);
  v2.input(F, {1, 1, 4, 4});
  v2.attr_ints("kernel_shape", {2, 2});
  v2.attr_float("p", 3.0f);
  CHECK_FALSE(v2.infer());  // an int from opset 2
  InferHarness g("GlobalLpPool", 2);
  g.input(F, {1, 2, 3, 3});
  g.attr_int("p", 0);
  CHECK_FALSE(g.infer());
  CHECK(g.error().find("p must be positive") != std::string::npos);
  InferHarness g1("GlobalLpPool", 1);
  g1.input(F, {1, 2, 3, 3});
  REQUIRE(g1.infer());
  CHECK(emits(g1,
              "onnxc::global_lppool_ref<float>(x0, y0, /*channels=*/2, /*spatial=*/9, "
              "/*p=*/2.0f);"));
}

TEST_CASE("Pools fold constant inputs", "[pool]") {
  InferHarness h("MaxPool", 12);
  h.constant<float>(F, {1, 1, 2, 4}, {1, 5, 2, 0, 3, 4, 8, 7});
  h.attr_ints("kernel_shape", {2, 2});
  h.attr_ints("strides", {2, 2});
  h.outputs(2);
  REQUIRE(h.infer());
  REQUIRE(h.fold());
  CHECK(h.folded(0).as<float>()[0] == 5);
  CHECK(h.folded(0).as<float>()[1] == 8);
  CHECK(h.folded(1).as<int64_t>()[0] == 1);
  CHECK(h.folded(1).as<int64_t>()[1] == 6);
  InferHarness g("GlobalAveragePool", 1);
  g.constant<double>(DataType::kDouble, {1, 2, 2}, {1, 2, 3, 5});
  REQUIRE(g.infer());
  REQUIRE(g.fold());
  CHECK(g.folded().as<double>()[0] == 1.5);
  CHECK(g.folded().as<double>()[1] == 4.0);
  InferHarness a("AveragePool", 7);
  a.constant<float>(F, {1, 1, 3}, {1, 2, 4});
  a.attr_ints("kernel_shape", {2});
  a.attr_ints("pads", {1, 1});
  a.attr_int("count_include_pad", 1);
  REQUIRE(a.infer());
  REQUIRE(a.fold());
  const float* y = a.folded().as<float>();
  CHECK(std::vector<float>(y, y + 4) == std::vector<float>{0.5f, 1.5f, 3.0f, 2.0f});
}
