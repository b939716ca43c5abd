// zlib/DEFLATE decompression (RFC 1950, RFC 1951) for the image decoders: PNG's IDAT stream and
// TIFF's Deflate strips. Stored, fixed-Huffman and dynamic-Huffman blocks; the zlib header is
// checked (method 8, window <= 32 KiB, no preset dictionary) and the Adler-32 trailer is not
// (Pillow and libpng accept a bad checksum in image data too). The input may arrive in pieces (PNG
// splits it over IDAT chunks): an InflateSource hands out bytes piece by piece. Output goes to one
// flat buffer whose size the caller knows in advance (an image's rows); producing more is an error.
// Codes are decoded canonically, one bit at a time against per-length counts: slower than table
// lookup but with 0.6 KiB of state, all of it in the caller's scratch.
#ifndef ONNXC_IMAGE_INFLATE_H
#define ONNXC_IMAGE_INFLATE_H

#include <cstdint>

#include "onnxc/base.h"

namespace onnxc {

// ---- Input: bytes from one or more pieces ------------------------------------------------------

// The compressed stream, possibly split in pieces. next_piece (if set) moves to the following piece
// and returns false at the end of the stream; `context` is its state (the PNG chunk walker).
struct InflateSource {
  const unsigned char* data;
  index_t left;
  bool (*next_piece)(InflateSource& source);
  const unsigned char* context_data;  // for next_piece: the whole file and the position in it
  index_t context_size, context_pos;
  std::uint32_t bit_buffer;
  int bit_count;
  bool failed;  // read past the end of the stream
};

inline int inflate_next_byte(InflateSource& s) {
  while (s.left == 0) {
    if (!s.next_piece || !s.next_piece(s)) {
      s.failed = true;
      return 0;
    }
  }
  --s.left;
  return *s.data++;
}

// The next `count` (<= 16) bits, least significant first.
inline std::uint32_t inflate_bits(InflateSource& s, int count) {
  while (s.bit_count < count) {
    s.bit_buffer |= static_cast<std::uint32_t>(inflate_next_byte(s)) << s.bit_count;
    s.bit_count += 8;
  }
  const std::uint32_t value = s.bit_buffer & ((1u << count) - 1u);
  s.bit_buffer >>= count;
  s.bit_count -= count;
  return value;
}

// ---- Canonical Huffman codes -------------------------------------------------------------------

constexpr int kInflateMaxBits = 15;

// A canonical code: how many codes of each length, and the symbols ordered by code.
struct InflateHuffman {
  std::uint16_t count[kInflateMaxBits + 1];
  std::uint16_t symbol[288];
};

// Builds the code from per-symbol lengths; false for an over-subscribed set of lengths. An
// incomplete set is allowed (a single distance code is legal), its unused codes fail on decode.
inline bool inflate_build(InflateHuffman& h, const std::uint8_t* lengths, int n) {
  for (int len = 0; len <= kInflateMaxBits; ++len) h.count[len] = 0;
  for (int sym = 0; sym < n; ++sym) ++h.count[lengths[sym]];
  int left = 1;
  for (int len = 1; len <= kInflateMaxBits; ++len) {
    left = 2 * left - h.count[len];
    if (left < 0) return false;
  }
  std::uint16_t offset[kInflateMaxBits + 1];
  offset[1] = 0;
  for (int len = 1; len < kInflateMaxBits; ++len)
    offset[len + 1] = static_cast<std::uint16_t>(offset[len] + h.count[len]);
  for (int sym = 0; sym < n; ++sym)
    if (lengths[sym]) h.symbol[offset[lengths[sym]]++] = static_cast<std::uint16_t>(sym);
  return true;
}

// The next symbol, or -1 for a code the table does not have. Huffman codes are sent most
// significant bit first, so the code is built up one bit at a time.
inline int inflate_decode(InflateSource& s, const InflateHuffman& h) {
  int code = 0, first = 0, index = 0;
  for (int len = 1; len <= kInflateMaxBits; ++len) {
    code |= static_cast<int>(inflate_bits(s, 1));
    const int count = h.count[len];
    if (code - first < count) return h.symbol[index + code - first];
    index += count;
    first = (first + count) << 1;
    code <<= 1;
  }
  return -1;
}

// ---- Blocks ------------------------------------------------------------------------------------

struct InflateState {
  InflateHuffman literal, distance;
  std::uint8_t lengths[288 + 32];
};

constexpr std::uint16_t kInflateLengthBase[29] = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                                  15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                                  67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr std::uint8_t kInflateLengthExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                                  2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr std::uint16_t kInflateDistanceBase[30] = {
    1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
    193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr std::uint8_t kInflateDistanceExtra[30] = {0, 0, 0,  0,  1,  1,  2,  2,  3,  3,
                                                    4, 4, 5,  5,  6,  6,  7,  7,  8,  8,
                                                    9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

// A flat output buffer and how much of it is filled.
struct InflateOutput {
  unsigned char* data;
  index_t capacity, size;
};

// Decodes one block's symbols with the current codes, up to its end-of-block symbol.
inline bool inflate_codes(InflateSource& s, const InflateState& st, InflateOutput& out) {
  for (;;) {
    const int sym = inflate_decode(s, st.literal);
    if (sym < 0 || s.failed) return false;
    if (sym < 256) {
      if (out.size == out.capacity) return false;
      out.data[out.size++] = static_cast<unsigned char>(sym);
      continue;
    }
    if (sym == 256) return true;
    const int len_code = sym - 257;
    if (len_code >= 29) return false;
    const index_t length = kInflateLengthBase[len_code] +
                           static_cast<index_t>(inflate_bits(s, kInflateLengthExtra[len_code]));
    const int dist_code = inflate_decode(s, st.distance);
    if (dist_code < 0 || dist_code >= 30) return false;
    const index_t distance =
        kInflateDistanceBase[dist_code] +
        static_cast<index_t>(inflate_bits(s, kInflateDistanceExtra[dist_code]));
    if (s.failed || distance > out.size || length > out.capacity - out.size) return false;
    for (index_t i = 0; i < length; ++i, ++out.size)
      out.data[out.size] = out.data[out.size - distance];
  }
}

inline bool inflate_stored(InflateSource& s, InflateOutput& out) {
  s.bit_buffer = 0;  // a stored block starts on a byte boundary
  s.bit_count = 0;
  const int lo = inflate_next_byte(s), hi = inflate_next_byte(s);
  const int nlo = inflate_next_byte(s), nhi = inflate_next_byte(s);
  const index_t length = lo | (hi << 8);
  if (s.failed || (length ^ 0xFFFF) != (nlo | (nhi << 8))) return false;
  if (length > out.capacity - out.size) return false;
  for (index_t i = 0; i < length; ++i)
    out.data[out.size++] = static_cast<unsigned char>(inflate_next_byte(s));
  return !s.failed;
}

inline bool inflate_fixed_codes(InflateState& st) {
  for (int i = 0; i < 288; ++i) st.lengths[i] = i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8;
  for (int i = 0; i < 30; ++i) st.lengths[288 + i] = 5;
  return inflate_build(st.literal, st.lengths, 288) &&
         inflate_build(st.distance, st.lengths + 288, 30);
}

// Reads a dynamic block's code lengths (themselves Huffman coded) and builds its two codes.
inline bool inflate_dynamic_codes(InflateSource& s, InflateState& st) {
  static constexpr std::uint8_t kOrder[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                              11, 4,  12, 3, 13, 2, 14, 1, 15};
  const int n_literal = static_cast<int>(inflate_bits(s, 5)) + 257;
  const int n_distance = static_cast<int>(inflate_bits(s, 5)) + 1;
  const int n_length = static_cast<int>(inflate_bits(s, 4)) + 4;
  if (n_literal > 286 || n_distance > 30) return false;
  for (int i = 0; i < 19; ++i)
    st.lengths[kOrder[i]] = i < n_length ? static_cast<std::uint8_t>(inflate_bits(s, 3)) : 0;
  if (!inflate_build(st.distance, st.lengths, 19)) return false;  // the code-length code, briefly
  for (int i = 0; i < n_literal + n_distance;) {
    const int sym = inflate_decode(s, st.distance);
    if (sym < 0 || s.failed) return false;
    if (sym < 16) {
      st.lengths[i++] = static_cast<std::uint8_t>(sym);
      continue;
    }
    std::uint8_t value = 0;
    int repeat;
    if (sym == 16) {
      if (i == 0) return false;
      value = st.lengths[i - 1];
      repeat = 3 + static_cast<int>(inflate_bits(s, 2));
    } else {
      repeat = sym == 17 ? 3 + static_cast<int>(inflate_bits(s, 3))
                         : 11 + static_cast<int>(inflate_bits(s, 7));
    }
    if (i + repeat > n_literal + n_distance) return false;
    while (repeat--) st.lengths[i++] = value;
  }
  if (st.lengths[256] == 0) return false;  // no end-of-block code
  return inflate_build(st.literal, st.lengths, n_literal) &&
         inflate_build(st.distance, st.lengths + n_literal, n_distance);
}

// ---- Stream ------------------------------------------------------------------------------------

// Decompresses a zlib stream into out (size counts the bytes produced). False for a malformed or
// truncated stream or one that would overflow out.
inline bool zlib_inflate(InflateSource& s, InflateState& st, InflateOutput& out) {
  s.bit_buffer = 0;
  s.bit_count = 0;
  s.failed = false;
  const int cmf = inflate_next_byte(s), flg = inflate_next_byte(s);
  if (s.failed || (cmf & 15) != 8 || (cmf >> 4) > 7 || (cmf * 256 + flg) % 31 != 0 || (flg & 32))
    return false;
  for (bool last = false; !last;) {
    last = inflate_bits(s, 1) != 0;
    const std::uint32_t type = inflate_bits(s, 2);
    bool ok = false;
    if (type == 0)
      ok = inflate_stored(s, out);
    else if (type == 1)
      ok = inflate_fixed_codes(st) && inflate_codes(s, st, out);
    else if (type == 2)
      ok = inflate_dynamic_codes(s, st) && inflate_codes(s, st, out);
    if (!ok || s.failed) return false;
  }
  return true;
}

}  // namespace onnxc

#endif  // ONNXC_IMAGE_INFLATE_H
