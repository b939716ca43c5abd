// Reproducible output: the same model bytes and flags give byte-identical .cpp, .h and .bin files
// whatever folder the model is in, whatever the working directory and wherever the output goes.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "harness/model_builder.h"

namespace fs = std::filesystem;
using onnxc::testing::ModelBuilder;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs onnxc with `args` from working directory `cwd`; returns its exit code.
int run_in(const fs::path& cwd, const std::string& args) {
  const std::string cmd = "cd '" + cwd.string() + "' && " + ONNXC_BINARY + " " + args + " 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A small model with weights and names that need sanitizing: y = Relu(x + b) * w.
std::string write_model() {
  ModelBuilder mb;
  mb.input("input.1", onnx::TensorProto::FLOAT, {-1, 3}, {"batch"})
      .output("out/y:0", onnx::TensorProto::FLOAT, {-1, 3}, {"batch"})
      .initializer("onnx::Add_7", {3}, {1.0f, -2.0f, 0.5f})
      .initializer("w", {3}, {2.0f, 3.0f, 4.0f});
  mb.node("Add", {"input.1", "onnx::Add_7"}, {"/add/Add_output_0"}, "/add/Add");
  mb.node("Relu", {"/add/Add_output_0"}, {"r"}, "/relu/Relu");
  mb.node("Mul", {"r", "w"}, {"out/y:0"}, "/mul/Mul");
  return mb.write();
}

}  // namespace

TEST_CASE("same model bytes and flags give byte-identical files from any path",
          "[cli][reproducible]") {
  const fs::path root = fs::temp_directory_path() / ("onnxc-repro-" + std::to_string(::getpid()));
  fs::remove_all(root);
  const fs::path a = root / "repro_one" / "models", b = root / "repro_two" / "deeper" / "place";
  fs::create_directories(a);
  fs::create_directories(b);
  const std::string model = write_model();
  fs::copy_file(model, a / "net.onnx");
  fs::copy_file(model, b / "net.onnx");
  fs::create_directories(root / "repro_one" / "out");
  fs::create_directories(b / "gen");

  for (const std::string weights : {"embedded", "external"}) {
    INFO("weights " << weights);
    // Relative paths from one working directory, absolute paths from another, flags reordered.
    REQUIRE(run_in(root / "repro_one",
                   "models/net.onnx -o out/net.cpp --dim batch=2 --weights " + weights) == 0);
    REQUIRE(run_in(root, (b / "net.onnx").string() + " -o " + (b / "gen" / "net.cpp").string() +
                             " --weights " + weights + " --dim batch=2") == 0);
    for (const char* ext : {".cpp", ".h"}) {
      const std::string x = read_file(root / "repro_one" / "out" / (std::string("net") + ext));
      const std::string y = read_file(b / "gen" / (std::string("net") + ext));
      REQUIRE_FALSE(x.empty());
      CHECK(x == y);
      // Nothing of the machine: no folder of the model, the output or the working directory.
      CHECK(x.find(root.string()) == std::string::npos);
      CHECK(x.find("repro_one") == std::string::npos);
      CHECK(x.find("models/") == std::string::npos);
    }
    if (weights == "external")
      CHECK(read_file(root / "repro_one" / "out" / "net.bin") == read_file(b / "gen" / "net.bin"));
  }
  // The banner names the model by file name and hash, and gives the flags.
  const std::string cpp = read_file(b / "gen" / "net.cpp");
  CHECK(cpp.find("// Model: net.onnx (sha256 ") != std::string::npos);
  CHECK(cpp.find("// Flags: --name net --dim batch=2 --target generic --weights external --runtime "
                 "inline\n") != std::string::npos);
  // Flags spelled out at their defaults give the same files as leaving them out.
  REQUIRE(run_in(root / "repro_one", "models/net.onnx -o out/net.cpp --dim batch=2") == 0);
  REQUIRE(run_in(b, "net.onnx -o gen/net.cpp --runtime inline --weights embedded --dim batch=2") ==
          0);
  CHECK(read_file(root / "repro_one" / "out" / "net.cpp") == read_file(b / "gen" / "net.cpp"));
  fs::remove_all(root);
}
