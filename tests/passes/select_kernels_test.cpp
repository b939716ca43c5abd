// select-kernels on IR text (FileCheck-style): which variant of onnxc/variants.h each target
// gets, the scratch it sets, and that disabling the pass leaves infer()'s kernel in place.
#include <catch2/catch.hpp>
#include <random>

#include "harness/filecheck.h"
#include "passes/fusion_harness.h"

using namespace onnxc;
using onnxc::testing::filecheck;
using onnxc::testing::ModelBuilder;

namespace {

// x [1, 8, 10, 10] -> depthwise 3x3 Conv (stride, dilation, pads 1) -> pointwise Conv to 16
// channels.
ModelBuilder dw_model(int64_t stride, int64_t dilation = 1) {
  std::mt19937 rng(3);
  ModelBuilder mb(13);
  const int64_t out = (10 + 2 - 2 * dilation - 1) / stride + 1;
  mb.input("x", onnx::TensorProto::FLOAT, {1, 8, 10, 10});
  mb.initializer("wd", {8, 1, 3, 3}, onnxc::testing::random_values(72, rng));
  mb.initializer("wp", {16, 8, 1, 1}, onnxc::testing::random_values(128, rng));
  auto& dw = mb.node("Conv", {"x", "wd"}, {"d"}, "dw");
  ModelBuilder::ints_attr(dw, "pads", {1, 1, 1, 1});
  ModelBuilder::ints_attr(dw, "strides", {stride, stride});
  ModelBuilder::ints_attr(dw, "dilations", {dilation, dilation});
  ModelBuilder::int_attr(dw, "group", 8);
  mb.node("Conv", {"d", "wp"}, {"y"}, "pw");
  mb.output("y", onnx::TensorProto::FLOAT, {1, 16, out, out});
  return mb;
}

struct Selected {
  std::string ir, stats;
};

Selected select(ModelBuilder& mb, const char* target, PassOptions options = {}) {
  Diagnostics diag;
  std::unique_ptr<Module> m = import_model(mb.proto(), ImportOptions{}, diag);
  REQUIRE(m);
  m->target = find_target(target);
  REQUIRE(m->target);
  options.stop_after = "plan-memory";
  options.stats = true;
  PassManager pm(options);
  const bool ok = pm.run(*m, diag);
  INFO(diag.str());
  REQUIRE(ok);
  return {print_graph(*m->graph), pm.stats_text()};
}

}  // namespace

TEST_CASE("select-kernels picks the best variant each target allows", "[passes][kernels]") {
  struct Case {
    const char* target;
    const char* dw;  // the depthwise node's kernel
    const char* pw;  // the pointwise node's
  };
  for (const Case& c : {Case{"generic", "f32_dwconv_3x3__scalar", "f32_conv_6x16__scalar"},
                        Case{"x86-64-v2", "f32_dwconv_3x3__sse2", "f32_conv_6x16__scalar"},
                        Case{"x86-64-v3", "f32_dwconv_3x3__avx2_fma", "f32_conv_6x16__scalar"},
                        Case{"x86-64-v4", "f32_dwconv_3x3__avx512f", "f32_conv_8x32__scalar"},
                        Case{"aarch64", "f32_dwconv_3x3__neonfma", "f32_conv_6x16__scalar"},
                        Case{"cortex-m4", "f32_dwconv_any__scalar", "f32_conv_4x8__scalar"}}) {
    for (int64_t stride : {1, 2}) {
      ModelBuilder mb = dw_model(stride);
      const Selected s = select(mb, c.target);
      INFO(c.target << " stride " << stride << "\n" << s.ir);
      CHECK(filecheck(s.ir, {std::string("CHECK: kernel: ") + c.dw + "; scratch:",
                             std::string("CHECK-NEXT: kernel: ") + c.pw + "; scratch:"}) == "");
      CHECK(filecheck(s.stats, {"CHECK: 2 kernels selected"}) == "");
    }
  }
}

TEST_CASE("select-kernels leaves shapes a variant does not take to the next one",
          "[passes][kernels]") {
  ModelBuilder mb = dw_model(1, 2);  // dilation 2: not a 3x3 variant's shape
  const Selected s = select(mb, "x86-64-v4");
  INFO(s.ir);
  CHECK(filecheck(s.ir, {"CHECK: kernel: f32_dwconv_any__scalar;"}) == "");
}

TEST_CASE("select-kernels disabled: no variant recorded, infer()'s kernel is emitted",
          "[passes][kernels]") {
  ModelBuilder mb = dw_model(1);
  PassOptions o;
  o.disabled.insert("select-kernels");
  const Selected s = select(mb, "x86-64-v4", o);
  INFO(s.ir);
  CHECK(filecheck(s.ir, {"CHECK: # dw", "CHECK-NOT: kernel:"}) == "");
}

TEST_CASE("select-kernels picks a Gemm's tile for the target and the product's size",
          "[passes][kernels]") {
  struct Case {
    const char* target;
    int64_t m;
    bool constant_b;
    const char* kernel;
  };
  for (const Case& c : {Case{"generic", 16, false, "f32_gemm_6x16__scalar"},
                        Case{"x86-64-v3", 16, false, "f32_gemm_6x16__scalar"},
                        Case{"x86-64-v4", 16, false, "f32_gemm_8x32__scalar"},
                        Case{"cortex-m4", 16, false, "f32_gemm_4x4__scalar"},
                        Case{"generic", 1, false, "f32_gemm_1x1__scalar"},  // 1x8x16: no packing
                        Case{"x86-64-v4", 1, true, "f32_gemm_1x1__scalar"},
                        Case{"generic", 16, true, "f32_gemm_packed_6x16__scalar"},
                        Case{"x86-64-v4", 16, true, "f32_gemm_packed_8x32__scalar"},
                        Case{"cortex-m4", 16, true, "f32_gemm_packed_4x4__scalar"}}) {
    ModelBuilder mb(13);
    mb.input("a", onnx::TensorProto::FLOAT, {c.m, 16});
    if (c.constant_b)
      mb.initializer("b", {16, 32}, std::vector<float>(16 * 32, 0.5f));
    else
      mb.input("b", onnx::TensorProto::FLOAT, {16, 32});
    mb.node("Gemm", {"a", "b"}, {"y"}, "fc");
    mb.output("y", onnx::TensorProto::FLOAT, {c.m, 32});
    const Selected s = select(mb, c.target);
    INFO(c.target << " m " << c.m << "\n" << s.ir);
    const std::string b =
        std::string(c.kernel).find("packed") != std::string::npos ? "%b_packed" : "%b";
    CHECK(filecheck(s.ir, {"CHECK: Gemm@13(%a, " + b +
                           ")  # fc  [%y: output; kernel: " + c.kernel}) == "");
  }
}

TEST_CASE("pack-weights stores a constant B as the chosen variant's panels", "[passes][kernels]") {
  ModelBuilder mb(13);
  mb.input("a", onnx::TensorProto::FLOAT, {64, 8});  // 64 x 10 x 8: large enough to block
  std::vector<float> w(10 * 8);  // B stored n x k (transB = 1): 10 columns of opB, k = 8
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i + 1);
  mb.initializer("w", {10, 8}, w);
  ModelBuilder::int_attr(mb.node("Gemm", {"a", "w"}, {"y"}, "fc"), "transB", 1);
  mb.output("y", onnx::TensorProto::FLOAT, {64, 10});
  Diagnostics diag;
  std::unique_ptr<Module> m = import_model(mb.proto(), ImportOptions{}, diag);
  REQUIRE(m);
  m->target = find_target("generic");
  PassOptions options;
  options.stop_after = "pack-weights";
  PassManager pm(options);
  REQUIRE(pm.run(*m, diag));
  const Node& fc = *m->graph->nodes.back();
  REQUIRE(fc.kernel == "f32_gemm_packed_6x16__scalar");
  const Value* packed = fc.inputs[1];
  REQUIRE(packed->is_constant());
  CHECK(packed->name == "w_packed");
  CHECK(packed->shape == Shape{1, 8, 16});  // one 16-column panel, k = 8 rows
  const float* p = packed->constant->as<float>();
  // Row kk of the panel holds opB(kk, j) = w[j][kk] for j < 10, then zeros.
  for (int kk = 0; kk < 8; ++kk)
    for (int j = 0; j < 16; ++j)
      CHECK(p[kk * 16 + j] == (j < 10 ? w[static_cast<size_t>(j * 8 + kk)] : 0.0f));
}

TEST_CASE("select-kernels with --threads 2 splits the kernels of 20 us or more",
          "[passes][kernels][threads]") {
  const onnx::ModelProto model = onnxc::testing::split_and_whole_convs();
  for (int threads : {1, 2}) {
    Diagnostics diag;
    std::unique_ptr<Module> m = import_model(model, ImportOptions{}, diag);
    REQUIRE(m);
    m->target = with_threads(*find_target("x86-64-v4"), threads);
    PassOptions options;
    options.stop_after = "plan-memory";
    options.stats = true;
    PassManager pm(options);
    REQUIRE(pm.run(*m, diag));
    const std::string ir = print_graph(*m->graph), stats = pm.stats_text();
    INFO("threads " << threads << "\n" << ir << stats);
    if (threads == 1) {
      CHECK(filecheck(ir, {"CHECK-NOT: parts"}) == "");
      CHECK(filecheck(stats, {"CHECK-NOT: split into parts"}) == "");
    } else {
      // the big conv in 2 parts, the small one (after it) whole
      CHECK(filecheck(ir, {"CHECK: # big  [%c: arena+593920; kernel: f32_conv_8x32__scalar in 2 "
                           "parts; scratch: arena+0 (593920 bytes)]",
                           "CHECK-NOT: parts", "CHECK: # small"}) == "");
      CHECK(filecheck(stats, {"CHECK: 1 kernels split into parts"}) == "");
    }
  }
}

TEST_CASE("select-kernels picks Winograd for 3x3 stride-1 convolutions where it pays",
          "[passes][kernels][winograd]") {
  struct Case {
    const char* target;
    int64_t c_in, c_out, size, stride;
    const char* kernel;
  };
  for (const Case& c :
       {Case{"x86-64-v4", 16, 32, 16, 1, "f32_conv_wino4x4__scalar"},  // 16 tiles: Winograd
        Case{"x86-64-v4", 16, 32, 12, 1, "f32_conv_8x32__scalar"},     // 9 tiles
        Case{"x86-64-v4", 8, 32, 16, 1, "f32_conv_8x32__scalar"},      // 8 input channels
        Case{"x86-64-v4", 16, 8, 16, 1, "f32_conv_8x32__scalar"},      // 8 output channels
        Case{"x86-64-v4", 16, 32, 32, 2, "f32_conv_8x32__scalar"},     // stride 2
        Case{"generic", 16, 32, 16, 1, "f32_conv_6x16__scalar"},       // no AVX-512
        Case{"cortex-m4", 16, 32, 16, 1, "f32_conv_4x8__scalar"}}) {
    std::mt19937 rng(3);
    ModelBuilder mb(13);
    mb.input("x", onnx::TensorProto::FLOAT, {1, c.c_in, c.size, c.size});
    mb.initializer("w", {c.c_out, c.c_in, 3, 3},
                   onnxc::testing::random_values(static_cast<size_t>(c.c_out * c.c_in * 9), rng));
    auto& conv = mb.node("Conv", {"x", "w"}, {"y"}, "conv");
    ModelBuilder::ints_attr(conv, "pads", {1, 1, 1, 1});
    ModelBuilder::ints_attr(conv, "strides", {c.stride, c.stride});
    const int64_t out = (c.size - 1) / c.stride + 1;
    mb.output("y", onnx::TensorProto::FLOAT, {1, c.c_out, out, out});
    const Selected s = select(mb, c.target);
    INFO(c.target << " " << c.c_in << " -> " << c.c_out << " at " << c.size << "\n" << s.ir);
    const bool winograd = std::string(c.kernel).find("wino") != std::string::npos;
    // Winograd reads the transformed filters: 36 points x 32 output x 16 input channels (padded).
    CHECK(filecheck(s.ir,
                    {winograd ? "CHECK: %w_packed: float[18432] = constant" : "CHECK-NOT: _packed",
                     std::string("CHECK: kernel: ") + c.kernel}) == "");
  }
}

namespace {

// LSTM, hidden 192, 2 steps of `batch`, lowered for `target` up to plan-memory: the IR text.
std::string lstm_ir(int64_t batch, const Target& target) {
  ModelBuilder mb(14);
  mb.input("x", onnx::TensorProto::FLOAT, {2, batch, 16});
  mb.output("y", onnx::TensorProto::FLOAT, {2, 1, batch, 192});
  mb.initializer("w", {1, 768, 16}, std::vector<float>(768 * 16, 0.01f));
  mb.initializer("r", {1, 768, 192}, std::vector<float>(768 * 192, 0.01f));
  ModelBuilder::int_attr(mb.node("LSTM", {"x", "w", "r"}, {"y"}, "lstm"), "hidden_size", 192);
  Diagnostics diag;
  std::unique_ptr<Module> m = import_model(mb.proto(), ImportOptions{}, diag);
  REQUIRE(m);
  m->target = &target;
  PassOptions options;
  options.stop_after = "plan-memory";
  PassManager pm(options);
  REQUIRE(pm.run(*m, diag));
  return print_graph(*m->graph);
}

}  // namespace

TEST_CASE("select-kernels splits a recurrent step's product by the table's recurrent row",
          "[passes][kernels][threads]") {
  // Each step's product by R^T is 2 x batch x 768 x 192 flops. Batch 1 (0.29 MFLOP, about 8 us
  // at the row's 35 GFLOP/s: above the target's min_step_s, 5 us) splits; batch 4 is no longer a
  // vector product (the row's gemv_rows does not take it) and stays whole.
  struct Case {
    int64_t batch;
    int threads;
    const char* kernel;  // the IR's kernel annotation, or nullptr for none
  };
  for (const Case& c : {Case{1, 2, "kernel: f32_recurrent_ref__scalar in 2 parts"},
                        Case{1, 1, "kernel: f32_recurrent_ref__scalar;"}, Case{4, 2, nullptr}}) {
    const std::string ir = lstm_ir(c.batch, *with_threads(*find_target("x86-64-v4"), c.threads));
    INFO("batch " << c.batch << " threads " << c.threads << "\n" << ir);
    CHECK(filecheck(ir, {c.kernel ? std::string("CHECK: ") + c.kernel : "CHECK-NOT: kernel:"}) ==
          "");
  }
}

TEST_CASE("select-kernels splits by the target's cost table", "[passes][kernels][threads]") {
  // The LSTM step above (about 8 us at the row's rate) against a step threshold of 5 us (the
  // hosted rows') and of 10 us (a target whose pool costs more): split, then whole. A kernel
  // call's threshold does not apply to a step.
  struct Case {
    double min_step_s, min_call_s;
    bool split;
  };
  for (const Case& c :
       {Case{5e-6, 20e-6, true}, Case{10e-6, 20e-6, false}, Case{5e-6, 1.0, true}}) {
    Target target = *with_threads(*find_target("x86-64-v4"), 2);
    target.split.min_step_s = c.min_step_s;
    target.split.min_call_s = c.min_call_s;
    const std::string ir = lstm_ir(1, target);
    INFO("min_step_s " << c.min_step_s << " min_call_s " << c.min_call_s << "\n" << ir);
    CHECK(filecheck(ir, {c.split ? "CHECK: kernel: f32_recurrent_ref__scalar in 2 parts"
                                 : "CHECK: kernel: f32_recurrent_ref__scalar;"}) == "");
  }
}

namespace {

// An int8 QLinearConv pair as lower-qdq leaves it: xq (1x8x10x10) -> depthwise 3x3 (pads 1) ->
// pointwise to 16 channels; weights symmetric per channel unless `w_zero_point` is set (then the
// pointwise weights have zero point 1).
ModelBuilder qconv_model(onnx::TensorProto::DataType type, int w_zero_point = 0) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> dist(-100, 100);
  auto ints = [&](size_t n) {
    std::vector<int32_t> v(n);
    for (auto& x : v) x = dist(rng);
    return v;
  };
  ModelBuilder mb(13);
  mb.input("xq", type, {1, 8, 10, 10});
  mb.initializer("s", {}, {0.02f})
      .int_initializer("z", type, {}, {type == onnx::TensorProto::UINT8 ? 128 : 0});
  mb.int_initializer("wd", onnx::TensorProto::INT8, {8, 1, 3, 3}, ints(72));
  mb.int_initializer("wp", onnx::TensorProto::INT8, {16, 8, 1, 1}, ints(128));
  mb.initializer("ws", {}, {0.003f});
  mb.int_initializer("wz", onnx::TensorProto::INT8, {}, {0});
  mb.int_initializer("wzp", onnx::TensorProto::INT8, {}, {w_zero_point});
  auto& dw = mb.node("QLinearConv", {"xq", "s", "z", "wd", "ws", "wz", "s", "z"}, {"d"}, "dw");
  ModelBuilder::ints_attr(dw, "pads", {1, 1, 1, 1});
  ModelBuilder::int_attr(dw, "group", 8);
  mb.node("QLinearConv", {"d", "s", "z", "wp", "ws", "wzp", "s", "z"}, {"y"}, "pw");
  mb.output("y", type, {1, 16, 10, 10});
  return mb;
}

}  // namespace

TEST_CASE(
    "select-kernels: int8 QLinearConv runs the s8 rows, dsp on the Cortex-M4 and mve on the M55",
    "[passes][kernels][qconv]") {
  struct Case {
    const char *target, *dw, *pw;
  };
  for (const Case& c : {Case{"generic", "s8_qdwconv_3x3__scalar", "s8_qconv_2x2__scalar"},
                        Case{"cortex-m4", "s8_qdwconv_3x3__dsp", "s8_qconv_2x2__dsp"},
                        Case{"cortex-m7", "s8_qdwconv_3x3__dsp", "s8_qconv_2x2__dsp"},
                        Case{"cortex-m55", "s8_qdwconv_3x3__mve", "s8_qconv_4x2__mve"},
                        Case{"cortex-m0plus", "s8_qdwconv_3x3__scalar", "s8_qconv_2x2__scalar"},
                        Case{"x86-64-v4", "s8_qdwconv_3x3__scalar", "s8_qconv_2x2__scalar"}}) {
    ModelBuilder mb = qconv_model(onnx::TensorProto::INT8);
    const Selected s = select(mb, c.target);
    INFO(c.target << "\n" << s.ir);
    // The weights packed (pointwise) and the per-channel constants (both) replace the inputs.
    CHECK(filecheck(s.ir, {"CHECK: = QLinearConv@13(%xq, %s, %z, %wd, %ws, %wz, %s, %z, "
                           "%dw_input8_packed) {group=8, pads=[1, 1, 1, 1]}",
                           std::string("CHECK-SAME: kernel: ") + c.dw,
                           "CHECK: = QLinearConv@13(%d, %s, %z, %wp_packed, %ws, %wzp, %s, %z, "
                           "%pw_input8_packed)",
                           std::string("CHECK-SAME: kernel: ") + c.pw}) == "");
  }
}

TEST_CASE("an mve target may run the dsp and scalar rows and a dsp target no mve row",
          "[passes][kernels]") {
  CHECK(isa_allows(Isa::mve, Isa::dsp));
  CHECK(isa_allows(Isa::mve, Isa::scalar));
  CHECK_FALSE(isa_allows(Isa::dsp, Isa::mve));
  CHECK_FALSE(isa_allows(Isa::mve, Isa::neon));
}

TEST_CASE("select-kernels: uint8 or asymmetric weights keep qlinear_conv_ref",
          "[passes][kernels][qconv]") {
  ModelBuilder u8 = qconv_model(onnx::TensorProto::UINT8);
  const Selected a = select(u8, "cortex-m4");
  INFO(a.ir);
  CHECK(filecheck(a.ir, {"CHECK-NOT: kernel:"}) == "");
  ModelBuilder asymmetric = qconv_model(onnx::TensorProto::INT8, 1);
  const Selected b = select(asymmetric, "cortex-m4");
  INFO(b.ir);
  CHECK(filecheck(b.ir, {"CHECK: kernel: s8_qdwconv_3x3__dsp", "CHECK-NOT: kernel:"}) == "");
}

TEST_CASE("every kernel-variant row is well formed", "[passes][kernels]") {
  // Names follow <dtype>_<op>_<tile>__<isa>; a packed GEMM, and only it, has a panel, and reads
  // constant weights.
  for (const KernelVariant& v : all_kernel_variants()) {
    INFO(v.name);
    CHECK(v.name == v.dtype + "_" + v.op + "_" + v.tile + "__" + std::string(isa_name(v.isa)));
    CHECK(find_kernel_variant(v.name) == &v);
    CHECK((v.panel > 0) == (v.op == "gemm_packed"));
    if (v.panel > 0) CHECK(v.constant_weights);
    CHECK(v.gflops >= 0);
  }
}
