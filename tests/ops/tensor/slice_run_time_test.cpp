// A Slice whose start is computed at run time (a Loop's iteration number, a graph input) compiles
// when its end is the start plus a constant: the output's extent is that constant, the start is
// read by run(), and a start whose clamped range has another extent makes run() return
// onnxc::kErrorRunTimeExtent instead of computing a different shape. Checked by building and
// running the generated code with g++ (values from numpy's slicing rules, worked by hand).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "codegen/cpp_emitter.h"
#include "driver/pipeline.h"
#include "harness/model_builder.h"

using namespace onnxc;
namespace fs = std::filesystem;

namespace {

// y = x[s : s + 2] over x of 6 floats, s an int64 graph input.
std::unique_ptr<Module> slice_model(Diagnostics& diag) {
  testing::ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {6})
      .input("s", onnx::TensorProto::INT64, {1})
      .output("y", onnx::TensorProto::FLOAT, {2});
  auto* two = mb.proto().mutable_graph()->add_initializer();
  two->set_name("two");
  two->set_data_type(onnx::TensorProto::INT64);
  two->add_dims(1);
  two->add_int64_data(2);
  mb.node("Add", {"s", "two"}, {"e"}, "end");
  mb.node("Slice", {"x", "s", "e"}, {"y"}, "window");
  return lower_model(mb.write(), ImportOptions{}, diag);
}

const char* kDriver = R"(#include "window.h"
#include <cstdio>
#include <cstdlib>
int main(int, char** argv) {
  const float x[6] = {0, 1, 2, 3, 4, 5};
  const long long s[1] = {std::atoll(argv[1])};
  float y[2] = {-1, -1};
  alignas(64) static unsigned char arena[window::kWorkspaceSize + 64];
  const int rc = window::run({x, reinterpret_cast<const std::int64_t*>(s)}, {y}, arena);
  std::printf("%d %g %g", rc, double{y[0]}, double{y[1]});
  return 0;
}
)";

}  // namespace

TEST_CASE("Slice with a run-time start and a constant extent", "[ops][slice]") {
  Diagnostics diag;
  auto module = slice_model(diag);
  REQUIRE(module);
  CodegenOptions cg;
  cg.name = "window";
  cg.header_file = "window.h";
  GeneratedCode code;
  REQUIRE(generate_cpp(*module, cg, code, diag));
  CHECK(code.source.find("return onnxc::kErrorRunTimeExtent;") != std::string::npos);

  const fs::path dir = fs::temp_directory_path() / ("onnxc-slice-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "window.cpp") << code.source;
  std::ofstream(dir / "window.h") << code.header;
  std::ofstream(dir / "main.cpp") << kDriver;
  const std::string build = "g++ -std=c++17 -O1 -Wall -Wextra -Werror -o " + (dir / "m").string() +
                            " " + (dir / "main.cpp").string() + " " +
                            (dir / "window.cpp").string() + " -I" + dir.string() + " 2>&1";
  REQUIRE(std::system(build.c_str()) == 0);
  auto run = [&](const char* s) {
    const std::string cmd = (dir / "m").string() + " " + s + " > " + (dir / "out.txt").string();
    REQUIRE(std::system(cmd.c_str()) == 0);
    std::ifstream in(dir / "out.txt");
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  CHECK(run("1") == "0 1 2");     // x[1:3]
  CHECK(run("4") == "0 4 5");     // x[4:6]
  CHECK(run("-3") == "0 3 4");    // x[-3:-1] = x[3:5]
  CHECK(run("5") == "5 -1 -1");   // x[5:7] = x[5:6]: one element, not 2
  CHECK(run("-1") == "5 -1 -1");  // x[-1:1] = x[5:1]: empty
  fs::remove_all(dir);
}
