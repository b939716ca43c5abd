// One bounded line per error: see diagnostics.h.
#include "base/diagnostics.h"

#include "base/utf8.h"

namespace onnxc {
namespace {

// The length of the UTF-8 sequence at s[i] (2 to 4) that may be quoted as it is; 0 when it is
// malformed or invisible-but-line-breaking (C1 controls, line/paragraph separators): escaped
// byte by byte then.
size_t utf8_length(std::string_view s, size_t i) {
  uint32_t cp = 0;
  const size_t len = decode_utf8(s, i, &cp);
  if (cp >= 0x80 && cp < 0xA0) return 0;       // C1 controls
  if (cp == 0x2028 || cp == 0x2029) return 0;  // line and paragraph separators
  return len;
}

// At most `n` bytes of `s`, not ending inside a UTF-8 sequence.
std::string_view utf8_prefix(std::string_view s, size_t n) {
  if (s.size() <= n) return s;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}

// The index of the byte closing the segment opened by s[open] ('x', "x", {x}, [x]; brackets
// nest), or npos.
size_t find_close(std::string_view s, size_t open) {
  const char o = s[open];
  const char c = o == '{' ? '}' : o == '[' ? ']' : o;
  if (c == o) return s.find(c, open + 1);
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == o) ++depth;
    if (s[i] == c && --depth == 0) return i;
  }
  return std::string_view::npos;
}

// Quoted and bracketed segments over kMaxQuoted bytes cut to their start and "...". An opener
// with no closer is plain text, and so are later openers of its kind (each kind is searched to
// the end at most once: linear time however hostile the text).
std::string cut_quoted(std::string_view s) {
  std::string out;
  out.reserve(std::min(s.size(), size_t{4096}));
  std::string_view openers = "'\"{[";
  bool unmatched[4] = {false, false, false, false};
  for (size_t i = 0; i < s.size();) {
    const size_t kind = openers.find(s[i]);
    size_t close = std::string_view::npos;
    if (kind != std::string_view::npos && !unmatched[kind]) {
      close = find_close(s, i);
      if (close == std::string_view::npos) unmatched[kind] = true;
    }
    if (close == std::string_view::npos) {
      out += s[i++];
      continue;
    }
    std::string_view inside = s.substr(i + 1, close - i - 1);
    out += s[i];
    if (inside.size() > Diagnostics::kMaxQuoted) {
      out += utf8_prefix(inside, Diagnostics::kMaxQuoted);
      out += "...";
    } else {
      out += inside;
    }
    out += s[close];
    i = close + 1;
  }
  return out;
}

// Control bytes, backslashes and bytes that are not valid UTF-8 as C escapes: one printable line.
std::string escape_line(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      if (size_t len = utf8_length(s, i)) {
        out += s.substr(i, len);
        i += len;
        continue;
      }
      out += fmt::format("\\x{:02X}", c);
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7F) {
      out += fmt::format("\\x{:02X}", c);
    } else {
      out += static_cast<char>(c);
    }
    ++i;
  }
  return out;
}

}  // namespace

std::string bound_message(std::string_view message) {
  std::string line = escape_line(cut_quoted(message));
  if (line.size() > Diagnostics::kMaxLine) {
    line.resize(utf8_prefix(line, Diagnostics::kMaxLine - 4).size());
    line += " ...";
  }
  return line;
}

}  // namespace onnxc
