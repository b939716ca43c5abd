// The conv kernel variants of onnxc/variants.h against a double-precision brute force, through
// tests/runtime/conv_variants_check.cpp: that program is built with each target's flags
// (so each ISA's variants are compiled as generated code compiles them, and nothing built with
// -mavx512f is linked into this binary) and run for every target the host can execute; for
// aarch64 also when a cross compiler (aarch64-linux-gnu-g++) and qemu-aarch64 are installed.
// Tagged [external]: the code under test is built by another compiler process, never with this
// binary's flags, so the sanitizer build of onnxc_tests leaves these to the main build (.ci/run).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "harness/host_tools.h"
#include "ir/target.h"

namespace fs = std::filesystem;
using namespace onnxc;

namespace {

using onnxc::testing::have_program;
std::string cxx() {
  return onnxc::testing::host_cxx();
}

// Builds the checker with `compiler` and `flags` as `tag` (the build folder keeps one per tag and
// the same build serves each tag's runs) and returns the path of the program.
std::string build_checker(const std::string& compiler, const std::string& flags,
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
  return exe;
}

// Runs the checker (through `runner`, with `args`) and returns its exit status; its output goes
// to the test log.
int run_checker(const std::string& runner, const std::string& exe, const std::string& args) {
  return std::system((runner + exe + args).c_str());
}

// Builds and runs the checker for target `name` where the host runs its code; a dispatching
// build runs once per ISA copy.
void check_target(std::string_view name) {
  const Target* t = find_target(name);
  REQUIRE(t != nullptr);
  if (!host_can_run(*t)) {
    WARN("this host cannot run --target " << name << " code: its variants not run here");
    return;
  }
  std::printf("-- conv variants, --target %s\n", std::string(name).c_str());
  std::string flags(t->cxx_flags);
#if defined(__x86_64__)
  // x86-64-v2 code dispatches as generic's does (onnxc/base.h), and its AVX-512 and AVX2 + FMA
  // copies are generic's: the same source under the same target attributes (each implies
  // SSE4.2). Only its baseline copy differs, so that is all its checker is built with (the
  // dispatching build takes four times as long: five minutes on a 2-core CI machine).
  if (name == "x86-64-v2") flags += " -DONNXC_NO_ISA_DISPATCH";
#endif
  const std::string exe = build_checker(cxx(), flags, std::string(name));
  CHECK(run_checker("", exe, "") == 0);
#if defined(__x86_64__)
  // Code for the x86-64 baseline (generic) picks each kernel's AVX-512, AVX2 + FMA or baseline
  // copy by the CPU; the run above ran the widest this CPU has, these the narrower ones.
  if (t->isa == Isa::scalar)
    for (const char* cap : {"avx2_fma", "sse2"}) {
      if (std::string_view(cap) == "avx2_fma" && !__builtin_cpu_supports("avx512f"))
        continue;  // the widest copy here: the run above
      std::printf("-- conv variants, --target %s, copies up to %s\n", std::string(name).c_str(),
                  cap);
      CHECK(run_checker("", exe, std::string(" ") + cap) == 0);
    }
#endif
}

// One test per target, so that CTest runs their builds (minutes each) side by side.
const char* const kCheckedTargets[] = {"generic",   "x86-64-v2", "x86-64-v3",
                                       "x86-64-v4", "aarch64",   "cortex-a7"};

}  // namespace

TEST_CASE("conv variants: every target but the microcontrollers has its test below",
          "[kernels][conv]") {
  std::vector<std::string> hosted, checked(std::begin(kCheckedTargets), std::end(kCheckedTargets));
  for (const Target& t : all_targets())
    if (!t.is_microcontroller()) hosted.emplace_back(t.name);
  CHECK(hosted == checked);
}

TEST_CASE("conv variants match the brute force: --target generic", "[kernels][conv][external]") {
  check_target("generic");
}
TEST_CASE("conv variants match the brute force: --target x86-64-v2", "[kernels][conv][external]") {
  check_target("x86-64-v2");
}
TEST_CASE("conv variants match the brute force: --target x86-64-v3", "[kernels][conv][external]") {
  check_target("x86-64-v3");
}
TEST_CASE("conv variants match the brute force: --target x86-64-v4", "[kernels][conv][external]") {
  check_target("x86-64-v4");
}
TEST_CASE("conv variants match the brute force: --target aarch64 on an aarch64 host",
          "[kernels][conv][external]") {
  check_target("aarch64");
}
TEST_CASE("conv variants match the brute force: --target cortex-a7 on such a host",
          "[kernels][conv][external]") {
  check_target("cortex-a7");
}

TEST_CASE("conv variants for aarch64 under qemu (when a cross compiler is installed)",
          "[kernels][conv][aarch64][external]") {
  if (!have_program("aarch64-linux-gnu-g++") || !have_program("qemu-aarch64")) {
    WARN("aarch64-linux-gnu-g++ or qemu-aarch64 missing: NEON variants not run");
    return;
  }
  const std::string exe =
      build_checker("aarch64-linux-gnu-g++", "-march=armv8-a -static", "aarch64");
  CHECK(run_checker("qemu-aarch64 ", exe, "") == 0);
}
