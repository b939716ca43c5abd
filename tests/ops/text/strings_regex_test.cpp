// The regex compiler (ops/text/strings_regex.cpp) and the Pike VM of onnxc/strings.h against an
// independent reference: a backtracking matcher written here directly over the pattern text
// (it shares no code with the compiler: its own parser-free recursive descent, continuation
// passing), on random strings over a small alphabet, plus the conformance patterns and refusals.
#include <catch2/catch.hpp>
#include <functional>
#include <random>
#include <string>

#include "onnxc/strings.h"
#include "ops/strings.h"

using namespace onnxc;

namespace {

// ---- Reference: backtracking over the pattern text ---------------------------------------------
// Supports the syntax the random patterns use: literals, ., [..], [^..], \d \w \s \b, ^ $, ( ),
// |, * + ? {m,n}. match_alt(p, i, s, j, k) tries to match the alternation starting at p[i] from
// s[j] and calls k(end of the pattern piece, position in s) for each way it can.
using Cont = std::function<bool(size_t, size_t)>;

struct Ref {
  const std::string& p;
  const std::string& s;

  bool word(size_t j) const {
    if (j >= s.size()) return false;
    const char c = s[j];
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  }
  // End of the atom starting at i.
  size_t atom_end(size_t i) const {
    if (p[i] == '\\') return i + 2;
    if (p[i] == '[') {
      size_t k = i + 1;
      if (p[k] == '^') ++k;
      ++k;
      while (p[k] != ']') k += p[k] == '\\' ? 2 : 1;
      return k + 1;
    }
    if (p[i] == '(') {
      int depth = 0;
      for (size_t k = i;; ++k) {
        if (p[k] == '\\') {
          ++k;
          continue;
        }
        if (p[k] == '(') ++depth;
        if (p[k] == ')' && --depth == 0) return k + 1;
      }
    }
    return i + 1;
  }
  bool in_class(size_t i, size_t end, char c) const {  // [ ... ] from i to end
    size_t k = i + 1;
    bool neg = p[k] == '^';
    if (neg) ++k;
    bool hit = false;
    while (k < end - 1) {
      if (p[k] == '\\') {
        hit |= esc_class(p[k + 1], c);
        k += 2;
      } else if (p[k + 1] == '-' && k + 2 < end - 1) {
        hit |= c >= p[k] && c <= p[k + 2];
        k += 3;
      } else {
        hit |= c == p[k++];
      }
    }
    return hit != neg;
  }
  static bool esc_class(char e, char c) {
    const unsigned char u = static_cast<unsigned char>(c);
    switch (e) {
      case 'd':
        return std::isdigit(u);
      case 'w':
        return std::isalnum(u) || c == '_';
      case 's':
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
      default:
        return c == e;
    }
  }
  // One atom at [i, end) from s[j]; k(next j).
  bool atom(size_t i, size_t end, size_t j, const std::function<bool(size_t)>& k) const {
    const char c = p[i];
    if (c == '(')
      return alt(i + 1, j, [&](size_t pe, size_t jj) { return pe == end - 1 && k(jj); });
    if (c == '^') return j == 0 && k(j);
    if (c == '$') return j == s.size() && k(j);
    if (c == '\\' && p[i + 1] == 'b') return ((j > 0 && word(j - 1)) != word(j)) && k(j);
    if (j >= s.size()) return false;
    bool hit = c == '.'    ? s[j] != '\n'
               : c == '['  ? in_class(i, end, s[j])
               : c == '\\' ? esc_class(p[i + 1], s[j])
                           : c == s[j];
    return hit && k(j + 1);
  }
  // Repeat the atom [i, end) between lo and hi (-1: unbounded) times, then k.
  bool rep(size_t i, size_t end, int lo, int hi, size_t j,
           const std::function<bool(size_t)>& k) const {
    if (lo == 0 && k(j)) return true;
    if (hi == 0) return false;
    return atom(i, end, j, [&](size_t jj) {
      if (jj == j && lo == 0) return false;  // no progress: stop looping
      return rep(i, end, lo > 0 ? lo - 1 : 0, hi > 0 ? hi - 1 : hi, jj, k);
    });
  }
  // A concatenation from p[i] up to | or ) or the end; k(where it stopped, position).
  bool seq(size_t i, size_t j, const Cont& k) const {
    if (i >= p.size() || p[i] == '|' || p[i] == ')') return k(i, j);
    const size_t end = atom_end(i);
    int lo = 1, hi = 1;
    size_t next = end;
    if (next < p.size() && (p[next] == '*' || p[next] == '+' || p[next] == '?')) {
      lo = p[next] == '+' ? 1 : 0;
      hi = p[next] == '?' ? 1 : -1;
      ++next;
    } else if (next < p.size() && p[next] == '{') {
      const size_t close = p.find('}', next);
      const std::string body = p.substr(next + 1, close - next - 1);
      const size_t comma = body.find(',');
      lo = std::stoi(body.substr(0, comma));
      hi = comma == std::string::npos ? lo : std::stoi(body.substr(comma + 1));
      next = close + 1;
    }
    const bool is_b = p[i] == '\\' && p[i + 1] == 'b';
    if (is_b) lo = hi = 1;
    return rep(i, end, lo, hi, j, [&](size_t jj) { return seq(next, jj, k); });
  }
  // An alternation from p[i]; k(index of the ')' or end that closed it, position).
  bool alt(size_t i, size_t j, const Cont& k) const {
    for (;;) {
      size_t stop = 0;
      bool found = seq(i, j, [&](size_t pe, size_t jj) {
        stop = pe;
        size_t close = pe;  // skip the other branches to the closing ')' or end
        int depth = 0;
        while (close < p.size() && !(depth == 0 && p[close] == ')')) {
          if (p[close] == '\\')
            ++close;
          else if (p[close] == '(')
            ++depth;
          else if (p[close] == ')')
            --depth;
          ++close;
        }
        return k(close, jj);
      });
      if (found) return true;
      // next branch: find the | at this depth after i
      size_t q = i;
      int depth = 0;
      while (q < p.size() && !(depth == 0 && (p[q] == '|' || p[q] == ')'))) {
        if (p[q] == '\\')
          ++q;
        else if (p[q] == '(')
          ++depth;
        else if (p[q] == ')')
          --depth;
        if (p[q] == '[') q = atom_end(q) - 1;
        ++q;
      }
      (void)stop;
      if (q >= p.size() || p[q] != '|') return false;
      i = q + 1;
    }
  }
  bool full_match() const {
    return alt(0, 0, [&](size_t pe, size_t j) { return pe == p.size() && j == s.size(); });
  }
};

bool vm_match(const RegexProgramData& d, const std::string& s) {
  std::vector<RegexInst> insts;
  for (size_t i = 0; i < d.ops.size(); ++i) insts.push_back({d.ops[i], d.args[i], d.args2[i]});
  auto classes = d.classes;
  classes.emplace_back();
  RegexProgram p{insts.data(), static_cast<int32_t>(insts.size()),
                 reinterpret_cast<const uint32_t(*)[8]>(classes.data())};
  std::vector<char> scratch(regex_scratch_bytes(p.num_insts) + 1);
  return regex_full_match(p, {s.data(), static_cast<index_t>(s.size())}, scratch.data());
}

bool matches(const std::string& pattern, const std::string& s) {
  RegexProgramData d;
  std::string error;
  REQUIRE(compile_regex(pattern, d, &error));
  return vm_match(d, s);
}

}  // namespace

TEST_CASE("regex: the conformance patterns", "[strings][regex]") {
  const std::string domain = R"(www\.[\w.-]+\.\bcom\b)";
  CHECK(matches(domain, "www.google.com"));
  CHECK(matches(domain, "www.facebook.com"));
  CHECK_FALSE(matches(domain, "www.bbc.co.uk"));
  const std::string email = R"((\W|^)[\w.\-]{0,25}@(yahoo|gmail)\.com(\W|$))";
  CHECK(matches(email, "account@gmail.com"));
  CHECK_FALSE(matches(email, "account@hotmail.com"));
  CHECK_FALSE(matches(email, "not email"));
  CHECK(matches(email, "account2@yahoo.com"));
}

TEST_CASE("regex: UTF-8, anchors and refusals", "[strings][regex]") {
  CHECK(matches("caf.", "caf\xC3\xA9"));  // . is one code point
  CHECK_FALSE(matches("caf..", "caf\xC3\xA9"));
  CHECK(matches("\xC3\xA9+", "\xC3\xA9\xC3\xA9"));  // a quantifier takes the whole code point
  CHECK(matches("[^a]b",
                "\xE7\x9A\x84"
                "b"));
  CHECK(matches("a{2,3}", "aaa"));
  CHECK_FALSE(matches("a{2,3}", "aaaa"));
  CHECK(matches("a{2,}", "aaaaa"));
  CHECK(matches("x{1}y", "xy"));
  CHECK(matches("a{,2}", "a{,2}"));  // not a count: literal, as RE2
  CHECK(matches("", ""));
  CHECK(matches("(a*)*b", "aaab"));
  RegexProgramData d;
  std::string error;
  for (const char* bad : {"(?i)abc", "\\pL", "[\xC3\xA9]", "(ab", "a)", "*a", "\\1", "a{2,1}"})
    CHECK_FALSE(compile_regex(bad, d, &error));
}

TEST_CASE("regex: the NFA agrees with a backtracking reference on random input",
          "[strings][regex]") {
  const std::vector<std::string> patterns = {
      "a*b",        "(a|b)*c",     "a?b?c?",     "(ab|a)(bc|c)", "[a-c]+",
      "[^b]*b",     "\\d+\\w*",    "a{1,3}b{2}", "(a|)+",        "^a|b$",
      ".*a.*",      "\\ba\\w*\\b", "(a|b)*\\bc", "a.c",          "(\\s|a)*b{0,2}",
      "[ab]{2,4}c", "(a(b|c)*)+",  "\\w\\b \\w", "(^|b)a",       "a*(b|$)",
  };
  std::mt19937 rng(1234);
  const std::string alphabet = "abc1 _";
  for (const std::string& pattern : patterns) {
    RegexProgramData d;
    std::string error;
    REQUIRE(compile_regex(pattern, d, &error));
    for (int t = 0; t < 300; ++t) {
      std::string s;
      const int n = static_cast<int>(rng() % 7);
      for (int k = 0; k < n; ++k) s += alphabet[rng() % alphabet.size()];
      INFO("pattern '" << pattern << "' string '" << s << "'");
      CHECK(vm_match(d, s) == Ref{pattern, s}.full_match());
    }
  }
}
