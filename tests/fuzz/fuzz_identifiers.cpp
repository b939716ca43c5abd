// libFuzzer target: arbitrary bytes through the name sanitizer and the model-text escaper (issue
// 17). The input is split at NUL bytes into names handed to one IdentifierTable. Every result must
// be a valid, unreserved and unique identifier; the namespace name must also be clear of global
// names; escaped text must be printable, hold no comment delimiter, trigraph or bare quote, and
// not end inside an escape. A broken property aborts (libFuzzer reports it as a crash).
//   Build with clang: cmake -DONNXC_BUILD_FUZZERS=ON -DCMAKE_CXX_COMPILER=clang++; run
//   ./fuzz_identifiers tests/fuzz/corpus/identifiers. CTest `fuzz_identifiers_replay` replays
//   the corpus and a fixed stream of random inputs through the same function (any compiler).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "codegen/identifiers.h"

namespace {

void require(bool ok, const char* what, std::string_view subject) {
  if (ok) return;
  std::fprintf(stderr, "fuzz_identifiers: %s: '%s'\n", what,
               onnxc::escape_model_text(subject).c_str());
  std::abort();
}

bool valid_identifier(std::string_view s) {
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (s.empty() || !alpha(s[0])) return false;
  for (char c : s)
    if (!alpha(c) && !digit(c) && c != '_') return false;
  return s.find("__") == std::string_view::npos;
}

void check_escaped(std::string_view text) {
  const std::string e = onnxc::escape_model_text(text);
  require(e.find("*/") == std::string::npos, "escaped text ends a comment", text);
  require(e.find("/*") == std::string::npos, "escaped text opens a comment", text);
  require(e.find("??") == std::string::npos, "escaped text holds a trigraph", text);
  bool after_backslash = false;
  for (char ch : e) {
    const auto c = static_cast<unsigned char>(ch);
    require(c >= 0x20 && c != 0x7F, "escaped text holds a control byte", text);
    require(after_backslash || (c != '"' && c != '\''), "escaped text holds a bare quote", text);
    after_backslash = !after_backslash && c == '\\';
  }
  require(!after_backslash, "escaped text ends inside an escape", text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  check_escaped(input);
  onnxc::IdentifierTable table;
  std::set<std::string> seen;
  size_t start = 0;
  for (int names = 0; start <= input.size() && names < 64; ++names) {
    size_t end = input.find('\0', start);
    if (end == std::string_view::npos) end = input.size();
    const std::string_view name = input.substr(start, end - start);
    const std::string id = onnxc::sanitize_identifier(name);
    require(valid_identifier(id), "sanitize_identifier gave an invalid identifier", name);
    require(!onnxc::is_reserved_identifier(id), "sanitize_identifier gave a reserved name", name);
    const std::string ns = onnxc::sanitize_namespace_name(name);
    require(valid_identifier(ns) && !onnxc::is_reserved_namespace_name(ns),
            "sanitize_namespace_name gave a reserved or invalid name", name);
    const std::string unique = table.unique(name);
    require(valid_identifier(unique) && !onnxc::is_reserved_identifier(unique),
            "IdentifierTable gave a reserved or invalid name", name);
    require(seen.insert(unique).second, "IdentifierTable gave a name twice", name);
    start = end + 1;
  }
  return 0;
}
