// The inline runtime keeps what the generated code calls and drops the rest, and what it keeps
// still compiles warning-free.
#include "codegen/runtime_inliner.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "codegen/cpp_emitter.h"

using namespace onnxc;
namespace fs = std::filesystem;

namespace {

// Compiles `runtime` + `code` as one .cpp (types.h first, as the generated header provides it).
bool compiles(const std::string& runtime, const std::string& code, const std::string& cxx) {
  const fs::path dir = fs::temp_directory_path() / ("onnxc-inliner-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "t.cpp") << runtime_header_text("onnxc/types.h") << runtime << code;
  const std::string cmd = cxx + " -std=c++17 -Wall -Wextra -Werror -fsyntax-only " +
                          (dir / "t.cpp").string() + " > " + (dir / "log.txt").string() + " 2>&1";
  const bool ok = std::system(cmd.c_str()) == 0;
  if (!ok) {
    std::ifstream log(dir / "log.txt");
    std::string line;
    for (int i = 0; i < 20 && std::getline(log, line); ++i) WARN(line);
  }
  fs::remove_all(dir);
  return ok;
}

}  // namespace

TEST_CASE("the inline runtime keeps only what the code uses", "[codegen][inliner]") {
  const std::string code =
      "void f(const float* x, float* y) { onnxc::unary_ref(x, y, 4, onnxc::Relu{}); }\n";
  const std::string rt = inline_runtime({"onnxc/unary.h"}, code, {"onnxc/types.h"});
  CHECK(rt.find("inline void unary_ref(") != std::string::npos);
  CHECK(rt.find("ONNXC_UNARY_FUNCTOR(Relu,") != std::string::npos);
  CHECK(rt.find("ONNXC_UNARY_FUNCTOR(Sigmoid,") == std::string::npos);
  CHECK(rt.find("clip_ref") == std::string::npos);
  // Overloads for element types the code never names are declared, not defined, so nothing
  // they call comes along.
  CHECK(rt.find("inline float elem_load(float16 v);") != std::string::npos);
  CHECK(rt.find("float_to_minifloat") == std::string::npos);
  CHECK(rt.find("kFloat8E4M3FNFormat") == std::string::npos);
  CHECK(rt.find("// ---- runtime/onnxc/unary.h ----") != std::string::npos);
  CHECK(compiles(rt, code, "g++"));
}

TEST_CASE("the inline runtime resolves names per namespace", "[codegen][inliner]") {
  // softmax_detail and reduce_detail both declare kChunk and kLanes: only softmax's are used.
  const std::string code =
      "void f(const float* x, float* y) { onnxc::f32_softmax_any__scalar(x, y, 1, 10, 1); }\n";
  const std::string rt =
      inline_runtime({"onnxc/softmax.h", "onnxc/reduce.h"}, code, {"onnxc/types.h"});
  CHECK(rt.find("runtime/onnxc/reduce.h") == std::string::npos);
  CHECK(rt.find("inline void nll_loss_ref(") == std::string::npos);
  CHECK(compiles(rt, code, "g++"));
  CHECK(compiles(rt, code, "clang++"));  // clang flags unused constants in the main file
}

TEST_CASE("the inline runtime of a convolution compiles", "[codegen][inliner]") {
  const std::string code =
      "void f(const onnxc::ConvParams& p, const float* x, const float* w, float* y, void* s) {\n"
      "  onnxc::f32_conv_6x16__scalar(p, x, w, nullptr, y, s);\n"
      "  onnxc::conv_ref<onnxc::float16>(p, nullptr, nullptr, nullptr, nullptr, nullptr);\n}\n";
  const std::string rt = inline_runtime({"onnxc/conv.h"}, code, {"onnxc/types.h"});
  CHECK(rt.find("inline void f32_dwconv_any__scalar(") == std::string::npos);
  CHECK(rt.find("inline void conv_transpose_ref(") == std::string::npos);
  // float16 is used: its conversions come along in full; bfloat16's are only declared.
  CHECK(rt.find("inline float16 to_float16(double x) {") != std::string::npos);
  CHECK(rt.find("inline bfloat16 to_bfloat16(double x);") != std::string::npos);
  CHECK(compiles(rt, code, "g++"));
  CHECK(compiles(rt, code, "clang++"));
}

TEST_CASE("the inline runtime keeps only the overloads a call's argument count fits",
          "[codegen][inliner]") {
  // gemm_ref has a 7-parameter form (with an epilogue) and a 5-parameter one that calls it.
  const std::string seven =
      "void f(const onnxc::GemmParams& p, const float* a, float* y) {\n"
      "  static constexpr onnxc::Epilogue<onnxc::Relu> e = {{}, 1};\n"
      "  onnxc::gemm_ref(p, a, a, a, y, e, a);\n}\n";
  const std::string rt7 = inline_runtime({"onnxc/gemm.h"}, seven, {"onnxc/types.h"});
  CHECK(rt7.find("inline void gemm_ref(const GemmParams& p, const T* a, const T* b, const T* c, "
                 "T* y,\n                     const Epilogue<Act>& e") != std::string::npos);
  CHECK(rt7.find("gemm_ref(p, a, b, c, y, Epilogue<>{}") == std::string::npos);
  // The epilogue's activation is a type: the one named comes along, no other.
  CHECK(rt7.find("ONNXC_UNARY_FUNCTOR(Relu,") != std::string::npos);
  CHECK(rt7.find("ONNXC_UNARY_FUNCTOR(Sigmoid,") == std::string::npos);
  CHECK(rt7.find("sigmoid_poly") == std::string::npos);
  CHECK(compiles(rt7, seven, "g++"));
  const std::string five =
      "void f(const onnxc::GemmParams& p, const float* a, float* y) {\n"
      "  onnxc::gemm_ref(p, a, a, a, y);\n}\n";
  const std::string rt5 = inline_runtime({"onnxc/gemm.h"}, five, {"onnxc/types.h"});
  CHECK(rt5.find("gemm_ref(p, a, b, c, y, Epilogue<>{}") != std::string::npos);  // both
  CHECK(rt5.find("ONNXC_UNARY_FUNCTOR(Relu,") == std::string::npos);
  CHECK(compiles(rt5, five, "g++"));
  // A softmax over the last axis needs the row kernel only.
  const std::string rows =
      "void f(const float* x, float* y) { onnxc::f32_softmax_rows__scalar(x, y, 2, 10); }\n";
  const std::string rt = inline_runtime({"onnxc/softmax.h"}, rows, {"onnxc/types.h"});
  CHECK(rt.find("f32_softmax_columns_poly") == std::string::npos);
  CHECK(compiles(rt, rows, "g++"));
}

TEST_CASE("the pasted headers read as one block: no guards, includes gathered once",
          "[codegen][inliner]") {
  const std::string code =
      "void f(const float* x, float* y) {\n"
      "  onnxc::unary_ref(x, y, 4, onnxc::Relu{});\n"
      "  onnxc::f32_softmax_any__scalar(x, y, 1, 10, 1);\n}\n";
  const std::string rt =
      inline_runtime({"onnxc/unary.h", "onnxc/softmax.h"}, code, {"onnxc/types.h"});
  CHECK(rt.find("#ifndef ONNXC_") == std::string::npos);
  CHECK(rt.find("#endif  // ONNXC_") == std::string::npos);
  // Every standard include once, sorted, before the first header's banner.
  const size_t banner = rt.find("// ---- runtime/");
  REQUIRE(banner != std::string::npos);
  CHECK(rt.find("#include <cmath>") < banner);
  CHECK(rt.find("#include <cmath>", banner) == std::string::npos);
  CHECK(rt.find("#include <cmath>") < rt.find("#include <cstdint>"));
  // Both headers pasted, yet namespace onnxc opened fewer times than there are banners.
  size_t banners = 0, opens = 0;
  for (size_t at = 0; (at = rt.find("// ---- runtime/", at)) != std::string::npos; ++at) ++banners;
  for (size_t at = 0; (at = rt.find("\nnamespace onnxc {", at)) != std::string::npos; ++at) ++opens;
  CHECK(banners >= 2);
  CHECK(opens < banners);
  CHECK(compiles(rt, code, "g++"));
  CHECK(compiles(rt, code, "clang++"));
}

// Issue 33: an include followed by a comment (quantize.h's `#include "onnxc/conv.h"  //
// ConvParams`) was read as a path that named no header, so conv.h and gemm.h were left out and
// every quantized model's default output failed to compile.
TEST_CASE("every onnxc/ include of every runtime header names an embedded header",
          "[codegen][inliner]") {
  CHECK(included_runtime_header("#include \"onnxc/conv.h\"  // ConvParams") == "onnxc/conv.h");
  CHECK(included_runtime_header("#include \"onnxc/base.h\"") == "onnxc/base.h");
  CHECK(included_runtime_header("#include <cmath>").empty());
  CHECK(included_runtime_header("// #include \"onnxc/conv.h\"").empty());
  const std::vector<std::string> paths = runtime_header_paths();
  const std::set<std::string> known(paths.begin(), paths.end());
  CHECK(known.size() > 50);
  for (const std::string& path : paths) {
    std::istringstream text(runtime_header_text(path));
    for (std::string line; std::getline(text, line);) {
      if (line.rfind("#include \"", 0) != 0) continue;
      INFO(path << ": " << line);
      CHECK(known.count(included_runtime_header(line)) == 1);
    }
  }
}

// The regression test for every kernel family: each runtime header, inlined for code that names
// each of its identifiers as onnxc::NAME (as generated code calls the runtime), compiles on its
// own under -Wall -Wextra -Werror. What its declarations need from other headers and from their
// detail namespaces (through `using namespace quant_detail;` in a body, say) must come along.
TEST_CASE("each runtime header inlined for code that names all of it compiles",
          "[codegen][inliner]") {
  for (const std::string& path : runtime_header_paths()) {
    if (path == "onnxc/types.h") continue;  // the generated header pastes it whole
    std::string code = "uses";
    std::istringstream words(runtime_header_text(path));
    std::set<std::string> seen;
    for (std::string line; std::getline(words, line);) {
      if (line.rfind("//", line.find_first_not_of(' ')) == line.find_first_not_of(' ')) continue;
      for (size_t i = 0; i < line.size();) {
        if (!std::isalpha(static_cast<unsigned char>(line[i])) && line[i] != '_') {
          ++i;
          continue;
        }
        size_t j = i;
        while (j < line.size() &&
               (std::isalnum(static_cast<unsigned char>(line[j])) || line[j] == '_'))
          ++j;
        if (seen.insert(line.substr(i, j - i)).second) code += " onnxc::" + line.substr(i, j - i);
        i = j;
      }
    }
    // A header of detail pieces only (conv_tiles.h: conv_detail::gemm_tile, ...) is named
    // through its detail namespace, as the kernels that include it call it.
    const std::string text = runtime_header_text(path);
    for (size_t at = text.find("\nnamespace "); at != std::string::npos;
         at = text.find("\nnamespace ", at + 1)) {
      const std::string ns = text.substr(at + 11, text.find(' ', at + 11) - (at + 11));
      if (ns.size() > 7 && ns.compare(ns.size() - 7, 7, "_detail") == 0)
        for (const std::string& name : seen) code += " onnxc::" + ns + "::" + name;
    }
    const std::string rt = inline_runtime({path}, code + "\n", {"onnxc/types.h"});
    INFO(path);
    // Only headers that gather others (elementwise.h) or hold a table macro paste nothing.
    const bool declares =
        std::string(runtime_header_text(path)).find("namespace onnxc {") != std::string::npos;
    CHECK((rt.find("// ---- runtime/" + path + " ----") != std::string::npos) == declares);
    CHECK(compiles(rt, "", "g++"));
  }
}
