// Conv / ConvTranspose handlers: output shapes from pads, strides, dilations and every auto_pad,
// the kernel each shape picks (and its scratch), errors naming the rule, types per opset, and
// folding through the same kernels.
#include "onnxc/conv.h"

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

TEST_CASE("Conv output shapes follow pads, strides and dilations", "[conv]") {
  SECTION("explicit asymmetric pads and strides") {
    InferHarness h("Conv", 11);
    h.input(F, {1, 1, 7, 5});
    h.input(F, {1, 1, 3, 3});
    h.attr_ints("pads", {1, 0, 1, 0});
    h.attr_ints("strides", {2, 2});
    REQUIRE(h.infer());
    CHECK(h.out().shape == Shape{1, 1, 4, 2});
  }
  SECTION("dilations widen the window; kernel_shape may restate W") {
    InferHarness h("Conv", 1);
    h.input(F, {2, 4, 10, 9});
    h.input(F, {6, 4, 3, 2});
    h.attr_ints("dilations", {2, 3});
    h.attr_ints("kernel_shape", {3, 2});
    REQUIRE(h.infer());
    CHECK(h.out().shape == Shape{2, 6, 6, 6});
  }
  SECTION("1-D and 3-D") {
    InferHarness h("Conv", 22);
    h.input(F, {1, 2, 12});
    h.input(F, {3, 2, 4});
    h.attr_ints("strides", {3});
    REQUIRE(h.infer());
    CHECK(h.out().shape == Shape{1, 3, 3});
    InferHarness h3("Conv", 22);
    h3.input(F, {1, 2, 5, 6, 7});
    h3.input(F, {4, 2, 3, 3, 3});
    h3.attr_ints("pads", {1, 1, 1, 1, 1, 1});
    REQUIRE(h3.infer());
    CHECK(h3.out().shape == Shape{1, 4, 5, 6, 7});
  }
}

TEST_CASE("Conv auto_pad SAME_UPPER, SAME_LOWER and VALID", "[conv]") {
  for (const char* mode : {"SAME_UPPER", "SAME_LOWER"}) {
    InferHarness h("Conv", 11);
    h.input(F, {1, 2, 5, 6});
    h.input(F, {1, 2, 4, 4});
    h.attr_ints("strides", {2, 2});
    h.attr_string("auto_pad", mode);
    REQUIRE(h.infer());
    CHECK(h.out().shape == Shape{1, 1, 3, 3});
    // Total padding (3 - 1) * 2 + 4 - 5 = 3 rows, the odd one at the end for SAME_UPPER and at
    // the start for SAME_LOWER; 2 columns, one each side. ConvParams ends {pads}, tile.
    CHECK(emits(h, std::string(mode) == "SAME_UPPER" ? "/*pad=*/{0, 1, 1}, /*tile=*/9};"
                                                     : "/*pad=*/{0, 2, 1}, /*tile=*/9};"));
  }
  InferHarness v("Conv", 11);
  v.input(F, {1, 1, 5, 6});
  v.input(F, {1, 1, 3, 3});
  v.attr_ints("pads", {1, 1, 1, 1});  // ignored under VALID
  v.attr_string("auto_pad", "VALID");
  REQUIRE(v.infer());
  CHECK(v.out().shape == Shape{1, 1, 3, 4});
}

TEST_CASE("Conv picks its kernel from the shape", "[conv]") {
  SECTION("depthwise (one input channel per group, any multiplier)") {
    InferHarness h("Conv", 11);
    h.input(F, {1, 8, 14, 14});
    h.input(F, {16, 1, 3, 3});
    h.attr_int("group", 8);
    h.attr_ints("pads", {1, 1, 1, 1});
    REQUIRE(h.infer());
    CHECK(emits(h, "onnxc::f32_dwconv_any__scalar(p, x0, x1, nullptr, y0, nullptr);"));
    CHECK(h.node().scratch_bytes > 16u * 16u * 4u);  // at least the padded plane
  }
  SECTION(
      "anything else: the convolution GEMM (generic: the hosted 6x16 row), positions in equal "
      "blocks of at most 512") {
    InferHarness h("Conv", 11);
    h.input(F, {1, 32, 7, 7});
    h.input(F, {64, 32, 1, 1});
    h.input(F, {64});
    REQUIRE(h.infer());
    CHECK(emits(h, "onnxc::f32_conv_6x16__scalar(p, x0, x1, x2, y0, nullptr);"));
    CHECK(emits(h, "/*pad=*/{0, 0, 0}, /*tile=*/49};"));
    // 32 deep, 49 positions in 2 panels, and one patch-matrix row of 49 positions
    CHECK(h.node().scratch_bytes == 32u * 64u * 4u + 49u * 4u);
    InferHarness big("Conv", 11);
    big.target(*find_target("x86-64-v3"));  // a 1 MiB scratch budget
    big.input(F, {1, 3, 224, 224});
    big.input(F, {64, 3, 7, 7});
    big.attr_ints("pads", {3, 3, 3, 3});
    big.attr_ints("strides", {2, 2});
    REQUIRE(big.infer());
    // 12544 positions: 25 blocks of 502 (a 147-deep slice of 512 packed positions).
    CHECK(emits(big, "/*pad=*/{0, 3, 3}, /*tile=*/502};"));
    CHECK(big.node().scratch_bytes == 147u * 512u * 4u + 502u * 4u);
    InferHarness deep("Conv", 11);
    deep.input(F, {1, 256, 14, 14});
    deep.input(F, {256, 256, 3, 3});
    deep.attr_ints("pads", {1, 1, 1, 1});
    REQUIRE(deep.infer());
    // generic (256 KiB): 2304 deep, 196 positions: 2 blocks of 98 (128 packed), then slices of
    // 288 rows (1152 x 128 floats would not fit), and one row of 98
    CHECK(emits(deep, "/*tile=*/98, /*depth_block=*/288};"));
    CHECK(deep.node().scratch_bytes == 288u * 128u * 4u + 98u * 4u);
  }
  SECTION("the GEMM's blocks fit the target's scratch budget") {
    // generic (256 KiB): 12544 positions in 49 blocks of 256, 147 deep
    InferHarness generic("Conv", 11);
    generic.input(F, {1, 3, 224, 224});
    generic.input(F, {64, 3, 7, 7});
    generic.attr_ints("pads", {3, 3, 3, 3});
    generic.attr_ints("strides", {2, 2});
    REQUIRE(generic.infer());
    CHECK(emits(generic, "/*tile=*/256};"));
    CHECK(generic.node().scratch_bytes == 147u * 256u * 4u + 256u * 4u);
    // cortex-m4 (16 KiB): 1024 positions, 27 deep: blocks of 128 (27 x 128 x 4 + 128 x 4 bytes)
    InferHarness m4("Conv", 11);
    m4.target(*find_target("cortex-m4"));
    m4.input(F, {1, 3, 32, 32});
    m4.input(F, {8, 3, 3, 3});
    m4.attr_ints("pads", {1, 1, 1, 1});
    REQUIRE(m4.infer());
    CHECK(emits(m4, "/*tile=*/128};"));
    CHECK(m4.node().scratch_bytes == 27u * 128u * 4u + 128u * 4u);
    // 576 deep on cortex-m4: slices of 288 rows, 32 positions, then slices of 72 rows
    // (72 x 32 x 4 + 32 x 4 bytes)
    InferHarness deep("Conv", 11);
    deep.target(*find_target("cortex-m4"));
    deep.input(F, {1, 64, 8, 8});
    deep.input(F, {64, 64, 3, 3});
    deep.attr_ints("pads", {1, 1, 1, 1});
    REQUIRE(deep.infer());
    CHECK(emits(deep, "/*tile=*/32, /*depth_block=*/72};"));
    CHECK(deep.node().scratch_bytes == 72u * 32u * 4u + 32u * 4u);
    CHECK(deep.node().scratch_bytes <= 16384u);
  }
  SECTION("double and float16 run the reference") {
    InferHarness h("Conv", 11);
    h.input(DataType::kDouble, {1, 2, 5, 5});
    h.input(DataType::kDouble, {2, 2, 3, 3});
    REQUIRE(h.infer());
    CHECK(emits(h, "onnxc::conv_ref<double>(p, x0, x1, nullptr, y0, nullptr);"));
    InferHarness hf("Conv", 1);
    hf.input(DataType::kFloat16, {1, 2, 5, 5});
    hf.input(DataType::kFloat16, {2, 2, 3, 3});
    REQUIRE(hf.infer());
    CHECK(emits(hf, "onnxc::conv_ref<onnxc::float16>("));
  }
}

TEST_CASE("Conv errors name the rule", "[conv]") {
  auto error_of = [](auto setup) {
    InferHarness h("Conv", 11);
    setup(h);
    CHECK_FALSE(h.infer());
    return h.error();
  };
  CHECK(error_of([](InferHarness& h) {
          h.input(F, {1, 4, 5, 5});
          h.input(F, {4, 3, 3, 3});
          h.attr_int("group", 2);
        }).find("channels do not split into 2 groups") != std::string::npos);
  CHECK(error_of([](InferHarness& h) {
          h.input(F, {1, 2, 5, 5});
          h.input(F, {4, 2, 3, 3});
          h.attr_ints("kernel_shape", {3, 2});
        }) == "node 'n' (Conv): kernel_shape {3, 2} does not match W's spatial dims {3, 3}");
  CHECK(error_of([](InferHarness& h) {
          h.input(F, {1, 2, 5, 5});
          h.input(F, {4, 2, 3, 3});
          h.input(F, {3});
        }).find("B has shape 3, expected [4]") != std::string::npos);
  CHECK(error_of([](InferHarness& h) {
          h.input(F, {1, 2, 5, 5});
          h.input(F, {4, 2, 3});
        }).find("W has rank 3, X has rank 4") != std::string::npos);
  CHECK(error_of([](InferHarness& h) {
          h.input(F, {1, 2, 2, 2});
          h.input(F, {4, 2, 3, 3});
        }).find("window 3 is larger than the padded input 2") != std::string::npos);
  CHECK(error_of([](InferHarness& h) {
          h.input(DataType::kBFloat16, {1, 2, 5, 5});
          h.input(DataType::kBFloat16, {4, 2, 3, 3});
        }).find("bfloat16 from opset 22") != std::string::npos);
  CHECK(error_of([](InferHarness& h) {
          h.input(F, {1, 2, 5, 5});
          h.input(DataType::kDouble, {4, 2, 3, 3});
        }).find("W has type double, X has float") != std::string::npos);
  CHECK(error_of([](InferHarness& h) {
          h.input(F, {1, 2, 5, 5});
          h.input(F, {4, 2, 3, 3});
          h.attr_string("auto_pad", "SAME");
        }).find("auto_pad 'SAME' is not one of") != std::string::npos);
}

TEST_CASE("bfloat16 Conv from opset 22", "[conv]") {
  InferHarness h("Conv", 22);
  h.input(DataType::kBFloat16, {1, 2, 5, 5});
  h.input(DataType::kBFloat16, {4, 2, 3, 3});
  REQUIRE(h.infer());
  CHECK(emits(h, "onnxc::conv_ref<onnxc::bfloat16>("));
}

TEST_CASE("Conv folds constant inputs with the emitted kernel", "[conv]") {
  InferHarness h("Conv", 11);
  h.constant<float>(F, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  h.constant<float>(F, {2, 1, 2, 2}, {1, 1, 1, 1, 0, 0, 0, 1});
  h.constant<float>(F, {2}, {0, 100});
  REQUIRE(h.infer());
  REQUIRE(h.fold());
  const float* y = h.folded().as<float>();
  // Channel 0 sums 2x2 windows; channel 1 picks the bottom-right tap plus 100.
  CHECK(std::vector<float>(y, y + 8) == std::vector<float>{12, 16, 24, 28, 105, 106, 108, 109});
}

TEST_CASE("ConvTranspose output shapes", "[conv]") {
  SECTION("pads, strides and output_padding") {
    InferHarness h("ConvTranspose", 11);
    h.input(F, {1, 1, 3, 3});
    h.input(F, {1, 2, 3, 3});
    h.attr_ints("strides", {3, 2});
    h.attr_ints("output_padding", {1, 1});
    REQUIRE(h.infer());
    CHECK(h.out().shape == Shape{1, 2, 10, 8});
    CHECK(emits(h,
                "onnxc::f32_convtranspose_gemm__scalar<onnxc::GemmTile<6, 16>>(p, x0, x1, nullptr, "
                "y0, nullptr);"));
    // the 2 x 9 x 9 column tile (162 floats, rounded to 176: whole 64-byte lines), then a 1-deep
    // GEMM panel of 32 columns
    CHECK(h.node().scratch_bytes == 176u * 4u + 32u * 4u);
  }
  SECTION("groups multiply W's output channels") {
    InferHarness h("ConvTranspose", 22);
    h.input(F, {3, 4, 3, 3});
    h.input(F, {4, 3, 2, 2});
    h.attr_int("group", 2);
    h.attr_ints("pads", {1, 0, 0, 1});
    REQUIRE(h.infer());
    CHECK(h.out().shape == Shape{3, 6, 3, 3});
  }
  SECTION("output_shape sets the size; the padding splits as the spec says") {
    InferHarness h("ConvTranspose", 11);
    h.input(F, {1, 1, 3, 3});
    h.input(F, {1, 1, 3, 3});
    h.attr_ints("output_shape", {4, 5});
    REQUIRE(h.infer());
    CHECK(h.out().shape == Shape{1, 1, 4, 5});
    // Full size 5: total padding 1 then 0; NOTSET puts the odd one first.
    CHECK(emits(h, "/*pad=*/{0, 1, 0}, /*tile=*/9};"));
    InferHarness u("ConvTranspose", 11);
    u.input(F, {1, 1, 3, 3});
    u.input(F, {1, 1, 3, 3});
    u.attr_ints("output_shape", {4, 5});
    u.attr_string("auto_pad", "SAME_UPPER");
    REQUIRE(u.infer());
    CHECK(emits(u, "/*pad=*/{0, 0, 0}, /*tile=*/9};"));
  }
  SECTION("SAME auto_pad: input times stride") {
    InferHarness h("ConvTranspose", 22);
    h.input(F, {1, 1, 3, 3});
    h.input(F, {1, 2, 3, 3});
    h.attr_ints("strides", {2, 2});
    h.attr_string("auto_pad", "SAME_UPPER");
    REQUIRE(h.infer());
    CHECK(h.out().shape == Shape{1, 2, 6, 6});
  }
  SECTION("errors") {
    InferHarness h("ConvTranspose", 11);
    h.input(F, {1, 3, 3, 3});
    h.input(F, {2, 2, 3, 3});
    CHECK_FALSE(h.infer());
    CHECK(h.error().find("W[0] must equal C") != std::string::npos);
    InferHarness s("ConvTranspose", 11);
    s.input(F, {1, 1, 3, 3});
    s.input(F, {1, 1, 3, 3});
    s.attr_ints("output_shape", {4});
    CHECK_FALSE(s.infer());
    CHECK(s.error().find("output_shape must have 2 values") != std::string::npos);
    InferHarness n("ConvTranspose", 11);
    n.input(F, {1, 1, 2, 2});
    n.input(F, {1, 1, 2, 2});
    n.attr_ints("pads", {2, 2, 2, 2});
    CHECK_FALSE(n.infer());
    CHECK(n.error().find("it must be positive") != std::string::npos);
  }
}

TEST_CASE("ConvTranspose folds through the same kernel", "[conv]") {
  InferHarness h("ConvTranspose", 11);
  h.constant<float>(F, {1, 1, 3}, {1, 2, 3});
  h.constant<float>(F, {1, 1, 3}, {1, 10, 100});
  h.constant<float>(F, {1}, {0.5});
  h.attr_ints("strides", {2});
  h.attr_ints("pads", {1, 0});
  REQUIRE(h.infer());
  REQUIRE(h.out().shape == Shape{1, 1, 6});
  REQUIRE(h.fold());
  const float* y = h.folded().as<float>();
  CHECK(std::vector<float>(y, y + 6) ==
        std::vector<float>{10.5f, 102.5f, 20.5f, 203.5f, 30.5f, 300.5f});
}

TEST_CASE("Conv with a fused epilogue passes it to the kernel, and checks it", "[conv]") {
  InferHarness h("Conv", 13);
  h.input(F, {1, 8, 6, 6});
  h.input(F, {8, 8, 3, 3});
  h.absent_input();
  h.input(F, {1, 8, 4, 4});  // the residual
  h.attr_string("fused_activation", "LeakyRelu");
  h.attr_float("fused_alpha", 0.5f);
  REQUIRE(h.infer());
  CHECK(emits(h,
              "static constexpr onnxc::Epilogue<onnxc::LeakyRelu> e = {/*activation=*/{"
              "/*alpha=*/0.5f, /*beta=*/0.0f}, /*residual=*/1};"));
  CHECK(emits(h, "onnxc::f32_conv_6x16__scalar(p, x0, x1, nullptr, y0, nullptr, e, x3);"));

  // A polynomial activation runs in AVX2/AVX-512 copies where the code is built for the ISA
  // baseline (onnxc/activation_dispatch.h): wrapped at generic, plain where the ISA is known.
  for (const char* target : {"generic", "x86-64-v4", "cortex-m4"}) {
    InferHarness swish("Conv", 13);
    swish.target(*find_target(target));
    swish.input(F, {1, 8, 6, 6});
    swish.input(F, {8, 8, 3, 3});
    swish.attr_string("fused_activation", "Swish");
    swish.attr_float("fused_alpha", 1.0f);
    REQUIRE(swish.infer());
    INFO(target);
    const std::string act = "{/*alpha=*/1.0f, /*beta=*/0.0f}";
    if (std::string(target) == "generic")
      CHECK(emits(swish,
                  "static constexpr onnxc::Epilogue<onnxc::Dispatched<onnxc::Swish>> e = "
                  "{/*activation=*/{" +
                      act + "}, /*residual=*/0};"));
    else
      CHECK(emits(swish, "static constexpr onnxc::Epilogue<onnxc::Swish> e = {/*activation=*/" +
                             act + ", /*residual=*/0};"));
  }

  InferHarness bad("Conv", 13);
  bad.input(F, {1, 8, 6, 6});
  bad.input(F, {8, 8, 3, 3});
  bad.absent_input();
  bad.input(F, {1, 8, 1, 1});  // broadcasting is not a residual
  CHECK_FALSE(bad.infer());
  CHECK(bad.error().find("fused residual 'in3' is float[1x8x1x1]; it must match the output") !=
        std::string::npos);

  InferHarness unknown("Conv", 13);
  unknown.input(F, {1, 8, 6, 6});
  unknown.input(F, {8, 8, 3, 3});
  unknown.attr_string("fused_activation", "Softplus");
  CHECK_FALSE(unknown.infer());
  CHECK(unknown.error().find("fused activation 'Softplus' is not one onnxc fuses") !=
        std::string::npos);
}
