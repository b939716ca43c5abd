// JPEG decoding (ITU-T T.81) for ImageDecoder: Huffman-coded baseline and extended sequential
// frames (SOF0, SOF1) of 8-bit samples, one component (grey) or three (YCbCr, or RGB when an Adobe
// marker or the component ids say so), sampling factors 1 or 2, interleaved or not, with restart
// intervals. The output matches libjpeg-turbo's defaults, as Pillow decodes (the reference): its
// integer "islow" IDCT with its range limiting, its "fancy" (triangle-filter) chroma upsampling
// and its fixed-point YCbCr -> RGB. Progressive, arithmetic-coded, lossless, 12-bit, CMYK and other
// sampling factors are kErrorImageFormat.
#ifndef ONNXC_IMAGE_JPEG_H
#define ONNXC_IMAGE_JPEG_H

#include <cstdint>

#include "onnxc/base.h"

namespace onnxc {

// ---- State -------------------------------------------------------------------------------------

// A Huffman table as canonical code ranges per length (T.81 F.2.2.3).
struct JpegHuffman {
  std::int32_t max_code[18];  // the largest code of each length, -1 when none
  std::int32_t first_index[17];
  std::int32_t min_code[17];
  std::uint8_t values[256];
  bool defined;
};

struct JpegComponent {
  int id, h, v, quant, dc_table, ac_table;
  std::int32_t dc_prediction;
  index_t stride, rows;   // the plane: whole blocks covering every MCU
  index_t width, height;  // its samples in the image: ceil(image size * factor / max factor)
  unsigned char* plane;
};

struct JpegState {
  std::uint16_t quant[4][64];
  bool quant_defined[4];
  JpegHuffman dc[4], ac[4];
  JpegComponent comp[3];
  int n_comp, h_max, v_max, restart_interval;
  bool adobe, adobe_ycc, frame;
  index_t width, height, mcus_x, mcus_y;
  std::int32_t block[64], idct_work[64];  // here rather than on the stack (microcontrollers)
};

// Scratch for an image of height x width: the state, then one plane per component (each at most
// the image padded to whole 16 x 16 MCUs).
constexpr index_t jpeg_scratch_bytes(index_t height, index_t width) {
  return (index_t(sizeof(JpegState)) + 63) / 64 * 64 +
         3 * ((width + 15) / 16 * 16) * ((height + 15) / 16 * 16);
}

// ---- Entropy-coded data ------------------------------------------------------------------------

struct JpegBits {
  const unsigned char* data;
  index_t size, pos;
  std::uint32_t buffer;
  int count;
  bool marker;  // a marker ended the segment: further bits read as 0, as libjpeg does
};

inline int jpeg_bit(JpegBits& b) {
  if (b.count == 0) {
    int byte = 0;
    if (!b.marker && b.pos < b.size) {
      byte = b.data[b.pos];
      if (byte == 0xFF) {
        const int next = b.pos + 1 < b.size ? b.data[b.pos + 1] : -1;
        if (next == 0) {
          b.pos += 2;  // a stuffed zero byte
        } else {
          b.marker = true;
          byte = 0;
        }
      } else {
        ++b.pos;
      }
    }
    b.buffer = static_cast<std::uint32_t>(byte);
    b.count = 8;
  }
  --b.count;
  return static_cast<int>((b.buffer >> b.count) & 1u);
}

inline std::int32_t jpeg_receive(JpegBits& b, int n) {
  std::int32_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 1) | jpeg_bit(b);
  return v;
}

// The value of an n-bit magnitude category (T.81 F.2.2.1 EXTEND).
inline std::int32_t jpeg_extend(std::int32_t v, int n) {
  return n == 0 ? 0 : v < (1 << (n - 1)) ? v - (1 << n) + 1 : v;
}

inline int jpeg_decode_symbol(JpegBits& b, const JpegHuffman& h) {
  std::int32_t code = 0;
  for (int len = 1; len <= 16; ++len) {
    code = (code << 1) | jpeg_bit(b);
    if (code <= h.max_code[len])
      return h.values[(h.first_index[len] + code - h.min_code[len]) & 255];
  }
  return -1;
}

// The natural (row-major) index of each zig-zag position.
constexpr std::uint8_t kJpegZigzag[64] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33, 40, 48,
    41, 34, 27, 20, 13, 6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23,
    30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63};

// ---- Markers -----------------------------------------------------------------------------------

inline index_t jpeg_u16(const unsigned char* p) {
  return (index_t(p[0]) << 8) | p[1];
}

inline bool jpeg_read_dqt(JpegState& st, const unsigned char* p, index_t n) {
  while (n > 0) {
    const int precision = p[0] >> 4, table = p[0] & 15;
    const index_t bytes = 1 + 64 * (precision ? 2 : 1);
    if (table > 3 || precision > 1 || n < bytes) return false;
    for (int k = 0; k < 64; ++k)
      st.quant[table][kJpegZigzag[k]] =
          static_cast<std::uint16_t>(precision ? jpeg_u16(p + 1 + 2 * k) : p[1 + k]);
    st.quant_defined[table] = true;
    p += bytes, n -= bytes;
  }
  return true;
}

inline bool jpeg_read_dht(JpegState& st, const unsigned char* p, index_t n) {
  while (n > 0) {
    if (n < 17) return false;
    const int kind = p[0] >> 4, table = p[0] & 15;
    if (kind > 1 || table > 3) return false;
    JpegHuffman& h = kind ? st.ac[table] : st.dc[table];
    index_t total = 0;
    for (int len = 1; len <= 16; ++len) total += p[len];
    if (total > 256 || n < 17 + total) return false;
    std::int32_t code = 0, index = 0;
    for (int len = 1; len <= 16; ++len) {  // T.81 C.2 and F.2.2.3: codes in order of length
      const int count = p[len];
      h.first_index[len] = index;
      h.min_code[len] = code;
      h.max_code[len] = count ? code + count - 1 : -1;
      code = (code + count) << 1;
      index += count;
    }
    h.max_code[17] = 0x7FFFFFFF;
    for (index_t i = 0; i < total; ++i) h.values[i] = p[17 + i];
    h.defined = true;
    p += 17 + total, n -= 17 + total;
  }
  return true;
}

inline bool jpeg_read_sof(JpegState& st, const unsigned char* p, index_t n, unsigned char* planes) {
  if (n < 6 || p[0] != 8 || st.frame) return false;
  st.height = jpeg_u16(p + 1);
  st.width = jpeg_u16(p + 3);
  st.n_comp = p[5];
  if ((st.n_comp != 1 && st.n_comp != 3) || n < 6 + 3 * st.n_comp || st.width == 0 ||
      st.height == 0)
    return false;
  st.h_max = st.v_max = 1;
  for (int c = 0; c < st.n_comp; ++c) {
    JpegComponent& k = st.comp[c];
    k.id = p[6 + 3 * c];
    k.h = p[7 + 3 * c] >> 4;
    k.v = p[7 + 3 * c] & 15;
    k.quant = p[8 + 3 * c];
    if (k.h < 1 || k.h > 2 || k.v < 1 || k.v > 2 || k.quant > 3) return false;
    st.h_max = k.h > st.h_max ? k.h : st.h_max;
    st.v_max = k.v > st.v_max ? k.v : st.v_max;
  }
  st.mcus_x = (st.width + 8 * st.h_max - 1) / (8 * st.h_max);
  st.mcus_y = (st.height + 8 * st.v_max - 1) / (8 * st.v_max);
  for (int c = 0; c < st.n_comp; ++c) {
    JpegComponent& k = st.comp[c];
    k.stride = st.mcus_x * k.h * 8;
    k.rows = st.mcus_y * k.v * 8;
    k.width = (st.width * k.h + st.h_max - 1) / st.h_max;
    k.height = (st.height * k.v + st.v_max - 1) / st.v_max;
    k.plane = planes;
    planes += k.stride * k.rows;
  }
  st.frame = true;
  return true;
}

// ---- Blocks ------------------------------------------------------------------------------------

// Decodes one block's coefficients (natural order) with the component's tables.
inline bool jpeg_decode_block(JpegBits& b, const JpegState& st, JpegComponent& k,
                              std::int32_t* coef) {
  for (int i = 0; i < 64; ++i) coef[i] = 0;
  const int s = jpeg_decode_symbol(b, st.dc[k.dc_table]);
  if (s < 0 || s > 11) return false;
  k.dc_prediction += jpeg_extend(jpeg_receive(b, s), s);
  if (k.dc_prediction > 32767 || k.dc_prediction < -32768) return false;
  coef[0] = k.dc_prediction;
  for (int i = 1; i < 64;) {
    const int rs = jpeg_decode_symbol(b, st.ac[k.ac_table]);
    if (rs < 0) return false;
    const int run = rs >> 4, size = rs & 15;
    if (size == 0) {
      if (run != 15) break;  // end of block
      i += 16;
      continue;
    }
    i += run;
    if (i > 63 || size > 10) return false;
    coef[kJpegZigzag[i++]] = jpeg_extend(jpeg_receive(b, size), size);
  }
  return true;
}

// libjpeg's range limiting after the IDCT: the value wraps to 10 bits, then is clamped.
inline unsigned char jpeg_range_limit(std::int64_t x) {
  const std::int64_t wrapped = ((x + 512) & 1023) - 512 + 128;
  return static_cast<unsigned char>(wrapped < 0 ? 0 : wrapped > 255 ? 255 : wrapped);
}

inline std::int64_t jpeg_descale(std::int64_t x, int n) {
  return (x + (std::int64_t(1) << (n - 1))) >> n;
}

// One 1-D pass of libjpeg's islow IDCT of in[0..7] into out[0..7]
// (before descaling): the even part rotates by the sqrt(2)*c6 butterfly, the odd part is the
// 12-multiply network of jidctint.c, constants in 13-bit fixed point.
inline void jpeg_idct_1d(const std::int64_t* in, std::int64_t* out) {
  const std::int64_t z1e = (in[2] + in[6]) * 4433;
  const std::int64_t tmp2e = z1e - in[6] * 15137, tmp3e = z1e + in[2] * 6270;
  const std::int64_t tmp0e = (in[0] + in[4]) * 8192, tmp1e = (in[0] - in[4]) * 8192;
  const std::int64_t tmp10 = tmp0e + tmp3e, tmp13 = tmp0e - tmp3e, tmp11 = tmp1e + tmp2e,
                     tmp12 = tmp1e - tmp2e;
  std::int64_t t0 = in[7], t1 = in[5], t2 = in[3], t3 = in[1];
  std::int64_t z1 = t0 + t3, z2 = t1 + t2, z3 = t0 + t2, z4 = t1 + t3;
  const std::int64_t z5 = (z3 + z4) * 9633;
  t0 *= 2446, t1 *= 16819, t2 *= 25172, t3 *= 12299;
  z1 *= -7373, z2 *= -20995, z3 = z3 * -16069 + z5, z4 = z4 * -3196 + z5;
  t0 += z1 + z3, t1 += z2 + z4, t2 += z2 + z3, t3 += z1 + z4;
  out[0] = tmp10 + t3, out[7] = tmp10 - t3, out[1] = tmp11 + t2, out[6] = tmp11 - t2;
  out[2] = tmp12 + t1, out[5] = tmp12 - t1, out[3] = tmp13 + t0, out[4] = tmp13 - t0;
}

// Dequantizes and inverse-transforms a block into 8 x 8 samples at dst (row stride `stride`).
// Columns first, then rows, as jidctint.c (whose shortcuts for all-zero AC terms give the same
// results). The column pass's output is kept in int32, as libjpeg keeps it; only corrupt data
// could exceed that, and it is clamped rather than overflowing.
inline void jpeg_idct_block(const std::int32_t* coef, const std::uint16_t* quant,
                            std::int32_t* work, unsigned char* dst, index_t stride) {
  std::int64_t in[8], out[8];
  for (int c = 0; c < 8; ++c) {
    for (int r = 0; r < 8; ++r) in[r] = std::int64_t(coef[r * 8 + c]) * quant[r * 8 + c];
    jpeg_idct_1d(in, out);
    for (int r = 0; r < 8; ++r) {
      const std::int64_t v = jpeg_descale(out[r], 13 - 2);
      work[r * 8 + c] = static_cast<std::int32_t>(v > INT32_MAX   ? INT32_MAX
                                                  : v < INT32_MIN ? INT32_MIN
                                                                  : v);
    }
  }
  for (int r = 0; r < 8; ++r) {
    for (int c = 0; c < 8; ++c) in[c] = work[r * 8 + c];
    jpeg_idct_1d(in, out);
    for (int c = 0; c < 8; ++c)
      dst[r * stride + c] = jpeg_range_limit(jpeg_descale(out[c], 13 + 2 + 3));
  }
}

// ---- Scans -------------------------------------------------------------------------------------

// Decodes the block at block column bx, row by of component k into its plane.
inline bool jpeg_block_at(JpegBits& b, JpegState& st, JpegComponent& k, index_t bx, index_t by) {
  if (!jpeg_decode_block(b, st, k, st.block)) return false;
  jpeg_idct_block(st.block, st.quant[k.quant], st.idct_work, k.plane + (by * 8) * k.stride + bx * 8,
                  k.stride);
  return true;
}

// At a restart interval's end: byte-align, expect RSTn, reset the DC predictions.
inline bool jpeg_restart(JpegBits& b, JpegState& st) {
  b.count = 0;
  if (!b.marker) {  // the marker follows the segment's last byte
    if (b.size - b.pos < 2 || b.data[b.pos] != 0xFF) return false;
    b.marker = true;
  }
  if (b.size - b.pos < 2 || b.data[b.pos + 1] < 0xD0 || b.data[b.pos + 1] > 0xD7) return false;
  b.pos += 2;
  b.marker = false;
  for (int c = 0; c < st.n_comp; ++c) st.comp[c].dc_prediction = 0;
  return true;
}

// Decodes the entropy-coded segment of a scan over components `scan[0, n)` starting at data[pos];
// returns the position after it (at the next marker), or -1.
inline index_t jpeg_decode_scan(JpegState& st, const unsigned char* data, index_t size, index_t pos,
                                int* scan, int n) {
  JpegBits b{data, size, pos, 0, 0, false};
  for (int c = 0; c < st.n_comp; ++c) st.comp[c].dc_prediction = 0;
  // One component alone is coded block by block over its own extent; several, MCU by MCU.
  JpegComponent& first = st.comp[scan[0]];
  const index_t units_x = n == 1 ? (first.width + 7) / 8 : st.mcus_x;
  const index_t units_y = n == 1 ? (first.height + 7) / 8 : st.mcus_y;
  index_t done = 0;
  for (index_t uy = 0; uy < units_y; ++uy)
    for (index_t ux = 0; ux < units_x; ++ux) {
      if (st.restart_interval && done > 0 && done % st.restart_interval == 0 &&
          !jpeg_restart(b, st))
        return -1;
      ++done;
      if (n == 1) {
        if (!jpeg_block_at(b, st, first, ux, uy)) return -1;
        continue;
      }
      for (int i = 0; i < n; ++i) {
        JpegComponent& k = st.comp[scan[i]];
        for (int v = 0; v < k.v; ++v)
          for (int h = 0; h < k.h; ++h)
            if (!jpeg_block_at(b, st, k, ux * k.h + h, uy * k.v + v)) return -1;
      }
    }
  index_t end = b.pos;  // skip to the marker that ends the segment
  while (end + 1 < size && !(data[end] == 0xFF && data[end + 1] != 0 &&
                             !(data[end + 1] >= 0xD0 && data[end + 1] <= 0xD7)))
    ++end;
  return end;
}

inline bool jpeg_read_sos(JpegState& st, const unsigned char* p, index_t n, int* scan,
                          int& n_scan) {
  if (!st.frame || n < 1) return false;
  n_scan = p[0];
  if (n_scan < 1 || n_scan > st.n_comp || n < 4 + 2 * n_scan) return false;
  for (int i = 0; i < n_scan; ++i) {
    int c = 0;
    while (c < st.n_comp && st.comp[c].id != p[1 + 2 * i]) ++c;
    if (c == st.n_comp) return false;
    JpegComponent& k = st.comp[c];
    k.dc_table = p[2 + 2 * i] >> 4;
    k.ac_table = p[2 + 2 * i] & 15;
    if (k.dc_table > 3 || k.ac_table > 3 || !st.dc[k.dc_table].defined ||
        !st.ac[k.ac_table].defined || !st.quant_defined[k.quant])
      return false;
    scan[i] = c;
  }
  const unsigned char* tail = p + 1 + 2 * n_scan;  // spectral selection and approximation
  return tail[0] == 0 && tail[1] == 63 && tail[2] == 0;
}

// ---- Upsampling and colour ---------------------------------------------------------------------

inline int jpeg_sample(const JpegComponent& k, index_t row, index_t col) {
  return k.plane[row * k.stride + col];
}

// Component k's value at image pixel (y, x), upsampled as libjpeg-turbo does by default: a
// triangle filter (3/4 nearer, 1/4 further sample) along each doubled axis, with its alternating
// rounding biases; rows beyond the component's edges repeat its edge rows; box replication for
// doubled widths of at most 2 samples (libjpeg-turbo's own exception).
inline int jpeg_upsampled(const JpegState& st, const JpegComponent& k, index_t y, index_t x) {
  const bool double_x = k.h < st.h_max, double_y = k.v < st.v_max;
  if (!double_x && !double_y) return jpeg_sample(k, y, x);
  const index_t row = double_y ? y / 2 : y, col = double_x ? x / 2 : x;
  if (double_x && k.width <= 2) return jpeg_sample(k, row, col);
  if (!double_y) {  // h2v1
    const int here = jpeg_sample(k, row, col) * 3;
    if (x % 2 == 0) return col == 0 ? here / 3 : (here + jpeg_sample(k, row, col - 1) + 1) >> 2;
    return col == k.width - 1 ? here / 3 : (here + jpeg_sample(k, row, col + 1) + 2) >> 2;
  }
  const bool below = y % 2 == 1;
  index_t other = below ? row + 1 : row - 1;
  other = other < 0 ? 0 : other > k.height - 1 ? k.height - 1 : other;
  auto column_sum = [&](index_t c) {
    return jpeg_sample(k, row, c) * 3 + jpeg_sample(k, other, c);
  };
  if (!double_x) return (column_sum(col) + (below ? 2 : 1)) >> 2;  // h1v2
  const int here = column_sum(col);
  if (x % 2 == 0) return col == 0 ? (here * 4 + 8) >> 4 : (here * 3 + column_sum(col - 1) + 8) >> 4;
  return col == k.width - 1 ? (here * 4 + 7) >> 4 : (here * 3 + column_sum(col + 1) + 7) >> 4;
}

inline unsigned char jpeg_clamp(std::int32_t v) {
  return static_cast<unsigned char>(v < 0 ? 0 : v > 255 ? 255 : v);
}

// libjpeg's YCbCr -> RGB: 16-bit fixed-point factors, red and blue rounded per table entry.
inline void jpeg_ycc_to_rgb(int luma, int cb, int cr, unsigned char* rgb) {
  const std::int32_t x_cb = cb - 128, x_cr = cr - 128;
  const std::int32_t red = (91881 * x_cr + 32768) >> 16, blue = (116130 * x_cb + 32768) >> 16;
  const std::int32_t green = (-22554 * x_cb + 32768 - 46802 * x_cr) >> 16;
  rgb[0] = jpeg_clamp(luma + red), rgb[1] = jpeg_clamp(luma + green),
  rgb[2] = jpeg_clamp(luma + blue);
}

inline void jpeg_to_rgb(const JpegState& st, unsigned char* rgb) {
  // Adobe's transform flag decides; without it, components named R, G, B are RGB (as libjpeg).
  const bool ycc = st.adobe
                       ? st.adobe_ycc
                       : !(st.comp[0].id == 'R' && st.comp[1].id == 'G' && st.comp[2].id == 'B');
  for (index_t y = 0; y < st.height; ++y)
    for (index_t x = 0; x < st.width; ++x, rgb += 3) {
      if (st.n_comp == 1) {
        rgb[0] = rgb[1] = rgb[2] = st.comp[0].plane[y * st.comp[0].stride + x];
        continue;
      }
      const int c0 = jpeg_upsampled(st, st.comp[0], y, x),
                c1 = jpeg_upsampled(st, st.comp[1], y, x);
      const int c2 = jpeg_upsampled(st, st.comp[2], y, x);
      if (ycc) {
        jpeg_ycc_to_rgb(c0, c1, c2, rgb);
      } else {
        rgb[0] = static_cast<unsigned char>(c0), rgb[1] = static_cast<unsigned char>(c1);
        rgb[2] = static_cast<unsigned char>(c2);
      }
    }
}

// ---- Decoder -----------------------------------------------------------------------------------

// Decodes the JPEG in data[0, size) into rgb (height x width x 3). Returns 0, kErrorImageSize for
// a JPEG of another size, or kErrorImageFormat.
inline int decode_jpeg(const unsigned char* data, index_t size, index_t height, index_t width,
                       unsigned char* rgb, unsigned char* scratch) {
  auto& st = *reinterpret_cast<JpegState*>(scratch);
  unsigned char* planes = scratch + (index_t(sizeof(JpegState)) + 63) / 64 * 64;
  st.frame = st.adobe = false;
  st.restart_interval = 0;
  for (int t = 0; t < 4; ++t) st.dc[t].defined = st.ac[t].defined = st.quant_defined[t] = false;
  if (size < 4 || data[0] != 0xFF || data[1] != 0xD8) return kErrorImageFormat;
  bool decoded = false;
  for (index_t pos = 2; pos + 4 <= size;) {
    if (data[pos] != 0xFF) return kErrorImageFormat;
    const int marker = data[pos + 1];
    if (marker == 0xFF) {  // fill byte
      ++pos;
      continue;
    }
    if (marker == 0xD9) break;  // EOI
    const index_t length = jpeg_u16(data + pos + 2);
    if (length < 2 || length > size - pos - 2) return kErrorImageFormat;
    const unsigned char* p = data + pos + 4;
    const index_t n = length - 2;
    bool ok = true;
    if (marker == 0xC0 || marker == 0xC1) {
      ok = jpeg_read_sof(st, p, n, planes);
      if (ok && (st.width != width || st.height != height)) return kErrorImageSize;
    } else if ((marker >= 0xC2 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 &&
                marker != 0xCC)) {
      return kErrorImageFormat;  // progressive, lossless, hierarchical or arithmetic-coded
    } else if (marker == 0xDB) {
      ok = jpeg_read_dqt(st, p, n);
    } else if (marker == 0xC4) {
      ok = jpeg_read_dht(st, p, n);
    } else if (marker == 0xDD) {
      ok = n >= 2;
      st.restart_interval = ok ? static_cast<int>(jpeg_u16(p)) : 0;
    } else if (marker == 0xEE && n >= 12 && p[0] == 'A' && p[1] == 'd' && p[2] == 'o' &&
               p[3] == 'b' && p[4] == 'e') {
      st.adobe = true;
      st.adobe_ycc = p[11] == 1;
    } else if (marker == 0xDA) {
      int scan[3], n_scan = 0;
      if (!jpeg_read_sos(st, p, n, scan, n_scan)) return kErrorImageFormat;
      pos = jpeg_decode_scan(st, data, size, pos + 2 + length, scan, n_scan);
      if (pos < 0) return kErrorImageFormat;
      decoded = true;
      continue;
    }
    if (!ok) return kErrorImageFormat;
    pos += 2 + length;
  }
  if (!decoded) return kErrorImageFormat;
  jpeg_to_rgb(st, rgb);
  return 0;
}

}  // namespace onnxc

#endif  // ONNXC_IMAGE_JPEG_H
