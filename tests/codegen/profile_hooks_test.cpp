// --profile's timing hooks (CodegenOptions::profile): emitted only when asked, around every
// top-level node block, and nothing else changes: without the hooks the code is the default code.
#include <catch2/catch.hpp>
#include <sstream>

#include "codegen/cpp_emitter.h"
#include "driver/pipeline.h"
#include "harness/model_builder.h"

using namespace onnxc;

namespace {

std::string generate(const std::string& path, bool profile) {
  Diagnostics diag;
  auto module = lower_model(path, ImportOptions{}, diag);
  REQUIRE(module);
  CodegenOptions cg;
  cg.name = "net";
  cg.header_file = "net.h";
  cg.flags = "--name net";
  cg.profile = profile;
  GeneratedCode code;
  REQUIRE(generate_cpp(*module, cg, code, diag));
  return code.source;
}

// The source without its profiling lines: the hook calls, and the block defining them (a blank
// line, the comment, two #ifndef ... #endif).
std::string without_hooks(const std::string& source) {
  std::istringstream in(source);
  std::string out, line;
  int endifs_left = 0;
  while (std::getline(in, line)) {
    if (line.rfind("// --profile:", 0) == 0) {
      if (out.size() >= 2 && out.compare(out.size() - 2, 2, "\n\n") == 0) out.pop_back();
      endifs_left = 2;
    } else if (endifs_left > 0) {
      endifs_left -= line == "#endif";
    } else if (line.find("ONNXC_PROFILE_") == std::string::npos) {
      out += line + "\n";
    }
  }
  return out;
}

}  // namespace

TEST_CASE("profile hooks are emitted only with --profile, around each node", "[codegen][profile]") {
  testing::ModelBuilder mb;
  mb.input("x", onnx::TensorProto::FLOAT, {2, 3})
      .output("y", onnx::TensorProto::FLOAT, {2, 3})
      .initializer("b", {3}, {1.0f, -2.0f, 0.5f});
  mb.node("Add", {"x", "b"}, {"sum"}, "add");
  mb.node("Tanh", {"sum"}, {"y"}, "tanh");
  const std::string path = mb.write();
  const std::string plain = generate(path, false), profiled = generate(path, true);
  CHECK(plain.find("ONNXC_PROFILE") == std::string::npos);
  CHECK(profiled.find("  ONNXC_PROFILE_BEGIN(0);\n  {\n") != std::string::npos);
  CHECK(profiled.find("  }\n  ONNXC_PROFILE_END(1);\n") != std::string::npos);
  CHECK(profiled.find("#define ONNXC_PROFILE_BEGIN(node) static_cast<void>(0)") !=
        std::string::npos);
  CHECK(without_hooks(profiled) == plain);
}
