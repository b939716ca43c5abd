#include "codegen/identifiers.h"

#include <fmt/format.h>

#include <iterator>

#include "base/utf8.h"

namespace onnxc {
namespace {

bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_upper_word(std::string_view s) {
  for (char c : s)
    if (!(c >= 'A' && c <= 'Z') && !is_digit(c) && c != '_') return false;
  return !s.empty();
}

// C++ keywords and alternative tokens (through C++20), the namespaces generated code names, and
// macros that <cmath>, <cstdint>, <cstring>, <limits> or g++/clang++ in GNU mode define.
constexpr std::string_view kReservedWords[] = {
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "auto",
    "bitand",
    "bitor",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "char8_t",
    "char16_t",
    "char32_t",
    "class",
    "compl",
    "concept",
    "const",
    "consteval",
    "constexpr",
    "constinit",
    "const_cast",
    "continue",
    "co_await",
    "co_return",
    "co_yield",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "import",
    "inline",
    "int",
    "long",
    "main",
    "module",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "requires",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "while",
    "xor",
    "xor_eq",
    // C keywords, identifiers with special meaning, TM TS and reflection TS keywords, GNU
    "restrict",
    "final",
    "override",
    "reflexpr",
    "synchronized",
    "atomic_cancel",
    "atomic_commit",
    "atomic_noexcept",
    "transaction_safe",
    "transaction_safe_dynamic",
    "typeof",
    "defined",
    "noreturn",
    "complex",
    "imaginary",
    // C's classification macros, functions in <cmath> but macros in <math.h>
    "isnan",
    "isinf",
    "isfinite",
    "isnormal",
    "signbit",
    "fpclassify",
    "isgreater",
    "isgreaterequal",
    "isless",
    "islessequal",
    "islessgreater",
    "isunordered",
    // namespaces every generated file refers to
    "onnxc",
    "std",
    // lowercase macros
    "errno",
    "assert",
    "offsetof",
    "linux",
    "unix",
    "i386",
    "math_errhandling",
    "stdin",
    "stdout",
    "stderr",
    "major",
    "minor",
    "makedev",
    "alloca",
    "setjmp",
    "va_arg",
    "va_start",
    "va_end",
    "va_copy",
    // uppercase macros without a telltale prefix
    "NULL",
    "NAN",
    "INFINITY",
    "EOF",
    "BUFSIZ",
    "FILENAME_MAX",
    "CLOCKS_PER_SEC",
    "DECIMAL_DIG",
    "EDOM",
    "ERANGE",
    "EILSEQ",
    "TRUE",
    "FALSE",
// every macro the included headers define (the generated list)
#include "codegen/reserved_macros.inc"
};

const std::set<std::string_view>& reserved_words() {
  static const std::set<std::string_view> k(std::begin(kReservedWords), std::end(kReservedWords));
  return k;
}

// Names the included headers declare at global scope: a namespace may not take them.
const std::set<std::string_view>& global_names() {
  static const std::set<std::string_view> k = {
#include "codegen/global_names.inc"
  };
  return k;
}

// Upper-case names with one of these first words ("INT8_MAX", "M_PI", "FP_NAN") are taken as
// macros of the C headers.
bool looks_like_macro(std::string_view s) {
  if (!is_upper_word(s)) return false;
  if (reserved_words().count(s)) return true;
  size_t end = s.find('_');
  if (end == std::string_view::npos) return false;
  std::string_view word = s.substr(0, end);
  while (!word.empty() && is_digit(word.back())) word.remove_suffix(1);
  static const std::set<std::string_view> prefixes = {
      "INT",    "UINT",  "INTMAX", "UINTMAX", "INTPTR", "UINTPTR", "SIZE",  "PTRDIFF",
      "SIG",    "WCHAR", "WINT",   "FP",      "M",      "FLT",     "DBL",   "LDBL",
      "CHAR",   "SCHAR", "UCHAR",  "SHRT",    "USHRT",  "LONG",    "ULONG", "LLONG",
      "ULLONG", "MB",    "RAND",   "EXIT",    "HUGE",   "MATH",    "FE"};
  return prefixes.count(word) > 0;
}

void append_utf8_escape(std::string& out, uint32_t cp) {
  out += fmt::format("\\u{:04X}", cp);
}

// Code points that would hide or reorder what a reader sees in source: Unicode line separators,
// bidi controls and C1 controls.
bool is_invisible(uint32_t cp) {
  return cp == 0x2028 || cp == 0x2029 || cp == 0x200E || cp == 0x200F ||
         (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) ||
         (cp >= 0x80 && cp < 0xA0);
}

void append_octal_escape(std::string& out, unsigned char c) {
  out += fmt::format("\\{:03o}", c);
}

// Appends the character of `text` at byte i, which is not ASCII: valid UTF-8 as it is (the
// invisible code points escaped \uXXXX), else its first byte through `bad_byte`. Returns the
// number of bytes consumed.
template <class BadByte>
size_t append_non_ascii(std::string& out, std::string_view text, size_t i, BadByte bad_byte) {
  uint32_t cp = 0;
  const size_t len = decode_utf8(text, i, &cp);
  if (len == 0) {
    bad_byte(static_cast<unsigned char>(text[i]));
    return 1;
  }
  if (is_invisible(cp))
    append_utf8_escape(out, cp);
  else
    out.append(text.substr(i, len));
  return len;
}

}  // namespace

bool is_reserved_identifier(std::string_view id) {
  if (id.empty()) return true;
  if (id[0] == '_' || id.find("__") != std::string_view::npos) return true;
  return reserved_words().count(id) > 0 || looks_like_macro(id);
}

bool is_reserved_namespace_name(std::string_view id) {
  return is_reserved_identifier(id) || global_names().count(id) > 0;
}

std::string sanitize_namespace_name(std::string_view name) {
  std::string id = sanitize_identifier(name);
  while (is_reserved_namespace_name(id)) id += id.back() == '_' ? "v" : "_";
  return id;
}

std::string sanitize_identifier(std::string_view name) {
  std::string id;
  for (char c : name) {
    const bool keep = is_alpha(c) || is_digit(c);
    if (keep)
      id += c;
    else if (!id.empty() && id.back() != '_')
      id += '_';
  }
  while (!id.empty() && id.back() == '_') id.pop_back();
  if (id.empty()) return "v";
  if (is_digit(id[0])) id = "v" + id;
  if (looks_like_macro(id)) return id + "_v";
  if (is_reserved_identifier(id)) id += '_';
  return id;
}

std::string IdentifierTable::unique(std::string_view name) {
  const std::string base = sanitize_identifier(name);
  const char* sep = base.back() == '_' ? "" : "_";
  auto free = [&](const std::string& id) {
    return !taken_.count(id) && !is_reserved_identifier(id);
  };
  std::string id = base;
  // base_2, base_3, ...; where those read as C macros ("INT_2", "SIZE_3": every one of them for
  // an upper-case base like INT), base_v2, base_v3, ..., which never do.
  for (int k = 2; !free(id); ++k) {
    id = fmt::format("{}{}{}", base, sep, k);
    if (is_reserved_identifier(id)) id = fmt::format("{}{}v{}", base, sep, k);
  }
  taken_.insert(id);
  return id;
}

std::string escape_model_text(std::string_view text) {
  std::string out;
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      switch (c) {
        case '\\':
          out += "\\\\";
          break;
        case '"':
          out += "\\\"";
          break;
        case '\'':
          out += "\\'";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '*':
          out += (i + 1 < n && s[i + 1] == '/') ? "*\\" : "*";
          break;
        case '/':
          out += (i + 1 < n && s[i + 1] == '*') ? "/\\" : "/";
          break;
        case '?':
          out += (i + 1 < n && s[i + 1] == '?') ? "?\\" : "?";
          break;
        default:
          if (c < 0x20 || c == 0x7F)
            out += fmt::format("\\x{:02X}", c);
          else
            out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    i += append_non_ascii(out, text, i,
                          [&](unsigned char b) { out += fmt::format("\\x{:02X}", b); });
  }
  return out;
}

std::string cpp_string_literal(std::string_view text) {
  std::string out = "\"";
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      if (c == '"' || c == '\\' || c == '?') {
        out += '\\';
        out += static_cast<char>(c);
      } else if (c == '\n') {
        out += "\\n";
      } else if (c == '\t') {
        out += "\\t";
      } else if (c < 0x20 || c == 0x7F) {
        append_octal_escape(out, c);
      } else {
        out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    i += append_non_ascii(out, text, i, [&](unsigned char b) { append_octal_escape(out, b); });
  }
  return out + "\"";
}

}  // namespace onnxc
