// ImageDecoder's WebP and JPEG 2000 decoders (onnxc/image_system.h: libwebp and OpenJPEG, built
// with -DONNXC_IMAGE_LIBS) against Pillow, which calls the same libraries. Its own executable
// (image_system_tests), since the macro changes what onnxc/image_decoder.h defines. Every fixture
// of the other formats still decodes, and malformed files are refused.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "onnxc/image_decoder.h"
#include "runtime/image_fixtures.h"

#if !defined(ONNXC_IMAGE_LIBS)
#error "image_system_check.cpp is built with -DONNXC_IMAGE_LIBS"
#endif

using namespace onnxc;
using namespace onnxc::image_fixtures;

TEST_CASE(
    "image_decoder_ref with ONNXC_IMAGE_LIBS: WebP and JPEG 2000 decode as Pillow decodes them",
    "[image-system]") {
  for (const std::string& name : system_library_fixtures()) check_decodes_as_pillow(name);
  check_decodes_as_pillow("png_rgb.png");  // the built-in decoders still come first
  check_decodes_as_pillow("jpeg_420.jpg");
}

TEST_CASE("image_decoder_ref with ONNXC_IMAGE_LIBS: another size is kErrorImageSize",
          "[image-system]") {
  for (const std::string& name : system_library_fixtures()) {
    INFO(name);
    std::vector<unsigned char> image;
    CHECK(decode(read_fixture(name), 7, 8, ImagePixelFormat::kRgb, image) == kErrorImageSize);
    CHECK(decode(read_fixture(name), 6, 9, ImagePixelFormat::kRgb, image) == kErrorImageSize);
  }
}

TEST_CASE("image_decoder_ref with ONNXC_IMAGE_LIBS: truncated and corrupted files are refused",
          "[image-system]") {
  for (const std::string& name : system_library_fixtures()) {
    INFO(name);
    const std::vector<unsigned char> data = read_fixture(name);
    const Netpbm rgb = read_netpbm(name + ".expected.ppm");
    std::vector<unsigned char> image;
    for (size_t keep : {size_t{0}, size_t{4}, size_t{12}, data.size() / 4}) {
      INFO("first " << keep << " bytes");
      const std::vector<unsigned char> truncated(data.begin(),
                                                 data.begin() + static_cast<long>(keep));
      CHECK(decode(truncated, rgb.height, rgb.width, ImagePixelFormat::kRgb, image) != 0);
    }
  }
}
