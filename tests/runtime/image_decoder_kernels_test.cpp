// ImageDecoder's BMP, PNM, PNG, TIFF and JPEG decoders against Pillow: each fixture in image_data/
// (made by make_image_fixtures.py) comes with the pixels Pillow decodes from it, as RGB
// (.expected.ppm) and as Grayscale (.expected.pgm). Malformed input (every truncation, random byte
// corruptions) must be refused or decoded without reading outside the input (the sanitizer build
// runs this too).
#include <catch2/catch.hpp>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "onnxc/image_decoder.h"
#include "runtime/image_fixtures.h"

using namespace onnxc;
using namespace onnxc::image_fixtures;

namespace {

const char* const kFixtures[] = {
    "jpeg_420.jpg",         "jpeg_422.jpg",        "jpeg_444.jpg",     "jpeg_gray.jpg",
    "jpeg_restart_440.jpg", "jpeg_rgb.jpg",        "png_rgb.png",      "png_rgba.png",
    "png_gray1.png",        "png_palette4.png",    "png_stored.png",   "png_adam7.png",
    "tiff_raw.tif",         "tiff_packbits.tif",   "tiff_lzw.tif",     "tiff_deflate.tif",
    "tiff_palette.tif",     "bmp_rgb24.bmp",       "bmp_palette8.bmp", "bmp_mono.bmp",
    "bmp_rgba32.bmp",       "pnm_p6.ppm",          "pnm_p5.pgm",       "pnm_p4.pbm",
    "pnm_p3.ppm",           "pnm_p2_maxval100.pgm"};

}  // namespace

TEST_CASE("image_decoder_ref: BMP, PNM, PNG, TIFF and JPEG decode as Pillow decodes them",
          "[image-kernels]") {
  for (const char* name : kFixtures) check_decodes_as_pillow(name);
}

TEST_CASE("image_decoder_ref: without ONNXC_IMAGE_LIBS, WebP and JPEG 2000 are kErrorImageFormat",
          "[image-kernels]") {
  for (const std::string& name : system_library_fixtures()) {
    INFO(name);
    const Netpbm rgb = read_netpbm(name + ".expected.ppm");
    std::vector<unsigned char> image;
    CHECK(decode(read_fixture(name), rgb.height, rgb.width, ImagePixelFormat::kRgb, image) ==
          kErrorImageFormat);
  }
}

TEST_CASE("image_decoder_ref: an image of another size is kErrorImageSize", "[image-kernels]") {
  for (const char* name : kFixtures) {
    INFO(name);
    std::vector<unsigned char> image;
    CHECK(decode(read_fixture(name), 7, 8, ImagePixelFormat::kRgb, image) == kErrorImageSize);
  }
}

TEST_CASE("image_decoder_ref: unknown and malformed bytes are kErrorImageFormat",
          "[image-kernels]") {
  std::vector<unsigned char> image;
  CHECK(decode({'G', 'I', 'F', '8', '9', 'a', 0, 0}, 7, 9, ImagePixelFormat::kRgb, image) ==
        kErrorImageFormat);
  CHECK(decode({}, 7, 9, ImagePixelFormat::kRgb, image) == kErrorImageFormat);
  std::vector<unsigned char> png = read_fixture("png_rgb.png");
  png[12] = 'X';  // IHDR's name
  CHECK(decode(png, 7, 9, ImagePixelFormat::kRgb, image) == kErrorImageFormat);
}

TEST_CASE("image_decoder_ref: truncated or corrupted files never read outside the input",
          "[image-kernels]") {
  std::mt19937 rng(11);
  for (const char* name : kFixtures) {
    INFO(name);
    const std::vector<unsigned char> data = read_fixture(name);
    std::vector<unsigned char> image;
    for (size_t n = 0; n < data.size(); n += 3) {
      // A prefix in a buffer of its own, so that reading past it is an ASan error.
      const std::vector<unsigned char> prefix(data.begin(),
                                              data.begin() + static_cast<std::ptrdiff_t>(n));
      const int status = decode(prefix, 7, 9, ImagePixelFormat::kRgb, image);
      CHECK((status == 0 || status == kErrorImageFormat || status == kErrorImageSize));
    }
    for (int trial = 0; trial < 100; ++trial) {
      std::vector<unsigned char> corrupted = data;
      corrupted[rng() % corrupted.size()] ^= static_cast<unsigned char>(1 + rng() % 255);
      const int status = decode(corrupted, 7, 9, ImagePixelFormat::kGrayscale, image);
      CHECK((status == 0 || status == kErrorImageFormat || status == kErrorImageSize));
    }
  }
}
