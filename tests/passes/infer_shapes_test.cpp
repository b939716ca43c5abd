// bind-handlers, infer-shapes, fold-constants and dead-code on IR dumps (FileCheck-style), one
// pass at a time, and with passes disabled.
#include <catch2/catch.hpp>

#include "harness/filecheck.h"
#include "passes/pass_harness.h"

using namespace onnxc;
using onnxc::testing::disable;
using onnxc::testing::filecheck;
using onnxc::testing::ModelBuilder;
using onnxc::testing::run_passes;

namespace {

void int_init(ModelBuilder& mb, const std::string& name, std::vector<int64_t> dims,
              std::vector<int64_t> v) {
  auto* t = mb.proto().mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  for (auto d : dims) t->add_dims(d);
  for (auto x : v) t->add_int64_data(x);
}

// y = Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1])): x [2,3,4] -> y [2,12].
ModelBuilder shape_subgraph_model() {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {2, 3, 4})
      .output("y", onnx::TensorProto::FLOAT, {-1, -1}, {"a", "b"});
  int_init(mb, "zero", {}, {0});
  int_init(mb, "axes0", {1}, {0});
  int_init(mb, "minus_one", {1}, {-1});
  mb.node("Shape", {"x"}, {"shape"}, "shape");
  mb.node("Gather", {"shape", "zero"}, {"batch"}, "gather");
  mb.node("Unsqueeze", {"batch", "axes0"}, {"batch1"}, "unsqueeze");
  auto& concat = mb.node("Concat", {"batch1", "minus_one"}, {"target"}, "concat");
  ModelBuilder::int_attr(concat, "axis", 0);
  mb.node("Reshape", {"x", "target"}, {"y"}, "reshape");
  return mb;
}

// y = x * (a + b) with constant a, b: a fold no shape depends on.
ModelBuilder constant_arith_model() {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {2}).output("y", onnx::TensorProto::FLOAT, {2});
  mb.initializer("a", {2}, {1, 2}).initializer("b", {2}, {10, 20});
  mb.node("Add", {"a", "b"}, {"sum"}, "add_consts");
  mb.node("Mul", {"x", "sum"}, {"y"}, "mul");
  return mb;
}

}  // namespace

TEST_CASE("bind-handlers lists every unsupported op and changes nothing", "[passes]") {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {2}).output("y", onnx::TensorProto::FLOAT, {2});
  mb.node("NoSuchOp", {"x"}, {"t"}, "first");
  mb.node("AlsoMissing", {"t"}, {"y"}, "second");
  auto r = run_passes(mb);
  CHECK_FALSE(r.ok);
  REQUIRE(r.diag.count() == 2);
  CHECK(r.diag.errors()[0].find("node 'first' (NoSuchOp)") == 0);
  CHECK(r.diag.errors()[1].find("node 'second' (AlsoMissing)") == 0);
  CHECK(r.ir_after.count("bind-handlers") == 0);  // the pipeline stopped at the failing pass

  ModelBuilder ok(13);
  ok.input("x", onnx::TensorProto::FLOAT, {2}).output("y", onnx::TensorProto::FLOAT, {2});
  ok.node("Relu", {"x"}, {"y"}, "relu");
  auto r2 = run_passes(ok);
  REQUIRE(r2.ok);
  CHECK(filecheck(r2.ir_after["bind-handlers"],
                  {"CHECK: IR after bind-handlers", "CHECK: graph test(%x: float[2]) -> (%y)",
                   "CHECK-NEXT: = Relu@13(%x)  # relu", "CHECK-NEXT: }"}) == "");
}

TEST_CASE("infer-shapes folds only what shapes need, dead-code removes it", "[passes]") {
  ModelBuilder mb = shape_subgraph_model();
  auto r = run_passes(mb);
  INFO(r.diag.str());
  REQUIRE(r.ok);
  // After inference: every value typed, the shape chain folded on demand for Reshape, but the
  // folded nodes are still there.
  CHECK(filecheck(r.ir_after["infer-shapes"],
                  {"CHECK: IR after infer-shapes", "CHECK: graph test(%x: float[2x3x4]) -> (%y)",
                   "CHECK: %shape: int64[3] = Shape@13(%x)",
                   "CHECK-NEXT: %batch: int64[scalar] = Gather@13(%shape, %zero)",
                   "CHECK-NEXT: %batch1: int64[1] = Unsqueeze@13(%batch, %axes0)",
                   "CHECK-NEXT: %target: int64[2] = Concat@13(%batch1, %minus_one) {axis=0}",
                   "CHECK-NEXT: %y: float[2x12] = Reshape@13(%x, %target)", "CHECK-NEXT: }"}) ==
        "");
  CHECK(r.stats.find("infer-shapes") != std::string::npos);
  INFO(r.stats);
  CHECK(r.stats.find("3 nodes folded for shapes") !=
        std::string::npos);  // Shape is constant already
  CHECK(filecheck(r.ir_after["dead-code"],
                  {"CHECK: %target: int64[2] = constant", "CHECK-NOT: Shape@", "CHECK-NOT: Gather@",
                   "CHECK-NOT: Concat@", "CHECK: %y: float[2x12] = Reshape@13(%x, %target)",
                   "CHECK-NEXT: }"}) == "");
  CHECK(r.module->graph->find_value("target")->constant->to_ints() == std::vector<int64_t>{2, -1});
  CHECK(r.module->graph->nodes.size() == 1);
}

TEST_CASE("fold-constants folds what inference left, disabled, the node runs", "[passes]") {
  ModelBuilder mb = constant_arith_model();
  auto r = run_passes(mb);
  REQUIRE(r.ok);
  CHECK(filecheck(r.ir_after["infer-shapes"], {"CHECK: %sum: float[2] = Add@13(%a, %b)",
                                               "CHECK-NEXT: %y: float[2] = Mul@13(%x, %sum)"}) ==
        "");
  CHECK_FALSE(r.module->graph->find_value("sum")->producer);  // dead-code detached it
  CHECK(r.module->graph->find_value("sum")->constant->as<float>()[1] == 22.0f);
  CHECK(filecheck(r.ir_after["fold-constants"], {"CHECK: %sum: float[2] = Add@13(%a, %b)"}) == "");
  CHECK(filecheck(r.ir_after["dead-code"], {"CHECK: %sum: float[2] = constant", "CHECK-NOT: Add@",
                                            "CHECK: %y: float[2] = Mul@13(%x, %sum)"}) == "");
  CHECK(r.stats.find("1 nodes folded") != std::string::npos);

  ModelBuilder mb2 = constant_arith_model();
  auto off = run_passes(mb2, disable({"fold-constants"}));
  REQUIRE(off.ok);
  CHECK(off.ir_after["fold-constants"].find("IR after fold-constants (disabled)") !=
        std::string::npos);
  CHECK(filecheck(off.ir_after["plan-memory"], {"CHECK: %sum: float[2] = Add@13(%a, %b)",
                                                "CHECK: %y: float[2] = Mul@13(%x, %sum)"}) == "");
  CHECK(off.stats.find("fold-constants   disabled") != std::string::npos);
}

TEST_CASE("dead-code removes nodes no output depends on", "[passes]") {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {2}).output("y", onnx::TensorProto::FLOAT, {2});
  mb.node("Neg", {"x"}, {"unused"}, "dead");
  mb.node("Relu", {"x"}, {"y"}, "live");
  auto r = run_passes(mb);
  REQUIRE(r.ok);
  CHECK(filecheck(r.ir_after["fold-constants"], {"CHECK: Neg@13(%x)  # dead", "CHECK: Relu@13"}) ==
        "");
  CHECK(filecheck(r.ir_after["dead-code"], {"CHECK-NOT: Neg@", "CHECK: Relu@13(%x)  # live"}) ==
        "");
  CHECK(r.stats.find("1 nodes removed") != std::string::npos);
}

TEST_CASE("inference errors name the node and stop at the first broken node", "[passes]") {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {2, 3}).input("z", onnx::TensorProto::FLOAT, {4, 5});
  mb.output("y", onnx::TensorProto::FLOAT, {2, 3});
  mb.node("Add", {"x", "z"}, {"y"}, "bad_add");
  auto r = run_passes(mb);
  CHECK_FALSE(r.ok);
  REQUIRE(r.diag.count() == 1);
  CHECK(r.diag.errors()[0].find("node 'bad_add' (Add): ") == 0);
}

TEST_CASE("print-after works for every pass of the list", "[passes]") {
  for (const PassInfo& pass : pipeline_passes()) {
    ModelBuilder mb = constant_arith_model();
    PassOptions o;
    auto r = run_passes(mb, o);
    REQUIRE(r.ok);
    INFO(pass.name);
    CHECK(filecheck(r.ir_after[pass.name],
                    {std::string("CHECK: // -----// IR after ") + pass.name + " //----- //",
                     "CHECK-NEXT: module ", "CHECK: graph test(%x: float[2]) -> (%y)",
                     "CHECK: Mul@13"}) == "");
  }
}

TEST_CASE("pass options refuse unknown and required passes", "[passes]") {
  CHECK(check_pass_options(disable({"fold-constants", "assign-storage"})) == "");
  CHECK(check_pass_options(disable({"no-such-pass"})).find("unknown pass 'no-such-pass'") !=
        std::string::npos);
  for (const char* required : {"bind-handlers", "infer-shapes", "dead-code", "plan-memory"})
    CHECK(check_pass_options(disable({required})).find("is required") != std::string::npos);
  PassOptions p;
  p.print_after = "nope";
  CHECK(check_pass_options(p).find("--print-after: unknown pass 'nope'") != std::string::npos);
  p.print_after = "all";
  CHECK(check_pass_options(p) == "");
  std::string list = list_passes_text();
  CHECK(filecheck(list, {"CHECK: bind-handlers", "CHECK: infer-shapes", "CHECK: fold-constants",
                         "CHECK: dead-code", "CHECK: assign-storage", "CHECK: plan-memory"}) == "");
}
