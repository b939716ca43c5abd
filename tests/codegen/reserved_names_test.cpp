// The identifier sanitizer against the whole list (issue 18): every C and C++ keyword and
// alternative token, every macro and global name of the headers the generated code includes, as
// the installed g++ and clang++ report them. A model whose node and value names are each of these
// words, compiled with --name nullptr, builds with g++ and clang++ -Wall -Wextra -Werror.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/temp_dir.h"
#include "codegen/identifiers.h"
#include "harness/model_builder.h"

using namespace onnxc;

namespace {

// C++20 keywords and alternative tokens, C11 keywords, identifiers with special meaning.
const std::vector<std::string> kKeywords = {"alignas",
                                            "alignof",
                                            "and",
                                            "and_eq",
                                            "asm",
                                            "atomic_cancel",
                                            "atomic_commit",
                                            "atomic_noexcept",
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
                                            "inline",
                                            "int",
                                            "long",
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
                                            "reflexpr",
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
                                            "synchronized",
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
                                            "restrict",
                                            "final",
                                            "override",
                                            "import",
                                            "module",
                                            "_Bool",
                                            "_Alignas",
                                            "_Atomic",
                                            "_Generic",
                                            "_Noreturn",
                                            "_Static_assert",
                                            "_Thread_local",
                                            "_Complex",
                                            "_Imaginary",
                                            "_Pragma",
                                            "main",
                                            "std",
                                            "onnxc",
                                            "a__b",
                                            "__x",
                                            "_X"};

// What a shell command prints on stdout; "" when it fails.
std::string capture(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return "";
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  return pclose(p) == 0 ? out : "";
}

bool has_compiler(const std::string& cxx) {
  return !capture("command -v " + cxx).empty();
}

const char* kHeaders =
    "#include <algorithm>\n#include <cctype>\n#include <cmath>\n#include <cstddef>\n"
    "#include <cstdint>\n#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n"
    "#include <limits>\n#include <type_traits>\n";

bool plain_identifier(const std::string& s) {
  if (s.empty() || s[0] == '_' || !std::isalpha(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// The macros `cxx` defines with the generated code's headers, without a leading '_'.
std::set<std::string> macros_of(const std::string& cxx, const std::filesystem::path& dir) {
  const std::string src = (dir / "headers.cpp").string();
  FILE* f = std::fopen(src.c_str(), "w");
  std::fputs(kHeaders, f);
  std::fclose(f);
  std::istringstream in(capture(cxx + " -std=gnu++17 -dM -E " + src));
  std::set<std::string> out;
  std::string define, name;
  while (in >> define >> name) {
    std::string rest;
    std::getline(in, rest);
    name = name.substr(0, name.find('('));
    if (plain_identifier(name)) out.insert(name);
  }
  return out;
}

// The global-scope names clang lists for those headers.
std::set<std::string> globals_of_clang(const std::filesystem::path& dir) {
  const std::string src = (dir / "headers.cpp").string();
  std::istringstream in(
      capture("clang++ -std=gnu++17 -fsyntax-only -Xclang -ast-list " + src + " 2>/dev/null"));
  std::set<std::string> out;
  std::string name;
  while (std::getline(in, name))
    if (plain_identifier(name)) out.insert(name);
  return out;
}

}  // namespace

TEST_CASE("every keyword and every macro of the included headers is reserved",
          "[codegen][identifiers][reserved]") {
  for (const auto& k : kKeywords) {
    INFO(k);
    CHECK(is_reserved_identifier(k));
    const std::string id = sanitize_identifier(k);
    CHECK_FALSE(is_reserved_identifier(id));
    CHECK_FALSE(is_reserved_namespace_name(sanitize_namespace_name(k)));
  }
  TempDir dir("onnxc-reserved-");
  REQUIRE(dir.ok());
  size_t checked = 0;
  for (const char* cxx : {"g++", "clang++"}) {
    if (!has_compiler(cxx)) continue;
    for (const auto& m : macros_of(cxx, dir.path())) {
      INFO(cxx << " macro " << m);
      CHECK(is_reserved_identifier(m));
      CHECK_FALSE(is_reserved_identifier(sanitize_identifier(m)));
      ++checked;
    }
  }
  CHECK(checked > 200);  // the lists were really read
  if (has_compiler("clang++")) {
    const auto globals = globals_of_clang(dir.path());
    CHECK(globals.count("sqrt"));
    for (const auto& g : globals) {
      INFO("global " << g);
      CHECK(is_reserved_namespace_name(g));
      CHECK_FALSE(is_reserved_namespace_name(sanitize_namespace_name(g)));
    }
  }
}

TEST_CASE("a model named with every reserved word compiles with g++ and clang++ -Werror",
          "[codegen][identifiers][reserved][compile]") {
  TempDir dir("onnxc-reserved-model-");
  REQUIRE(dir.ok());
  std::vector<std::string> words = kKeywords;
  for (const auto& m : macros_of("g++", dir.path())) words.push_back(m);
  for (const char* w : {"sqrt", "exp", "memcpy", "size_t", "int8_t", "y0", "index", "abs"})
    words.push_back(w);
  // A chain of Relu nodes: node i and its output value are both named words[i].
  onnxc::testing::ModelBuilder mb;
  mb.input("x", onnx::TensorProto::FLOAT, {2});
  std::string prev = "x";
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string value = i + 1 == words.size() ? "y" : words[i];
    mb.node("Relu", {prev}, {value}, words[i]);
    prev = value;
  }
  mb.output("y", onnx::TensorProto::FLOAT, {2});
  const std::string model = mb.write();
  for (const std::string name : {"nullptr", "NULL", "sqrt", "INT32_MAX", "bitand"}) {
    const std::string cpp = (dir.path() / (name + "_out.cpp")).string();
    INFO("--name " << name);
    REQUIRE(!capture(std::string(ONNXC_BINARY) + " " + model + " -o " + cpp + " --name " + name +
                     " 2>&1; echo done")
                 .empty());
    for (const char* cxx : {"g++", "clang++"}) {
      if (!has_compiler(cxx)) continue;
      INFO(cxx);
      const std::string out =
          capture(std::string(cxx) + " -std=c++17 -Wall -Wextra -Werror -fsyntax-only " + cpp +
                  " 2>&1 && echo compiled");
      CHECK(out.find("compiled") != std::string::npos);
    }
  }
}
