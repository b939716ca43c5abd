// --threads N: the heavy kernels run in N parts on the pool run() is given (onnxc/parallel.h).
// A model with a convolution GEMM, a depthwise convolution and a GEMM with packed weights, all
// above the split threshold, is compiled with --threads 1 and --threads 2; the program runs the
// first, then the second on an onnxc::ThreadPool of 2 and on onnxc::kSerial, and the outputs
// must agree bit for bit; likewise an LSTM, whose steps' products by R^T are split. Below the
// threshold nothing is split, and --threads 1 emits no thread code at all.
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

std::vector<float> ramp(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(static_cast<int>(i % 17) - 8);
  return v;
}

// x [1,16,32,32] -> Conv 3x3 (32 channels, 9.4 MFLOP) -> Relu -> depthwise 3x3 (0.6 MFLOP)
// -> Flatten(axis 2) [32,1024] -> Gemm with constant B [1024,64] (4.2 MFLOP) -> y [32,64].
testing::ModelBuilder conv_gemm_model() {
  testing::ModelBuilder mb;
  mb.input("x", onnx::TensorProto::FLOAT, {1, 16, 32, 32});
  mb.output("y", onnx::TensorProto::FLOAT, {32, 64});
  mb.initializer("w1", {32, 16, 3, 3}, ramp(32 * 16 * 9, 0.01f));
  mb.initializer("b1", {32}, ramp(32, 0.1f));
  mb.initializer("w2", {32, 1, 3, 3}, ramp(32 * 9, 0.05f));
  mb.initializer("wg", {1024, 64}, ramp(1024 * 64, 0.002f));
  auto& conv = mb.node("Conv", {"x", "w1", "b1"}, {"c1"}, "conv");
  testing::ModelBuilder::ints_attr(conv, "pads", {1, 1, 1, 1});
  mb.node("Relu", {"c1"}, {"r1"}, "relu");
  auto& dw = mb.node("Conv", {"r1", "w2"}, {"c2"}, "depthwise");
  testing::ModelBuilder::ints_attr(dw, "pads", {1, 1, 1, 1});
  testing::ModelBuilder::int_attr(dw, "group", 32);
  auto& flat = mb.node("Flatten", {"c2"}, {"f"}, "flatten");
  testing::ModelBuilder::int_attr(flat, "axis", 2);
  mb.node("Gemm", {"f", "wg"}, {"y"}, "gemm");
  return mb;
}

// x [seq 6, batch 1, 16] -> LSTM (hidden 192: each step's product by R^T is 0.29 MFLOP, a vector
// product worth splitting) -> y [6, 1, 1, 192].
testing::ModelBuilder lstm_model() {
  testing::ModelBuilder mb(14);
  mb.input("x", onnx::TensorProto::FLOAT, {6, 1, 16});
  mb.output("y", onnx::TensorProto::FLOAT, {6, 1, 1, 192});
  mb.initializer("w", {1, 768, 16}, ramp(768 * 16, 0.02f));
  mb.initializer("r", {1, 768, 192}, ramp(768 * 192, 0.01f));
  mb.initializer("b", {1, 1536}, ramp(1536, 0.05f));
  auto& lstm = mb.node("LSTM", {"x", "w", "r", "b"}, {"y"}, "lstm");
  testing::ModelBuilder::int_attr(lstm, "hidden_size", 192);
  return mb;
}

// x [1,32,40,40] -> Conv 3x3 (32 channels, 29 MFLOP: Winograd on AVX-512) -> Add x (the residual,
// fused into the convolution) -> y.
testing::ModelBuilder winograd_model() {
  testing::ModelBuilder mb;
  mb.input("x", onnx::TensorProto::FLOAT, {1, 32, 40, 40});
  mb.output("y", onnx::TensorProto::FLOAT, {1, 32, 40, 40});
  mb.initializer("w", {32, 32, 3, 3}, ramp(32 * 32 * 9, 0.01f));
  mb.initializer("b", {32}, ramp(32, 0.1f));
  auto& conv = mb.node("Conv", {"x", "w", "b"}, {"c"}, "conv");
  testing::ModelBuilder::ints_attr(conv, "pads", {1, 1, 1, 1});
  mb.node("Add", {"c", "x"}, {"y"}, "residual");
  return mb;
}

GeneratedCode generate(testing::ModelBuilder mb, const std::string& name, int threads,
                       const char* target = "generic") {
  Diagnostics diag;
  ImportOptions options;
  options.target = with_threads(*find_target(target), threads);
  auto module = lower_model(mb.write(), options, diag);
  REQUIRE(module);
  CodegenOptions cg;
  cg.name = name;
  cg.header_file = name + ".h";
  GeneratedCode code;
  REQUIRE(generate_cpp(*module, cg, code, diag));
  return code;
}

// The program: x of `nx` floats in, y of `ny` out, through one (serial) and two (on a pool of 2,
// and on a null pool, which runs the parts one after another).
std::string driver(const std::string& nx, const std::string& ny) {
  return R"(#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "one.h"
#include "two.h"
#include "onnxc/thread_pool.h"
int main() {
  std::vector<float> x()" +
         nx + "), y1(" + ny + "), y2(" + ny + "), y3(" + ny + R"();
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 23) * 0.1f - 1.0f;
  void* w1 = std::aligned_alloc(64, (one::kWorkspaceSize + 63) / 64 * 64);
  void* w2 = std::aligned_alloc(64, (two::kWorkspaceSize + 63) / 64 * 64);
  onnxc::ThreadPool pool(2);
  const onnxc::Parallel parallel = pool.parallel();
  int rc = one::run({x.data()}, {y1.data()}, w1) + two::run({x.data()}, {y2.data()}, w2, parallel) +
           two_run(std::vector<const void*>{x.data()}.data(), std::vector<void*>{y3.data()}.data(),
                   w2, nullptr);
  std::printf("rc %d pool %s serial %s nonzero %d", rc,
              std::memcmp(y1.data(), y2.data(), y1.size() * 4) ? "differs" : "same",
              std::memcmp(y1.data(), y3.data(), y1.size() * 4) ? "differs" : "same",
              y1[5] != 0.0f);
  std::free(w1);
  std::free(w2);
}
)";
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t pos = 0; (pos = text.find(what, pos)) != std::string::npos; pos += what.size()) ++n;
  return n;
}

// Builds one, two and the driver; the program's report.
std::string run_both(const GeneratedCode& one, const GeneratedCode& two, const std::string& nx,
                     const std::string& ny, const std::string& cxx_flags = "") {
  const fs::path dir = fs::temp_directory_path() / ("onnxc-threads-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (const auto* c : {&one, &two}) {
    const std::string name = c == &one ? "one" : "two";
    std::ofstream(dir / (name + ".h")) << c->header;
    std::ofstream(dir / (name + ".cpp")) << c->source;
  }
  std::ofstream(dir / "main.cpp") << driver(nx, ny);
  const std::string build = "g++ -std=c++17 -O2 -Wall -Wextra -Werror -pthread " + cxx_flags +
                            " -I" + dir.string() + " -I" + ONNXC_SOURCE_DIR + "/runtime -o " +
                            (dir / "m").string() + " " + (dir / "main.cpp").string() + " " +
                            (dir / "one.cpp").string() + " " + (dir / "two.cpp").string();
  INFO(build);
  REQUIRE(std::system(build.c_str()) == 0);
  REQUIRE(std::system(((dir / "m").string() + " > " + (dir / "out.txt").string()).c_str()) == 0);
  std::ifstream in(dir / "out.txt");
  const std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::remove_all(dir);
  return out;
}

}  // namespace

TEST_CASE("code for --threads 2 splits the heavy kernels and matches --threads 1 bit for bit",
          "[codegen][threads]") {
  const GeneratedCode one = generate(conv_gemm_model(), "one", 1),
                      two = generate(conv_gemm_model(), "two", 2);
  CHECK(count(one.source, "parallel,") == 0);
  CHECK(count(one.header, "Parallel") == 0);
  CHECK(count(two.source, "parallel, /*tasks=*/2") == 3);  // conv, depthwise conv, gemm
  CHECK(count(two.header, "const onnxc::Parallel& parallel") == 1);
  CHECK(run_both(one, two, "16 * 32 * 32", "32 * 64") == "rc 0 pool same serial same nonzero 1");
}

TEST_CASE("an LSTM's steps split over --threads 2 give the --threads 1 states bit for bit",
          "[codegen][threads]") {
  const GeneratedCode one = generate(lstm_model(), "one", 1),
                      two = generate(lstm_model(), "two", 2);
  CHECK(count(one.source, "parallel,") == 0);
  CHECK(count(one.source, "struct SplitProduct") == 0);
  CHECK(count(two.source, "rec_scratch, parallel, /*tasks=*/2);") == 1);
  CHECK(run_both(one, two, "6 * 16", "6 * 192") == "rc 0 pool same serial same nonzero 1");
}

TEST_CASE("Winograd convolutions split over --threads 2 match --threads 1 bit for bit",
          "[codegen][threads][winograd]") {
  const Target& avx512 = *find_target("x86-64-v4");
  if (!host_can_run(avx512)) {
    WARN("this host cannot run x86-64-v4 code: Winograd's parallel form not built");
    return;
  }
  const GeneratedCode one = generate(winograd_model(), "one", 1, "x86-64-v4"),
                      two = generate(winograd_model(), "two", 2, "x86-64-v4");
  CHECK(count(one.source, "onnxc::f32_conv_wino4x4__scalar(p, ") == 1);
  CHECK(count(two.source, "onnxc::f32_conv_wino4x4__scalar(p, ") == 1);
  CHECK(count(two.source, "inputs.x, parallel, /*tasks=*/2);") == 1);  // the residual is x
  CHECK(run_both(one, two, "32 * 40 * 40", "32 * 40 * 40", std::string(avx512.cxx_flags)) ==
        "rc 0 pool same serial same nonzero 1");
}
