// The conv kernel variants of onnxc/variants.h against a double-precision brute force, through
// tests/runtime/conv_variants_check.cpp: that program is built with each target's flags
// (so each ISA's variants are compiled as generated code compiles them, and nothing built with
// -mavx512f is linked into this binary) and run for every target the host can execute; for
// aarch64 also when a cross compiler (aarch64-linux-gnu-g++) and qemu-aarch64 are installed.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "harness/host_tools.h"
#include "ir/target.h"

namespace fs = std::filesystem;
using namespace onnxc;

namespace {

using onnxc::testing::have_program;
std::string cxx() {
  return onnxc::testing::host_cxx();
}

// Builds the checker with `compiler` and `flags`, runs it (through `runner`) and returns its
// exit status; its output goes to the test log.
int build_and_run(const std::string& compiler, const std::string& flags, const std::string& runner,
                  const std::string& tag) {
  const fs::path dir =
      fs::temp_directory_path() / ("onnxc-conv-variants-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string exe = (dir / ("check_" + tag)).string();
  const std::string src = std::string(ONNXC_SOURCE_DIR) + "/tests/runtime/conv_variants_check.cpp";
  const std::string build = compiler + " -std=c++17 -O2 -Wall -Wextra -Werror -pthread " + flags +
                            " -I" + ONNXC_SOURCE_DIR + "/runtime " + src + " -o " + exe;
  INFO(build);
  REQUIRE(std::system(build.c_str()) == 0);
  return std::system((runner + exe).c_str());
}

}  // namespace

TEST_CASE("conv variants match the brute force for every target the host runs", "[kernels][conv]") {
  for (const Target& t : all_targets()) {
    if (!host_can_run(t) || t.is_microcontroller()) continue;
    INFO("target " << t.name);
    std::printf("-- conv variants, --target %s\n", std::string(t.name).c_str());
    CHECK(build_and_run(cxx(), std::string(t.cxx_flags), "", std::string(t.name)) == 0);
  }
}

TEST_CASE("conv tiles dispatched at run time: each ISA copy of the baseline build matches",
          "[kernels][conv]") {
  // --target generic on x86-64 picks the tile's AVX-512, AVX2 + FMA or SSE2 copy by the CPU
  // (onnxc/conv.h); the plain build above ran the best copy this CPU has, these run the others.
#if defined(__x86_64__)
  std::printf("-- conv variants, --target generic, no AVX-512 copy\n");
  CHECK(build_and_run(cxx(), "-DONNXC_NO_AVX512_DISPATCH", "", "generic_avx2") == 0);
  std::printf("-- conv variants, --target generic, SSE2 copy only\n");
  CHECK(build_and_run(cxx(), "-DONNXC_NO_ISA_DISPATCH", "", "generic_sse2") == 0);
#else
  WARN("not an x86-64 host: no run-time dispatch to check");
#endif
}

TEST_CASE("conv variants for aarch64 under qemu (when a cross compiler is installed)",
          "[kernels][conv][aarch64]") {
  if (!have_program("aarch64-linux-gnu-g++") || !have_program("qemu-aarch64")) {
    WARN("aarch64-linux-gnu-g++ or qemu-aarch64 missing: NEON variants not run");
    return;
  }
  CHECK(build_and_run("aarch64-linux-gnu-g++", "-march=armv8-a -static", "qemu-aarch64 ",
                      "aarch64") == 0);
}
