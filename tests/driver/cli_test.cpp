// The onnxc binary's contract for bad input: one clear line naming the problem, exit code 1 for
// model errors and 2 for usage errors.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <string>

#include "support/model_builder.h"

using onnxc::testing::ModelBuilder;

namespace {

struct Run {
  int exit_code;
  std::string output;
};

Run run_onnxc(const std::string& args) {
  std::string cmd = std::string(ONNXC_BINARY) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p);
  Run r{0, ""};
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  int status = pclose(p);
  r.exit_code = WEXITSTATUS(status);
  return r;
}

size_t lines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace

TEST_CASE("a malformed model file is one error line and exit 1", "[cli]") {
  std::string path = ModelBuilder().write();
  std::ofstream(path, std::ios::binary) << "\x08\x07garbage\xff\xff";
  Run r = run_onnxc("check " + path);
  CHECK(r.exit_code == 1);
  CHECK(lines(r.output) == 1);
  CHECK(r.output.find(path) != std::string::npos);
}

TEST_CASE("an unsupported op names the node and the op, exit 1", "[cli]") {
  ModelBuilder mb;
  mb.input("x", onnx::TensorProto::FLOAT, {4}).output("y", onnx::TensorProto::FLOAT, {4});
  mb.node("NoSuchOp", {"x"}, {"y"}, "mystery");
  mb.proto().mutable_opset_import(0)->set_version(17);
  auto* os = mb.proto().add_opset_import();
  os->set_domain("com.example");
  os->set_version(1);
  mb.proto().mutable_graph()->mutable_node(0)->set_domain("com.example");
  std::string path = mb.write();
  Run r = run_onnxc(path + " -o " + path + ".cpp");
  CHECK(r.exit_code == 1);
  CHECK(lines(r.output) == 1);
  CHECK(r.output.find("node 'mystery' (NoSuchOp)") != std::string::npos);
  CHECK(r.output.find("not supported") != std::string::npos);
}

TEST_CASE("an unpinned dim is listed with its input, exit 1; pinning it compiles", "[cli]") {
  ModelBuilder mb;
  mb.input("x", onnx::TensorProto::FLOAT, {-1, 4}, {"batch"})
      .output("y", onnx::TensorProto::FLOAT, {-1, 4}, {"batch"});
  mb.node("Relu", {"x"}, {"y"}, "relu");
  std::string path = mb.write();
  Run r = run_onnxc(path + " -o " + path + ".cpp");
  CHECK(r.exit_code == 1);
  CHECK(lines(r.output) == 1);
  CHECK(r.output.find("unresolved dim 'batch' of graph input 'x'") != std::string::npos);
  CHECK(run_onnxc(path + " -o " + path + ".cpp --dim batch=3").exit_code == 0);
  CHECK(run_onnxc(path + " -o " + path + ".cpp --shape x=3x4").exit_code == 0);
}

TEST_CASE("usage errors exit 2", "[cli]") {
  CHECK(run_onnxc("").exit_code == 2);
  CHECK(run_onnxc("--no-such-flag").exit_code == 2);
  CHECK(run_onnxc("model.onnx -o x.cpp --dim batch").exit_code == 2);
}
