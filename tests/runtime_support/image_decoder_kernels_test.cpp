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

using namespace onnxc;

namespace {

std::vector<unsigned char> read_fixture(const std::string& name) {
  const std::string path =
      std::string(ONNXC_SOURCE_DIR) + "/tests/runtime_support/image_data/" + name;
  std::vector<unsigned char> bytes;
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    for (int c; (c = std::fgetc(f)) != EOF;) bytes.push_back(static_cast<unsigned char>(c));
    std::fclose(f);
  }
  return bytes;
}

// The pixels of a binary PPM/PGM as Pillow writes it ("P6\nW H\n255\n" then the samples).
struct Netpbm {
  int width = 0, height = 0, channels = 0;
  std::vector<unsigned char> pixels;
};

Netpbm read_netpbm(const std::string& name) {
  const std::vector<unsigned char> bytes = read_fixture(name);
  Netpbm p;
  int maxval = 0, consumed = 0;
  const std::string text(bytes.begin(), bytes.end());
  REQUIRE(std::sscanf(text.c_str(), "P%d %d %d %d%n", &p.channels, &p.width, &p.height, &maxval,
                      &consumed) == 4);
  p.channels = p.channels == 6 ? 3 : 1;
  p.pixels.assign(bytes.begin() + consumed + 1, bytes.end());
  REQUIRE(p.pixels.size() == static_cast<size_t>(p.width * p.height * p.channels));
  return p;
}

// Decodes `data` as an h x w image in `format`; the status, and the pixels when it is 0.
int decode(const std::vector<unsigned char>& data, index_t h, index_t w, ImagePixelFormat format,
           std::vector<unsigned char>& image) {
  image.assign(static_cast<size_t>(h * w * (format == ImagePixelFormat::kGrayscale ? 1 : 3)), 0);
  std::vector<unsigned char> scratch(
      static_cast<size_t>(image_decoder_scratch_bytes(h, w, format)));
  return image_decoder_ref(data.data(), static_cast<index_t>(data.size()), h, w, format,
                           image.data(), scratch.data());
}

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
  for (const char* name : kFixtures) {
    INFO(name);
    const std::vector<unsigned char> data = read_fixture(name);
    REQUIRE(!data.empty());
    const Netpbm rgb = read_netpbm(std::string(name) + ".expected.ppm");
    const Netpbm gray = read_netpbm(std::string(name) + ".expected.pgm");
    std::vector<unsigned char> image;
    REQUIRE(decode(data, rgb.height, rgb.width, ImagePixelFormat::kRgb, image) == 0);
    CHECK(image == rgb.pixels);
    REQUIRE(decode(data, rgb.height, rgb.width, ImagePixelFormat::kBgr, image) == 0);
    std::vector<unsigned char> bgr = rgb.pixels;
    for (size_t p = 0; p + 2 < bgr.size(); p += 3) std::swap(bgr[p], bgr[p + 2]);
    CHECK(image == bgr);
    REQUIRE(decode(data, rgb.height, rgb.width, ImagePixelFormat::kGrayscale, image) == 0);
    CHECK(image == gray.pixels);
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
