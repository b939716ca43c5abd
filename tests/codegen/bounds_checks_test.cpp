// --check-bounds (issue 17): the generated code fills a guard zone after every arena buffer and
// checksums every live arena value; a kernel that writes past its output, or a value changed while
// still live (a planner overlap), makes run() call ONNXC_BOUNDS_FAILURE with the ONNX node and
// value names and return onnxc::kErrorBoundsCheck (4). The faults are injected into the generated
// source as one extra statement, as an overrunning kernel or an overlapping buffer would produce
// them, and the program is built and run with g++. Without the flag the output is unchanged.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "codegen/cpp_emitter.h"
#include "driver/pipeline.h"
#include "harness/model_builder.h"

using namespace onnxc;
namespace fs = std::filesystem;

namespace {

// out = -relu(x) + relu(x): y1 (first's output) stays live until third reads it.
GeneratedCode generate(bool check_bounds) {
  testing::ModelBuilder mb;
  mb.input("x", onnx::TensorProto::FLOAT, {1, 64}).output("out", onnx::TensorProto::FLOAT, {1, 64});
  mb.node("Relu", {"x"}, {"y1"}, "first");
  mb.node("Neg", {"y1"}, {"y2"}, "second");
  mb.node("Add", {"y2", "y1"}, {"out"}, "third");
  Diagnostics diag;
  ImportOptions options;
  options.check_bounds = check_bounds;
  auto module = lower_model(mb.write(), options, diag);
  REQUIRE(module);
  CodegenOptions cg;
  cg.name = "guarded";
  cg.header_file = "guarded.h";
  GeneratedCode code;
  REQUIRE(generate_cpp(*module, cg, code, diag));
  return code;
}

const char* kDriver = R"(#include <cstdio>
#define ONNXC_BOUNDS_FAILURE(node, value) std::printf("failure %s %s ", node, value)
#include "guarded.h"
int main() {
  float x[64], out[64];
  for (int i = 0; i < 64; ++i) x[i] = static_cast<float>(i % 7) - 3.0f;
  alignas(64) static unsigned char arena[guarded::kWorkspaceSize];
  std::printf("%d", guarded::run({x}, {out}, arena));
  return 0;
}
)";

// Builds `source` (the generated .cpp, the driver defining the hook first) and returns what the
// program prints.
std::string build_and_run(const GeneratedCode& code, const std::string& source) {
  const fs::path dir = fs::temp_directory_path() / ("onnxc-bounds-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "guarded.h") << code.header;
  std::ofstream(dir / "main.cpp") << kDriver << source;
  const std::string build = "g++ -std=c++17 -O1 -Wall -Wextra -Werror -o " + (dir / "m").string() +
                            " " + (dir / "main.cpp").string() + " -I" + dir.string() + " 2>&1";
  REQUIRE(std::system(build.c_str()) == 0);
  REQUIRE(std::system(((dir / "m").string() + " > " + (dir / "out.txt").string()).c_str()) == 0);
  std::ifstream in(dir / "out.txt");
  std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::remove_all(dir);
  return out;
}

// `source` with `statement` inserted before the first line matching `anchor`, whose first
// number (an arena offset) replaces OFFSET in the statement.
std::string inject_before(const std::string& source, const std::string& anchor,
                          const std::string& statement) {
  std::smatch m;
  REQUIRE(std::regex_search(source, m, std::regex(anchor)));
  const size_t line = source.rfind('\n', static_cast<size_t>(m.position(0))) + 1;
  const std::string offset = m[1].str();
  const std::string s = std::regex_replace(statement, std::regex("OFFSET"), offset);
  return source.substr(0, line) + "  " + s + "\n" + source.substr(line);
}

}  // namespace

TEST_CASE("check-bounds catches an overrun and a value changed while live", "[codegen][bounds]") {
  const GeneratedCode plain = generate(false), guarded = generate(true);
  CHECK(plain.source.find("bounds_check") == std::string::npos);
  CHECK(guarded.source.find("onnxc::bounds_check::fill(arena + ") != std::string::npos);
  CHECK(build_and_run(guarded, guarded.source) == "0");

  // first's kernel writes one byte past y1: the guard check after first fires.
  const std::string overrun =
      inject_before(guarded.source, R"(if \(!onnxc::bounds_check::intact\(arena \+ (\d+), 32\)\))",
                    "arena[OFFSET] ^= 1;  // injected: one byte past the buffer");
  CHECK(build_and_run(guarded, overrun) == "failure first y1 4");

  // y1 changes after its checksum was taken (another buffer overlapping it): second, the next
  // node to read it, reports it.
  const std::string overlap = inject_before(
      guarded.source, R"(bounds_ck\[0\] = onnxc::bounds_check::checksum\(arena \+ (\d+))",
      "arena[OFFSET + 5] ^= 1;  // injected: y1 overwritten while live");
  const std::string moved = std::regex_replace(
      overlap, std::regex(R"(  (arena\[\d+ \+ 5\] \^= 1;.*)\n(  bounds_ck\[0\] = .*)\n)"),
      "$2\n  $1\n");
  CHECK(build_and_run(guarded, moved) == "failure second y1 4");
}
