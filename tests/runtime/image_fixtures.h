// The ImageDecoder fixtures of image_data/ (made by make_image_fixtures.py) and the pixels Pillow
// decodes from them, for the decoder tests with and without the system libraries.
#pragma once

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "onnxc/image_decoder.h"

namespace onnxc::image_fixtures {

inline std::vector<unsigned char> read_fixture(const std::string& name) {
  const std::string path = std::string(ONNXC_SOURCE_DIR) + "/tests/runtime/image_data/" + name;
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

inline Netpbm read_netpbm(const std::string& name) {
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
inline int decode(const std::vector<unsigned char>& data, index_t h, index_t w,
                  ImagePixelFormat format, std::vector<unsigned char>& image) {
  image.assign(static_cast<size_t>(h * w * (format == ImagePixelFormat::kGrayscale ? 1 : 3)), 0);
  std::vector<unsigned char> scratch(
      static_cast<size_t>(image_decoder_scratch_bytes(h, w, format)));
  return image_decoder_ref(data.data(), static_cast<index_t>(data.size()), h, w, format,
                           image.data(), scratch.data());
}

// Checks that `name` decodes as Pillow decoded it, as RGB, BGR and Grayscale.
inline void check_decodes_as_pillow(const std::string& name) {
  INFO(name);
  const std::vector<unsigned char> data = read_fixture(name);
  REQUIRE(!data.empty());
  const Netpbm rgb = read_netpbm(name + ".expected.ppm");
  const Netpbm gray = read_netpbm(name + ".expected.pgm");
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

// The fixtures only the system libraries decode (onnxc/image_system.h).
inline const std::vector<std::string>& system_library_fixtures() {
  static const std::vector<std::string> names = {"webp_lossy.webp", "webp_lossless.webp",
                                                 "webp_alpha.webp", "jp2_lossless.jp2",
                                                 "jp2_gray.jp2",    "j2k_irreversible.j2k"};
  return names;
}

}  // namespace onnxc::image_fixtures
