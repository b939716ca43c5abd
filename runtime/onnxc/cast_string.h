// Cast between string tensors and numbers, without a heap and without libc's number formatting
// or parsing (newlib's printf and strtod allocate). What onnxruntime does, element by element:
//
//   number -> string   floating types: printf("%.8g") of the value (float16 and bfloat16 through
//                      float), correctly rounded from its exact binary value; "NaN", "INF",
//                      "-INF" for the special values. Integers in decimal, bool "1" / "0".
//   string -> floating strtod() (the C locale: leading white space, a sign, decimal or hex
//                      digits, an exponent, "inf", "infinity", "nan" in any case; what follows the
//                      number is ignored), correctly rounded to double, then converted to the type
//                      (float16 and bfloat16 through float), as onnxruntime's stod() and cast do.
//   string -> signed   strtoll() in base 10 ("100.5" -> 100, "1e3" -> 1), then truncated to the
//                      type's bits (two's complement).
//   string -> unsigned strtoull() in base 10 ("-1" -> 2^64 - 1), then truncated; bool: nonzero.
//
// A string with no number at its start, or an integer beyond int64 (uint64 for the unsigned
// types and bool), makes the kernel return false and run() return kErrorCastString (onnxruntime
// fails the run there too). Where onnxruntime fails but the spec defines a value, onnxc gives it:
// a decimal beyond double's range is +-inf and one below its smallest subnormal rounds to the
// nearest double (0 or a subnormal), as strtod's result is.
//
// Exactness comes from integer arithmetic on big numbers (up to 4096 bits) held in the node's
// scratch (cast_string_scratch_bytes()), not on the stack.
#ifndef ONNXC_CAST_STRING_H
#define ONNXC_CAST_STRING_H

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "onnxc/base.h"
#include "onnxc/half.h"

namespace onnxc {

namespace cast_string_detail {

// ---- big unsigned integers ---------------------------------------------------------------------

constexpr int kLimbs = 128;  // 4096 bits: a parse compares numbers of at most about 2700 bits
struct Big {
  uint32_t limb[kLimbs];  // little-endian
  int n;                  // limbs in use (no leading zero limbs); 0 is n == 0
};

inline void big_set(Big& a, uint64_t v) {
  a.n = 0;
  while (v) a.limb[a.n++] = static_cast<uint32_t>(v), v >>= 32;
}

// a = a * m + add (m, add < 2^32).
inline void big_mul_add(Big& a, uint32_t m, uint32_t add) {
  uint64_t carry = add;
  for (int i = 0; i < a.n; ++i) {
    const uint64_t t = static_cast<uint64_t>(a.limb[i]) * m + carry;
    a.limb[i] = static_cast<uint32_t>(t);
    carry = t >> 32;
  }
  if (carry && a.n < kLimbs) a.limb[a.n++] = static_cast<uint32_t>(carry);
}

// a *= 5^k.
inline void big_mul_pow5(Big& a, int k) {
  for (; k >= 13; k -= 13) big_mul_add(a, 1220703125u, 0);  // 5^13 < 2^32
  uint32_t m = 1;
  for (; k > 0; --k) m *= 5;
  if (m != 1) big_mul_add(a, m, 0);
}

// a <<= k.
inline void big_shl(Big& a, int k) {
  if (a.n == 0 || k <= 0) return;
  const int words = k / 32, bits = k % 32;
  int n = a.n + words + 1;
  if (n > kLimbs) n = kLimbs;
  for (int i = n - 1; i >= 0; --i) {
    const int src = i - words;
    const uint64_t hi = src >= 0 && src < a.n ? a.limb[src] : 0;
    const uint64_t lo = src - 1 >= 0 && src - 1 < a.n ? a.limb[src - 1] : 0;
    a.limb[i] = static_cast<uint32_t>(bits ? (hi << bits | lo >> (32 - bits)) : hi);
  }
  a.n = n;
  while (a.n > 0 && a.limb[a.n - 1] == 0) --a.n;
}

inline int big_cmp(const Big& a, const Big& b) {
  if (a.n != b.n) return a.n < b.n ? -1 : 1;
  for (int i = a.n - 1; i >= 0; --i)
    if (a.limb[i] != b.limb[i]) return a.limb[i] < b.limb[i] ? -1 : 1;
  return 0;
}

// ---- number -> string --------------------------------------------------------------------------

// A big number in base 10^9 (for the exact decimal expansion of a double).
constexpr int kDecLimbs = 96;  // 864 digits: 2^53 * 5^1074 has 767
struct Dec {
  uint32_t limb[kDecLimbs];
  int n;
};

inline void dec_mul_add(Dec& a, uint32_t m, uint32_t add) {
  uint64_t carry = add;
  for (int i = 0; i < a.n; ++i) {
    const uint64_t t = static_cast<uint64_t>(a.limb[i]) * m + carry;
    a.limb[i] = static_cast<uint32_t>(t % 1000000000u);
    carry = t / 1000000000u;
  }
  while (carry && a.n < kDecLimbs) {
    a.limb[a.n++] = static_cast<uint32_t>(carry % 1000000000u);
    carry /= 1000000000u;
  }
}

inline int count_digits(uint32_t v) {
  int d = 1;
  while (v >= 10) v /= 10, ++d;
  return d;
}

// Digit i (0: the most significant) of a, which has `total` digits.
inline int dec_digit(const Dec& a, int total, int i) {
  const int from_low = total - 1 - i;  // position counted from the least significant digit
  uint32_t v = a.limb[from_low / 9];
  for (int k = from_low % 9; k > 0; --k) v /= 10;
  return static_cast<int>(v % 10);
}

inline char* put_uint(char* out, uint64_t v) {
  char tmp[20];
  int n = 0;
  do tmp[n++] = static_cast<char>('0' + v % 10), v /= 10;
  while (v);
  while (n) *out++ = tmp[--n];
  return out;
}

// printf("%.8g", v) into out (at least 16 bytes); returns the length. Exact: the decimal
// expansion of v's binary value is computed in full, then rounded half to even.
// v (finite, >= 0) = *m * 2^*e2 with *m < 2^53 (below 2^52 only for subnormals); returns the
// biased exponent field (0: subnormal or zero).
inline int decompose(double v, uint64_t* m, int* e2) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  const int biased = static_cast<int>(bits >> 52);
  *m = bits & ((uint64_t{1} << 52) - 1);
  *e2 = -1074;
  if (biased) *m |= uint64_t{1} << 52, *e2 = biased - 1075;
  return biased;
}

inline int format_g8(double v, char* out, Dec& dec) {
  char* p = out;
  if (v != v) return std::memcpy(out, "NaN", 3), 3;
  if (v < 0 || (v == 0 && 1 / v < 0)) *p++ = '-', v = -v;
  if (v > std::numeric_limits<double>::max())
    return std::memcpy(p, "INF", 3), static_cast<int>(p - out) + 3;
  if (v == 0) return *p++ = '0', static_cast<int>(p - out);
  uint64_t m;
  int e;
  decompose(v, &m, &e);
  // v = m * 2^e = digits * 10^-shift, digits = m * 2^e (e >= 0) or m * 5^-e (e < 0).
  dec.limb[0] = static_cast<uint32_t>(m % 1000000000u);
  dec.n = 1;
  for (uint64_t rest = m / 1000000000u; rest; rest /= 1000000000u)
    dec.limb[dec.n++] = static_cast<uint32_t>(rest % 1000000000u);
  int shift = 0;
  if (e >= 0) {
    for (int k = e; k > 0; k -= 29) dec_mul_add(dec, uint32_t{1} << (k < 29 ? k : 29), 0);
  } else {
    shift = -e;
    for (int k = -e; k > 0; k -= 13) {
      uint32_t f = 1;
      for (int j = 0; j < (k < 13 ? k : 13); ++j) f *= 5;
      dec_mul_add(dec, f, 0);
    }
  }
  const int total = count_digits(dec.limb[dec.n - 1]) + 9 * (dec.n - 1);
  int exp10 = total - 1 - shift;  // v = d.ddd... * 10^exp10
  // The first 8 digits, rounded half to even on the rest.
  uint32_t q = 0;
  for (int i = 0; i < 8; ++i)
    q = q * 10 + static_cast<uint32_t>(i < total ? dec_digit(dec, total, i) : 0);
  if (total > 8) {
    const int next = dec_digit(dec, total, 8);
    bool rest = false;
    for (int i = 9; i < total && !rest; ++i) rest = dec_digit(dec, total, i) != 0;
    if (next > 5 || (next == 5 && (rest || q % 2 == 1))) ++q;
    if (q == 100000000u) q = 10000000u, ++exp10;
  }
  char d[8];
  for (int i = 7; i >= 0; --i) d[i] = static_cast<char>('0' + q % 10), q /= 10;
  int last = 7;  // %g drops trailing zeros of the fraction
  while (last > 0 && d[last] == '0') --last;
  if (exp10 < -4 || exp10 >= 8) {  // d.ddddddde+XX
    *p++ = d[0];
    if (last > 0) {
      *p++ = '.';
      for (int i = 1; i <= last; ++i) *p++ = d[i];
    }
    *p++ = 'e';
    *p++ = exp10 < 0 ? '-' : '+';
    const int ax = exp10 < 0 ? -exp10 : exp10;
    if (ax < 10) *p++ = '0';
    p = put_uint(p, static_cast<uint64_t>(ax));
  } else if (exp10 >= 0) {  // ddd.ddd
    for (int i = 0; i <= exp10; ++i) *p++ = d[i];
    if (last > exp10) {
      *p++ = '.';
      for (int i = exp10 + 1; i <= last; ++i) *p++ = d[i];
    }
  } else {  // 0.000ddd
    *p++ = '0';
    *p++ = '.';
    for (int i = 0; i < -exp10 - 1; ++i) *p++ = '0';
    for (int i = 0; i <= last; ++i) *p++ = d[i];
  }
  return static_cast<int>(p - out);
}

// ---- string -> number --------------------------------------------------------------------------

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kMaxDouble = std::numeric_limits<double>::max();
constexpr double kMinSubnormal = std::numeric_limits<double>::denorm_min();

inline bool is_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}
inline char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}
inline bool starts_with(const char* s, const char* end, const char* word) {
  for (; *word; ++s, ++word)
    if (s >= end || lower(*s) != *word) return false;
  return true;
}
inline int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = lower(c);
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

// mant * 2^exp2 (+ a nonzero tail below mant's last bit when `sticky`) rounded half to even.
inline double make_double(uint64_t mant, int exp2, bool sticky) {
  if (mant == 0) return 0.0;
  int top = 63;
  while (!(mant >> top)) --top;
  // The result's last kept bit has weight 2^lsb: 53 significant bits, or fewer below 2^-1022.
  int lsb = exp2 + top - 52;
  if (lsb < -1074) lsb = -1074;
  const int drop = lsb - exp2;  // bits of mant below the kept ones
  uint64_t kept = mant;
  if (drop > 64) return 0.0;  // below half the smallest subnormal
  if (drop > 0) {
    const uint64_t lost = drop == 64 ? mant : mant & ((uint64_t{1} << drop) - 1);
    const uint64_t half = uint64_t{1} << (drop - 1);
    kept = drop == 64 ? 0 : mant >> drop;
    if (lost > half || (lost == half && (sticky || (kept & 1)))) ++kept;
  } else if (drop < 0) {
    kept = mant << -drop;
  }
  if (kept >> 53) kept >>= 1, ++lsb;     // the rounding carried into a new bit
  if (lsb > 971) return kInf;            // beyond DBL_MAX
  double r = static_cast<double>(kept);  // exact: kept < 2^53
  // r * 2^lsb by powers of two: every intermediate is kept * 2^j with j between 0 and lsb, a
  // multiple of at least 2^-1074 below 2^(53 + j), so representable: the scaling is exact.
  for (; lsb >= 64; lsb -= 64) r *= 18446744073709551616.0;
  for (; lsb <= -64; lsb += 64) r *= 5.42101086242752217e-20;  // 2^-64
  for (; lsb > 0; --lsb) r *= 2.0;
  for (; lsb < 0; ++lsb) r *= 0.5;
  return r;
}

// A decimal significand of up to kMaxDigits digits, the rest folded into one trailing 1 (so a
// long string is never taken for an exact halfway point, which has at most 767 digits).
constexpr int kMaxDigits = 800;

struct ParseScratch {
  Big a, b;
  char digits[kMaxDigits + 1];
};

// x = digits * 10^e10 against the halfway point h2 * 2^(e2 - 1) (h2 odd): -1, 0 or 1.
inline int compare_halfway(const char* digits, int nd, int e10, uint64_t h2, int e2,
                           ParseScratch& s) {
  big_set(s.a, 0);
  for (int i = 0; i < nd; ++i) {  // nine digits at a time
    uint32_t chunk = 0, scale = 1;
    int k = 0;
    for (; k < 9 && i + k < nd; ++k)
      chunk = chunk * 10 + static_cast<uint32_t>(digits[i + k] - '0'), scale *= 10;
    if (s.a.n == 0)
      big_set(s.a, chunk);
    else
      big_mul_add(s.a, scale, chunk);
    i += k - 1;
  }
  big_set(s.b, h2);
  // digits * 2^e10 * 5^e10 vs h2 * 2^(e2 - 1): the powers of 5 go to the side where they are
  // positive, then the powers of 2 are aligned.
  int pa = e10, pb = e2 - 1;
  if (e10 >= 0)
    big_mul_pow5(s.a, e10);
  else
    big_mul_pow5(s.b, -e10);
  if (pa > pb)
    big_shl(s.a, pa - pb);
  else
    big_shl(s.b, pb - pa);
  return big_cmp(s.a, s.b);
}

// The double nearest digits * 10^e10 (digits: nd decimal digits, the first nonzero).
inline double decimal_to_double(const char* digits, int nd, int e10, ParseScratch& s) {
  if (nd + e10 > 310) return kInf;
  if (nd + e10 < -330) return 0.0;
  // A first guess from the leading 19 digits and double arithmetic (off by a few units in the
  // last place at most), then exact comparisons with the halfway points move it to the answer.
  uint64_t lead = 0;
  const int nl = nd < 19 ? nd : 19;
  for (int i = 0; i < nl; ++i) lead = lead * 10 + static_cast<uint64_t>(digits[i] - '0');
  double z = static_cast<double>(lead);
  int k = e10 + (nd - nl);
  for (; k >= 22; k -= 22) z *= 1e22;
  for (; k <= -22; k += 22) z /= 1e22;
  static const double kPow10[22] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                    1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                    1e16, 1e17, 1e18, 1e19, 1e20, 1e21};
  z = k >= 0 ? z * kPow10[k] : z / kPow10[-k];
  if (z > kMaxDouble) z = kMaxDouble;
  for (int step = 0; step < 4000; ++step) {  // a handful in practice
    uint64_t m, bits;
    int e2;
    const int biased = decompose(z, &m, &e2);
    std::memcpy(&bits, &z, sizeof bits);  // its neighbours are bits +- 1
    if (m == 0) {                         // z == 0: the halfway point up is 2^-1075
      if (compare_halfway(digits, nd, e10, 1, -1074, s) <= 0) return 0.0;  // ties to even: 0
      z = kMinSubnormal;
      continue;
    }
    const int up = compare_halfway(digits, nd, e10, 2 * m + 1, e2, s);
    if (up > 0 || (up == 0 && (m & 1))) {
      if (z == kMaxDouble) return kInf;
      bits += 1;
      std::memcpy(&z, &bits, sizeof z);
      if (up == 0) return z;
      continue;
    }
    if (up == 0) return z;
    // The halfway point down: (2m - 1) * 2^(e2 - 1), or at a binade's bottom (m = 2^52, normal),
    // where the ulp below is half as large, (4m - 1) * 2^(e2 - 2).
    const bool bottom = m == uint64_t{1} << 52 && biased > 1;
    const int dn = bottom ? compare_halfway(digits, nd, e10, 4 * m - 1, e2 - 1, s)
                          : compare_halfway(digits, nd, e10, 2 * m - 1, e2, s);
    if (dn > 0 || (dn == 0 && !(m & 1))) return z;
    bits -= 1;
    std::memcpy(&z, &bits, sizeof z);
    if (dn == 0) return z;  // the lower neighbour is the even one
  }
  return z;
}

// The exponent of a suffix "<marker>[+-]digits" (either case) at s, 0 when there is none (a
// marker without digits is not part of the number); clamped far beyond any double's range.
inline int exponent_suffix(const char* s, const char* end, char marker) {
  if (s >= end || lower(*s) != marker) return 0;
  ++s;
  bool neg = false;
  if (s < end && (*s == '+' || *s == '-')) neg = *s++ == '-';
  int e = 0;
  for (; s < end && *s >= '0' && *s <= '9'; ++s)
    if (e < 100000) e = e * 10 + (*s - '0');
  return neg ? -e : e;
}

// strtod on [s, end): false when no number starts the string (after white space).
inline bool parse_double(const char* s, const char* end, double* out, ParseScratch& scratch) {
  while (s < end && is_space(*s)) ++s;
  bool neg = false;
  if (s < end && (*s == '+' || *s == '-')) neg = *s++ == '-';
  double v;
  if (starts_with(s, end, "inf")) {
    v = kInf;
  } else if (starts_with(s, end, "nan")) {
    v = std::numeric_limits<double>::quiet_NaN();
  } else if (s + 1 < end && s[0] == '0' && lower(s[1]) == 'x' &&
             (hex_value(s + 2 < end ? s[2] : 0) >= 0 ||
              (s + 3 < end && s[2] == '.' && hex_value(s[3]) >= 0))) {
    s += 2;
    uint64_t mant = 0;
    int exp2 = 0;
    bool sticky = false, point = false;
    for (; s < end && (hex_value(*s) >= 0 || (*s == '.' && !point)); ++s) {
      if (*s == '.') {
        point = true;
        continue;
      }
      const int h = hex_value(*s);
      if (mant >> 60) {  // 64 bits kept; the rest only matters as a nonzero tail
        sticky |= h != 0;
        if (!point) exp2 += 4;
      } else {
        mant = mant << 4 | static_cast<uint64_t>(h);
        if (point) exp2 -= 4;
      }
    }
    v = make_double(mant, exp2 + exponent_suffix(s, end, 'p'), sticky);
  } else {
    char* digits = scratch.digits;
    int nd = 0, e10 = 0;
    bool any = false, point = false, tail = false;
    for (; s < end && ((*s >= '0' && *s <= '9') || (*s == '.' && !point)); ++s) {
      if (*s == '.') {
        point = true;
        continue;
      }
      any = true;
      if (nd == 0 && *s == '0') {  // leading zeros only move the point
        if (point) --e10;
        continue;
      }
      if (nd < kMaxDigits) {
        digits[nd++] = *s;
        if (point) --e10;
      } else {
        tail |= *s != '0';
        if (!point) ++e10;
      }
    }
    if (!any) return false;
    if (tail) digits[nd++] = '1', --e10;  // the folded tail (see kMaxDigits)
    e10 += exponent_suffix(s, end, 'e');
    v = nd == 0 ? 0.0 : decimal_to_double(digits, nd, e10, scratch);
  }
  *out = neg ? -v : v;
  return true;
}

// strtoll's and strtoull's grammar in base 10: white space, a sign, digits. The magnitude in
// *v and the sign in *neg; false without digits or with a magnitude over limit(neg).
template <class Limit>
inline bool parse_magnitude(const char* s, const char* end, Limit limit, uint64_t* v, bool* neg) {
  while (s < end && is_space(*s)) ++s;
  *neg = false;
  if (s < end && (*s == '+' || *s == '-')) *neg = *s++ == '-';
  if (s >= end || *s < '0' || *s > '9') return false;
  const uint64_t most = limit(*neg);
  *v = 0;
  for (; s < end && *s >= '0' && *s <= '9'; ++s) {
    const uint64_t d = static_cast<uint64_t>(*s - '0');
    if (*v > (most - d) / 10) return false;
    *v = *v * 10 + d;
  }
  return true;
}

// strtoll (base 10) on [s, end): false without digits or beyond int64.
inline bool parse_int64(const char* s, const char* end, int64_t* out) {
  uint64_t v;
  bool neg;
  const auto limit = [](bool n) { return n ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1; };
  if (!parse_magnitude(s, end, limit, &v, &neg)) return false;
  *out = neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
  return true;
}

// strtoull (base 10) on [s, end): a '-' negates modulo 2^64; false without digits or beyond
// uint64.
inline bool parse_uint64(const char* s, const char* end, uint64_t* out) {
  uint64_t v;
  bool neg;
  if (!parse_magnitude(
          s, end, [](bool) { return ~uint64_t{0}; }, &v, &neg))
    return false;
  *out = neg ? 0 - v : v;
  return true;
}

template <typename T>
constexpr bool is_floating() {
  return std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, float16> ||
         std::is_same_v<T, bfloat16>;
}

}  // namespace cast_string_detail

// Scratch bytes of the string casts.
constexpr index_t cast_string_scratch_bytes() {
  return static_cast<index_t>(sizeof(cast_string_detail::ParseScratch) >
                                      sizeof(cast_string_detail::Dec)
                                  ? sizeof(cast_string_detail::ParseScratch)
                                  : sizeof(cast_string_detail::Dec));
}

// Bytes the string of any value of T takes (without the NUL): the capacity of Cast's output.
template <typename T>
constexpr index_t cast_string_capacity() {
  if constexpr (cast_string_detail::is_floating<T>()) return 15;  // -1.2345678e-308
  if constexpr (std::is_same_v<T, bool>) return 1;
  if constexpr (std::is_signed_v<T>)
    return sizeof(T) == 1 ? 4 : sizeof(T) == 2 ? 6 : sizeof(T) == 4 ? 11 : 20;
  return sizeof(T) == 1 ? 3 : sizeof(T) == 2 ? 5 : sizeof(T) == 4 ? 10 : 20;
}

// y (n slots of y_slot bytes) = the strings of x; false if one does not fit its slot.
template <typename T>
inline bool cast_to_string_ref(const T* x, index_t n, char* y, index_t y_slot, void* scratch) {
  auto& dec = *static_cast<cast_string_detail::Dec*>(scratch);
  char buf[24];
  for (index_t i = 0; i < n; ++i) {
    int len;
    if constexpr (cast_string_detail::is_floating<T>()) {
      double v;
      if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>)
        v = static_cast<double>(to_float(x[i]));
      else
        v = static_cast<double>(x[i]);
      len = cast_string_detail::format_g8(v, buf, dec);
    } else if constexpr (std::is_same_v<T, bool>) {
      buf[0] = x[i] ? '1' : '0', len = 1;
    } else if constexpr (std::is_signed_v<T>) {
      const int64_t v = static_cast<int64_t>(x[i]);
      char* p = buf;
      if (v < 0) *p++ = '-';
      p = cast_string_detail::put_uint(
          p, v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v));
      len = static_cast<int>(p - buf);
    } else {
      len = static_cast<int>(cast_string_detail::put_uint(buf, static_cast<uint64_t>(x[i])) - buf);
    }
    if (len >= y_slot) return false;
    char* dst = y + i * y_slot;
    std::memcpy(dst, buf, static_cast<std::size_t>(len));
    dst[len] = 0;
  }
  return true;
}

// y = the numbers the strings of x (n slots of x_slot bytes) spell; false if one spells none.
template <typename T>
inline bool cast_from_string_ref(const char* x, index_t x_slot, index_t n, T* y, void* scratch) {
  auto& ps = *static_cast<cast_string_detail::ParseScratch*>(scratch);
  for (index_t i = 0; i < n; ++i) {
    const char* s = x + i * x_slot;
    const void* nul = std::memchr(s, 0, static_cast<std::size_t>(x_slot));
    const char* end = nul ? static_cast<const char*>(nul) : s + x_slot;
    if constexpr (cast_string_detail::is_floating<T>()) {
      double v;
      if (!cast_string_detail::parse_double(s, end, &v, ps)) return false;
      if constexpr (std::is_same_v<T, double>)
        y[i] = v;
      else if constexpr (std::is_same_v<T, float>)
        y[i] = static_cast<float>(v);
      else if constexpr (std::is_same_v<T, float16>)
        y[i] = to_float16(static_cast<double>(static_cast<float>(v)));
      else
        y[i] = to_bfloat16(static_cast<double>(static_cast<float>(v)));
    } else if constexpr (std::is_same_v<T, bool> || std::is_unsigned_v<T>) {
      uint64_t v;
      if (!cast_string_detail::parse_uint64(s, end, &v)) return false;
      if constexpr (std::is_same_v<T, bool>)
        y[i] = v != 0;
      else
        y[i] = static_cast<T>(v);
    } else {
      int64_t v;
      if (!cast_string_detail::parse_int64(s, end, &v)) return false;
      y[i] = static_cast<T>(v);
    }
  }
  return true;
}

}  // namespace onnxc

#endif  // ONNXC_CAST_STRING_H
