// Weight blobs and byte order (issue 16): ONNX stores tensors little-endian and onnxc copies those
// bytes, so weights are only right on a little-endian CPU. The external .bin starts with a magic
// and a byte-order mark, and the generated run() refuses (returns an error code, computes nothing)
// a file without the magic or with a mark in another byte order; embedded weights stop the build
// on a big-endian target. Checked by building and running the generated code with g++.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "codegen/cpp_emitter.h"
#include "codegen/weights.h"
#include "driver/pipeline.h"
#include "harness/model_builder.h"

using namespace onnxc;
namespace fs = std::filesystem;

namespace {

// y = x + b on a 1x3 input with a constant bias {1, -2, 0.5}.
GeneratedCode add_bias(WeightsMode weights, const fs::path& dir) {
  testing::ModelBuilder mb;
  mb.input("x", onnx::TensorProto::FLOAT, {1, 3})
      .output("y", onnx::TensorProto::FLOAT, {1, 3})
      .initializer("b", {3}, {1.0f, -2.0f, 0.5f});
  mb.node("Add", {"x", "b"}, {"y"}, "add");
  Diagnostics diag;
  auto module = lower_model(mb.write(), ImportOptions{}, diag);
  REQUIRE(module);
  CodegenOptions cg;
  cg.name = "add_bias";
  cg.header_file = "add_bias.h";
  cg.weights = weights;
  GeneratedCode code;
  REQUIRE(generate_cpp(*module, cg, code, diag));
  fs::create_directories(dir);
  std::ofstream(dir / "add_bias.cpp") << code.source;
  std::ofstream(dir / "add_bias.h") << code.header;
  return code;
}

// Prints run()'s return code, then y when it is 0.
const char* kDriver = R"(#include "add_bias.h"
#include <cstdio>
#include <fstream>
int main(int, char** argv) {
  float x[3] = {1.0f, 1.0f, 1.0f};
  float y[3] = {};
  std::ifstream in(argv[1], std::ios::binary);
  alignas(64) static unsigned char weights[add_bias::kWeightsSize];
  in.read(reinterpret_cast<char*>(weights), add_bias::kWeightsSize);
  const int rc = add_bias::run({x}, {y}, nullptr, weights);
  std::printf("%d", rc);
  if (rc == 0) std::printf(" %g %g %g", double{y[0]}, double{y[1]}, double{y[2]});
  return 0;
}
)";

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Runs the driver on `bin` written as `bytes`; returns what it prints.
std::string run_with(const fs::path& dir, const std::vector<uint8_t>& bytes) {
  std::ofstream(dir / "w.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<long>(bytes.size()));
  std::string cmd =
      (dir / "m").string() + " " + (dir / "w.bin").string() + " > " + (dir / "out.txt").string();
  REQUIRE(std::system(cmd.c_str()) == 0);
  return read(dir / "out.txt");
}

}  // namespace

TEST_CASE("the external .bin starts with a magic and a little-endian byte-order mark",
          "[codegen][weights]") {
  Graph g;
  Value* a = g.add_value("a");
  a->constant = std::make_shared<const Tensor>(Tensor::zeros(DataType::kFloat, {3}));
  WeightBlob blob = layout_weights(g, {a}, true);
  REQUIRE(blob.bytes.size() == 64 + 12);
  CHECK(std::string(blob.bytes.begin(), blob.bytes.begin() + 8) == std::string("onnxcw1\0", 8));
  CHECK(std::vector<uint8_t>(blob.bytes.begin() + 8, blob.bytes.begin() + 12) ==
        std::vector<uint8_t>{0x04, 0x03, 0x02, 0x01});
  CHECK(blob.offsets.at(a) == 64);
}

TEST_CASE("run() refuses an external .bin of another byte order or format", "[codegen][weights]") {
  fs::path dir = fs::temp_directory_path() / ("onnxc-byteorder-" + std::to_string(::getpid()));
  GeneratedCode code = add_bias(WeightsMode::kExternal, dir);
  CHECK(code.header.find("constexpr int kErrorWeightsByteOrder = 2;") != std::string::npos);
  std::ofstream(dir / "main.cpp") << kDriver;
  std::string cmd = "g++ -std=c++17 -O1 -Wall -Wextra -Werror -Wcast-align=strict -o " +
                    (dir / "m").string() + " " + (dir / "main.cpp").string() + " " +
                    (dir / "add_bias.cpp").string() + " -I" + dir.string() + " 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);

  CHECK(run_with(dir, code.weights) == "0 2 -1 1.5");
  // The same weights as a big-endian writer would mark them: mark bytes 01 02 03 04.
  std::vector<uint8_t> swapped = code.weights;
  std::reverse(swapped.begin() + 8, swapped.begin() + 12);
  CHECK(run_with(dir, swapped) == "2");
  // A raw blob without the header (a .bin from before the header, or another file).
  std::vector<uint8_t> raw(code.weights.begin() + 64, code.weights.end());
  raw.resize(code.weights.size(), 0);
  CHECK(run_with(dir, raw) == "1");
  fs::remove_all(dir);
}

TEST_CASE("embedded weights do not build for a big-endian target", "[codegen][weights]") {
  fs::path dir = fs::temp_directory_path() / ("onnxc-byteorder-emb-" + std::to_string(::getpid()));
  add_bias(WeightsMode::kEmbedded, dir);
  auto build = [&](const std::string& defines) {
    std::string cmd = "g++ -std=c++17 -fsyntax-only " + defines + " " +
                      (dir / "add_bias.cpp").string() + " > " + (dir / "err.txt").string() +
                      " 2>&1";
    return std::system(cmd.c_str());
  };
  CHECK(build("") == 0);
  // The host is little-endian; a big-endian compiler is simulated by its predefined macro.
  CHECK(build("-U__BYTE_ORDER__ -D__BYTE_ORDER__=__ORDER_BIG_ENDIAN__") != 0);
  CHECK_THAT(read(dir / "err.txt"),
             Catch::Contains("embedded weights are little-endian; this target is big-endian"));
  fs::remove_all(dir);
}
