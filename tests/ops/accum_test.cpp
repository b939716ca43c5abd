// The float accumulator decision (ops/accum.h, issue 16): handlers of float kernels that sum
// pass onnxc::Accum<float>{} on targets without double-precision hardware and nothing (the
// kernels' double default) elsewhere.
#include "ops/accum.h"

#include <catch2/catch.hpp>
#include <string>

#include "ir/target.h"
#include "ops/infer_harness.h"

using namespace onnxc;
using onnxc::testing::InferHarness;

namespace {

const DataType F = DataType::kFloat;

std::string emit_for(const char* target, const char* op, int opset) {
  InferHarness h(op, opset);
  h.target(*find_target(target));
  h.input(F, {1, 2, 4, 4});
  if (std::string(op) == "AveragePool") h.attr_ints("kernel_shape", {2, 2});
  if (std::string(op) == "InstanceNormalization") h.input(F, {2}), h.input(F, {2});
  if (!h.infer()) return "infer failed: " + h.error();
  return h.emit();
}

}  // namespace

TEST_CASE("float kernels accumulate in float exactly on single-precision targets", "[accum]") {
  CHECK(!float_accumulates(*find_target("generic")));
  CHECK(!float_accumulates(*find_target("cortex-m7")));      // fpv5-d16: double in hardware
  CHECK(float_accumulates(*find_target("cortex-m4")));       // fpv4-sp-d16: float only
  CHECK(!float_accumulates(*find_target("cortex-m0plus")));  // no FPU: double as before
  for (const char* op : {"AveragePool", "GlobalAveragePool", "InstanceNormalization"}) {
    INFO(op);
    const int opset = 19;
    CHECK(emit_for("cortex-m4", op, opset).find("onnxc::Accum<float>{});") != std::string::npos);
    CHECK(emit_for("generic", op, opset).find("Accum") == std::string::npos);
  }
}
