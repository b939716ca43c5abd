// fuse-epilogue on IR text (FileCheck-style) and numerically against the unfused graph.
#include <catch2/catch.hpp>

#include "harness/filecheck.h"
#include "passes/fusion_harness.h"

using namespace onnxc;
using onnxc::testing::filecheck;
using onnxc::testing::ModelBuilder;

namespace {

std::mt19937 rng(17);

// x [1, 3, 6, 6] -> Conv(w [4, 3, 3, 3], b, pads 1) -> c [1, 4, 6, 6].
ModelBuilder conv_model(const std::string& out = "c", const std::string& in = "x",
                        const std::string& prefix = "") {
  ModelBuilder mb(13);
  mb.input(in, onnx::TensorProto::FLOAT, {1, 3, 6, 6});
  mb.initializer(prefix + "w", {4, 3, 3, 3}, onnxc::testing::random_values(108, rng));
  mb.initializer(prefix + "b", {4}, onnxc::testing::random_values(4, rng));
  auto& conv = mb.node("Conv", {in, prefix + "w", prefix + "b"}, {out}, prefix + "conv");
  ModelBuilder::ints_attr(conv, "pads", {1, 1, 1, 1});
  return mb;
}

}  // namespace

TEST_CASE("fuse-epilogue fuses each activation into a Conv", "[passes][fusion]") {
  struct Case {
    const char* op;
    const char* attrs;  // the fused attributes the IR must show
  };
  for (const Case& c :
       {Case{"Relu", "fused_activation=\"Relu\""}, Case{"Sigmoid", "fused_activation=\"Sigmoid\""},
        Case{"Tanh", "fused_activation=\"Tanh\""},
        Case{"HardSwish", "fused_activation=\"HardSwish\""},
        Case{"LeakyRelu", "fused_activation=\"LeakyRelu\", fused_alpha=0.25"},
        Case{"HardSigmoid", "fused_activation=\"HardSigmoid\", fused_alpha=0.2, fused_beta=0.5"},
        Case{"Gelu", "fused_activation=\"GeluTanh\""}}) {
    ModelBuilder mb = conv_model();
    mb.proto().mutable_opset_import(0)->set_version(20);
    auto& act = mb.node(c.op, {"c"}, {"y"}, "act");
    if (std::string(c.op) == "LeakyRelu") onnxc::testing::float_attr(act, "alpha", 0.25f);
    if (std::string(c.op) == "Gelu") onnxc::testing::string_attr(act, "approximate", "tanh");
    mb.output("y", onnx::TensorProto::FLOAT, {1, 4, 6, 6});
    auto l = onnxc::testing::lower(mb, true);
    INFO(c.op << "\n" << l.ir);
    CHECK(
        filecheck(l.ir, {"CHECK: %y: float[1x4x6x6] = Conv@20(%x, %w, %b) {" + std::string(c.attrs),
                         "CHECK-NEXT: }"}) == "");
    onnxc::testing::check_same_results(mb);
  }
}

TEST_CASE("fuse-epilogue fuses Clip with constant bounds, not with run-time ones",
          "[passes][fusion]") {
  ModelBuilder mb = conv_model();
  mb.initializer("lo", {}, {0.0f}).initializer("hi", {}, {0.5f});
  mb.node("Clip", {"c", "lo", "hi"}, {"y"}, "clip");
  mb.output("y", onnx::TensorProto::FLOAT, {1, 4, 6, 6});
  auto l = onnxc::testing::lower(mb, true);
  CHECK(filecheck(l.ir, {"CHECK: = Conv@13(%x, %w, %b) {fused_activation=\"Clip\", fused_beta=0.5, "
                         "pads=[1, 1, 1, 1]}"}) == "");
  onnxc::testing::check_same_results(mb);

  ModelBuilder rt = conv_model();
  rt.input("hi", onnx::TensorProto::FLOAT, {});
  rt.node("Clip", {"c", "", "hi"}, {"y"}, "clip");
  rt.output("y", onnx::TensorProto::FLOAT, {1, 4, 6, 6});
  auto r = onnxc::testing::lower(rt, true);
  CHECK(filecheck(r.ir, {"CHECK: %c: float[1x4x6x6] = Conv@13(%x, %w, %b) {pads=[1, 1, 1, 1]}",
                         "CHECK: = Clip@13(%c, none, %hi)"}) == "");
}

TEST_CASE("fuse-epilogue fuses a ResNet block: Conv -> BN -> Add(residual) -> Relu",
          "[passes][fusion]") {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {1, 4, 5, 5});
  mb.initializer("w", {4, 4, 3, 3}, onnxc::testing::random_values(144, rng));
  auto& conv = mb.node("Conv", {"x", "w"}, {"c"}, "conv");
  ModelBuilder::ints_attr(conv, "pads", {1, 1, 1, 1});
  mb.initializer("scale", {4}, onnxc::testing::random_values(4, rng, 0.5f, 2.0f));
  mb.initializer("shift", {4}, onnxc::testing::random_values(4, rng));
  mb.initializer("mean", {4}, onnxc::testing::random_values(4, rng));
  mb.initializer("var", {4}, onnxc::testing::random_values(4, rng, 0.5f, 2.0f));
  mb.node("BatchNormalization", {"c", "scale", "shift", "mean", "var"}, {"bn"}, "bn");
  mb.node("Add", {"bn", "x"}, {"sum"}, "add");
  mb.node("Relu", {"sum"}, {"y"}, "relu");
  mb.output("y", onnx::TensorProto::FLOAT, {1, 4, 5, 5});
  auto l = onnxc::testing::lower(mb, true);
  INFO(l.ir);
  CHECK(
      filecheck(l.ir, {"CHECK-NOT: BatchNormalization", "CHECK-NOT: Add@", "CHECK-NOT: Relu@",
                       "CHECK: %y: float[1x4x5x5] = Conv@13(%x, %w_folded, %conv_bias_folded, %x) "
                       "{fused_activation=\"Relu\", pads=[1, 1, 1, 1]}",
                       "CHECK-NEXT: }"}) == "");
  CHECK(l.stats.at("residual Adds fused") == 1);
  CHECK(l.stats.at("Relu fused") == 1);
  onnxc::testing::check_same_results(mb);
}

TEST_CASE("fuse-epilogue moves the Conv down when the residual is computed after it",
          "[passes][fusion]") {
  // main = Conv_a(x); side = Conv_b(x) comes later in node order; y = Relu(main + side).
  ModelBuilder mb = conv_model("main", "x", "a_");
  mb.initializer("b_w", {4, 3, 1, 1}, onnxc::testing::random_values(12, rng));
  mb.node("Conv", {"x", "b_w"}, {"side"}, "b_conv");
  mb.node("Add", {"main", "side"}, {"sum"}, "add");
  mb.node("Relu", {"sum"}, {"y"}, "relu");
  mb.output("y", onnx::TensorProto::FLOAT, {1, 4, 6, 6});
  auto l = onnxc::testing::lower(mb, true);
  INFO(l.ir);
  CHECK(filecheck(l.ir, {"CHECK: %side: float[1x4x6x6] = Conv@13(%x, %b_w)",
                         "CHECK-NEXT: %y: float[1x4x6x6] = Conv@13(%x, %a_w, %a_b, %side) "
                         "{fused_activation=\"Relu\""}) == "");
  CHECK(l.stats.at("nodes moved to their residual Add") == 1);
  onnxc::testing::check_same_results(mb);
}

TEST_CASE(
    "fuse-epilogue gives a ResNet downsampling block's residual to the deeper Conv, in any "
    "node order",
    "[passes][fusion]") {
  // main = Conv_b(Relu(Conv_a(x))), side = Conv_d(x) (1x1); y = Relu(main + side) or
  // Relu(side + main). ONNX Runtime saves Conv_d first, exporters after the main branch: either
  // way Conv_b (deeper) takes side as its residual and Conv_d runs before it (where the graph
  // has it, before Conv_a or after it).
  for (bool side_first : {true, false})
    for (bool main_operand_first : {true, false}) {
      ModelBuilder mb(13);
      mb.input("x", onnx::TensorProto::FLOAT, {1, 4, 6, 6});
      mb.initializer("a_w", {4, 4, 3, 3}, onnxc::testing::random_values(144, rng));
      mb.initializer("b_w", {4, 4, 3, 3}, onnxc::testing::random_values(144, rng));
      mb.initializer("d_w", {4, 4, 1, 1}, onnxc::testing::random_values(16, rng));
      auto side = [&] { mb.node("Conv", {"x", "d_w"}, {"side"}, "d_conv"); };
      if (side_first) side();
      auto& a = mb.node("Conv", {"x", "a_w"}, {"a"}, "a_conv");
      ModelBuilder::ints_attr(a, "pads", {1, 1, 1, 1});
      mb.node("Relu", {"a"}, {"a_relu"}, "a_relu");
      auto& b = mb.node("Conv", {"a_relu", "b_w"}, {"main"}, "b_conv");
      ModelBuilder::ints_attr(b, "pads", {1, 1, 1, 1});
      if (!side_first) side();
      mb.node("Add",
              main_operand_first ? std::vector<std::string>{"main", "side"}
                                 : std::vector<std::string>{"side", "main"},
              {"sum"}, "add");
      mb.node("Relu", {"sum"}, {"y"}, "relu");
      mb.output("y", onnx::TensorProto::FLOAT, {1, 4, 6, 6});
      auto l = onnxc::testing::lower(mb, true);
      INFO("side first " << side_first << ", main operand first " << main_operand_first << "\n"
                         << l.ir);
      CHECK(filecheck(l.ir, {"CHECK: %side: float[1x4x6x6] = Conv@13(%x, %d_w)",
                             "CHECK: %y: float[1x4x6x6] = Conv@13(%a_relu, %b_w, none, "
                             "%side) {fused_activation=\"Relu\""}) == "");
      onnxc::testing::check_same_results(mb);
    }
}

TEST_CASE("fuse-epilogue keeps the graph's order: Relu then Add fuses only the Relu",
          "[passes][fusion]") {
  ModelBuilder mb = conv_model();
  mb.input("r", onnx::TensorProto::FLOAT, {1, 4, 6, 6});
  mb.node("Relu", {"c"}, {"act"}, "relu");
  mb.node("Add", {"act", "r"}, {"y"}, "add");
  mb.output("y", onnx::TensorProto::FLOAT, {1, 4, 6, 6});
  auto l = onnxc::testing::lower(mb, true);
  INFO(l.ir);
  CHECK(filecheck(l.ir,
                  {"CHECK: %act: float[1x4x6x6] = Conv@13(%x, %w, %b) {fused_activation=\"Relu\"",
                   "CHECK-NEXT: %y: float[1x4x6x6] = Add@13(%act, %r)"}) == "");
  onnxc::testing::check_same_results(mb);
}

TEST_CASE("fuse-epilogue fuses Gemm and MatMul epilogues", "[passes][fusion]") {
  SECTION("Gemm -> Add(residual) -> Sigmoid") {
    ModelBuilder mb(13);
    mb.input("x", onnx::TensorProto::FLOAT, {4, 8}).input("r", onnx::TensorProto::FLOAT, {4, 16});
    mb.initializer("w", {16, 8}, onnxc::testing::random_values(128, rng));
    mb.initializer("c", {16}, onnxc::testing::random_values(16, rng));
    auto& gemm = mb.node("Gemm", {"x", "w", "c"}, {"g"}, "gemm");
    ModelBuilder::int_attr(gemm, "transB", 1);
    mb.node("Add", {"r", "g"}, {"sum"}, "add");
    mb.node("Sigmoid", {"sum"}, {"y"}, "sigmoid");
    mb.output("y", onnx::TensorProto::FLOAT, {4, 16});
    auto l = onnxc::testing::lower(mb, true);
    INFO(l.ir);
    CHECK(filecheck(l.ir, {"CHECK: %y: float[4x16] = Gemm@13(%x, %w, %c, %r) "
                           "{fused_activation=\"Sigmoid\", transB=1}",
                           "CHECK-NEXT: }"}) == "");
    onnxc::testing::check_same_results(mb);
  }
  SECTION("batched MatMul -> Gelu") {
    ModelBuilder mb(20);
    mb.input("a", onnx::TensorProto::FLOAT, {2, 3, 8})
        .input("b", onnx::TensorProto::FLOAT, {2, 8, 5});
    mb.node("MatMul", {"a", "b"}, {"m"}, "matmul");
    mb.node("Gelu", {"m"}, {"y"}, "gelu");
    mb.output("y", onnx::TensorProto::FLOAT, {2, 3, 5});
    auto l = onnxc::testing::lower(mb, true);
    INFO(l.ir);
    CHECK(filecheck(l.ir,
                    {"CHECK: %y: float[2x3x5] = MatMul@20(%a, %b) {fused_activation=\"Gelu\"}"}) ==
          "");
    onnxc::testing::check_same_results(mb);
  }
}

TEST_CASE("fuse-epilogue leaves what it must not fuse", "[passes][fusion]") {
  SECTION("the Conv output is a graph output") {
    ModelBuilder mb = conv_model();
    mb.node("Relu", {"c"}, {"y"}, "relu");
    mb.output("y", onnx::TensorProto::FLOAT, {1, 4, 6, 6})
        .output("c", onnx::TensorProto::FLOAT, {1, 4, 6, 6});
    auto l = onnxc::testing::lower(mb, true);
    CHECK(filecheck(l.ir, {"CHECK: %c: float[1x4x6x6] = Conv@13(%x, %w, %b) {pads=[1, 1, 1, 1]}",
                           "CHECK-NEXT: %y: float[1x4x6x6] = Relu@13(%c)"}) == "");
  }
  SECTION("the Conv output has two users") {
    ModelBuilder mb = conv_model();
    mb.node("Relu", {"c"}, {"y"}, "relu");
    mb.node("Sigmoid", {"c"}, {"z"}, "sigmoid");
    mb.output("y", onnx::TensorProto::FLOAT, {1, 4, 6, 6})
        .output("z", onnx::TensorProto::FLOAT, {1, 4, 6, 6});
    auto l = onnxc::testing::lower(mb, true);
    CHECK(filecheck(l.ir, {"CHECK: %c: float[1x4x6x6] = Conv@13(%x, %w, %b) {pads=[1, 1, 1, 1]}",
                           "CHECK: Relu@13(%c)", "CHECK: Sigmoid@13(%c)"}) == "");
    CHECK(l.stats.empty());
  }
  SECTION("an Add that broadcasts is not a residual") {
    ModelBuilder mb = conv_model();
    mb.input("r", onnx::TensorProto::FLOAT, {1, 4, 1, 1});
    mb.node("Add", {"c", "r"}, {"y"}, "add");
    mb.output("y", onnx::TensorProto::FLOAT, {1, 4, 6, 6});
    auto l = onnxc::testing::lower(mb, true);
    CHECK(filecheck(l.ir, {"CHECK: %c: float[1x4x6x6] = Conv@13(%x, %w, %b) {pads=[1, 1, 1, 1]}",
                           "CHECK-NEXT: %y: float[1x4x6x6] = Add@13(%c, %r)"}) == "");
  }
  SECTION("double Convs are not fused") {
    ModelBuilder mb(13);
    mb.input("x", onnx::TensorProto::DOUBLE, {1, 1, 3, 3});
    auto* w = mb.proto().mutable_graph()->add_initializer();
    w->set_name("w");
    w->set_data_type(onnx::TensorProto::DOUBLE);
    for (int64_t d : {1, 1, 1, 1}) w->add_dims(d);
    w->add_double_data(2.0);
    mb.node("Conv", {"x", "w"}, {"c"}, "conv");
    mb.node("Relu", {"c"}, {"y"}, "relu");
    mb.output("y", onnx::TensorProto::DOUBLE, {1, 1, 3, 3});
    auto l = onnxc::testing::lower(mb, true);
    CHECK(filecheck(l.ir, {"CHECK: %c: double[1x1x3x3] = Conv@13(%x, %w)", "CHECK: Relu@13(%c)"}) ==
          "");
  }
}

TEST_CASE("fuse-epilogue takes a constant bias row into Conv and Gemm with run-time weights",
          "[passes][fusion]") {
  SECTION("Conv") {
    ModelBuilder mb(13);
    mb.input("x", onnx::TensorProto::FLOAT, {1, 3, 6, 6})
        .input("w", onnx::TensorProto::FLOAT, {4, 3, 3, 3});
    mb.initializer("b", {4}, onnxc::testing::random_values(4, rng));
    mb.initializer("c", {4, 1, 1}, onnxc::testing::random_values(4, rng));
    mb.node("Conv", {"x", "w", "b"}, {"conv_out"}, "conv");
    mb.node("Add", {"conv_out", "c"}, {"sum"}, "add");
    mb.node("Relu", {"sum"}, {"y"}, "relu");
    mb.output("y", onnx::TensorProto::FLOAT, {1, 4, 4, 4});
    auto l = onnxc::testing::lower(mb, true);
    INFO(l.ir);
    CHECK(
        filecheck(
            l.ir,
            {"CHECK: %conv_bias: float[4] = constant",
             "CHECK: %y: float[1x4x4x4] = Conv@13(%x, %w, %conv_bias) {fused_activation=\"Relu\"}",
             "CHECK-NEXT: }"}) == "");
    onnxc::testing::check_same_results(mb);
  }
  SECTION("Gemm with beta and a scalar C") {
    ModelBuilder mb(13);
    mb.input("x", onnx::TensorProto::FLOAT, {3, 5}).input("w", onnx::TensorProto::FLOAT, {5, 6});
    mb.initializer("c", {1}, {0.25f});
    mb.initializer("row", {6}, onnxc::testing::random_values(6, rng));
    auto& gemm = mb.node("Gemm", {"x", "w", "c"}, {"g"}, "gemm");
    onnxc::testing::float_attr(gemm, "beta", 3.0f);
    mb.node("Add", {"row", "g"}, {"y"}, "add");
    mb.output("y", onnx::TensorProto::FLOAT, {3, 6});
    auto l = onnxc::testing::lower(mb, true);
    INFO(l.ir);
    CHECK(filecheck(l.ir, {"CHECK: %y: float[3x6] = Gemm@13(%x, %w, %gemm_bias) {beta=1}",
                           "CHECK-NEXT: }"}) == "");
    onnxc::testing::check_same_results(mb);
  }
  SECTION("not a Gemm C that varies along rows") {
    ModelBuilder mb(13);
    mb.input("x", onnx::TensorProto::FLOAT, {3, 5}).input("w", onnx::TensorProto::FLOAT, {5, 6});
    mb.initializer("c", {3, 1}, onnxc::testing::random_values(3, rng));
    mb.initializer("row", {6}, onnxc::testing::random_values(6, rng));
    mb.node("Gemm", {"x", "w", "c"}, {"g"}, "gemm");
    mb.node("Add", {"g", "row"}, {"y"}, "add");
    mb.output("y", onnx::TensorProto::FLOAT, {3, 6});
    auto l = onnxc::testing::lower(mb, true);
    CHECK(filecheck(l.ir, {"CHECK: %g: float[3x6] = Gemm@13(%x, %w, %c)",
                           "CHECK-NEXT: %y: float[3x6] = Add@13(%g, %row)"}) == "");
  }
}
