// PNG decoding (ISO/IEC 15948) for ImageDecoder: every colour type (grey, RGB, palette, grey +
// alpha, RGBA) at every bit depth it allows (1, 2, 4, 8, 16), plain or Adam7-interlaced. Pixels
// come out as 8-bit RGB the way Pillow and OpenCV give them: 16-bit samples keep their high byte,
// 1/2/4-bit grey is scaled to 0..255, alpha is dropped (not composited), and gAMA, cHRM, iCCP and
// tRNS are ignored. CRCs are not checked. Chunks must come in the standard's order (IHDR first,
// PLTE before IDAT, the IDATs consecutive); anything else is kErrorImageFormat.
#ifndef ONNXC_IMAGE_PNG_H
#define ONNXC_IMAGE_PNG_H

#include <cstdint>

#include "onnxc/base.h"
#include "onnxc/image_inflate.h"

namespace onnxc {

// ---- Layout ------------------------------------------------------------------------------------

struct PngHeader {
  index_t width, height;
  int bit_depth, color_type, interlaced;
  int channels;  // samples per pixel
};

inline std::uint32_t png_u32(const unsigned char* p) {
  return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) |
         p[3];
}

// Bytes of one filtered row of `width` pixels (without its filter-type byte).
inline index_t png_row_bytes(const PngHeader& h, index_t width) {
  return (width * h.channels * h.bit_depth + 7) / 8;
}

// Scratch for an image of at most height x width pixels: the inflated rows (16-bit RGBA at worst,
// plus a filter byte per row of each Adam7 pass), then the palette and the inflate state.
constexpr index_t png_scratch_bytes(index_t height, index_t width) {
  return (8 * width * height + 4 * height + 64 + 15) / 16 * 16 + 3 * 256 +
         index_t(sizeof(InflateState));
}

// The Adam7 passes: first row/column and step of each (the whole image when not interlaced).
struct PngPass {
  int row0, col0, row_step, col_step;
};
constexpr PngPass kPngAdam7[7] = {{0, 0, 8, 8}, {0, 4, 8, 8}, {4, 0, 8, 4}, {0, 2, 4, 4},
                                  {2, 0, 4, 2}, {0, 1, 2, 2}, {1, 0, 2, 1}};

inline index_t png_pass_extent(index_t size, int start, int step) {
  return size > start ? (size - start + step - 1) / step : 0;
}

// ---- Chunks ------------------------------------------------------------------------------------

// Moves an InflateSource to the next IDAT chunk's data; false when the IDATs end.
inline bool png_next_idat(InflateSource& s) {
  const index_t pos = s.context_pos;
  if (s.context_size - pos < 12) return false;
  const std::uint32_t length = png_u32(s.context_data + pos);
  if (length > std::uint32_t(s.context_size - pos - 12)) return false;
  if (png_u32(s.context_data + pos + 4) != 0x49444154u) return false;  // "IDAT"
  s.data = s.context_data + pos + 8;
  s.left = static_cast<index_t>(length);
  s.context_pos = pos + 12 + static_cast<index_t>(length);
  return true;
}

// Reads IHDR and any PLTE up to the first IDAT; returns that IDAT's offset, or -1.
inline index_t png_read_header(const unsigned char* data, index_t size, PngHeader& h,
                               unsigned char* palette, int& palette_size) {
  static constexpr unsigned char kSignature[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  if (size < 33) return -1;
  for (int i = 0; i < 8; ++i)
    if (data[i] != kSignature[i]) return -1;
  if (png_u32(data + 8) != 13 || png_u32(data + 12) != 0x49484452u) return -1;  // "IHDR"
  const std::uint32_t w = png_u32(data + 16), ht = png_u32(data + 20);
  if (w == 0 || ht == 0 || w > 0x7FFFFFu || ht > 0x7FFFFFu) return -1;
  h.width = static_cast<index_t>(w);
  h.height = static_cast<index_t>(ht);
  h.bit_depth = data[24];
  h.color_type = data[25];
  h.interlaced = data[28];
  static constexpr int kChannels[7] = {1, 0, 3, 1, 2, 0, 4};
  const int d = h.bit_depth;
  if (h.color_type > 6 || !kChannels[h.color_type] || data[26] || data[27] || h.interlaced > 1)
    return -1;
  h.channels = kChannels[h.color_type];
  const bool depth_ok = h.color_type == 0   ? (d == 1 || d == 2 || d == 4 || d == 8 || d == 16)
                        : h.color_type == 3 ? (d == 1 || d == 2 || d == 4 || d == 8)
                                            : (d == 8 || d == 16);
  if (!depth_ok) return -1;
  palette_size = 0;
  for (index_t pos = 33; size - pos >= 12;) {
    const std::uint32_t length = png_u32(data + pos), type = png_u32(data + pos + 4);
    if (length > std::uint32_t(size - pos - 12)) return -1;
    if (type == 0x49444154u) return h.color_type == 3 && palette_size == 0 ? -1 : pos;  // "IDAT"
    if (type == 0x504C5445u) {                                                          // "PLTE"
      if (length % 3 || length > 768) return -1;
      palette_size = static_cast<int>(length / 3);
      for (std::uint32_t i = 0; i < length; ++i) palette[i] = data[pos + 8 + i];
    }
    if (type == 0x49454E44u) return -1;  // "IEND" before any IDAT
    pos += 12 + static_cast<index_t>(length);
  }
  return -1;
}

// ---- Filters -----------------------------------------------------------------------------------

inline int png_paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = p > a ? p - a : a - p, pb = p > b ? p - b : b - p, pc = p > c ? p - c : c - p;
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

// Undoes the filter of one row in place; `prior` is the unfiltered row above (null on a pass's
// first row), `bpp` the bytes per complete pixel (at least 1).
inline bool png_unfilter(unsigned char* row, const unsigned char* prior, index_t n, int filter,
                         int bpp) {
  for (index_t i = 0; i < n; ++i) {
    const int a = i >= bpp ? row[i - bpp] : 0, b = prior ? prior[i] : 0;
    const int c = prior && i >= bpp ? prior[i - bpp] : 0;
    int predicted;
    switch (filter) {
      case 0:
        predicted = 0;
        break;
      case 1:
        predicted = a;
        break;
      case 2:
        predicted = b;
        break;
      case 3:
        predicted = (a + b) >> 1;
        break;
      case 4:
        predicted = png_paeth(a, b, c);
        break;
      default:
        return false;
    }
    row[i] = static_cast<unsigned char>(row[i] + predicted);
  }
  return true;
}

// ---- Pixels ------------------------------------------------------------------------------------

// Sample `index` of a row as 8 bits: the high byte at 16 bits; sub-byte grey scaled to 0..255
// unless it is a palette index.
inline int png_sample(const PngHeader& h, const unsigned char* row, index_t index) {
  if (h.bit_depth == 8) return row[index];
  if (h.bit_depth == 16) return row[2 * index];
  const int per_byte = 8 / h.bit_depth, max = (1 << h.bit_depth) - 1;
  const int shift = 8 - h.bit_depth * (1 + static_cast<int>(index % per_byte));
  const int v = (row[index / per_byte] >> shift) & max;
  return h.color_type == 3 ? v : v * 255 / max;
}

// Writes one unfiltered row of a pass into the RGB image.
inline bool png_emit_row(const PngHeader& h, const unsigned char* row, index_t n_pixels,
                         const unsigned char* palette, int palette_size, unsigned char* rgb_row,
                         int col0, int col_step) {
  for (index_t x = 0; x < n_pixels; ++x) {
    unsigned char* px = rgb_row + 3 * (col0 + x * col_step);
    const index_t s = x * h.channels;
    if (h.color_type == 3) {
      const int index = png_sample(h, row, s);
      if (index >= palette_size) return false;
      for (int c = 0; c < 3; ++c) px[c] = palette[3 * index + c];
    } else if (h.channels >= 3) {
      for (int c = 0; c < 3; ++c) px[c] = static_cast<unsigned char>(png_sample(h, row, s + c));
    } else {
      px[0] = px[1] = px[2] = static_cast<unsigned char>(png_sample(h, row, s));
    }
  }
  return true;
}

// ---- Decoder -----------------------------------------------------------------------------------

// Decodes the PNG in data[0, size) into rgb (height x width x 3). Returns 0, kErrorImageSize for
// a PNG of another size, or kErrorImageFormat.
inline int decode_png(const unsigned char* data, index_t size, index_t height, index_t width,
                      unsigned char* rgb, unsigned char* scratch) {
  PngHeader h{};
  unsigned char* rows = scratch;
  const index_t rows_capacity = (8 * width * height + 4 * height + 64 + 15) / 16 * 16;
  unsigned char* palette = scratch + rows_capacity;
  auto* state = reinterpret_cast<InflateState*>(palette + 3 * 256);
  int palette_size = 0;
  const index_t idat = png_read_header(data, size, h, palette, palette_size);
  if (idat < 0) return kErrorImageFormat;
  if (h.width != width || h.height != height) return kErrorImageSize;
  InflateSource source{nullptr, 0, png_next_idat, data, size, idat, 0, 0, false};
  InflateOutput out{rows, rows_capacity, 0};
  if (!zlib_inflate(source, *state, out)) return kErrorImageFormat;
  const int bpp = (h.channels * h.bit_depth + 7) / 8;
  index_t pos = 0;
  for (int p = 0; p < (h.interlaced ? 7 : 1); ++p) {
    const PngPass pass = h.interlaced ? kPngAdam7[p] : PngPass{0, 0, 1, 1};
    const index_t n_rows = png_pass_extent(height, pass.row0, pass.row_step);
    const index_t n_cols = png_pass_extent(width, pass.col0, pass.col_step);
    if (n_rows == 0 || n_cols == 0) continue;
    const index_t row_bytes = png_row_bytes(h, n_cols);
    const unsigned char* prior = nullptr;
    for (index_t y = 0; y < n_rows; ++y) {
      if (out.size - pos < row_bytes + 1) return kErrorImageFormat;
      unsigned char* row = rows + pos + 1;
      if (!png_unfilter(row, prior, row_bytes, rows[pos], bpp)) return kErrorImageFormat;
      unsigned char* rgb_row = rgb + 3 * width * (pass.row0 + y * pass.row_step);
      if (!png_emit_row(h, row, n_cols, palette, palette_size, rgb_row, pass.col0, pass.col_step))
        return kErrorImageFormat;
      prior = row;
      pos += row_bytes + 1;
    }
  }
  return 0;
}

}  // namespace onnxc

#endif  // ONNXC_IMAGE_PNG_H
