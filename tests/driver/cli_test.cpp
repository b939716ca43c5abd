// The onnxc binary's contract for bad input: one clear line naming the problem, exit code 1 for
// model errors and 2 for usage errors.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "harness/model_builder.h"
#include "harness/run_onnxc.h"

using onnxc::testing::ModelBuilder;

namespace {

using onnxc::testing::Run;
using onnxc::testing::run_onnxc;

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

TEST_CASE("an unpinned dim is listed with its input, exit 1, pinning it compiles", "[cli]") {
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

TEST_CASE("flag --shape: pins symbolic dims, static ones change only with --override-shape",
          "[cli]") {
  ModelBuilder mb;
  mb.input("x", onnx::TensorProto::FLOAT, {-1, 4}, {"batch"})
      .output("y", onnx::TensorProto::FLOAT, {-1, 4}, {"batch"});
  mb.node("Relu", {"x"}, {"y"}, "relu");
  std::string path = mb.write();
  const std::string out = " -o " + path + ".cpp";
  Run r = run_onnxc(path + out + " --shape x=3x5");
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("dim 1 of input 'x' is static (4)") != std::string::npos);
  CHECK(run_onnxc(path + out + " --shape x=3x5 --override-shape").exit_code == 0);
  std::ifstream cpp(path + ".cpp");
  std::string text((std::istreambuf_iterator<char>(cpp)), std::istreambuf_iterator<char>());
  CHECK(text.find("--override-shape") != std::string::npos);  // in the banner's flags
  CHECK(run_onnxc(path + out + " --shape x=3x4x1").exit_code == 1);
  CHECK(run_onnxc(path + out + " --dim nope=1 --dim batch=2").exit_code == 1);
  CHECK(run_onnxc("inspect " + path + " --dim batch=2").exit_code == 0);
}

TEST_CASE("flag --max-errors: bounds the error lines of every lowering subcommand", "[cli]") {
  ModelBuilder mb;
  mb.input("x", onnx::TensorProto::FLOAT, {4}).output("y0", onnx::TensorProto::FLOAT, {4});
  for (int i = 0; i < 30; ++i) mb.node("NoSuchOp", {"x"}, {"y" + std::to_string(i)});
  std::string path = mb.write();
  Run r = run_onnxc(path + " -o " + path + ".cpp");
  CHECK(r.exit_code == 1);
  CHECK(lines(r.output) == 21);  // the default 20, then the count of the rest
  CHECK(r.output.find("... and 10 more errors") != std::string::npos);
  r = run_onnxc("inspect " + path + " --max-errors 2");
  CHECK(lines(r.output) == 3);
  CHECK(r.output.find("... and 28 more errors") != std::string::npos);
  CHECK(lines(run_onnxc(path + " -o " + path + ".cpp --max-errors 0").output) == 30);
  CHECK(run_onnxc("check " + path + " --max-errors 1").exit_code == 0);  // check runs no ops
}

namespace {

// A conformance-style case folder: a Relu model and one data set, input [-1, 2] and, when
// `with_output`, its output computed by hand ([0, 2]).
std::filesystem::path relu_case(bool with_output) {
  ModelBuilder mb;
  mb.input("x", onnx::TensorProto::FLOAT, {2}).output("y", onnx::TensorProto::FLOAT, {2});
  mb.node("Relu", {"x"}, {"y"}, "relu");
  const std::filesystem::path model = mb.write();
  const auto data = model.parent_path() / "test_data_set_0";
  std::filesystem::create_directories(data);
  auto write = [&](const char* name, float a, float b) {
    onnx::TensorProto t;
    t.set_data_type(onnx::TensorProto::FLOAT);
    t.add_dims(2);
    t.add_float_data(a);
    t.add_float_data(b);
    std::ofstream(data / name, std::ios::binary) << t.SerializeAsString();
  };
  write("input_0.pb", -1, 2);
  if (with_output) write("output_0.pb", 0, 2);
  return model.parent_path();
}

}  // namespace

TEST_CASE("onnxc test fails a case with nothing to compare", "[cli][test-runner]") {
  Run r = run_onnxc("test " + relu_case(false).string());
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("nothing compared: no test_data_set_* holds an output_*.pb") !=
        std::string::npos);
  CHECK(r.output.find("PASS ") == std::string::npos);
}

TEST_CASE("inspect reports doc strings, metadata and training info", "[cli]") {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {2}).output("y", onnx::TensorProto::FLOAT, {2});
  mb.node("Relu", {"x"}, {"y"}, "relu");
  mb.proto().set_doc_string("a model\nof two lines");
  auto* p = mb.proto().add_metadata_props();
  p->set_key("license");
  p->set_value("MIT");
  auto* t = mb.proto().add_training_info();
  auto* g = t->mutable_algorithm();
  g->set_name("step");
  auto* n = g->add_node();
  n->set_op_type("Neg");
  n->set_name("negate");
  n->add_input("x");
  n->add_output("x_new");
  auto* in = g->add_input();
  in->set_name("x");
  in->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  auto* out = g->add_output();
  out->set_name("x_new");
  out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  Run r = run_onnxc("inspect " + mb.write());
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("doc_string \"a model\\nof two lines\"\n") &&
                           Catch::Contains("metadata 'license' = 'MIT'\n") &&
                           Catch::Contains("training_info 0: algorithm 'step' (1 nodes): "
                                           "validated, not compiled"));
}

// Issue 38: inspect shows a model whose dims nobody pinned, names them, takes them as 1 for the
// figures and says how to pin them; exit 0. Compile still refuses (above).
TEST_CASE("inspect shows a model with an unpinned dim and how to pin it, exit 0", "[cli]") {
  ModelBuilder mb;
  mb.input("x", onnx::TensorProto::FLOAT, {-1, 4}, {"batch"})
      .output("y", onnx::TensorProto::FLOAT, {-1, 4}, {"batch"});
  mb.node("Relu", {"x"}, {"y"}, "relu");
  std::string path = mb.write();
  Run r = run_onnxc("inspect " + path);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("input  x: float[batch x 4]") != std::string::npos);
  CHECK(r.output.find("output y: float[batch x 4]") != std::string::npos);
  CHECK(r.output.find("  batch: input 'x' axis 0, output 'y' axis 0") != std::string::npos);
  CHECK(r.output.find("pin them with: --dim batch=N") != std::string::npos);
  CHECK(r.output.find("opsets ai.onnx") != std::string::npos);
  CHECK(r.output.find("flops: Relu=4") != std::string::npos);  // batch taken as 1
  r = run_onnxc("inspect " + path + " --dim batch=3");
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("input  x: float[3x4]") != std::string::npos);
  CHECK(r.output.find("flops: Relu=12") != std::string::npos);
  CHECK(r.output.find("not pinned") == std::string::npos);
  r = run_onnxc("inspect " + path + " --memory --json");
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("\"assumed_dims\": {\"batch\": 1},") != std::string::npos);
}

// Issue 38: the .cpp #includes its header by file name; a name that cannot be spelled in
// `#include "..."` is refused in one line (exit 2) instead of giving a .cpp that does not build.
TEST_CASE("onnxc -o with a double quote, a newline or a backslash is refused in one line",
          "[cli]") {
  ModelBuilder mb;
  mb.input("x", onnx::TensorProto::FLOAT, {4}).output("y", onnx::TensorProto::FLOAT, {4});
  mb.node("Relu", {"x"}, {"y"}, "relu");
  const std::filesystem::path model = mb.write();
  const std::string dir = model.parent_path().string();
  for (const std::string name : {"a\"b.cpp", "a\nb.cpp", "a\\b.cpp"}) {
    INFO(name);
    Run r = run_onnxc(model.string() + " -o '" + dir + "/" + name + "'");
    CHECK(r.exit_code == 2);
    CHECK(lines(r.output) == 1);
    CHECK(r.output.find("could not be #included") != std::string::npos);
    CHECK(!std::filesystem::exists(dir + "/" + name));
  }
  // A space and an apostrophe are fine: the output builds.
  const std::string odd = dir + "/it's a model.cpp";
  CHECK(run_onnxc(model.string() + " -o \"" + odd + "\"").exit_code == 0);
  CHECK(std::system(
            ("g++ -std=c++17 -Wall -Wextra -Werror -fsyntax-only \"" + odd + "\"").c_str()) == 0);
}

// Issue 38: with stderr not a terminal, `onnxc test` prints plain progress lines (one at the end
// of lowering, one per batch built and run), never carriage returns.
TEST_CASE("onnxc test prints plain progress lines when stderr is not a terminal",
          "[cli][test-runner][progress]") {
  Run r = run_onnxc("test " + relu_case(true).string());
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("onnxc test: 1/1 cases lowered to C++ (0 not compiled)") !=
        std::string::npos);
  CHECK(r.output.find("onnxc test: 1/1 cases built and run (1 passed, 0 failed)") !=
        std::string::npos);
  CHECK(r.output.find('\r') == std::string::npos);
}
