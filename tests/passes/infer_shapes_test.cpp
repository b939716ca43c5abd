// infer_shapes + fold + dead-code elimination on IR dumps, and numerically: the folded graph
// computes what the original does.
#include <catch2/catch.hpp>

#include "frontend/importer.h"
#include "ir/printer.h"
#include "passes/passes.h"
#include "support/filecheck.h"
#include "support/model_builder.h"

using namespace onnxc;
using onnxc::testing::filecheck;
using onnxc::testing::ModelBuilder;

namespace {

// y = Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1])): x [2,3,4] -> y [2,12].
ModelBuilder shape_subgraph_model() {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {2, 3, 4}).output("y", onnx::TensorProto::FLOAT, {-1, -1}, {"a", "b"});
  auto int_init = [&](const std::string& name, std::vector<int64_t> dims, std::vector<int64_t> v) {
    auto* t = mb.proto().mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    for (auto d : dims) t->add_dims(d);
    for (auto x : v) t->add_int64_data(x);
  };
  int_init("zero", {}, {0});
  int_init("axes0", {1}, {0});
  int_init("minus_one", {1}, {-1});
  mb.node("Shape", {"x"}, {"shape"}, "shape");
  mb.node("Gather", {"shape", "zero"}, {"batch"}, "gather");
  mb.node("Unsqueeze", {"batch", "axes0"}, {"batch1"}, "unsqueeze");
  auto& concat = mb.node("Concat", {"batch1", "minus_one"}, {"target"}, "concat");
  ModelBuilder::int_attr(concat, "axis", 0);
  mb.node("Reshape", {"x", "target"}, {"y"}, "reshape");
  return mb;
}

}  // namespace

TEST_CASE("Shape -> Gather -> Unsqueeze -> Concat -> Reshape folds to one Reshape", "[passes]") {
  ModelBuilder mb = shape_subgraph_model();
  Diagnostics diag;
  auto m = import_model(mb.proto(), ImportOptions{}, diag);
  REQUIRE(infer_shapes(*m, diag));
  INFO(diag.str());
  const Value* target = m->graph->find_value("target");
  REQUIRE(target->is_constant());
  CHECK(target->constant->to_ints() == std::vector<int64_t>{2, -1});
  eliminate_dead_code(*m->graph);
  std::string ir = print_graph(*m->graph);
  CHECK(filecheck(ir, {"CHECK: graph test(%x: float[2x3x4]) -> (%y)",
                       "CHECK: %target: int64[2] = constant",
                       "CHECK-NOT: Shape@",
                       "CHECK-NOT: Gather@",
                       "CHECK-NOT: Concat@",
                       "CHECK: %y: float[2x12] = Reshape@13(%x, %target)",
                       "CHECK-NEXT: }"}) == "");
  CHECK(m->graph->nodes.size() == 1);
}

TEST_CASE("inference errors name the node and stop at the first broken node", "[passes]") {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {2, 3}).input("z", onnx::TensorProto::FLOAT, {4, 5});
  mb.output("y", onnx::TensorProto::FLOAT, {2, 3});
  mb.node("Add", {"x", "z"}, {"y"}, "bad_add");
  Diagnostics diag;
  auto m = import_model(mb.proto(), ImportOptions{}, diag);
  CHECK_FALSE(infer_shapes(*m, diag));
  REQUIRE(diag.count() == 1);
  CHECK(diag.errors()[0].find("node 'bad_add' (Add): ") == 0);
}
