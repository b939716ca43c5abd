// Runs the onnxc binary under test (ONNXC_BINARY, set by tests/CMakeLists.txt) as a user would,
// for the driver tests: its exit code and everything it printed.
#pragma once

#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

namespace onnxc::testing {

struct Run {
  int exit_code;       // or 128 + the signal that ended it
  std::string output;  // stdout and stderr, interleaved
};

// `args`: the shell words after the binary.
inline Run run_onnxc(const std::string& args) {
  const std::string cmd = std::string(ONNXC_BINARY) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p);
  Run r{0, ""};
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

}  // namespace onnxc::testing
