// ImageDecoder (opset 20): decodes an encoded image held in a uint8 tensor into height x width x C
// pixels, C = 3 (RGB or BGR) or 1 (Grayscale). The format is told by the file's signature:
//   BMP   uncompressed 1/4/8-bit palette, 24-bit, 32-bit (BI_RGB or standard BI_BITFIELDS masks)
//   PNM   P1-P6 (PBM, PGM, PPM; ASCII or binary), maxval up to 65535, scaled to 0..255 rounding
//         half to even
//   PNG   onnxc/image_png.h      TIFF  onnxc/image_tiff.h      JPEG  onnxc/image_jpeg.h
//   WebP and JPEG 2000 through libwebp and OpenJPEG, only when built with -DONNXC_IMAGE_LIBS
//         (onnxc/image_system.h)
// The output's size is fixed when the model is compiled, so an image of another size is refused
// (kErrorImageSize) rather than resized, and an undecodable one (malformed, truncated, or a format
// or coding not listed) is refused with kErrorImageFormat; the spec's "empty matrix" has no static
// shape. Alpha is dropped, not composited. Grayscale is ITU-R 601-2 luma computed from the decoded
// RGB in 16-bit fixed point with rounding, as Pillow's convert("L") does.
#ifndef ONNXC_IMAGE_DECODER_H
#define ONNXC_IMAGE_DECODER_H

#include <cstdint>

#include "onnxc/base.h"
#include "onnxc/image_jpeg.h"
#include "onnxc/image_png.h"
#include "onnxc/image_system.h"
#include "onnxc/image_tiff.h"

namespace onnxc {

// ---- BMP ---------------------------------------------------------------------------------------

inline std::uint32_t bmp_u32(const unsigned char* p) {
  return p[0] | (std::uint32_t(p[1]) << 8) | (std::uint32_t(p[2]) << 16) |
         (std::uint32_t(p[3]) << 24);
}

// Whether BI_BITFIELDS masks (at 54 in the file) are the standard 8-bit red, green, blue ones.
inline bool bmp_standard_masks(const unsigned char* data, index_t size) {
  return size >= 66 && bmp_u32(data + 54) == 0x00FF0000u && bmp_u32(data + 58) == 0x0000FF00u &&
         bmp_u32(data + 62) == 0x000000FFu;
}

inline int decode_bmp(const unsigned char* data, index_t size, index_t height, index_t width,
                      unsigned char* rgb) {
  if (size < 54) return kErrorImageFormat;
  const std::uint32_t pixels_at = bmp_u32(data + 10), header = bmp_u32(data + 14);
  const std::int32_t w = static_cast<std::int32_t>(bmp_u32(data + 18));
  const std::int32_t h = static_cast<std::int32_t>(bmp_u32(data + 22));
  const int bits = data[28] | (data[29] << 8);
  const std::uint32_t compression = bmp_u32(data + 30);
  std::uint32_t colors = bmp_u32(data + 46);
  if (header < 40 || w <= 0 || h == 0 || h == INT32_MIN) return kErrorImageFormat;
  const bool bitfields = compression == 3 && (bits == 32 || bits == 16);
  if (!(compression == 0 || (bitfields && bits == 32 && bmp_standard_masks(data, size))) ||
      !(bits == 1 || bits == 4 || bits == 8 || bits == 24 || bits == 32))
    return kErrorImageFormat;
  if (w != width || (h < 0 ? -h : h) != height) return kErrorImageSize;
  const index_t palette_at = 14 + static_cast<index_t>(header);
  if (bits <= 8 && (colors == 0 || colors > (1u << bits))) colors = 1u << bits;
  if (bits <= 8 && (palette_at > size || (size - palette_at) / 4 < static_cast<index_t>(colors)))
    return kErrorImageFormat;
  const index_t stride = (width * bits + 31) / 32 * 4;
  if (pixels_at > static_cast<std::uint32_t>(size)) return kErrorImageFormat;
  const index_t first_row = static_cast<index_t>(pixels_at);
  if ((size - first_row) / stride < height) return kErrorImageFormat;
  for (index_t y = 0; y < height; ++y) {
    const unsigned char* row =
        data + first_row + stride * (h < 0 ? y : height - 1 - y);  // bottom-up unless h < 0
    unsigned char* out = rgb + 3 * width * y;
    for (index_t x = 0; x < width; ++x, out += 3) {
      if (bits >= 24) {
        const unsigned char* px = row + x * (bits / 8);
        out[0] = px[2], out[1] = px[1], out[2] = px[0];
        continue;
      }
      const index_t bit = x * bits;
      const std::uint32_t index = (row[bit / 8] >> (8 - bits - bit % 8)) & ((1u << bits) - 1);
      if (index >= colors) return kErrorImageFormat;
      const unsigned char* entry = data + palette_at + 4 * index;  // blue, green, red, reserved
      out[0] = entry[2], out[1] = entry[1], out[2] = entry[0];
    }
  }
  return 0;
}

// ---- PNM ---------------------------------------------------------------------------------------

// Reads an ASCII decimal after whitespace and '#' comments; -1 when there is none.
inline std::int32_t pnm_number(const unsigned char* data, index_t size, index_t& pos) {
  for (; pos < size; ++pos) {
    if (data[pos] == '#')
      while (pos < size && data[pos] != '\n' && data[pos] != '\r') ++pos;
    else if (!(data[pos] == ' ' || (data[pos] >= 9 && data[pos] <= 13)))
      break;
  }
  if (pos >= size || data[pos] < '0' || data[pos] > '9') return -1;
  std::int32_t value = 0;
  for (; pos < size && data[pos] >= '0' && data[pos] <= '9'; ++pos) {
    if (value > 0x7FFFFFF) return -1;
    value = value * 10 + (data[pos] - '0');
  }
  return value;
}

// Sample `i` of the image (P4's bits, or maxval-scaled values) as 0..255; -1 when missing.
inline int pnm_sample(const unsigned char* data, index_t size, index_t& pos, int kind,
                      std::int32_t maxval, index_t i, index_t width) {
  std::int32_t v;
  if (kind == 4) {  // packed bits, rows padded to whole bytes; 1 is black
    const index_t y = i / width, x = i % width, at = pos + y * ((width + 7) / 8) + x / 8;
    if (at >= size) return -1;
    return (data[at] >> (7 - x % 8)) & 1 ? 0 : 255;
  }
  if (kind <= 3) {
    if (kind == 1) {  // P1's digits need no separators
      while (pos < size && (data[pos] == ' ' || (data[pos] >= 9 && data[pos] <= 13))) ++pos;
      if (pos >= size || (data[pos] != '0' && data[pos] != '1')) return -1;
      return data[pos++] == '1' ? 0 : 255;
    }
    v = pnm_number(data, size, pos);
    if (v < 0) return -1;
  } else if (maxval < 256) {
    if (pos >= size) return -1;
    v = data[pos++];
  } else {
    if (size - pos < 2) return -1;
    v = (data[pos] << 8) | data[pos + 1];
    pos += 2;
  }
  if (v > maxval) v = maxval;
  if (maxval == 255) return v;
  const std::int32_t q = static_cast<std::int32_t>(v * 255LL / maxval),
                     r = static_cast<std::int32_t>(v * 255LL % maxval);
  return 2 * r > maxval || (2 * r == maxval && q % 2) ? q + 1
                                                      : q;  // half to even, as Pillow rounds
}

inline int decode_pnm(const unsigned char* data, index_t size, index_t height, index_t width,
                      unsigned char* rgb) {
  const int kind = data[1] - '0';
  index_t pos = 2;
  const std::int32_t w = pnm_number(data, size, pos), h = pnm_number(data, size, pos);
  const std::int32_t maxval = kind == 1 || kind == 4 ? 1 : pnm_number(data, size, pos);
  if (w <= 0 || h <= 0 || maxval <= 0 || maxval > 65535 || pos >= size) return kErrorImageFormat;
  if (w != width || h != height) return kErrorImageSize;
  if (kind >= 4) ++pos;  // the single whitespace byte before binary samples
  const int channels = kind == 3 || kind == 6 ? 3 : 1;
  for (index_t i = 0; i < width * height; ++i)
    for (int c = 0; c < 3; ++c) {
      if (c > 0 && channels == 1) {
        rgb[3 * i + c] = rgb[3 * i];
        continue;
      }
      const int v = pnm_sample(data, size, pos, kind, maxval, i * channels + c, width);
      if (v < 0) return kErrorImageFormat;
      rgb[3 * i + c] = static_cast<unsigned char>(v);
    }
  return 0;
}

// ---- Dispatch ----------------------------------------------------------------------------------

enum class ImagePixelFormat { kRgb, kBgr, kGrayscale };

// Scratch for decoding any supported format at height x width: the largest decoder's state, and
// for Grayscale the RGB image that is converted to luma.
constexpr index_t image_decoder_scratch_bytes(index_t height, index_t width,
                                              ImagePixelFormat format) {
  const index_t sizes[] = {png_scratch_bytes(height, width), tiff_scratch_bytes(height, width),
                           jpeg_scratch_bytes(height, width)};
  index_t decoder = 0;
  for (index_t s : sizes) decoder = s > decoder ? s : decoder;
  return decoder +
         (format == ImagePixelFormat::kGrayscale ? (3 * height * width + 15) / 16 * 16 : 0);
}

// Decodes into rgb (height x width x 3) by the format the signature names.
inline int decode_image_rgb(const unsigned char* data, index_t size, index_t height, index_t width,
                            unsigned char* rgb, unsigned char* scratch) {
  if (size >= 8 && data[0] == 0x89 && data[1] == 'P' && data[2] == 'N' && data[3] == 'G')
    return decode_png(data, size, height, width, rgb, scratch);
  if (size >= 4 && ((data[0] == 'I' && data[1] == 'I' && data[2] == 42 && data[3] == 0) ||
                    (data[0] == 'M' && data[1] == 'M' && data[2] == 0 && data[3] == 42)))
    return decode_tiff(data, size, height, width, rgb, scratch);
  if (size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF)
    return decode_jpeg(data, size, height, width, rgb, scratch);
  if (size >= 2 && data[0] == 'B' && data[1] == 'M')
    return decode_bmp(data, size, height, width, rgb);
  if (size >= 3 && data[0] == 'P' && data[1] >= '1' && data[1] <= '6')
    return decode_pnm(data, size, height, width, rgb);
#if defined(ONNXC_IMAGE_LIBS)
  return decode_image_rgb_system(data, size, height, width, rgb);
#else
  return kErrorImageFormat;
#endif
}

// ImageDecoder: decodes the `size` bytes of `encoded` into `image` (height x width x 3 for RGB and
// BGR, height x width x 1 for Grayscale); returns 0 or the error code.
inline int image_decoder_ref(const unsigned char* encoded, index_t size, index_t height,
                             index_t width, ImagePixelFormat format, unsigned char* image,
                             unsigned char* scratch) {
  const index_t pixels = height * width;
  unsigned char* rgb = image;
  unsigned char* decoder_scratch = scratch;
  if (format == ImagePixelFormat::kGrayscale) {
    rgb = scratch;
    decoder_scratch = scratch + (3 * pixels + 15) / 16 * 16;
  }
  const int status = decode_image_rgb(encoded, size, height, width, rgb, decoder_scratch);
  if (status != 0) return status;
  if (format == ImagePixelFormat::kBgr)
    for (index_t p = 0; p < pixels; ++p) {
      const unsigned char red = rgb[3 * p];
      rgb[3 * p] = rgb[3 * p + 2];
      rgb[3 * p + 2] = red;
    }
  if (format == ImagePixelFormat::kGrayscale)
    for (index_t p = 0; p < pixels; ++p) {
      const std::uint32_t luma =
          rgb[3 * p] * 19595u + rgb[3 * p + 1] * 38470u + rgb[3 * p + 2] * 7471u + 0x8000u;
      image[p] = static_cast<unsigned char>(luma >> 16);
    }
  return 0;
}

}  // namespace onnxc

#endif  // ONNXC_IMAGE_DECODER_H
