// UTF-8 decoding shared by everything that quotes model text (diagnostics, generated comments).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace onnxc {

// The length (2 to 4) of the well-formed multi-byte UTF-8 sequence at s[i], its code point in
// *cp; 0 when s[i] starts none (ASCII, a stray continuation byte, an overlong form, a surrogate,
// a code point past U+10FFFF or a sequence cut off by the end of s).
inline size_t decode_utf8(std::string_view s, size_t i, uint32_t* cp) {
  const auto c = static_cast<unsigned char>(s[i]);
  size_t len = 0;
  uint32_t v = 0, min = 0;
  if ((c & 0xE0) == 0xC0)
    len = 2, v = c & 0x1F, min = 0x80;
  else if ((c & 0xF0) == 0xE0)
    len = 3, v = c & 0x0F, min = 0x800;
  else if ((c & 0xF8) == 0xF0)
    len = 4, v = c & 0x07, min = 0x10000;
  if (len == 0 || i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    v = (v << 6) | (b & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return len;
}

}  // namespace onnxc
