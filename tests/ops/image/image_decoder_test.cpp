// ImageDecoder's handler: the output shape comes from the model's declaration of it, the scratch
// from the decoders' needs, and a constant image is decoded (folded) or refused at compile time.
#include "onnxc/image_decoder.h"

#include <catch2/catch.hpp>

#include "ops/infer_harness.h"

using namespace onnxc;
using onnxc::testing::InferHarness;

namespace {
const DataType U8 = DataType::kUint8;

// A 2 x 1 binary PPM: a red pixel and a (10, 20, 30) one.
const std::vector<int> kPpm = {'P', '6',  ' ', '2', ' ', '1', ' ', '2', '5',
                               '5', '\n', 255, 0,   0,   10,  20,  30};
}  // namespace

TEST_CASE("ImageDecoder takes its output shape from the model's declaration", "[image]") {
  InferHarness h("ImageDecoder", 20);
  h.input(U8, {312});
  h.declared_output({32, 32, 3});
  REQUIRE(h.infer());
  CHECK(h.out().dtype == U8);
  CHECK(h.out().shape == Shape{32, 32, 3});
  CHECK(h.node().scratch_bytes ==
        static_cast<size_t>(image_decoder_scratch_bytes(32, 32, ImagePixelFormat::kRgb)));
  CHECK(h.emit().find("onnxc::image_decoder_ref(x0, /*size=*/312, /*height=*/32, /*width=*/32, "
                      "onnxc::ImagePixelFormat::kRgb, y0, nullptr);") != std::string::npos);

  InferHarness gray("ImageDecoder", 20);
  gray.input(U8, {100});
  gray.attr_string("pixel_format", "Grayscale");
  gray.declared_output({4, 5, -1});
  REQUIRE(gray.infer());
  CHECK(gray.out().shape == Shape{4, 5, 1});
}

TEST_CASE("ImageDecoder refuses an undeclared size, a wrong channel count, an unknown format",
          "[image]") {
  InferHarness undeclared("ImageDecoder", 20);
  undeclared.input(U8, {312});
  CHECK_FALSE(undeclared.infer());
  CHECK(undeclared.error().find("declare the output's shape") != std::string::npos);

  InferHarness symbolic("ImageDecoder", 20);
  symbolic.input(U8, {312});
  symbolic.declared_output({-1, 32, 3});
  CHECK_FALSE(symbolic.infer());
  CHECK(symbolic.error().find("static height and width") != std::string::npos);

  InferHarness channels("ImageDecoder", 20);
  channels.input(U8, {312});
  channels.attr_string("pixel_format", "Grayscale");
  channels.declared_output({32, 32, 3});
  CHECK_FALSE(channels.infer());
  CHECK(channels.error().find("declared with 3 channels") != std::string::npos);

  InferHarness format("ImageDecoder", 20);
  format.input(U8, {312});
  format.attr_string("pixel_format", "RGBA");
  format.declared_output({32, 32, 4});
  CHECK_FALSE(format.infer());
  CHECK(format.error().find("pixel_format 'RGBA'") != std::string::npos);
}

TEST_CASE("ImageDecoder decodes a constant image at compile time", "[image]") {
  InferHarness h("ImageDecoder", 20);
  h.constant<int>(U8, {static_cast<int64_t>(kPpm.size())}, kPpm);
  h.attr_string("pixel_format", "BGR");
  h.declared_output({1, 2, 3});
  REQUIRE(h.infer());
  REQUIRE(h.fold());
  const uint8_t* bgr = h.folded().as<uint8_t>();
  CHECK(std::vector<int>(bgr, bgr + 6) == std::vector<int>{0, 0, 255, 30, 20, 10});

  InferHarness gray("ImageDecoder", 20);
  gray.constant<int>(U8, {static_cast<int64_t>(kPpm.size())}, kPpm);
  gray.attr_string("pixel_format", "Grayscale");
  gray.declared_output({1, 2, 1});
  REQUIRE(gray.infer());
  REQUIRE(gray.fold());
  // Pillow's L of pure red is 76; (10, 20, 30): 0.299 * 10 + 0.587 * 20 + 0.114 * 30 = 18.15.
  CHECK(std::vector<int>(gray.folded().as<uint8_t>(), gray.folded().as<uint8_t>() + 2) ==
        std::vector<int>{76, 18});

  InferHarness wrong_size("ImageDecoder", 20);
  wrong_size.constant<int>(U8, {static_cast<int64_t>(kPpm.size())}, kPpm);
  wrong_size.declared_output({2, 2, 3});
  CHECK_FALSE(wrong_size.infer());
  CHECK(wrong_size.error().find("not 2x2") != std::string::npos);

  std::vector<int> truncated(kPpm.begin(), kPpm.end() - 1);
  InferHarness bad("ImageDecoder", 20);
  bad.constant<int>(U8, {static_cast<int64_t>(truncated.size())}, truncated);
  bad.declared_output({1, 2, 3});
  CHECK_FALSE(bad.infer());
  CHECK(bad.error().find("not a well-formed image") != std::string::npos);
}
