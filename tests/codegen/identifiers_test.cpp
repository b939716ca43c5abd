// The identifier sanitizer and the model-text escaper: every output is a valid, unreserved,
// unique identifier, and escaped text cannot end a comment or a literal or change how the
// surrounding code parses.
#include "codegen/identifiers.h"

#include <catch2/catch.hpp>
#include <cctype>
#include <random>
#include <set>

using namespace onnxc;

namespace {

bool valid_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return s.find("__") == std::string::npos;
}

std::string random_bytes(std::mt19937& rng) {
  static const char kAlphabet[] = "ab_.:/-1 \n*?\\\"'\x01\x7f\xc3\xa9\xff\xe2\x80\xae";
  std::string s;
  const size_t n = rng() % 8;
  for (size_t i = 0; i < n; ++i) s += kAlphabet[rng() % (sizeof kAlphabet - 1)];
  return s;
}

}  // namespace

TEST_CASE("sanitize_identifier keeps readable names and fixes the rest", "[codegen][identifiers]") {
  CHECK(sanitize_identifier("conv1_w") == "conv1_w");
  CHECK(sanitize_identifier("input.1") == "input_1");
  CHECK(sanitize_identifier("/layer1/conv/Conv_output_0") == "layer1_conv_Conv_output_0");
  CHECK(sanitize_identifier("onnx::Conv_123") == "onnx_Conv_123");
  CHECK(sanitize_identifier("a__b") == "a_b");
  CHECK(sanitize_identifier("_X") == "X");
  CHECK(sanitize_identifier("__") == "v");
  CHECK(sanitize_identifier("") == "v");
  CHECK(sanitize_identifier("1") == "v1");
  CHECK(sanitize_identifier("int") == "int_");
  CHECK(sanitize_identifier("nullptr") == "nullptr_");
  CHECK(sanitize_identifier("onnxc") == "onnxc_");
  CHECK(sanitize_identifier("linux") == "linux_");
  CHECK(sanitize_identifier("NAN") == "NAN_v");
  CHECK(sanitize_identifier("INT8_MAX") == "INT8_MAX_v");
  CHECK(sanitize_identifier("M_PI") == "M_PI_v");
  CHECK(sanitize_identifier("X") == "X");
  CHECK(sanitize_identifier("INPUT_IDS") == "INPUT_IDS");
  CHECK(sanitize_identifier("caf\xc3\xa9") == "caf");
}

TEST_CASE("reserved identifiers", "[codegen][identifiers]") {
  CHECK(is_reserved_identifier("_X"));
  CHECK(is_reserved_identifier("_x"));
  CHECK(is_reserved_identifier("a__b"));
  CHECK(is_reserved_identifier("class"));
  CHECK(is_reserved_identifier("errno"));
  CHECK_FALSE(is_reserved_identifier("x"));
  CHECK_FALSE(is_reserved_identifier("a_b"));
}

TEST_CASE("IdentifierTable never hands out the same or a reserved name", "[codegen][identifiers]") {
  IdentifierTable t;
  t.reserve("p");
  CHECK(t.unique("p") == "p_2");
  CHECK(t.unique("a.b") == "a_b");
  CHECK(t.unique("a_b") == "a_b_2");
  CHECK(t.unique("a__b") == "a_b_3");
  CHECK(t.unique("a_b_2") == "a_b_2_2");
  CHECK(t.unique("int") == "int_");
  CHECK(t.unique("int_") == "int_2");
  CHECK(t.unique("INT") == "INT");
  CHECK(t.unique("INT") == "INT_v2");  // INT_2 reads as a <cstdint> macro (once looped forever)

  std::mt19937 rng(12345);
  IdentifierTable table;
  std::set<std::string> seen;
  for (int i = 0; i < 3000; ++i) {
    const std::string name = random_bytes(rng);
    const std::string id = table.unique(name);
    INFO("name '" << escape_model_text(name) << "' -> '" << id << "'");
    CHECK(valid_identifier(id));
    CHECK_FALSE(is_reserved_identifier(id));
    CHECK(seen.insert(id).second);
  }
}

TEST_CASE("escape_model_text neutralizes everything that could break out",
          "[codegen][identifiers]") {
  CHECK(escape_model_text("conv1/Relu:0") == "conv1/Relu:0");
  CHECK(escape_model_text("a\nb") == "a\\nb");
  CHECK(escape_model_text("x */ y") == "x *\\/ y");
  CHECK(escape_model_text("x /* y") == "x /\\* y");
  CHECK(escape_model_text("say \"hi\" 'x'") == "say \\\"hi\\\" \\'x\\'");
  CHECK(escape_model_text("back\\slash") == "back\\\\slash");
  CHECK(escape_model_text("??/") == "?\\?/");
  CHECK(escape_model_text("a\x01z\x7f") == "a\\x01z\\x7F");
  CHECK(escape_model_text("\xff\xfe") == "\\xFF\\xFE");
  CHECK(escape_model_text("\xc3") == "\\xC3");                    // truncated sequence
  CHECK(escape_model_text("\xc0\xaf") == "\\xC0\\xAF");           // overlong '/'
  CHECK(escape_model_text("\xed\xa0\x80") == "\\xED\\xA0\\x80");  // surrogate
  CHECK(escape_model_text("caf\xc3\xa9") == "caf\xc3\xa9");       // valid UTF-8 stays
  CHECK(escape_model_text("a\xe2\x80\xae"
                          "b") == "a\\u202Eb");           // bidi override
  CHECK(escape_model_text("\xe2\x80\xa8") == "\\u2028");  // line separator

  // Properties over random text: printable ASCII or valid UTF-8 only, and none of the sequences
  // that end a comment or a literal, open a comment or start a trigraph.
  std::mt19937 rng(7);
  for (int i = 0; i < 3000; ++i) {
    const std::string text = random_bytes(rng) + random_bytes(rng);
    const std::string e = escape_model_text(text);
    INFO("escaped: " << e);
    CHECK(e.find("*/") == std::string::npos);
    CHECK(e.find("/*") == std::string::npos);
    CHECK(e.find("??") == std::string::npos);
    bool after_backslash = false;  // walking the text as a literal: no bare quote may appear
    for (char ch : e) {
      const unsigned char c = static_cast<unsigned char>(ch);
      CHECK((c >= 0x20 && c != 0x7F));
      if (!after_backslash) CHECK((c != '"' && c != '\''));
      after_backslash = !after_backslash && c == '\\';
    }
    CHECK_FALSE(after_backslash);  // never ends inside an escape
  }
}
