// Diagnostics stay bounded (issue 18): a limited number of kept messages, each one escaped line
// with long quoted values cut.
#include "base/diagnostics.h"

#include <catch2/catch.hpp>

using onnxc::bound_message;
using onnxc::Diagnostics;

TEST_CASE("Diagnostics keeps max_errors messages and counts the rest", "[diagnostics]") {
  Diagnostics diag("m.onnx", 3);
  for (int i = 0; i < 1000000; ++i) diag.error("error {}", i);
  CHECK(diag.count() == 1000000);
  CHECK(!diag.ok());
  REQUIRE(diag.errors().size() == 3);
  CHECK(diag.errors()[2] == "m.onnx: error 2");
  CHECK(diag.str() ==
        "m.onnx: error 0\nm.onnx: error 1\nm.onnx: error 2\n"
        "... and 999997 more errors (--max-errors N shows more)\n");
  Diagnostics all("", 0);
  for (int i = 0; i < 50; ++i) all.node_error("n", "Op", "e");
  CHECK(all.errors().size() == 50);
  CHECK(all.str().find("more error") == std::string::npos);
}

TEST_CASE("bound_message escapes control bytes and invalid UTF-8", "[diagnostics]") {
  using namespace std::string_literals;
  CHECK(bound_message("node 'a\nb\0c\x01\\'"s) == "node 'a\\nb\\x00c\\x01\\\\'");
  CHECK(bound_message("bad \xff\xfe utf8") == "bad \\xFF\\xFE utf8");
  CHECK(bound_message("caf\xc3\xa9 \xe2\x80\xa8") == "caf\xc3\xa9 \\xE2\\x80\\xA8");  // U+2028
  CHECK(bound_message("\xc0\xaf overlong") == "\\xC0\\xAF overlong");
  CHECK(bound_message("tab\there\r") == "tab\\there\\r");
}

TEST_CASE("bound_message cuts long quoted and bracketed values", "[diagnostics]") {
  const std::string long_name(200, 'a');
  CHECK(bound_message("node '" + long_name + "' (Op): x") ==
        "node '" + std::string(80, 'a') + "...' (Op): x");
  std::string list = "{";
  for (int i = 0; i < 100; ++i) list += std::to_string(i) + ", ";
  list += "100}";
  const std::string cut = bound_message("perm " + list + " is bad");
  CHECK(cut.size() < 100);
  CHECK(cut.find("...} is bad") != std::string::npos);
  CHECK(bound_message("the model's folder") == "the model's folder");  // a lone quote stays
  CHECK(bound_message("short 'x' and [1, 2]") == "short 'x' and [1, 2]");
  // Cut on a character boundary: no half of a two-byte 'é' is left.
  std::string accents;
  for (int i = 0; i < 100; ++i) accents += "\xc3\xa9";
  const std::string out = bound_message("'" + accents + "'");
  CHECK(out.find("\\x") == std::string::npos);
  CHECK(out.size() == 1 + 80 + 3 + 1);
}

TEST_CASE("bound_message caps a line, however hostile", "[diagnostics]") {
  CHECK(bound_message(std::string(1 << 20, 'z')).size() <= Diagnostics::kMaxLine);
  CHECK(bound_message(std::string(1 << 20, '\n')).size() <= Diagnostics::kMaxLine);
  CHECK(bound_message(std::string(1 << 20, '\'')).size() <= Diagnostics::kMaxLine);
  CHECK(bound_message(std::string(1 << 20, '[')).size() <= Diagnostics::kMaxLine);
  const std::string line = bound_message(std::string(1 << 20, '\n'));
  CHECK(line.find('\n') == std::string::npos);
}
