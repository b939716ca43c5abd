// Builds generated code (the .cpp and .h onnxc wrote for a model, named net.cpp / net.h) with
// g++ -Werror and a driver main.cpp, runs it and returns what it printed: the tests that check
// run()'s behaviour, not just the text of the code.
#pragma once

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "codegen/cpp_emitter.h"

namespace onnxc::testing {

// The code of `module` as net.cpp / net.h, the runtime inlined.
inline GeneratedCode generate_net(const Module& module) {
  Diagnostics diag;
  CodegenOptions cg;
  cg.name = "net";
  cg.header_file = "net.h";
  GeneratedCode code;
  const bool ok = generate_cpp(module, cg, code, diag);
  INFO(diag.str());
  REQUIRE(ok);
  return code;
}

// `driver`: a main() that includes nothing (net.h, <cstdio> and <cstdint> are included before
// it); `args`: the program's command line.
inline std::string build_and_run(const GeneratedCode& code, const std::string& driver,
                                 const std::string& args = "") {
  namespace fs = std::filesystem;
  static int counter = 0;
  const fs::path dir = fs::temp_directory_path() / ("onnxc-program-" + std::to_string(::getpid()) +
                                                    "-" + std::to_string(counter++));
  fs::create_directories(dir);
  std::ofstream(dir / "net.cpp") << code.source;
  std::ofstream(dir / "net.h") << code.header;
  std::ofstream(dir / "main.cpp") << "#include \"net.h\"\n#include <cstdio>\n#include <cstdint>\n"
                                  << driver;
  const std::string build = "g++ -std=c++17 -O1 -Wall -Wextra -Werror -o " + (dir / "m").string() +
                            " " + (dir / "main.cpp").string() + " " + (dir / "net.cpp").string() +
                            " -I" + dir.string() + " 2>&1";
  REQUIRE(std::system(build.c_str()) == 0);
  const std::string run = (dir / "m").string() + " " + args + " > " + (dir / "out.txt").string();
  REQUIRE(std::system(run.c_str()) == 0);
  std::ifstream in(dir / "out.txt");
  std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::remove_all(dir);
  return out;
}

}  // namespace onnxc::testing
