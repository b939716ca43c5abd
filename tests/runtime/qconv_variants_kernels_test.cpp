// The int8 convolution variants of onnxc/variants.h (qconv, qdwconv) against qlinear_conv_ref,
// through tests/runtime/qconv_variants_check.cpp: that program is built natively (the
// scalar rows) and, when arm-none-eabi-g++ and qemu-system-arm are installed, as bare-metal
// programs for QEMU's Cortex-M4F board (the __dsp rows: SMLAD, SXTB16), Cortex-M0+ board
// (ARMv6-M, no unaligned access) and Cortex-M55 board mps3-an547 (the __mve rows: Helium, and the
// __dsp rows again), with examples/cortex-m's start-up code and linker scripts.
// Tagged [external] (as the float conv variants): the sanitizer build of onnxc_tests skips them.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "harness/host_tools.h"

namespace fs = std::filesystem;

namespace {

using onnxc::testing::have_program;
std::string cxx() {
  return onnxc::testing::host_cxx();
}

fs::path work_dir() {
  const fs::path dir = fs::temp_directory_path() / ("onnxc-qconv-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

// Builds the checker with `build` (a compiler and its flags, to which the source and -o EXE are
// appended), runs it through `runner` and returns what it printed.
std::string build_and_run(const std::string& build, const std::string& runner,
                          const std::string& tag) {
  const fs::path dir = work_dir();
  const std::string exe = (dir / ("qconv_check_" + tag)).string();
  const std::string log = exe + ".txt";
  const std::string src = std::string(ONNXC_SOURCE_DIR) +
                          "/tests/runtime/qconv_variants_check.cpp -I" + ONNXC_SOURCE_DIR +
                          "/runtime";
  const std::string command = build + " " + src + " -o " + exe;
  INFO(command);
  REQUIRE(std::system(command.c_str()) == 0);
  std::system((runner + exe + " >" + log + " 2>&1").c_str());
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  std::printf("-- qconv variants, %s\n%s", tag.c_str(), text.str().c_str());
  return text.str();
}

const char* kStrict = " -std=c++17 -O2 -Wall -Wextra -Werror";

}  // namespace

TEST_CASE("int8 conv variants match qlinear_conv_ref bit for bit on the host",
          "[kernels][qconv][external]") {
  const std::string out = build_and_run(cxx() + kStrict, "", "host");
  CHECK(out.find("qconv check PASS") != std::string::npos);
  CHECK(out.find("ran s8_qconv_2x2__scalar") != std::string::npos);
}

TEST_CASE("int8 conv variants on the Cortex-M4F and M0+ and M55 under QEMU",
          "[kernels][qconv][qemu][external]") {
  if (!have_program("arm-none-eabi-g++") || !have_program("qemu-system-arm")) {
    WARN("arm-none-eabi-g++ or qemu-system-arm missing: the dsp rows are not run");
    return;
  }
  const std::string examples = std::string(ONNXC_SOURCE_DIR) + "/examples/cortex-m";
  const std::string bare = std::string(kStrict) +
                           " -ffunction-sections -fdata-sections -fno-exceptions -fno-rtti"
                           " --specs=rdimon.specs -Wl,--gc-sections " +
                           examples + "/startup.cpp -T " + examples + "/";
  struct Board {
    const char *tag, *flags, *ld, *machine, *must_run, *must_run_too;
  };
  const Board boards[] = {
      {"m4f", "-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard", "mps2.ld", "mps2-an386",
       "ran s8_qconv_2x2__dsp", "ran s8_qdwconv_3x3__dsp"},
      {"m0plus", "-mcpu=cortex-m0plus -mthumb -mfloat-abi=soft", "mps2.ld", "mps2-an385",
       "ran s8_qconv_2x2__scalar", "ran s8_qdwconv_3x3__scalar"},
      {"m55", "-mcpu=cortex-m55 -mthumb -mfloat-abi=hard", "mps3_an547.ld", "mps3-an547",
       "ran s8_qconv_4x2__mve", "ran s8_qdwconv_3x3__mve"},
  };
  for (const Board& b : boards) {
    INFO(b.tag);
    const std::string out = build_and_run(std::string("arm-none-eabi-g++ ") + b.flags + bare + b.ld,
                                          std::string("timeout 300 qemu-system-arm -M ") +
                                              b.machine + " -nographic -semihosting -kernel ",
                                          b.tag);
    CHECK(out.find("qconv check PASS") != std::string::npos);
    CHECK(out.find(b.must_run) != std::string::npos);
    CHECK(out.find(b.must_run_too) != std::string::npos);
  }
}
