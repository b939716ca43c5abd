// Normalization handlers: BatchNormalization's versions (spatial, training outputs, parameter
// types), LayerNormalization's statistics outputs and broadcasting, GroupNormalization,
// InstanceNormalization, LpNormalization and MeanVarianceNormalization.
#include <catch2/catch.hpp>

#include "ops/infer_harness.h"

using namespace onnxc;
using onnxc::testing::InferHarness;

namespace {
const DataType F = DataType::kFloat;
const DataType D = DataType::kDouble;

// BatchNormalization with X [2, 3, 4, 5] and parameters of `param_shape`.
void batch_norm_inputs(InferHarness& h, Shape param_shape = {3}, DataType pt = F, DataType st = F) {
  h.input(F, {2, 3, 4, 5});
  h.input(pt, param_shape);
  h.input(pt, param_shape);
  h.input(st, param_shape);
  h.input(st, param_shape);
}
}  // namespace

TEST_CASE("BatchNormalization inference form", "[normalization]") {
  InferHarness h("BatchNormalization", 15);
  batch_norm_inputs(h);
  h.attr_float("epsilon", 1e-3f);
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{2, 3, 4, 5});
  const std::string code = h.emit();
  CHECK(code.find("p = {/*batch=*/2, /*channels=*/3, /*spatial=*/20, /*per_element=*/0, ") !=
        std::string::npos);
  CHECK(code.find("onnxc::batch_norm_ref(p, x0, x1, x2, x3, x4, y0);") != std::string::npos);
}

TEST_CASE("BatchNormalization training_mode=1 outputs the running statistics", "[normalization]") {
  InferHarness h("BatchNormalization", 14);
  batch_norm_inputs(h, {3}, F, D);  // opset 14: mean/var may have their own type
  h.outputs(3);
  h.attr_int("training_mode", 1);
  REQUIRE(h.infer());
  CHECK(h.out(1).shape == Shape{3});
  CHECK(h.out(1).dtype == D);
  CHECK(h.emit().find("onnxc::batch_norm_training_ref(p, x0, x1, x2, x3, x4, y0, y1, y2);") !=
        std::string::npos);
}

TEST_CASE("BatchNormalization rejects what it does not compute", "[normalization]") {
  SECTION("extra outputs without training_mode") {
    InferHarness h("BatchNormalization", 15);
    batch_norm_inputs(h);
    h.outputs(3);
    CHECK_FALSE(h.infer());
    CHECK(h.error().find("only valid with training_mode=1") != std::string::npos);
  }
  SECTION("the training outputs of old opsets") {
    InferHarness h("BatchNormalization", 9);
    batch_norm_inputs(h);
    h.outputs(5);
    CHECK_FALSE(h.infer());
    CHECK(h.error().find("training outputs (mean, var, saved_mean, saved_var) of opset 9") !=
          std::string::npos);
  }
  SECTION("parameters of the wrong size") {
    InferHarness h("BatchNormalization", 15);
    batch_norm_inputs(h, {4});
    CHECK_FALSE(h.infer());
    CHECK(h.error() == "node 'n' (BatchNormalization): scale has shape 4, expected 3 elements");
  }
  SECTION("parameter types differ from X before opset 14") {
    InferHarness h("BatchNormalization", 9);
    batch_norm_inputs(h, {3}, F, D);
    CHECK_FALSE(h.infer());
    CHECK(h.error().find("mean has type double, expected float") != std::string::npos);
  }
}

TEST_CASE("BatchNormalization spatial=0 (before opset 9) has per-element parameters",
          "[normalization]") {
  InferHarness h("BatchNormalization", 7);
  batch_norm_inputs(h, {3, 4, 5});
  h.attr_int("spatial", 0);
  REQUIRE(h.infer());
  CHECK(h.emit().find("p = {/*batch=*/2, /*channels=*/3, /*spatial=*/20, /*per_element=*/1, ") !=
        std::string::npos);
  InferHarness later("BatchNormalization", 9);  // the attribute is gone: (C) parameters
  batch_norm_inputs(later, {3, 4, 5});
  later.attr_int("spatial", 0);
  CHECK_FALSE(later.infer());
}

TEST_CASE("LayerNormalization shapes and statistics outputs", "[normalization]") {
  InferHarness h("LayerNormalization", 17);
  h.input(D, {2, 3, 4});
  h.input(D, {4});
  h.absent_input();
  h.outputs(3);
  h.attr_int("axis", 1);
  REQUIRE(h.infer());
  CHECK(h.out(0).shape == Shape{2, 3, 4});
  CHECK(h.out(1).shape == Shape{2, 1, 1});
  CHECK(h.out(2).dtype == F);  // stash_type 1: float statistics even for double X
  const std::string code = h.emit();
  // {rows, size, epsilon, norm_rank, dims, scale strides, bias strides, contiguous flags}
  CHECK(code.find("{/*rows=*/2, /*size=*/12, ") != std::string::npos);
  CHECK(code.find("/*norm_rank=*/2, /*norm_dims=*/{3, 4}, /*scale_strides=*/{0, 1}, "
                  "/*bias_strides=*/{0, 0}, /*scale_contiguous=*/0, /*bias_contiguous=*/0};") !=
        std::string::npos);
  CHECK(code.find(
            "onnxc::layer_norm_ref(p, x0, x1, static_cast<const double*>(nullptr), y0, y1, y2);") !=
        std::string::npos);
}

TEST_CASE("LayerNormalization errors", "[normalization]") {
  SECTION("stash_type") {
    InferHarness h("LayerNormalization", 17);
    h.input(F, {2, 3});
    h.input(F, {3});
    h.attr_int("stash_type", 11);
    CHECK_FALSE(h.infer());
    CHECK(h.error() ==
          "node 'n' (LayerNormalization): stash_type 11 is not supported (only 1, float)");
  }
  SECTION("Scale that does not broadcast") {
    InferHarness h("LayerNormalization", 17);
    h.input(F, {2, 3});
    h.input(F, {2});
    CHECK_FALSE(h.infer());
    CHECK(h.error().find("Scale of shape 2 does not broadcast to X's shape 2x3") !=
          std::string::npos);
  }
  SECTION("Scale varying across rows") {
    InferHarness h("LayerNormalization", 17);
    h.input(F, {2, 3});
    h.input(F, {2, 3});
    CHECK_FALSE(h.infer());
    CHECK(h.error().find("varies along dim 0, before axis 1") != std::string::npos);
  }
}

TEST_CASE("GroupNormalization and InstanceNormalization", "[normalization]") {
  InferHarness g18("GroupNormalization", 18);
  g18.input(F, {2, 6, 5});
  g18.input(F, {3});  // opset 18: one scale per group
  g18.input(F, {3});
  g18.attr_int("num_groups", 3);
  REQUIRE(g18.infer());
  CHECK(g18.emit().find("p = {/*batch=*/2, /*channels=*/6, /*groups=*/3, /*spatial=*/5, "
                        "/*affine_per_group=*/1, ") != std::string::npos);
  InferHarness g21("GroupNormalization", 21);
  g21.input(F, {2, 6, 5});
  g21.input(F, {3});  // opset 21: one per channel
  g21.input(F, {3});
  g21.attr_int("num_groups", 3);
  CHECK_FALSE(g21.infer());
  CHECK(g21.error().find("scale has shape 3, expected 6 elements") != std::string::npos);
  InferHarness bad("GroupNormalization", 21);
  bad.input(F, {2, 6, 5});
  bad.input(F, {6});
  bad.input(F, {6});
  bad.attr_int("num_groups", 4);
  CHECK_FALSE(bad.infer());
  CHECK(bad.error().find("num_groups 4 must be positive and divide the 6 channels") !=
        std::string::npos);
  InferHarness inst("InstanceNormalization", 6);
  inst.input(F, {2, 3, 4, 4});
  inst.input(F, {3});
  inst.input(F, {3});
  REQUIRE(inst.infer());
  CHECK(inst.emit().find("p = {/*batch=*/2, /*channels=*/3, /*groups=*/3, /*spatial=*/16, "
                         "/*affine_per_group=*/0, ") != std::string::npos);
}

TEST_CASE("LpNormalization and MeanVarianceNormalization", "[normalization]") {
  InferHarness lp("LpNormalization", 22);
  lp.input(F, {2, 3, 4});
  lp.attr_int("axis", 1);
  lp.attr_int("p", 1);
  REQUIRE(lp.infer());
  CHECK(lp.emit().find(
            "onnxc::lp_norm_ref(x0, y0, /*outer=*/2, /*axis=*/3, /*inner=*/4, /*p=*/1);") !=
        std::string::npos);
  InferHarness lp3("LpNormalization", 1);
  lp3.input(F, {2, 3});
  lp3.attr_int("p", 3);
  CHECK_FALSE(lp3.infer());
  CHECK(lp3.error() == "node 'n' (LpNormalization): p must be 1 or 2, is 3");
  InferHarness mvn("MeanVarianceNormalization", 13);
  mvn.input(F, {2, 3, 4, 5});  // default axes {0, 2, 3}: statistics per channel
  REQUIRE(mvn.infer());
  CHECK(mvn.emit().find("p = {/*outer_rank=*/1, /*outer_dims=*/{3}, /*outer_strides=*/{20}, "
                        "/*red_rank=*/2, /*red_dims=*/{2, 20}, /*red_strides=*/{60, 1}, "
                        "/*outer_count=*/3, /*inner=*/1, /*red_count=*/40};") != std::string::npos);
}

TEST_CASE("Normalizations on half types run the float kernels on widened copies",
          "[normalization]") {
  InferHarness ln("LayerNormalization", 17);
  ln.input(DataType::kFloat16, {2, 8});
  ln.input(DataType::kFloat16, {8});
  ln.outputs(2);
  REQUIRE(ln.infer());
  CHECK(ln.out(1).dtype == F);  // statistics stay float: only X, Scale and Y are widened
  CHECK(ln.node().scratch_bytes == 64 + 64 + 64);
  const std::string code = ln.emit();
  CHECK(code.find("onnxc::f32_layernorm_lanes__scalar(p, half_in0, half_in1, "
                  "static_cast<const float*>(nullptr), half_out0, y1, "
                  "static_cast<float*>(nullptr));") != std::string::npos);
  CHECK(code.find("onnxc::f32_f16_cast__scalar(half_out0, y0, 16, onnxc::CastParams{});") !=
        std::string::npos);
  InferHarness bn("BatchNormalization", 15);  // bfloat16 X with float parameters
  bn.input(DataType::kBFloat16, {1, 2, 3});
  for (int i = 0; i < 4; ++i) bn.input(F, {2});
  REQUIRE(bn.infer());
  CHECK(bn.emit().find("onnxc::batch_norm_ref(p, half_in0, x1, x2, x3, x4, half_out0);") !=
        std::string::npos);
  InferHarness old("InstanceNormalization", 6);  // bfloat16 only from opset 22
  old.input(DataType::kBFloat16, {1, 2, 3});
  old.input(DataType::kBFloat16, {2});
  old.input(DataType::kBFloat16, {2});
  CHECK_FALSE(old.infer());
  CHECK(old.error().find("bfloat16 from 22") != std::string::npos);
}

TEST_CASE("LRN requires size and keeps the shape", "[normalization]") {
  InferHarness h("LRN", 13);
  h.input(F, {1, 5, 4, 4});
  h.attr_int("size", 3);
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{1, 5, 4, 4});
  CHECK(h.emit().find("p = {/*batch=*/1, /*channels=*/5, /*spatial=*/16, /*size=*/3, ") !=
        std::string::npos);
  InferHarness bad("LRN", 13);
  bad.input(F, {1, 5, 4, 4});
  CHECK_FALSE(bad.infer());
  CHECK(bad.error() == "node 'n' (LRN): attribute size is required");
}

TEST_CASE("RMSNormalization takes X and scale only", "[normalization]") {
  InferHarness h("RMSNormalization", 23);
  h.input(F, {2, 3, 4});
  h.input(F, {3, 4});
  h.attr_int("axis", 1);
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{2, 3, 4});
  CHECK(h.emit().find("onnxc::f32_rmsnorm_lanes__scalar(p, x0, x1, y0);") != std::string::npos);
  InferHarness bias("RMSNormalization", 23);
  bias.input(F, {2, 4});
  bias.input(F, {4});
  bias.input(F, {4});
  CHECK_FALSE(bias.infer());
  CHECK(bias.error().find("takes 2 to 2 inputs, got 3") != std::string::npos);
}
