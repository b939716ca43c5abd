// The memory report (`onnxc inspect --memory [--json]`) and the figures the generated header
// exports, on a small chain whose plan is known.
#include "passes/memory_report.h"

#include <catch2/catch.hpp>

#include "codegen/cpp_emitter.h"
#include "harness/filecheck.h"
#include "passes/pass_harness.h"

using namespace onnxc;
using onnxc::testing::disable;
using onnxc::testing::filecheck;
using onnxc::testing::ModelBuilder;
using onnxc::testing::run_passes;

namespace {

// x[64] -> Relu -> Neg -> Reshape[8x8] -> Mul(w) -> y: Neg in place over Relu's output, Reshape a
// view, the output in the caller's buffer.
ModelBuilder report_model() {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {64}).output("y", onnx::TensorProto::FLOAT, {8, 8});
  mb.initializer("w", {8}, {1, 2, 3, 4, 5, 6, 7, 8});
  auto* t = mb.proto().mutable_graph()->add_initializer();
  t->set_name("shape");
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(2);
  t->add_int64_data(8);
  t->add_int64_data(8);
  mb.node("Relu", {"x"}, {"r"}, "relu");
  mb.node("Neg", {"r"}, {"n"}, "neg");
  mb.node("Reshape", {"n", "shape"}, {"v"}, "reshape");
  mb.node("Mul", {"v", "w"}, {"y"}, "mul");
  return mb;
}

}  // namespace

TEST_CASE("memory report: arena, bound, weights and per-tensor storage", "[passes]") {
  ModelBuilder mb = report_model();
  auto r = run_passes(mb);
  INFO(r.diag.str());
  REQUIRE(r.ok);
  std::string text = memory_report(*r.module, false);
  CHECK(filecheck(
            text,
            {"CHECK: arena_bytes 256", "CHECK-NEXT: live_bytes_lower_bound 256 (arena +0.00%)",
             "CHECK-NEXT: weight_bytes 48",
             "CHECK-NEXT: max_stack_bytes 4096",  // ir/stack_bound.h, generic
             "CHECK-NEXT: planner greedy-by-size", "CHECK-NEXT: views 1", "CHECK-NEXT: in_place 1",
             "CHECK: tensors:", "CHECK: 0        256     0..1    r float[64]",
             "CHECK-NEXT: 0        256     1..2    n float[64]  in place over r",
             "CHECK-NEXT: 0        256     2..3    v float[8x8]  view of n +0",
             "CHECK-NEXT: -        256     3..4    y float[8x8]  (output)"}) == "");
  std::string json = memory_report(*r.module, true);
  CHECK(
      filecheck(json,
                {"CHECK: \"arena_bytes\": 256,", "CHECK-NEXT: \"live_bytes_lower_bound\": 256,",
                 "CHECK: \"weight_bytes\": 48,", "CHECK-NEXT: \"max_stack_bytes\": 4096,",
                 "CHECK: \"scratch\": [],",
                 "CHECK: {\"name\": \"n\", \"type\": \"float[64]\", \"bytes\": 256, \"offset\": 0, "
                 "\"first\": 1, \"last\": 2, \"storage\": \"in-place\", \"alias_of\": \"r\"},",
                 "CHECK: \"offset\": null,"}) == "");

  // Without assign-storage, three buffers: r and n live together at node 1, n and v at node 2.
  ModelBuilder mb2 = report_model();
  auto off = run_passes(mb2, disable({"assign-storage"}));
  REQUIRE(off.ok);
  CHECK(off.module->memory.arena_bytes == 512);
  CHECK(off.module->memory.live_bytes_lower_bound == 512);
}

TEST_CASE("the generated header exports the arena, the bound and the weights size", "[passes]") {
  ModelBuilder mb = report_model();
  auto r = run_passes(mb);
  REQUIRE(r.ok);
  CodegenOptions cg;
  cg.name = "m";
  cg.header_file = "m.h";
  cg.runtime = RuntimeMode::kInclude;
  GeneratedCode code;
  Diagnostics diag;
  REQUIRE(generate_cpp(*r.module, cg, code, diag));
  CHECK(filecheck(code.header, {"CHECK: constexpr std::size_t kWorkspaceSize = 256;",
                                "CHECK: constexpr std::size_t kLiveBytesLowerBound = 256;",
                                "CHECK: constexpr std::size_t kWeightsSize = "}) == "");
  // The reshape emits no code; Neg writes where Relu wrote.
  CHECK(filecheck(code.source, {"CHECK: // Reshape 'reshape': v is a view of n: no code",
                                "CHECK-NOT: copy_bytes"}) == "");
}
