// The pass flags through the onnxc binary: --list-passes, --print-after, --disable-pass (usage
// errors exit 2), --stats, and `inspect --memory --json`.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "harness/filecheck.h"
#include "harness/model_builder.h"
#include "harness/run_onnxc.h"

using onnxc::testing::filecheck;
using onnxc::testing::ModelBuilder;

namespace {

using onnxc::testing::Run;
using onnxc::testing::run_onnxc;

std::string flatten_model() {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {2, 3, 4}).output("y", onnx::TensorProto::FLOAT, {2, 12});
  mb.node("Relu", {"x"}, {"r"}, "relu");
  mb.node("Flatten", {"r"}, {"f"}, "flatten");
  mb.node("Neg", {"f"}, {"y"}, "neg");
  return mb.write();
}

}  // namespace

TEST_CASE("onnxc --list-passes, --print-after, --disable-pass and --stats", "[passes][cli]") {
  auto list = run_onnxc("--list-passes");
  CHECK(list.exit_code == 0);
  CHECK(filecheck(list.output, {"CHECK: bind-handlers    (required)", "CHECK: assign-storage",
                                "CHECK: plan-memory      (required)"}) == "");
  std::string model = flatten_model();
  auto ir = run_onnxc("inspect --ir --print-after assign-storage " + model);
  CHECK(ir.exit_code == 0);
  CHECK(filecheck(ir.output,
                  {"CHECK: // -----// IR after assign-storage //----- //",
                   "CHECK: Flatten@13(%r)  # flatten  [%f: view of %r+0; no code]",
                   "CHECK-NOT: IR after plan-memory", "CHECK: memory: arena 128 bytes"}) == "");
  auto all = run_onnxc("inspect --print-after all --disable-pass assign-storage " + model);
  CHECK(all.exit_code == 0);
  CHECK(filecheck(all.output,
                  {"CHECK: IR after bind-handlers", "CHECK: IR after infer-shapes",
                   "CHECK: IR after fold-constants", "CHECK: IR after dead-code",
                   "CHECK: IR after assign-storage (disabled)", "CHECK: Flatten@13(%r)  # flatten",
                   "CHECK-NOT: view of", "CHECK: IR after plan-memory"}) == "");
  auto bad = run_onnxc("inspect --disable-pass plan-memory " + model);
  CHECK(bad.exit_code == 2);
  CHECK(bad.output ==
        "onnxc: --disable-pass: pass 'plan-memory' is required and cannot be disabled\n");
  auto unknown = run_onnxc("inspect --print-after nope " + model);
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.output.find("--print-after: unknown pass 'nope'") != std::string::npos);
  auto test_bad = run_onnxc("test --disable-pass infer-shapes " + model);
  CHECK(test_bad.exit_code == 2);
  auto stats = run_onnxc("inspect --stats " + model);
  CHECK(filecheck(stats.output, {"CHECK: pass statistics:",
                                 "CHECK: assign-storage   changed    1 tensors aliased (views)"}) ==
        "");
  auto mem = run_onnxc("inspect --memory --json " + model);
  CHECK(mem.exit_code == 0);
  CHECK(filecheck(mem.output, {"CHECK: \"arena_bytes\": 128,", "CHECK: \"views\": 1,",
                               "CHECK: \"storage\": \"view\", \"alias_of\": \"r\""}) == "");
}
