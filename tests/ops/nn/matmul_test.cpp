// Gemm and MatMul handlers: output shapes, version differences (C optional from 11, broadcast
// attribute before 7, integer types from 9), errors naming the broken rule, the emitted call
// and constant folding.
#include <catch2/catch.hpp>
#include <vector>

#include "onnxc/gemm.h"
#include "ops/infer_harness.h"

using namespace onnxc;
using onnxc::testing::InferHarness;

namespace {
const DataType F = DataType::kFloat;
}

TEST_CASE("Gemm output shape follows transA/transB", "[matmul]") {
  InferHarness h("Gemm", 13);
  h.input(F, {4, 3});  // A^T: M=3, K=4
  h.input(F, {5, 4});  // B^T: N=5
  h.input(F, {5});     // a bias row
  h.attr_int("transA", 1);
  h.attr_int("transB", 1);
  h.attr_float("alpha", 0.5f);
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{3, 5});
  CHECK(h.out().dtype == F);
  const std::string code = h.emit();
  // (No variant chosen: no select-kernels here; the target's blocked tile, generic: 6x16.)
  CHECK(code.find("onnxc::gemm<onnxc::GemmTile<6, 16>>(p, x0, x1, x2, y0);") != std::string::npos);
  // {m, n, k, transA, transB, lda, ldb, ldy, alpha, beta, c_row_stride, c_col_stride}
  CHECK(code.find("{/*m=*/3, /*n=*/5, /*k=*/4, /*trans_a=*/1, /*trans_b=*/1, /*lda=*/3, /*ldb=*/4, "
                  "/*ldy=*/5, /*alpha=*/0.5f, /*beta=*/1.0f, /*c_row_stride=*/0, "
                  "/*c_col_stride=*/1}") != std::string::npos);
}

TEST_CASE("Gemm C broadcasting and optionality by opset", "[matmul]") {
  SECTION("C is optional from opset 11") {
    InferHarness h("Gemm", 11);
    h.input(F, {2, 3});
    h.input(F, {3, 4});
    REQUIRE(h.infer());
    CHECK(h.out().shape == Shape{2, 4});
    CHECK(h.emit().find("static_cast<const float*>(nullptr)") != std::string::npos);
  }
  SECTION("C is required before opset 11") {
    InferHarness h("Gemm", 9);
    h.input(F, {2, 3});
    h.input(F, {3, 4});
    CHECK_FALSE(h.infer());
    CHECK(h.error() == "node 'n' (Gemm): input C is required before opset 11");
  }
  SECTION("a column C broadcasts") {
    InferHarness h("Gemm", 13);
    h.input(F, {2, 3});
    h.input(F, {3, 4});
    h.input(F, {2, 1});
    REQUIRE(h.infer());
    CHECK(h.emit().find("/*c_row_stride=*/1, /*c_col_stride=*/0};") !=
          std::string::npos);  // c strides: row 1, column 0
  }
  SECTION("C must broadcast to (M, N)") {
    InferHarness h("Gemm", 13);
    h.input(F, {2, 3});
    h.input(F, {3, 4});
    h.input(F, {3});
    CHECK_FALSE(h.infer());
    CHECK(h.error() == "node 'n' (Gemm): C of shape 3 does not broadcast unidirectionally to 2x4");
  }
  SECTION("before opset 7, broadcast=0 requires C of shape (M, N)") {
    InferHarness h("Gemm", 6);
    h.input(F, {2, 3});
    h.input(F, {3, 4});
    h.input(F, {4});
    CHECK_FALSE(h.infer());
    CHECK(h.error().find("must be 2x4 when broadcast=0") != std::string::npos);
    InferHarness ok("Gemm", 6);
    ok.input(F, {2, 3});
    ok.input(F, {3, 4});
    ok.input(F, {4});
    ok.attr_int("broadcast", 1);
    CHECK(ok.infer());
  }
}

TEST_CASE("Gemm rejects mismatched operands and types", "[matmul]") {
  SECTION("inner dims") {
    InferHarness h("Gemm", 13);
    h.input(F, {2, 3});
    h.input(F, {4, 5});
    CHECK_FALSE(h.infer());
    CHECK(h.error().find("inner dims differ") != std::string::npos);
  }
  SECTION("integers only from opset 9") {
    InferHarness h("Gemm", 7);
    h.input(DataType::kInt32, {2, 3});
    h.input(DataType::kInt32, {3, 4});
    h.input(DataType::kInt32, {4});
    CHECK_FALSE(h.infer());
    CHECK(h.error().find("int32 is not supported at opset 7") != std::string::npos);
    InferHarness ok("Gemm", 9);
    ok.input(DataType::kInt32, {2, 3});
    ok.input(DataType::kInt32, {3, 4});
    ok.input(DataType::kInt32, {4});
    CHECK(ok.infer());
  }
  SECTION("one type for all inputs") {
    InferHarness h("Gemm", 13);
    h.input(F, {2, 3});
    h.input(DataType::kDouble, {3, 4});
    CHECK_FALSE(h.infer());
    CHECK(h.error().find("must have one type") != std::string::npos);
  }
}

TEST_CASE("Gemm folds constant operands with the runtime kernel", "[matmul]") {
  InferHarness h("Gemm", 13);
  h.constant<float>(F, {2, 2}, {1, 2, 3, 4});
  h.constant<float>(F, {2, 2}, {1, 0, 0, 1});
  h.constant<float>(F, {1}, {10});
  h.attr_float("alpha", 2.0f);
  REQUIRE(h.infer());
  REQUIRE(h.fold());
  const float* y = h.folded().as<float>();
  CHECK(std::vector<float>(y, y + 4) == std::vector<float>{12, 14, 16, 18});
}

TEST_CASE("MatMul follows numpy for 1-D operands and batch broadcasting", "[matmul]") {
  struct Case {
    Shape a, b, out;
  };
  const Case cases[] = {
      {{3}, {3}, {}},                           // dot product: a scalar
      {{3}, {2, 3, 4}, {2, 4}},                 // vector @ batch of matrices
      {{2, 5, 3}, {3}, {2, 5}},                 // batch of matrices @ vector
      {{2, 1, 4, 3}, {5, 3, 6}, {2, 5, 4, 6}},  // batch dims broadcast
      {{7, 3}, {3, 2}, {7, 2}},
  };
  for (const Case& c : cases) {
    InferHarness h("MatMul", 13);
    h.input(F, c.a);
    h.input(F, c.b);
    INFO(shape_str(c.a) << " @ " << shape_str(c.b));
    REQUIRE(h.infer());
    CHECK(h.out().shape == c.out);
  }
}

TEST_CASE("MatMul with a shared B runs as one GEMM over the folded batch", "[matmul]") {
  InferHarness h("MatMul", 13);
  h.input(F, {2, 3, 4, 5});
  h.input(F, {5, 6});
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{2, 3, 4, 6});
  // {batch_rank, dims, a_strides, b_strides, batch_count, m, n, k}: m = 2 * 3 * 4.
  CHECK(h.emit().find("{/*batch_rank=*/0, /*batch_dims=*/{}, /*a_strides=*/{}, /*b_strides=*/{}, "
                      "/*batch_count=*/1, /*m=*/24, /*n=*/6, /*k=*/5, /*trans_a=*/0, "
                      "/*trans_b=*/0}") != std::string::npos);
}

TEST_CASE("MatMul errors name the rule", "[matmul]") {
  SECTION("inner dims") {
    InferHarness h("MatMul", 13);
    h.input(F, {2, 3});
    h.input(F, {4, 2});
    CHECK_FALSE(h.infer());
    CHECK(h.error() == "node 'n' (MatMul): inner dims differ: A is 2x3, B is 4x2");
  }
  SECTION("batch dims") {
    InferHarness h("MatMul", 13);
    h.input(F, {2, 2, 3});
    h.input(F, {3, 3, 2});
    CHECK_FALSE(h.infer());
    CHECK(h.error().find("batch dims of 2x2x3 and 3x3x2 do not broadcast") != std::string::npos);
  }
  SECTION("integers from opset 9") {
    InferHarness h("MatMul", 1);
    h.input(DataType::kInt64, {2, 3});
    h.input(DataType::kInt64, {3, 2});
    CHECK_FALSE(h.infer());
    CHECK(h.error().find("int64 is not supported at opset 1") != std::string::npos);
  }
}

TEST_CASE("MatMul folds int64 constants", "[matmul]") {
  InferHarness h("MatMul", 13);
  h.constant<int64_t>(DataType::kInt64, {2}, {3, 4});
  h.constant<int64_t>(DataType::kInt64, {2, 2}, {1, 2, 3, 4});
  REQUIRE(h.infer());
  REQUIRE(h.fold());
  CHECK(h.folded().to_ints() == std::vector<int64_t>{15, 22});
}

TEST_CASE("MatMul on float16 runs the float kernel on widened scratch copies", "[matmul]") {
  InferHarness h("MatMul", 13);
  h.input(DataType::kFloat16, {2, 3});
  h.input(DataType::kFloat16, {3, 4});
  REQUIRE(h.infer());
  CHECK(h.out().dtype == DataType::kFloat16);
  CHECK(h.node().scratch_bytes == 64 + 64 + 64);  // 6, 12 and 8 floats, each 64-byte aligned
  const std::string code = h.emit();
  CHECK(code.find("onnxc::f16_f32_cast__scalar(x0, half_in0, 6, onnxc::CastParams{});") !=
        std::string::npos);
  CHECK(code.find("onnxc::matmul<onnxc::GemmTile<6, 16>>(p, half_in0, half_in1, half_out0);") !=
        std::string::npos);
  CHECK(code.find("onnxc::f32_f16_cast__scalar(half_out0, y0, 8, onnxc::CastParams{});") !=
        std::string::npos);
  InferHarness bf("MatMul", 9);  // bfloat16 only from opset 13
  bf.input(DataType::kBFloat16, {2, 3});
  bf.input(DataType::kBFloat16, {3, 4});
  CHECK_FALSE(bf.infer());
}

TEST_CASE("MatMul with a fused bias, transB and epilogue", "[matmul]") {
  InferHarness h("MatMul", 13);
  h.input(F, {2, 3, 5});
  h.input(F, {7, 5});  // stored transposed: B is 5 x 7
  h.input(F, {7});     // the bias row
  h.attr_int("transB", 1);
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{2, 3, 7});
  const std::string code = h.emit();
  INFO(code);
  CHECK(code.find("/*batch_count=*/1, /*m=*/6, /*n=*/7, /*k=*/5, /*trans_a=*/0, /*trans_b=*/1}") !=
        std::string::npos);
  CHECK(code.find("onnxc::matmul<onnxc::GemmTile<6, 16>>(p, x0, x1, x2, y0, e, "
                  "static_cast<const float*>(nullptr));") != std::string::npos);

  InferHarness bad("MatMul", 13);
  bad.input(F, {3, 5});
  bad.input(F, {5, 7});
  bad.input(F, {3, 7});  // not a row
  CHECK_FALSE(bad.infer());
  CHECK(bad.error().find("fused bias 'in2' is float[3x7]; it must be float[7]") !=
        std::string::npos);
}

TEST_CASE("Gemm with a fused residual and activation folds with the epilogue", "[matmul]") {
  InferHarness h("Gemm", 13);
  h.constant<float>(F, {1, 2}, {1, 2});
  h.constant<float>(F, {2, 2}, {1, 0, 0, 1});
  h.constant<float>(F, {2}, {0.5f, -10});
  h.constant<float>(F, {1, 2}, {1, 1});  // the residual
  Attribute act;
  act.kind = Attribute::Kind::kString;
  act.s = "Relu";
  h.node().attributes["fused_activation"] = act;
  REQUIRE(h.infer());
  REQUIRE(h.fold());
  CHECK(h.folded().as<float>()[0] == 2.5f);  // relu(1 + 0.5 + 1)
  CHECK(h.folded().as<float>()[1] == 0.0f);  // relu(2 - 10 + 1)
}

TEST_CASE("a blocked Gemm packs B in a workspace sized for the target", "[matmul]") {
  auto gemm_node = [](InferHarness& h) {
    h.input(F, {64, 300});
    h.input(F, {300, 64});
    REQUIRE(h.infer());
  };
  SECTION("generic: a 256-deep panel of 32 columns (32 KiB)") {
    InferHarness h("Gemm", 13);
    gemm_node(h);
    CHECK(h.node().scratch_bytes == 256u * 32u * 4u);
    CHECK(h.emit().find("onnxc::gemm<onnxc::GemmTile<6, 16>>(p, x0, x1, "
                        "static_cast<const float*>(nullptr), y0, "
                        "onnxc::Workspace{nullptr + 0, 32768});") != std::string::npos);
  }
  SECTION("cortex-m4: 4 KiB (32 rows); --max-scratch 1024: 8 rows") {
    InferHarness h("Gemm", 13);
    h.target(*find_target("cortex-m4"));
    gemm_node(h);
    CHECK(h.node().scratch_bytes == 32u * 32u * 4u);
    InferHarness capped("Gemm", 13);
    capped.target(*with_max_scratch(*find_target("cortex-m4"), 1024));
    gemm_node(capped);
    CHECK(capped.node().scratch_bytes == 8u * 32u * 4u);
  }
  SECTION("a row vector times B streams B: no workspace") {
    InferHarness h("Gemm", 13);
    h.input(F, {1, 300});
    h.input(F, {300, 64});
    REQUIRE(h.infer());
    CHECK(h.node().scratch_bytes == 0u);
  }
}

TEST_CASE("every workspace depth gives the product of the reference", "[matmul]") {
  // 37 x 41 x 53: remainders in every blocking dimension; the budget sets the k blocking.
  const GemmParams p = {37, 41, 53, 0, 0, 53, 41, 41, 1.0, 0.0, 0, 0};
  std::vector<float> a(37 * 53), b(53 * 41), want(37 * 41), got(37 * 41);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 7) - 3.0f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 5) - 2.0f;
  gemm_ref(p, a.data(), b.data(), static_cast<const float*>(nullptr), want.data());
  for (index_t budget : {0, 128, 1000, 4096, 1 << 20}) {
    const index_t bytes = gemm_workspace_bytes(p, budget);
    CHECK(bytes <= budget);
    std::vector<float> ws(static_cast<size_t>(bytes / 4) + 1);
    gemm<GemmTile<6, 16>>(p, a.data(), b.data(), static_cast<const float*>(nullptr), got.data(),
                          Workspace{ws.data(), bytes});
    CHECK(got == want);  // small integers: every summation order is exact
  }
}

TEST_CASE("MatMul, ConvTranspose and RNN name the target's blocked GEMM row as their tile",
          "[matmul][kernels]") {
  // The first gemm_blocked row of onnxc/variants.h each target may use: wide (AVX-512) 8x32,
  // hosted 6x16, microcontrollers 4x4.
  const struct {
    const char* target;
    const char* tile;
  } cases[] = {{"x86-64-v4", "onnxc::GemmTile<8, 32>"},
               {"generic", "onnxc::GemmTile<6, 16>"},
               {"aarch64", "onnxc::GemmTile<6, 16>"},
               {"cortex-m4", "onnxc::GemmTile<4, 4>"},
               {"cortex-m0plus", "onnxc::GemmTile<4, 4>"}};
  for (const auto& c : cases) {
    INFO(c.target);
    const Target* target = find_target(c.target);
    REQUIRE(target);
    InferHarness mm("MatMul", 13);
    mm.target(*target);
    mm.input(F, {8, 64});
    mm.input(F, {64, 32});
    REQUIRE(mm.infer());
    CHECK(mm.emit().find(std::string("onnxc::matmul<") + c.tile + ">(p, x0, x1, y0") !=
          std::string::npos);
    InferHarness ct("ConvTranspose", 11);
    ct.target(*target);
    ct.input(F, {1, 4, 5, 5});
    ct.input(F, {4, 2, 3, 3});
    REQUIRE(ct.infer());
    CHECK(ct.emit().find(std::string("onnxc::f32_convtranspose_gemm__scalar<") + c.tile + ">(") !=
          std::string::npos);
    InferHarness rnn("RNN", 14);
    rnn.target(*target);
    rnn.input(F, {3, 1, 4});
    rnn.input(F, {1, 5, 4});
    rnn.input(F, {1, 5, 5});
    rnn.attr_int("hidden_size", 5);
    REQUIRE(rnn.infer());
    CHECK(rnn.emit().find(std::string("onnxc::recurrent_ref<float, ") + c.tile + ">(") !=
          std::string::npos);
  }
}
