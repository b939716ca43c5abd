// String tensors without a heap: fixed-capacity slots, and the kernels of the string ops.
//
// Representation. A string tensor of N elements whose capacity is C bytes (planned at compile
// time) is N slots of C + 1 bytes, element i at `base + i * (C + 1)`: its UTF-8 bytes followed by
// a NUL. The C++ type of a string tensor is therefore `char*` (`const char*` for inputs), and
// element i of an input or output is the C string `p + i * kSlot`. Where C comes from:
//   - a string constant: its longest string;
//   - a graph input: `--max-string-length NAME=N` (default 64; `onnxc test` takes the longest
//     string of the case's inputs);
//   - an op's output: its infer() derives it (StringConcat: the sum of its inputs',
//   StringNormalizer
//     and StringSplit: their input's, LabelEncoder: its longest value string).
// A slot with no NUL among its C + 1 bytes holds a string longer than its capacity: kernels never
// read past the slot; they return false and run() returns kStringTooLong. A string cannot hold a
// NUL byte. Nothing here allocates; the regex matcher's thread lists are the node's arena scratch.
#ifndef ONNXC_STRINGS_H
#define ONNXC_STRINGS_H

#include <cstdint>
#include <cstring>

#include "onnxc/base.h"
#include "onnxc/binary.h"

namespace onnxc {

// run() returns kStringTooLong (onnxc/base.h) when a string does not fit its slot (an input
// longer than the capacity declared for it, or a case mapping that grew a string past its output's
// capacity).

struct StringRef {
  const char* data;
  index_t size;
};

// Element i of a slot array; size -1 when the slot has no NUL (longer than its capacity).
inline StringRef string_at(const char* base, index_t slot, index_t i) {
  const char* p = base + i * slot;
  const void* nul = std::memchr(p, 0, static_cast<std::size_t>(slot));
  return {p, nul ? static_cast<const char*>(nul) - p : -1};
}

// Writes the bytes of `parts` (count pieces) end to end into a slot; false if they do not fit.
inline bool string_store(char* slot_p, index_t slot, const StringRef* parts, int count) {
  index_t n = 0;
  for (int k = 0; k < count; ++k) n += parts[k].size;
  if (n >= slot) return false;
  for (int k = 0; k < count; ++k) {
    if (parts[k].size) std::memcpy(slot_p, parts[k].data, static_cast<std::size_t>(parts[k].size));
    slot_p += parts[k].size;
  }
  *slot_p = 0;
  return true;
}

inline bool string_equal(StringRef a, StringRef b) {
  return a.size == b.size &&
         (a.size == 0 || std::memcmp(a.data, b.data, static_cast<std::size_t>(a.size)) == 0);
}

// Calls f(out_index, a_index, b_index) for every element of a broadcast (see binary.h); stops and
// returns false as soon as f does.
template <typename F>
inline bool broadcast_each(const BroadcastParams& p, F f) {
  index_t idx[kMaxRank] = {};
  index_t ao = 0, bo = 0;
  for (index_t i = 0; i < p.numel; ++i) {
    if (!f(i, ao, bo)) return false;
    for (int d = p.rank - 1; d >= 0; --d) {
      ao += p.a_strides[d];
      bo += p.b_strides[d];
      if (++idx[d] < p.dims[d]) break;
      ao -= p.a_strides[d] * p.dims[d];
      bo -= p.b_strides[d] * p.dims[d];
      idx[d] = 0;
    }
  }
  return true;
}

// Slot sizes of a broadcast string op's operands and output.
struct StringSlots {
  index_t a, b, y;
};

// Equal on strings: y = (a == b), broadcast.
inline bool string_equal_ref(const BroadcastParams& p, StringSlots s, const char* a, const char* b,
                             bool* y) {
  return broadcast_each(p, [&](index_t i, index_t ia, index_t ib) {
    StringRef x = string_at(a, s.a, ia), z = string_at(b, s.b, ib);
    if (x.size < 0 || z.size < 0) return false;
    y[i] = string_equal(x, z);
    return true;
  });
}

// StringConcat: y = a + b, broadcast.
inline bool string_concat_ref(const BroadcastParams& p, StringSlots s, const char* a, const char* b,
                              char* y) {
  return broadcast_each(p, [&](index_t i, index_t ia, index_t ib) {
    StringRef parts[2] = {string_at(a, s.a, ia), string_at(b, s.b, ib)};
    if (parts[0].size < 0 || parts[1].size < 0) return false;
    return string_store(y + i * s.y, s.y, parts, 2);
  });
}

// Copies n strings between slot arrays of possibly different sizes (Identity, folded outputs).
inline bool string_copy_ref(index_t n, const char* x, index_t x_slot, char* y, index_t y_slot) {
  for (index_t i = 0; i < n; ++i) {
    StringRef s = string_at(x, x_slot, i);
    if (s.size < 0 || !string_store(y + i * y_slot, y_slot, &s, 1)) return false;
  }
  return true;
}

// ---- Case mapping (StringNormalizer) ----------------------------------------------------------
// Simple (one code point to one code point) case mapping of the scripts whose upper and lower
// case letters have UTF-8 encodings of the same length: ASCII, Latin-1, Greek and Cyrillic. A
// mapped string therefore has the length of the original, and other code points are unchanged.

// The code point starting at s[i] (len bytes), or the byte itself when the sequence is invalid.
inline std::uint32_t utf8_decode(const char* s, index_t n, index_t i, int* len) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  int need = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
  if (need < 0 || i + need >= n + (need ? 0 : 1)) {
    *len = 1;
    return c;
  }
  std::uint32_t cp = need == 0 ? c : c & (0x3Fu >> need);
  for (int k = 1; k <= need; ++k) {
    const unsigned char t = static_cast<unsigned char>(s[i + k]);
    if ((t & 0xC0) != 0x80) {
      *len = 1;
      return c;
    }
    cp = (cp << 6) | (t & 0x3F);
  }
  *len = need + 1;
  return cp;
}

inline std::uint32_t to_upper_cp(std::uint32_t c) {
  if (c >= 'a' && c <= 'z') return c - 32;
  if (c >= 0xE0 && c <= 0xFE && c != 0xF7) return c - 32;     // Latin-1
  if (c >= 0x3B1 && c <= 0x3C9 && c != 0x3C2) return c - 32;  // Greek
  if (c >= 0x430 && c <= 0x44F) return c - 32;                // Cyrillic
  if (c >= 0x450 && c <= 0x45F) return c - 80;                // Cyrillic Ѐ..Џ
  return c;
}
inline std::uint32_t to_lower_cp(std::uint32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 32;
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;
  if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) return c + 32;
  if (c >= 0x410 && c <= 0x42F) return c + 32;
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  return c;
}

// Writes s case-mapped into out (s.size bytes): mode 1 lower, 2 upper, 0 none.
inline void string_map_case(StringRef s, int mode, char* out) {
  for (index_t i = 0; i < s.size;) {
    int len = 1;
    const std::uint32_t c = utf8_decode(s.data, s.size, i, &len);
    const std::uint32_t m = mode == 1 ? to_lower_cp(c) : mode == 2 ? to_upper_cp(c) : c;
    if (m == c || len == 1) {
      if (len == 1)
        out[i] = m < 0x80 ? static_cast<char>(m) : s.data[i];
      else
        std::memcpy(out + i, s.data + i, static_cast<std::size_t>(len));
    } else {  // same length: both 2-byte sequences
      out[i] = static_cast<char>(0xC0 | (m >> 6));
      out[i + 1] = static_cast<char>(0x80 | (m & 0x3F));
    }
    i += len;
  }
}

// Equal up to case (both compared lower-cased), for case-insensitive stopwords.
inline bool string_equal_nocase(StringRef a, StringRef b) {
  if (a.size != b.size) return false;
  for (index_t i = 0; i < a.size;) {
    int la = 1, lb = 1;
    const std::uint32_t x = utf8_decode(a.data, a.size, i, &la);
    const std::uint32_t y = utf8_decode(b.data, b.size, i, &lb);
    if (la != lb || to_lower_cp(x) != to_lower_cp(y)) return false;
    i += la;
  }
  return true;
}

struct StringNormalizerParams {
  index_t n;  // input strings
  index_t x_slot, y_slot;
  int case_mode;        // 0 NONE, 1 LOWER, 2 UPPER
  bool case_sensitive;  // stopwords compared exactly (else up to case)
  const char* const* stopwords;
  index_t num_stopwords;
};

// StringNormalizer: drops stopwords, maps case; writes the kept strings to y and their count to
// *kept (when every string is dropped, y holds one empty string and *kept is 1, per the spec).
inline bool string_normalizer_ref(const StringNormalizerParams& p, const char* x, char* y,
                                  index_t* kept) {
  index_t k = 0;
  for (index_t i = 0; i < p.n; ++i) {
    StringRef s = string_at(x, p.x_slot, i);
    if (s.size < 0 || s.size >= p.y_slot) return false;
    bool stop = false;
    for (index_t w = 0; w < p.num_stopwords && !stop; ++w) {
      StringRef sw{p.stopwords[w], static_cast<index_t>(std::strlen(p.stopwords[w]))};
      stop = p.case_sensitive ? string_equal(s, sw) : string_equal_nocase(s, sw);
    }
    if (stop) continue;
    char* out = y + k * p.y_slot;
    string_map_case(s, p.case_mode, out);
    out[s.size] = 0;
    ++k;
  }
  if (k == 0) y[0] = 0;
  *kept = k == 0 ? 1 : k;
  return true;
}

// ---- StringSplit ------------------------------------------------------------------------------

// Splits s at `delim` (empty: at runs of ASCII whitespace, dropping leading and trailing ones),
// at most maxsplit times (negative: no limit), calling f(part) for each part; returns the count.
template <typename F>
inline index_t string_split_each(StringRef s, StringRef delim, index_t maxsplit, F f) {
  index_t parts = 0, i = 0;
  if (delim.size == 0) {
    auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
    while (i < s.size && space(s.data[i])) ++i;
    while (i < s.size) {
      index_t j = i;
      if (maxsplit >= 0 && parts == maxsplit) {
        index_t end = s.size;
        while (end > i && space(s.data[end - 1])) --end;
        f(StringRef{s.data + i, end - i});
        return parts + 1;
      }
      while (j < s.size && !space(s.data[j])) ++j;
      f(StringRef{s.data + i, j - i});
      ++parts;
      i = j;
      while (i < s.size && space(s.data[i])) ++i;
    }
    return parts;
  }
  if (s.size == 0) return 0;
  for (;;) {
    index_t j = i;
    bool found = false;
    if (maxsplit < 0 || parts < maxsplit)
      for (; j + delim.size <= s.size; ++j)
        if (std::memcmp(s.data + j, delim.data, static_cast<std::size_t>(delim.size)) == 0) {
          found = true;
          break;
        }
    if (!found) {
      f(StringRef{s.data + i, s.size - i});
      return parts + 1;
    }
    f(StringRef{s.data + i, j - i});
    ++parts;
    i = j + delim.size;
  }
}

// ---- LabelEncoder ------------------------------------------------------------------------------

// String keys to values of type V (numbers, or `const char*` written into y's slots): y[i] is the
// value of the first key equal to x[i], else the fallback.
template <typename V>
inline bool label_encode_strings_ref(index_t n, const char* x, index_t x_slot,
                                     const char* const* keys, index_t num_keys, const V* values,
                                     V fallback, V* y) {
  for (index_t i = 0; i < n; ++i) {
    StringRef s = string_at(x, x_slot, i);
    if (s.size < 0) return false;
    y[i] = fallback;
    for (index_t k = 0; k < num_keys; ++k)
      if (std::strlen(keys[k]) == static_cast<std::size_t>(s.size) &&
          std::memcmp(keys[k], s.data, static_cast<std::size_t>(s.size)) == 0) {
        y[i] = values[k];
        break;
      }
  }
  return true;
}

// Keys of type K (strings when K is `const char*` read from x's slots) to string values.
template <typename K>
inline bool label_encode_to_strings_ref(index_t n, const K* x, const K* keys, index_t num_keys,
                                        const char* const* values, const char* fallback, char* y,
                                        index_t y_slot) {
  for (index_t i = 0; i < n; ++i) {
    const char* v = fallback;
    for (index_t k = 0; k < num_keys; ++k)
      if (x[i] == keys[k]) {
        v = values[k];
        break;
      }
    StringRef part{v, static_cast<index_t>(std::strlen(v))};
    if (!string_store(y + i * y_slot, y_slot, &part, 1)) return false;
  }
  return true;
}

// String keys to string values.
inline bool label_encode_strings_to_strings_ref(index_t n, const char* x, index_t x_slot,
                                                const char* const* keys, index_t num_keys,
                                                const char* const* values, const char* fallback,
                                                char* y, index_t y_slot) {
  for (index_t i = 0; i < n; ++i) {
    StringRef s = string_at(x, x_slot, i);
    if (s.size < 0) return false;
    const char* v = fallback;
    for (index_t k = 0; k < num_keys; ++k)
      if (string_equal(s, StringRef{keys[k], static_cast<index_t>(std::strlen(keys[k]))})) {
        v = values[k];
        break;
      }
    StringRef part{v, static_cast<index_t>(std::strlen(v))};
    if (!string_store(y + i * y_slot, y_slot, &part, 1)) return false;
  }
  return true;
}

// ---- RegexFullMatch ---------------------------------------------------------------------------
// The pattern is compiled by onnxc into a Thompson NFA over bytes
// (compiler/ops/text/strings_regex.cpp) printed as constant data; this runs it as a Pike VM: one
// pass over the string, the set of live states in two lists of the node's scratch
// (regex_scratch_bytes: 13 bytes per state).

enum RegexOp : std::uint8_t {
  kRegexByte,    // consume one byte in class `arg` (a 256-bit set), go to next
  kRegexSplit,   // go to `arg` and to `arg2`
  kRegexJump,    // go to `arg`
  kRegexAssert,  // zero-width: `arg` 0 ^ (text start), 1 $ (text end), 2 \b, 3 \B
  kRegexMatch,
};

struct RegexInst {
  std::uint8_t op;
  std::int32_t arg, arg2;
};

struct RegexProgram {
  const RegexInst* insts;
  std::int32_t num_insts;
  const std::uint32_t (*classes)[8];  // 256-bit byte sets
};

inline bool regex_word(int c) {
  return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Adds state pc and everything reachable from it without consuming a byte at position i.
inline void regex_add(const RegexProgram& p, std::int32_t* list, std::int32_t* count,
                      unsigned char* on, std::int32_t* stack, std::int32_t pc, StringRef s,
                      index_t i) {
  // A state is marked when pushed, so the stack never holds more than num_insts entries.
  std::int32_t top = 0;
  auto push = [&](std::int32_t q) {
    if (!on[q]) on[q] = 1, stack[top++] = q;
  };
  push(pc);
  while (top) {
    const std::int32_t q = stack[--top];
    const RegexInst& in = p.insts[q];
    if (in.op == kRegexJump) {
      push(in.arg);
    } else if (in.op == kRegexSplit) {
      push(in.arg2);
      push(in.arg);
    } else if (in.op == kRegexAssert) {
      const int prev = i > 0 ? static_cast<unsigned char>(s.data[i - 1]) : -1;
      const int next = i < s.size ? static_cast<unsigned char>(s.data[i]) : -1;
      const bool boundary = regex_word(prev) != regex_word(next);
      const bool ok = in.arg == 0   ? i == 0
                      : in.arg == 1 ? i == s.size
                      : in.arg == 2 ? boundary
                                    : !boundary;
      if (ok) push(q + 1);
    } else {
      list[(*count)++] = q;
    }
  }
}

// Scratch bytes regex_full_match needs for a program of n instructions.
constexpr std::size_t regex_scratch_bytes(std::int32_t n) {
  return static_cast<std::size_t>(n) * (3 * sizeof(std::int32_t) + 1);
}

// True when the whole of s matches.
inline bool regex_full_match(const RegexProgram& p, StringRef s, void* scratch) {
  const std::int32_t n = p.num_insts;
  std::int32_t* cur = static_cast<std::int32_t*>(scratch);
  std::int32_t* next = cur + n;
  std::int32_t* stack = next + n;
  unsigned char* on = reinterpret_cast<unsigned char*>(stack + n);
  std::int32_t nc = 0;
  std::memset(on, 0, static_cast<std::size_t>(n));
  regex_add(p, cur, &nc, on, stack, 0, s, 0);
  for (index_t i = 0;; ++i) {
    if (i == s.size) {
      for (std::int32_t k = 0; k < nc; ++k)
        if (p.insts[cur[k]].op == kRegexMatch) return true;
      return false;
    }
    const unsigned char c = static_cast<unsigned char>(s.data[i]);
    std::int32_t nn = 0;
    std::memset(on, 0, static_cast<std::size_t>(n));
    for (std::int32_t k = 0; k < nc; ++k) {
      const RegexInst& in = p.insts[cur[k]];
      if (in.op == kRegexByte && (p.classes[in.arg][c >> 5] >> (c & 31) & 1u))
        regex_add(p, next, &nn, on, stack, cur[k] + 1, s, i + 1);
    }
    if (nn == 0) return false;
    std::int32_t* t = cur;
    cur = next;
    next = t;
    nc = nn;
  }
}

inline bool regex_full_match_ref(const RegexProgram& p, index_t n, const char* x, index_t x_slot,
                                 bool* y, void* scratch) {
  for (index_t i = 0; i < n; ++i) {
    StringRef s = string_at(x, x_slot, i);
    if (s.size < 0) return false;
    y[i] = regex_full_match(p, s, scratch);
  }
  return true;
}

}  // namespace onnxc

#endif  // ONNXC_STRINGS_H
