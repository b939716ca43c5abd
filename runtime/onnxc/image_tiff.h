// TIFF decoding (TIFF 6.0) for ImageDecoder: the first image of a little- or big-endian file,
// stored in strips, chunky (PlanarConfiguration 1), 8 bits per sample; grey (WhiteIsZero or
// BlackIsZero), RGB with any extra samples (alpha, dropped), or 8-bit palette. Compression none,
// PackBits, LZW (with or without the horizontal-differencing predictor) or Deflate. Tiles, planar
// files, other bit depths, JPEG and CCITT compression are kErrorImageFormat.
#ifndef ONNXC_IMAGE_TIFF_H
#define ONNXC_IMAGE_TIFF_H

#include <cstdint>

#include "onnxc/base.h"
#include "onnxc/image_inflate.h"

namespace onnxc {

// ---- Directory ---------------------------------------------------------------------------------

struct TiffReader {
  const unsigned char* data;
  index_t size;
  bool big_endian;

  std::uint32_t u16(index_t pos) const {
    if (pos < 0 || size - pos < 2) return 0;
    const unsigned char* p = data + pos;
    return big_endian ? (p[0] << 8) | p[1] : (p[1] << 8) | p[0];
  }
  std::uint32_t u32(index_t pos) const {
    if (pos < 0 || size - pos < 4) return 0;
    return big_endian ? (u16(pos) << 16) | u16(pos + 2) : (u16(pos + 2) << 16) | u16(pos);
  }
};

// The tags the decoder reads; the strip arrays stay in the file (offset and element type).
struct TiffImage {
  index_t width = 0, height = 0, rows_per_strip = 0;
  std::uint32_t bits = 8, compression = 1, photometric = 99, samples = 1, planar = 1, predictor = 1;
  index_t strip_offsets = -1, strip_counts = -1, color_map = -1;
  std::uint32_t n_strips = 0, offsets_type = 4, counts_type = 4;
  bool bits_uniform = true;
};

// One entry's value (the first one for arrays): SHORT or LONG stored inline.
inline std::uint32_t tiff_value(const TiffReader& r, index_t entry, std::uint32_t type) {
  return type == 3 ? r.u16(entry + 8) : r.u32(entry + 8);
}

// Where an entry's array lives: inline in the entry when it fits in 4 bytes, else at its offset.
inline index_t tiff_array(const TiffReader& r, index_t entry, std::uint32_t type,
                          std::uint32_t count) {
  const std::uint32_t bytes = (type == 3 ? 2u : 4u) * count;
  return bytes <= 4 ? entry + 8 : static_cast<index_t>(r.u32(entry + 8));
}

inline std::uint32_t tiff_element(const TiffReader& r, index_t array, std::uint32_t type,
                                  std::uint32_t i) {
  return type == 3 ? r.u16(array + 2 * static_cast<index_t>(i))
                   : r.u32(array + 4 * static_cast<index_t>(i));
}

inline bool tiff_read_directory(const TiffReader& r, TiffImage& im) {
  const index_t ifd = static_cast<index_t>(r.u32(4));
  const std::uint32_t n = r.u16(ifd);
  if (ifd < 8 || n == 0 || r.size - ifd < 2 + 12 * static_cast<index_t>(n)) return false;
  for (std::uint32_t i = 0; i < n; ++i) {
    const index_t e = ifd + 2 + 12 * static_cast<index_t>(i);
    const std::uint32_t tag = r.u16(e), type = r.u16(e + 2), count = r.u32(e + 4);
    if (type != 3 && type != 4) continue;  // every tag read below is SHORT or LONG
    const std::uint32_t v = tiff_value(r, e, type);
    switch (tag) {
      case 256:
        im.width = static_cast<index_t>(v);
        break;
      case 257:
        im.height = static_cast<index_t>(v);
        break;
      case 258:
        im.bits = tiff_element(r, tiff_array(r, e, type, count), type, 0);
        for (std::uint32_t k = 1; k < count && k < 16; ++k)
          im.bits_uniform &= tiff_element(r, tiff_array(r, e, type, count), type, k) == im.bits;
        break;
      case 259:
        im.compression = v;
        break;
      case 262:
        im.photometric = v;
        break;
      case 273:
        im.strip_offsets = tiff_array(r, e, type, count), im.n_strips = count,
        im.offsets_type = type;
        break;
      case 277:
        im.samples = v;
        break;
      case 278:
        im.rows_per_strip = static_cast<index_t>(v);
        break;
      case 279:
        im.strip_counts = tiff_array(r, e, type, count), im.counts_type = type;
        if (count != im.n_strips && im.n_strips) return false;
        break;
      case 284:
        im.planar = v;
        break;
      case 317:
        im.predictor = v;
        break;
      case 320:
        im.color_map = count == 768 ? tiff_array(r, e, type, count) : -2;
        break;
      default:
        break;
    }
  }
  if (im.rows_per_strip <= 0 || im.rows_per_strip > im.height) im.rows_per_strip = im.height;
  return im.width > 0 && im.height > 0 && im.strip_offsets >= 0 && im.strip_counts >= 0 &&
         im.n_strips > 0;
}

// ---- Strip decompression -----------------------------------------------------------------------

// Decodes PackBits runs into out; false when the strip is malformed or overflows.
inline bool tiff_unpack_bits(const unsigned char* in, index_t n, InflateOutput& out) {
  for (index_t i = 0; i < n;) {
    const int header = static_cast<signed char>(in[i++]);
    if (header >= 0) {
      if (n - i < header + 1 || out.capacity - out.size < header + 1) return false;
      for (int k = 0; k <= header; ++k) out.data[out.size++] = in[i++];
    } else if (header != -128) {
      if (i >= n || out.capacity - out.size < 1 - header) return false;
      for (int k = 0; k < 1 - header; ++k) out.data[out.size++] = in[i];
      ++i;
    }
  }
  return true;
}

// The LZW string table: each code is a prefix code plus one byte.
struct TiffLzwTable {
  std::uint16_t prefix[4096];
  std::uint16_t length[4096];
  unsigned char suffix[4096];
  unsigned char first[4096];
};

// Writes the string of `code` to out (walking prefixes back to front).
inline bool tiff_lzw_emit(const TiffLzwTable& t, int code, InflateOutput& out) {
  const index_t length = t.length[code];
  if (out.capacity - out.size < length) return false;
  for (index_t i = length - 1; i >= 0; --i, code = t.prefix[code])
    out.data[out.size + i] = t.suffix[code];
  out.size += length;
  return true;
}

// Decodes a TIFF LZW strip (MSB-first codes, 9 to 12 bits, the "early change" code widths).
inline bool tiff_unpack_lzw(const unsigned char* in, index_t n, TiffLzwTable& t,
                            InflateOutput& out) {
  for (int i = 0; i < 256; ++i)
    t.length[i] = 1, t.suffix[i] = t.first[i] = static_cast<unsigned char>(i);
  int next = 258, width = 9, previous = -1;
  std::uint32_t buffer = 0;
  int bits = 0;
  for (index_t pos = 0;;) {
    while (bits < width && pos < n) buffer = (buffer << 8) | in[pos++], bits += 8;
    if (bits < width) return true;  // a strip may end without an EOI code
    const int code = static_cast<int>((buffer >> (bits - width)) & ((1u << width) - 1));
    bits -= width;
    if (code == 257) return true;
    if (code == 256) {
      next = 258, width = 9, previous = -1;
      continue;
    }
    if (previous < 0) {
      if (code > 255 || !tiff_lzw_emit(t, code, out)) return false;
    } else {
      if (code > next || next >= 4096) return false;
      const int first = code < next ? t.first[code] : t.first[previous];
      t.prefix[next] = static_cast<std::uint16_t>(previous);
      t.suffix[next] = static_cast<unsigned char>(first);
      t.first[next] = t.first[previous];
      t.length[next] = static_cast<std::uint16_t>(t.length[previous] + 1);
      ++next;
      if (!tiff_lzw_emit(t, code, out)) return false;
    }
    previous = code;
    if (next + 1 >= (1 << width) && width < 12) ++width;
  }
}

// ---- Decoder -----------------------------------------------------------------------------------

// Scratch: the decompressed samples (at most 16 per pixel kept), then the LZW or inflate state.
constexpr index_t tiff_scratch_bytes(index_t height, index_t width) {
  return (16 * width * height + 15) / 16 * 16 + (sizeof(TiffLzwTable) > sizeof(InflateState)
                                                     ? index_t(sizeof(TiffLzwTable))
                                                     : index_t(sizeof(InflateState)));
}

// Decompresses every strip into samples (row-major, `samples` bytes per pixel).
inline bool tiff_read_strips(const TiffReader& r, const TiffImage& im, unsigned char* samples,
                             index_t capacity, unsigned char* state) {
  InflateOutput out{samples, capacity, 0};
  for (std::uint32_t s = 0; s < im.n_strips && out.size < capacity; ++s) {
    const index_t offset =
        static_cast<index_t>(tiff_element(r, im.strip_offsets, im.offsets_type, s));
    const index_t count = static_cast<index_t>(tiff_element(r, im.strip_counts, im.counts_type, s));
    if (offset < 0 || count < 0 || offset > r.size || count > r.size - offset) return false;
    const unsigned char* in = r.data + offset;
    const index_t strip_end = out.size + im.rows_per_strip * im.width * im.samples;
    InflateOutput strip{samples, strip_end < capacity ? strip_end : capacity, out.size};
    bool ok = false;
    if (im.compression == 1) {
      const index_t n = count < strip.capacity - strip.size ? count : strip.capacity - strip.size;
      for (index_t i = 0; i < n; ++i) samples[strip.size++] = in[i];
      ok = true;
    } else if (im.compression == 32773) {
      ok = tiff_unpack_bits(in, count, strip);
    } else if (im.compression == 5) {
      ok = tiff_unpack_lzw(in, count, *reinterpret_cast<TiffLzwTable*>(state), strip);
    } else if (im.compression == 8 || im.compression == 32946) {
      InflateSource source{in, count, nullptr, nullptr, 0, 0, 0, 0, false};
      ok = zlib_inflate(source, *reinterpret_cast<InflateState*>(state), strip);
    }
    if (!ok || strip.size != strip.capacity) return false;  // every strip fills its rows
    out.size = strip.size;
  }
  return out.size == capacity;
}

// Decodes the TIFF in data[0, size) into rgb (height x width x 3). Returns 0, kErrorImageSize for
// a TIFF of another size, or kErrorImageFormat.
inline int decode_tiff(const unsigned char* data, index_t size, index_t height, index_t width,
                       unsigned char* rgb, unsigned char* scratch) {
  if (size < 8) return kErrorImageFormat;
  const bool big = data[0] == 'M';
  const TiffReader r{data, size, big};
  TiffImage im;
  if (r.u16(2) != 42 || !tiff_read_directory(r, im)) return kErrorImageFormat;
  if (im.width != width || im.height != height) return kErrorImageSize;
  const std::uint32_t color_samples = im.photometric == 2 ? 3 : 1;
  if (im.bits != 8 || !im.bits_uniform || im.planar != 1 || im.photometric > 3 ||
      im.samples < color_samples || im.samples > 16 || (im.predictor != 1 && im.predictor != 2) ||
      (im.photometric == 3 && im.color_map < 0))
    return kErrorImageFormat;
  const index_t n = static_cast<index_t>(im.samples);
  const index_t capacity = width * height * n;
  unsigned char* samples = scratch;
  if (!tiff_read_strips(r, im, samples, capacity, scratch + (16 * width * height + 15) / 16 * 16))
    return kErrorImageFormat;
  for (index_t y = 0; y < height && im.predictor == 2; ++y)  // horizontal differencing
    for (index_t i = n; i < width * n; ++i)
      samples[y * width * n + i] =
          static_cast<unsigned char>(samples[y * width * n + i] + samples[y * width * n + i - n]);
  for (index_t p = 0; p < width * height; ++p) {
    const unsigned char* s = samples + p * n;
    unsigned char* px = rgb + 3 * p;
    if (im.photometric == 2) {
      px[0] = s[0], px[1] = s[1], px[2] = s[2];
    } else if (im.photometric == 3) {  // 16-bit colour map entries: all reds, greens, then blues
      for (index_t c = 0; c < 3; ++c)
        px[c] = static_cast<unsigned char>(r.u16(im.color_map + 2 * (256 * c + s[0])) >> 8);
    } else {
      px[0] = px[1] = px[2] = static_cast<unsigned char>(im.photometric == 0 ? 255 - s[0] : s[0]);
    }
  }
  return 0;
}

}  // namespace onnxc

#endif  // ONNXC_IMAGE_TIFF_H
