// Turning model strings into generated C++ safely: ONNX names into identifiers, and any model
// text (names, doc strings) into something that can sit inside a comment or a string literal.
// Codegen and every op file print model strings only through these functions.
#pragma once

#include <set>
#include <string>
#include <string_view>

namespace onnxc {

// A valid C++ identifier spelling `name`: characters other than [A-Za-z0-9] become '_', runs of
// '_' collapse to one, leading and trailing '_' go ("input.1" -> "input_1",
// "/layer1/conv/Conv_output_0" -> "layer1_conv_Conv_output_0"). The result never starts with a
// digit or '_', never holds "__", and is never a keyword, a predefined macro or a name the
// standard library or the generated code reserves ("int" -> "int_", "" -> "v", "1" -> "v1").
// Different names can map to the same spelling: IdentifierTable makes them unique.
std::string sanitize_identifier(std::string_view name);

// True for C and C++ keywords (through C++20), alternative tokens and names a generated file must
// not declare: every macro of the headers it includes or the compiler predefines (NAN, INFINITY,
// EOF, INT32_MAX, errno, linux, ...: reserved_macros.inc plus upper-case families like INT*_,
// FLT_*), and the names reserved to the implementation (_X, _x, a__b).
bool is_reserved_identifier(std::string_view id);

// A namespace name from `name` (--name, or the model file's stem): sanitize_identifier(name),
// also kept clear of every name the included headers declare at global scope ("sqrt" ->
// "sqrt_", "size_t" -> "size_t_"), which a namespace would conflict with.
std::string sanitize_namespace_name(std::string_view name);
bool is_reserved_namespace_name(std::string_view id);

// Hands out unique identifiers in one scope: sanitize_identifier(name), then "_2", "_3", ... until
// the spelling is neither taken nor reserved. Deterministic for the same sequence of calls.
class IdentifierTable {
 public:
  IdentifierTable() = default;
  // Marks a spelling as taken (a name the surrounding code declares itself).
  void reserve(const std::string& id) { taken_.insert(id); }
  bool taken(const std::string& id) const { return taken_.count(id) > 0; }
  std::string unique(std::string_view name);

 private:
  std::set<std::string> taken_;
};

// `text` made safe inside a // or /* */ comment and inside a "..." or '...' literal, and readable:
// printable ASCII and valid UTF-8 pass through; backslash, both quotes, newline, tab and the other
// control bytes become C escapes (\\ \" \' \n \t \x01); bytes that are not valid UTF-8 become
// \xNN; "*/" becomes "*\/", "/*" becomes "/\*" and "??" becomes "?\?" (no trigraphs); Unicode
// line separators and bidi controls (U+2028, U+2029, U+200E, U+200F, U+202A..U+202E,
// U+2066..U+2069) and C1 controls become \uXXXX. Callers put the result between quotes, so an
// escaped backslash never ends a line.
std::string escape_model_text(std::string_view text);

// `text` as a C++ string literal, quotes included, that holds exactly its bytes: printable ASCII
// and valid UTF-8 as they are (but \" \\ \?), newline and tab as \n \t, other control bytes and
// bytes that are not valid UTF-8 as three-digit octal escapes (which a following digit cannot
// extend), and the code points escape_model_text hides as \uXXXX.
std::string cpp_string_literal(std::string_view text);

}  // namespace onnxc
