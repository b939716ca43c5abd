// What the kernel testers that build a checker program ask of the host: the C++ compiler to use
// ($CXX, else c++) and whether a program (a cross compiler, qemu) is installed.
#pragma once

#include <cstdlib>
#include <string>

namespace onnxc::testing {

inline std::string host_cxx() {
  const char* env = std::getenv("CXX");
  return env && *env ? env : "c++";
}

inline bool have_program(const char* program) {
  return std::system((std::string("command -v ") + program + " >/dev/null 2>&1").c_str()) == 0;
}

}  // namespace onnxc::testing
