// A Loop whose trip count is known only at run time, with scan outputs, bounded by
// --max-trip-count (ops/control/control_flow.cpp): the scan outputs hold the bound's rows, zeros
// past the iterations run, LOOP.trip_count says how many, and an iteration past the bound makes
// run() return onnxc::kErrorTripCount. Built with g++ and run; values worked by hand from Loop's
// definition (c += x per iteration, the scan output stacks c after each).
#include <catch2/catch.hpp>

#include "codegen/cpp_emitter.h"
#include "driver/pipeline.h"
#include "harness/generated_program.h"
#include "harness/model_builder.h"
#include "ir/printer.h"

using namespace onnxc;
using onnx::TensorProto;
using onnxc::testing::ModelBuilder;

namespace {

// c (float[2]) += x per iteration of a Loop whose trip count M is a graph input; the scan output
// cs stacks c. `read_scan`: cs also feeds a Relu (a graph output of its own).
testing::ModelBuilder loop_model(bool read_scan = false) {
  testing::ModelBuilder mb(13);
  mb.input("x", TensorProto::FLOAT, {2}).input("c0", TensorProto::FLOAT, {2});
  mb.input("M", TensorProto::INT64, {});
  mb.output("c", TensorProto::FLOAT, {2});
  mb.output("cs", TensorProto::FLOAT, {-1, 2}, {"trips"});
  onnx::GraphProto body;
  body.set_name("loop_body");
  ModelBuilder::fill_value_info(body.add_input(), "i", TensorProto::INT64, {});
  ModelBuilder::fill_value_info(body.add_input(), "cond_in", TensorProto::BOOL, {});
  ModelBuilder::fill_value_info(body.add_input(), "c_in", TensorProto::FLOAT, {2});
  ModelBuilder::add_node(body, "Identity", {"cond_in"}, {"cond_out"}, "keep_going");
  ModelBuilder::add_node(body, "Add", {"c_in", "x"}, {"c_out"}, "acc");
  ModelBuilder::add_node(body, "Identity", {"c_out"}, {"c_scan"}, "emit");
  ModelBuilder::fill_value_info(body.add_output(), "cond_out", TensorProto::BOOL, {});
  ModelBuilder::fill_value_info(body.add_output(), "c_out", TensorProto::FLOAT, {2});
  ModelBuilder::fill_value_info(body.add_output(), "c_scan", TensorProto::FLOAT, {2});
  auto& n = mb.node("Loop", {"M", "", "c0"}, {"c", "cs"}, "loop");
  auto* a = n.add_attribute();
  a->set_name("body");
  a->set_type(onnx::AttributeProto::GRAPH);
  *a->mutable_g() = body;
  if (read_scan) {
    mb.output("r", TensorProto::FLOAT, {-1, 2}, {"trips"});
    mb.node("Relu", {"cs"}, {"r"}, "relu");
  }
  return mb;
}

std::unique_ptr<Module> lower(testing::ModelBuilder& mb, std::map<std::string, int64_t> bounds,
                              Diagnostics& diag) {
  ImportOptions options;
  options.max_trip_counts = std::move(bounds);
  return lower_model(mb.write(), options, diag);
}

const char* kDriver = R"(#include <cstdlib>
int main(int, char** argv) {
  const float x[2] = {1, 10}, c0[2] = {0.5f, 0};
  const std::int64_t m[1] = {std::atoll(argv[1])};
  float c[2] = {-1, -1}, cs[8];
  std::int64_t trips[1] = {-1};
  for (float& v : cs) v = -1;
  alignas(64) static unsigned char arena[net::kWorkspaceSize + 64];
  const int rc = net::run({x, c0, m}, {c, cs, trips}, arena);
  std::printf("%d|%lld|%g %g|", rc, static_cast<long long>(trips[0]), double(c[0]), double(c[1]));
  for (float v : cs) std::printf("%g ", double(v));
}
)";

}  // namespace

TEST_CASE("Loop: --max-trip-count bounds the scan outputs", "[ops][control-flow]") {
  testing::ModelBuilder mb = loop_model();
  Diagnostics diag;
  auto module = lower(mb, {{"loop", 4}}, diag);
  INFO(fmt::format("{}", fmt::join(diag.errors(), "\n")));
  REQUIRE(module);
  const std::string ir = print_graph(*module->graph, 0);
  CHECK_THAT(ir, Catch::Contains("%cs: float[4x2], %loop.trip_count: int64[1] = Loop@13"));
  const GeneratedCode code = testing::generate_net(*module);
  CHECK_THAT(code.header, Catch::Contains("'loop.trip_count' int64[1]"));
  // M = 3: three rows, the fourth zeros; c = c0 + 3x.
  CHECK(testing::build_and_run(code, kDriver, "3") == "0|3|3.5 30|1.5 10 2.5 20 3.5 30 0 0 ");
  // M = 0 runs no iteration: every row zeros.
  CHECK(testing::build_and_run(code, kDriver, "0") == "0|0|0.5 0|0 0 0 0 0 0 0 0 ");
  // M = 4 fills the bound exactly; M = 5 would run a fifth iteration.
  CHECK(testing::build_and_run(code, kDriver, "4") == "0|4|4.5 40|1.5 10 2.5 20 3.5 30 4.5 40 ");
  CHECK(testing::build_and_run(code, kDriver, "5").substr(0, 2) == "9|");
}

TEST_CASE("Loop: --max-trip-count errors name the node and the flag", "[ops][control-flow]") {
  SECTION("no bound") {
    testing::ModelBuilder mb = loop_model();
    Diagnostics diag;
    CHECK_FALSE(lower(mb, {}, diag));
    CHECK_THAT(diag.str(), Catch::Contains("node 'loop' (Loop)") &&
                               Catch::Contains("bound it with --max-trip-count loop=N"));
  }
  SECTION("a flag naming no Loop") {
    testing::ModelBuilder mb = loop_model();
    Diagnostics diag;
    CHECK_FALSE(lower(mb, {{"loop", 4}, {"acc", 2}}, diag));
    CHECK_THAT(diag.str(),
               Catch::Contains("--max-trip-count acc=2: the model has no Loop node named 'acc'"));
  }
  SECTION("a bounded scan output another node reads") {
    testing::ModelBuilder mb = loop_model(true);
    Diagnostics diag;
    CHECK_FALSE(lower(mb, {{"loop", 4}}, diag));
    CHECK_THAT(diag.str(), Catch::Contains("scan output 'cs' is bounded by --max-trip-count, so "
                                           "its length is known only at run time"));
  }
}
