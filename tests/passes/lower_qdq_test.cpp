// lower-qdq on IR text (FileCheck-style) and numerically: the lowered graph's outputs are within
// one step of the output scale of the float QDQ graph's (lower-qdq disabled), the bound the spec
// of issue 13 sets for integer lowering.
#include <catch2/catch.hpp>

#include "frontend/contrib_expander.h"
#include "harness/filecheck.h"
#include "passes/lower_qdq_harness.h"

using namespace onnxc;
using namespace onnxc::testing::qdq;
using onnxc::testing::filecheck;
using onnxc::testing::ModelBuilder;

TEST_CASE("lower-qdq: DQ -> Conv(+bias) -> Relu -> Q becomes one QLinearConv", "[passes][qdq]") {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {1, 3, 8, 8});
  mb.initializer("xs", {}, {0.02f}).int_initializer("xz", onnx::TensorProto::UINT8, {}, {128});
  mb.int_initializer("w", onnx::TensorProto::INT8, {4, 3, 3, 3}, random_ints(108, -127, 127));
  mb.initializer("ws", {4}, {0.004f, 0.006f, 0.003f, 0.005f});
  mb.initializer("b", {4}, onnxc::testing::random_values(4, rng));
  mb.initializer("ys", {}, {0.05f}).int_initializer("yz", onnx::TensorProto::UINT8, {}, {10});
  quantize_io(mb, "x", "xq", "xs", "xz", "xd");
  auto& dw = mb.node("DequantizeLinear", {"w", "ws"}, {"wd"}, "dq_w");
  ModelBuilder::int_attr(dw, "axis", 0);
  auto& conv = mb.node("Conv", {"xd", "wd", "b"}, {"c"}, "conv");
  ModelBuilder::ints_attr(conv, "pads", {1, 1, 1, 1});
  mb.node("Relu", {"c"}, {"r"}, "relu");
  quantize_io(mb, "r", "yq", "ys", "yz", "y");
  mb.output("y", onnx::TensorProto::FLOAT, {1, 4, 8, 8});
  Lowered l = lower_qdq(mb, true);
  INFO(l.ir);
  CHECK(filecheck(l.ir, {"CHECK: %conv_bias_q: int32[4] = constant", "CHECK-NOT: = Conv@",
                         "CHECK: %yq: uint8[1x4x8x8] = QLinearConv@13(%xq, %xs, %xz, %w, %ws, "
                         "%conv_w_zero_point, %ys, %yz, %conv_bias_q) {fused_activation=\"Relu\", "
                         "pads=[1, 1, 1, 1]}",
                         "CHECK-NOT: Relu@", "CHECK: = DequantizeLinear@13(%yq, %ys, %yz)"}) == "");
  CHECK(l.stats.at("Convs lowered to integers") == 1);
  CHECK(l.stats.at("Relus fused") == 1);
  check_within_one_step(mb, 0.05f);
}

TEST_CASE("lower-qdq: DQ -> Flatten -> MatMul -> Add(bias) -> Q becomes QLinearMatMul",
          "[passes][qdq]") {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {4, 2, 4, 4});
  mb.initializer("xs", {}, {0.015f}).int_initializer("xz", onnx::TensorProto::INT8, {}, {-5});
  mb.int_initializer("w", onnx::TensorProto::INT8, {32, 5}, random_ints(160, -127, 127));
  mb.initializer("ws", {5}, {0.002f, 0.003f, 0.0025f, 0.001f, 0.004f});
  mb.int_initializer("wz", onnx::TensorProto::INT8, {5}, {0, 0, 0, 0, 0});
  mb.initializer("b", {5}, onnxc::testing::random_values(5, rng));
  mb.initializer("ys", {}, {0.02f}).int_initializer("yz", onnx::TensorProto::INT8, {}, {-3});
  quantize_io(mb, "x", "xq", "xs", "xz", "xd");
  mb.node("Flatten", {"xd"}, {"f"}, "flatten");
  mb.node("DequantizeLinear", {"w", "ws", "wz"}, {"wd"}, "dq_w");  // axis 1: per column
  mb.node("MatMul", {"f", "wd"}, {"m"}, "matmul");
  mb.node("Add", {"m", "b"}, {"a"}, "add");
  quantize_io(mb, "a", "yq", "ys", "yz", "y");
  mb.output("y", onnx::TensorProto::FLOAT, {4, 5});
  Lowered l = lower_qdq(mb, true);
  INFO(l.ir);
  CHECK(filecheck(l.ir, {"CHECK: %f: int8[4x32] = Flatten@13(%xq)",
                         "CHECK: %yq: int8[4x5] = QLinearMatMul@13(%f, %xs, %xz, %w, %ws, %wz, "
                         "%ys, %yz, %matmul_bias_q)",
                         "CHECK-NOT: MatMul@", "CHECK-NOT: Add@"}) == "");
  CHECK(l.stats.at("matrix products lowered to integers") == 1);
  check_within_one_step(mb, 0.02f);
}

TEST_CASE("lower-qdq: Gemm with transB, per-row weights and an int32 DequantizeLinear bias",
          "[passes][qdq]") {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {3, 6});
  mb.initializer("xs", {}, {0.02f}).int_initializer("xz", onnx::TensorProto::UINT8, {}, {120});
  mb.int_initializer("w", onnx::TensorProto::INT8, {4, 6}, random_ints(24, -127, 127));
  mb.initializer("ws", {4}, {0.01f, 0.02f, 0.015f, 0.005f});
  // The bias as quantization tools store it: int32 in units of x_scale * w_scale.
  mb.int_initializer("bq", onnx::TensorProto::INT32, {4}, {120, -340, 55, 900});
  mb.initializer("bs", {4}, {0.02f * 0.01f, 0.02f * 0.02f, 0.02f * 0.015f, 0.02f * 0.005f});
  mb.initializer("ys", {}, {0.03f}).int_initializer("yz", onnx::TensorProto::UINT8, {}, {128});
  quantize_io(mb, "x", "xq", "xs", "xz", "xd");
  auto& dw = mb.node("DequantizeLinear", {"w", "ws"}, {"wd"}, "dq_w");
  ModelBuilder::int_attr(dw, "axis", 0);
  auto& db = mb.node("DequantizeLinear", {"bq", "bs"}, {"bd"}, "dq_b");
  ModelBuilder::int_attr(db, "axis", 0);
  auto& gemm = mb.node("Gemm", {"xd", "wd", "bd"}, {"g"}, "gemm");
  ModelBuilder::int_attr(gemm, "transB", 1);
  quantize_io(mb, "g", "yq", "ys", "yz", "y");
  mb.output("y", onnx::TensorProto::FLOAT, {3, 4});
  Lowered l = lower_qdq(mb, true);
  INFO(l.ir);
  CHECK(filecheck(l.ir, {"CHECK: %gemm_b_t: int8[6x4] = constant",
                         "CHECK: %yq: uint8[3x4] = QLinearMatMul@13(%xq, %xs, %xz, %gemm_b_t, %ws, "
                         "%gemm_b_zero_point, %ys, %yz, %gemm_bias_q)",
                         "CHECK-NOT: Gemm@"}) == "");
  check_within_one_step(mb, 0.03f);
}

TEST_CASE("lower-qdq: a batched MatMul of two quantized activations (attention scores)",
          "[passes][qdq]") {
  ModelBuilder mb(13);
  mb.input("q", onnx::TensorProto::FLOAT, {2, 3, 4, 8})
      .input("k", onnx::TensorProto::FLOAT, {2, 3, 8, 4});
  mb.initializer("qs", {}, {0.02f}).int_initializer("qz", onnx::TensorProto::INT8, {}, {0});
  mb.initializer("ks", {}, {0.025f}).int_initializer("kz", onnx::TensorProto::INT8, {}, {3});
  mb.initializer("ys", {}, {0.05f}).int_initializer("yz", onnx::TensorProto::INT8, {}, {0});
  quantize_io(mb, "q", "qq", "qs", "qz", "qd");
  quantize_io(mb, "k", "kq", "ks", "kz", "kd");
  mb.node("MatMul", {"qd", "kd"}, {"s"}, "scores");
  quantize_io(mb, "s", "sq", "ys", "yz", "y");
  mb.output("y", onnx::TensorProto::FLOAT, {2, 3, 4, 4});
  Lowered l = lower_qdq(mb, true);
  INFO(l.ir);
  CHECK(filecheck(l.ir, {"CHECK: %sq: int8[2x3x4x4] = QLinearMatMul@13(%qq, %qs, %qz, %kq, %ks, "
                         "%kz, %ys, %yz)",
                         "CHECK-NOT: = MatMul@"}) == "");
  check_within_one_step(mb, 0.05f);
}

TEST_CASE("lower-qdq leaves shared values, other activations and activations per axis alone",
          "[passes][qdq]") {
  auto build = [](const char* activation, bool share, bool per_axis_x) {
    ModelBuilder mb(13);
    mb.input("x", onnx::TensorProto::FLOAT, {1, 2, 4, 4});
    if (per_axis_x)
      mb.initializer("xs", {2}, {0.02f, 0.03f})
          .int_initializer("xz", onnx::TensorProto::UINT8, {2}, {128, 128});
    else
      mb.initializer("xs", {}, {0.02f}).int_initializer("xz", onnx::TensorProto::UINT8, {}, {128});
    mb.int_initializer("w", onnx::TensorProto::INT8, {2, 2, 1, 1}, {3, -4, 5, 6});
    mb.initializer("ws", {}, {0.01f});
    mb.initializer("ys", {}, {0.05f}).int_initializer("yz", onnx::TensorProto::UINT8, {}, {0});
    quantize_io(mb, "x", "xq", "xs", "xz", "xd");
    mb.node("DequantizeLinear", {"w", "ws"}, {"wd"}, "dq_w");
    mb.node("Conv", {"xd", "wd"}, {"c"}, "conv");
    mb.node(activation, {"c"}, {"r"}, "act");
    quantize_io(mb, "r", "yq", "ys", "yz", "y");
    mb.output("y", onnx::TensorProto::FLOAT, {1, 2, 4, 4});
    if (share) mb.output("c", onnx::TensorProto::FLOAT, {1, 2, 4, 4});
    return mb;
  };
  for (auto [activation, share, per_axis] :
       {std::tuple{"Sigmoid", false, false}, std::tuple{"Relu", true, false},
        std::tuple{"Relu", false, true}}) {
    ModelBuilder mb = build(activation, share, per_axis);
    Lowered l = lower_qdq(mb, true);
    INFO(activation << " shared " << share << " per-axis x " << per_axis << "\n" << l.ir);
    CHECK(filecheck(l.ir, {"CHECK: = Conv@13(%xd, ", "CHECK-NOT: QLinearConv"}) == "");
    CHECK(l.stats.empty());
  }
  ModelBuilder lowered = build("Relu", false, false);
  CHECK(lower_qdq(lowered, true).stats.at("Convs lowered to integers") == 1);
}

TEST_CASE("lower-qdq: DQ -> GlobalAveragePool -> Q becomes QLinearGlobalAveragePool",
          "[passes][qdq]") {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {2, 6, 5, 7});
  mb.initializer("xs", {}, {0.02f}).int_initializer("xz", onnx::TensorProto::INT8, {}, {-20});
  mb.initializer("ys", {}, {0.011f}).int_initializer("yz", onnx::TensorProto::INT8, {}, {3});
  quantize_io(mb, "x", "xq", "xs", "xz", "xd");
  mb.node("GlobalAveragePool", {"xd"}, {"g"}, "pool");
  quantize_io(mb, "g", "yq", "ys", "yz", "y");
  mb.output("y", onnx::TensorProto::FLOAT, {2, 6, 1, 1});
  Lowered l = lower_qdq(mb, true);
  INFO(l.ir);
  CHECK(
      filecheck(l.ir, {"CHECK-NOT: GlobalAveragePool@",
                       "CHECK: %yq: int8[2x6x1x1] = com.microsoft.QLinearGlobalAveragePool@1(%xq, "
                       "%xs, %xz, %ys, %yz)",
                       "CHECK: = DequantizeLinear@13(%yq, %ys, %yz)"}) == "");
  CHECK(l.stats.at("pools lowered to integers") == 1);
  check_within_one_step(mb, 0.011f);
}

TEST_CASE("lower-qdq keeps a pool whose QuantizeLinear changes the type or follows a Relu",
          "[passes][qdq]") {
  for (const bool relu : {false, true}) {
    ModelBuilder mb(13);
    mb.input("x", onnx::TensorProto::FLOAT, {1, 4, 3, 3});
    mb.initializer("xs", {}, {0.02f}).int_initializer("xz", onnx::TensorProto::INT8, {}, {0});
    mb.initializer("ys", {}, {0.01f});
    mb.int_initializer("yz", relu ? onnx::TensorProto::INT8 : onnx::TensorProto::UINT8, {}, {0});
    quantize_io(mb, "x", "xq", "xs", "xz", "xd");
    mb.node("GlobalAveragePool", {"xd"}, {"g"}, "pool");
    if (relu) mb.node("Relu", {"g"}, {"r"}, "relu");
    quantize_io(mb, relu ? "r" : "g", "yq", "ys", "yz", "y");
    mb.output("y", onnx::TensorProto::FLOAT, {1, 4, 1, 1});
    Lowered l = lower_qdq(mb, true);
    INFO(l.ir);
    CHECK(filecheck(l.ir, {"CHECK: = GlobalAveragePool@"}) == "");
    CHECK(l.stats.count("pools lowered to integers") == 0);
  }
}

TEST_CASE("lower-qdq: DQ(a) + DQ(b) [-> Relu] -> Q becomes QLinearAdd", "[passes][qdq]") {
  for (const bool relu : {false, true})
    for (const auto type : {onnx::TensorProto::INT8, onnx::TensorProto::UINT8}) {
      INFO("relu " << relu << " type " << type);
      const int zero = type == onnx::TensorProto::INT8 ? 0 : 128;
      ModelBuilder mb(13);
      mb.input("a", onnx::TensorProto::FLOAT, {2, 3, 4, 5});
      mb.input("b", onnx::TensorProto::FLOAT, {2, 3, 4, 5});
      mb.initializer("as", {}, {0.013f}).int_initializer("az", type, {}, {zero - 7});
      mb.initializer("bs", {}, {0.021f}).int_initializer("bz", type, {}, {zero + 4});
      mb.initializer("ys", {}, {0.017f}).int_initializer("yz", type, {}, {zero + 2});
      quantize_io(mb, "a", "aq", "as", "az", "ad");
      quantize_io(mb, "b", "bq", "bs", "bz", "bd");
      mb.node("Add", {"ad", "bd"}, {"s"}, "add");
      if (relu) mb.node("Relu", {"s"}, {"r"}, "relu");
      quantize_io(mb, relu ? "r" : "s", "yq", "ys", "yz", "y");
      mb.output("y", onnx::TensorProto::FLOAT, {2, 3, 4, 5});
      Lowered l = lower_qdq(mb, true);
      INFO(l.ir);
      const std::string t = type == onnx::TensorProto::INT8 ? "int8" : "uint8";
      std::vector<std::string> checks = {"CHECK-NOT: = Add@", "CHECK-NOT: = Relu@",
                                         "CHECK: %yq: " + t +
                                             "[2x3x4x5] = com.microsoft.QLinearAdd@1(%aq, %as, "
                                             "%az, %bq, %bs, %bz, %ys, %yz)"};
      if (relu) checks.push_back("CHECK-SAME: fused_activation");
      checks.push_back("CHECK: = DequantizeLinear@13(%yq, %ys, %yz)");
      CHECK(filecheck(l.ir, checks) == "");
      CHECK((l.ir.find("fused_activation") != std::string::npos) == relu);
      CHECK(l.stats.at("Adds lowered to integers") == 1);
      check_within_one_step(mb, 0.017f);
    }
}

TEST_CASE("lower-qdq keeps an Add that broadcasts or whose scales do not fit the integer form",
          "[passes][qdq]") {
  for (const bool broadcast : {false, true}) {
    ModelBuilder mb(13);
    mb.input("a", onnx::TensorProto::FLOAT, {1, 4, 3, 3});
    mb.input("b", onnx::TensorProto::FLOAT, broadcast ? Shape{1, 4, 1, 1} : Shape{1, 4, 3, 3});
    mb.initializer("as", {}, {0.02f}).int_initializer("az", onnx::TensorProto::INT8, {}, {0});
    mb.initializer("bs", {}, {0.02f}).int_initializer("bz", onnx::TensorProto::INT8, {}, {0});
    // a_scale / y_scale = 4000 (>= 2^11) unless the add broadcasts
    mb.initializer("ys", {}, {broadcast ? 0.02f : 0.000005f});
    mb.int_initializer("yz", onnx::TensorProto::INT8, {}, {0});
    quantize_io(mb, "a", "aq", "as", "az", "ad");
    quantize_io(mb, "b", "bq", "bs", "bz", "bd");
    mb.node("Add", {"ad", "bd"}, {"s"}, "add");
    quantize_io(mb, "s", "yq", "ys", "yz", "y");
    mb.output("y", onnx::TensorProto::FLOAT, {1, 4, 3, 3});
    Lowered l = lower_qdq(mb, true);
    INFO(l.ir);
    CHECK(filecheck(l.ir, {"CHECK: = Add@"}) == "");
    CHECK(l.stats.count("Adds lowered to integers") == 0);
  }
}

TEST_CASE("lower-qdq: Concat and MaxPool between equal scales run on the 8-bit tensors",
          "[passes][qdq]") {
  ModelBuilder mb(13);
  mb.input("a", onnx::TensorProto::FLOAT, {1, 3, 6, 6});
  mb.input("b", onnx::TensorProto::FLOAT, {1, 2, 6, 6});
  mb.initializer("s", {}, {0.019f}).int_initializer("z", onnx::TensorProto::INT8, {}, {-9});
  quantize_io(mb, "a", "aq", "s", "z", "ad");
  quantize_io(mb, "b", "bq", "s", "z", "bd");
  ModelBuilder::int_attr(mb.node("Concat", {"ad", "bd"}, {"c"}, "concat"), "axis", 1);
  quantize_io(mb, "c", "cq", "s", "z", "cd");
  onnx::NodeProto& pool = mb.node("MaxPool", {"cd"}, {"m"}, "pool");
  ModelBuilder::ints_attr(pool, "kernel_shape", {3, 3});
  ModelBuilder::ints_attr(pool, "strides", {2, 2});
  ModelBuilder::ints_attr(pool, "pads", {1, 1, 1, 1});
  quantize_io(mb, "m", "yq", "s", "z", "y");
  mb.output("y", onnx::TensorProto::FLOAT, {1, 5, 3, 3});
  Lowered l = lower_qdq(mb, true);
  INFO(l.ir);
  CHECK(filecheck(l.ir, {"CHECK: %cq: int8[1x5x6x6] = Concat@13(%aq, %bq)",
                         "CHECK: %yq: int8[1x5x3x3] = MaxPool@13(%cq)",
                         "CHECK: = DequantizeLinear@13(%yq, %s, %z)"}) == "");
  CHECK(l.stats.at("value-moving ops run on 8-bit tensors") == 2);
  // Exact: max and the copies commute with the quantization.
  Lowered plain = lower_qdq(mb, false);
  const std::vector<Tensor> inputs = random_inputs(*plain.module);
  const std::vector<Tensor> want = onnxc::testing::run_graph(*plain.module, inputs);
  const std::vector<Tensor> got = onnxc::testing::run_graph(*l.module, inputs);
  REQUIRE(got.size() == 1);
  for (int64_t i = 0; i < want[0].numel(); ++i)
    REQUIRE(got[0].as<float>()[i] == want[0].as<float>()[i]);
}

TEST_CASE("lower-qdq keeps a Concat whose scale ratio does not fit the integer form",
          "[passes][qdq]") {
  ModelBuilder mb(13);
  mb.input("a", onnx::TensorProto::FLOAT, {1, 3});
  mb.input("b", onnx::TensorProto::FLOAT, {1, 3});
  mb.initializer("s", {}, {0.02f}).initializer("t", {}, {1000.0f});  // 1000 / 0.02 >= 2^15
  mb.int_initializer("z", onnx::TensorProto::INT8, {}, {0});
  quantize_io(mb, "a", "aq", "s", "z", "ad");
  quantize_io(mb, "b", "bq", "t", "z", "bd");
  ModelBuilder::int_attr(mb.node("Concat", {"ad", "bd"}, {"c"}, "concat"), "axis", 1);
  quantize_io(mb, "c", "cq", "s", "z", "y");
  mb.output("y", onnx::TensorProto::FLOAT, {1, 6});
  Lowered l = lower_qdq(mb, true);
  INFO(l.ir);
  CHECK(filecheck(l.ir, {"CHECK: = Concat@13(%ad, %bd)"}) == "");
  CHECK(l.stats.count("value-moving ops run on 8-bit tensors") == 0);
  CHECK(l.stats.count("Concats requantized in integers") == 0);
}

TEST_CASE(
    "lower-qdq: DQ(a) * DQ(b) [-> Relu] -> Q becomes QLinearMul, within one step for all "
    "65536 pairs",
    "[passes][qdq]") {
  struct Scales {
    float sa, sb, sy;
    bool exact;  // the float graph's arithmetic is exact: the results are equal
  };
  const Scales sets[] = {
      {0.05f, 0.04f, 0.5f, false}, {0.013f, 0.021f, 0.0017f, false}, {0.25f, 0.5f, 0.125f, true}};
  for (const bool relu : {false, true})
    for (const auto type : {onnx::TensorProto::INT8, onnx::TensorProto::UINT8})
      for (const Scales& s : sets) {
        INFO("relu " << relu << " type " << type << " scales " << s.sa << " " << s.sb << " "
                     << s.sy);
        ModelBuilder mb(13);
        mb.input("aq", type, {65536}).input("bq", type, {65536});
        mb.initializer("as", {}, {s.sa}).int_initializer("az", type, {}, {zero_of(type, 128)});
        mb.initializer("bs", {}, {s.sb}).int_initializer("bz", type, {}, {zero_of(type, 120)});
        mb.initializer("ys", {}, {s.sy}).int_initializer("yz", type, {}, {zero_of(type, 131)});
        mb.node("DequantizeLinear", {"aq", "as", "az"}, {"ad"}, "dq_a");
        mb.node("DequantizeLinear", {"bq", "bs", "bz"}, {"bd"}, "dq_b");
        mb.node("Mul", {"ad", "bd"}, {"p"}, "mul");
        if (relu) mb.node("Relu", {"p"}, {"r"}, "relu");
        mb.node("QuantizeLinear", {relu ? "r" : "p", "ys", "yz"}, {"yq"}, "q");
        mb.output("yq", type, {65536});
        Lowered l = lower_qdq(mb, true);
        INFO(l.ir);
        const std::string t = type == onnx::TensorProto::INT8 ? "int8" : "uint8";
        std::vector<std::string> checks = {"CHECK-NOT: = Mul@", "CHECK-NOT: = Relu@",
                                           "CHECK: %yq: " + t +
                                               "[65536] = com.microsoft.QLinearMul@1(%aq, %as, "
                                               "%az, %bq, %bs, %bz, %ys, %yz)"};
        if (relu) checks.push_back("CHECK-SAME: fused_activation");
        CHECK(filecheck(l.ir, checks) == "");
        CHECK(l.stats.at("Muls lowered to integers") == 1);
        const auto [got, want] = run_both(
            mb, {all_bytes(ir_type(type), 65536, false), all_bytes(ir_type(type), 65536, true)});
        int equal = 0;
        for (size_t i = 0; i < got.size(); ++i) {
          INFO("pair " << i % 256 << ", " << i / 256 << ": lowered " << got[i] << " float graph "
                       << want[i]);
          REQUIRE(std::abs(got[i] - want[i]) <= 1);
          equal += got[i] == want[i];
        }
        if (s.exact)
          CHECK(equal == 65536);
        else
          CHECK(equal >= 65536 * 99 / 100);
        CHECK(std::set<int>(want.begin(), want.end()).size() >= 50);
      }
}

TEST_CASE("lower-qdq keeps a Mul that broadcasts or whose scales do not fit the integer form",
          "[passes][qdq]") {
  for (const bool broadcast : {false, true}) {
    ModelBuilder mb(13);
    mb.input("a", onnx::TensorProto::FLOAT, {1, 4, 3, 3});
    mb.input("b", onnx::TensorProto::FLOAT, broadcast ? Shape{1, 4, 1, 1} : Shape{1, 4, 3, 3});
    mb.initializer("as", {}, {0.5f}).int_initializer("az", onnx::TensorProto::INT8, {}, {0});
    mb.initializer("bs", {}, {0.5f}).int_initializer("bz", onnx::TensorProto::INT8, {}, {0});
    // a_scale * b_scale / y_scale = 2.5e5 (>= 2^15) unless the Mul broadcasts
    mb.initializer("ys", {}, {broadcast ? 0.02f : 0.000001f});
    mb.int_initializer("yz", onnx::TensorProto::INT8, {}, {0});
    quantize_io(mb, "a", "aq", "as", "az", "ad");
    quantize_io(mb, "b", "bq", "bs", "bz", "bd");
    mb.node("Mul", {"ad", "bd"}, {"s"}, "mul");
    quantize_io(mb, "s", "yq", "ys", "yz", "y");
    mb.output("y", onnx::TensorProto::FLOAT, {1, 4, 3, 3});
    Lowered l = lower_qdq(mb, true);
    INFO(l.ir);
    CHECK(filecheck(l.ir, {"CHECK: = Mul@"}) == "");
    CHECK(l.stats.count("Muls lowered to integers") == 0);
  }
}

TEST_CASE("lower-qdq: a Concat of other scales becomes QLinearConcat within one step",
          "[passes][qdq]") {
  // Inputs of every byte: a (0.05, 128 - 128 for int8), b the output's scale and zero point
  // (copied), c (0.07, 110); output (0.06, 125).
  for (const auto type : {onnx::TensorProto::UINT8, onnx::TensorProto::INT8}) {
    INFO("type " << type);
    ModelBuilder mb(13);
    for (const char* name : {"aq", "bq", "cq"}) mb.input(name, type, {1, 256});
    mb.initializer("as", {}, {0.05f}).int_initializer("az", type, {}, {zero_of(type, 128)});
    mb.initializer("cs", {}, {0.07f}).int_initializer("cz", type, {}, {zero_of(type, 110)});
    mb.initializer("ys", {}, {0.06f}).int_initializer("yz", type, {}, {zero_of(type, 125)});
    mb.node("DequantizeLinear", {"aq", "as", "az"}, {"ad"}, "dq_a");
    mb.node("DequantizeLinear", {"bq", "ys", "yz"}, {"bd"}, "dq_b");
    mb.node("DequantizeLinear", {"cq", "cs", "cz"}, {"cd"}, "dq_c");
    ModelBuilder::int_attr(mb.node("Concat", {"ad", "bd", "cd"}, {"c"}, "concat"), "axis", 1);
    mb.node("QuantizeLinear", {"c", "ys", "yz"}, {"yq"}, "q");
    mb.output("yq", type, {1, 768});
    Lowered l = lower_qdq(mb, true);
    INFO(l.ir);
    const std::string t = type == onnx::TensorProto::INT8 ? "int8" : "uint8";
    CHECK(filecheck(l.ir, {"CHECK-NOT: = Concat@", "CHECK-NOT: QuantizeLinear@",
                           "CHECK: %yq: " + t +
                               "[1x768] = com.microsoft.QLinearConcat@1(%ys, %yz, %aq, %as, %az, "
                               "%bq, %ys, %yz, %cq, %cs, %cz) {axis=1}"}) == "");
    CHECK(l.stats.at("Concats requantized in integers") == 1);
    const DataType ir = ir_type(type);
    const auto [got, want] = run_both(
        mb, {all_bytes(ir, 256, false), all_bytes(ir, 256, false), all_bytes(ir, 256, false)});
    // The ratios 0.05 / 0.06 and 0.07 / 0.06 (5/6 and 7/6 but for the floats' rounding) put a
    // value within float error of a half at every third code; there the float graph rounds by
    // its own rounding errors and may differ by one step. Elsewhere both are equal.
    int exact = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      INFO("element " << i << " lowered " << got[i] << " float graph " << want[i]);
      REQUIRE(std::abs(got[i] - want[i]) <= 1);
      exact += got[i] == want[i];
      if (got[i] != want[i]) {
        const bool first = i < 256;
        const int x = type == onnx::TensorProto::INT8 ? static_cast<int8_t>(i % 256)
                                                      : static_cast<int>(i % 256);
        const long double v =
            (long double)(x - zero_of(type, first ? 128 : 110)) * (first ? 0.05f : 0.07f) / 0.06f;
        CHECK(std::fabs(v - std::floor(v) - 0.5L) < 1e-6L * (1 + std::fabs(v)));  // relative
      }
    }
    CHECK(std::equal(got.begin() + 256, got.begin() + 512, want.begin() + 256));  // the copy
    CHECK(exact >= 700);  // of 768: the differences are those near-halves only
  }
}

TEST_CASE("lower-qdq: the expanded QLinearConcat and QLinearAveragePool reach integer nodes",
          "[passes][qdq]") {
  ModelBuilder mb(17);
  auto* os = mb.proto().add_opset_import();
  os->set_domain("com.microsoft");
  os->set_version(1);
  mb.input("a", onnx::TensorProto::UINT8, {1, 2, 6, 6})
      .input("b", onnx::TensorProto::UINT8, {1, 3, 6, 6});
  mb.initializer("as", {}, {0.05f}).int_initializer("az", onnx::TensorProto::UINT8, {}, {128});
  mb.initializer("bs", {}, {0.07f}).int_initializer("bz", onnx::TensorProto::UINT8, {}, {110});
  mb.initializer("ys", {}, {0.06f}).int_initializer("yz", onnx::TensorProto::UINT8, {}, {125});
  mb.initializer("ps", {}, {0.037f}).int_initializer("pz", onnx::TensorProto::UINT8, {}, {120});
  auto& cat =
      mb.node("QLinearConcat", {"ys", "yz", "a", "as", "az", "b", "bs", "bz"}, {"c"}, "qcat");
  cat.set_domain("com.microsoft");
  ModelBuilder::int_attr(cat, "axis", 1);
  auto& pool = mb.node("QLinearAveragePool", {"c", "ys", "yz", "ps", "pz"}, {"y"}, "qpool");
  pool.set_domain("com.microsoft");
  ModelBuilder::ints_attr(pool, "kernel_shape", {3, 3});
  ModelBuilder::ints_attr(pool, "strides", {2, 2});
  ModelBuilder::ints_attr(pool, "pads", {1, 1, 1, 1});
  mb.output("y", onnx::TensorProto::UINT8, {1, 5, 3, 3});
  Diagnostics diag;
  REQUIRE(expand_contrib_ops(mb.proto(), diag));
  Lowered l = lower_qdq(mb, true);
  INFO(l.ir);
  CHECK(filecheck(l.ir, {"CHECK-NOT: DequantizeLinear@", "CHECK: = com.microsoft.QLinearConcat@1(",
                         "CHECK: %y: uint8[1x5x3x3] = com.microsoft.QLinearAveragePool@1(",
                         "CHECK-SAME: kernel_shape=[3, 3]"}) == "");
  CHECK(l.ir.find("= Concat@") == std::string::npos);
  CHECK(l.ir.find("= AveragePool@") == std::string::npos);
  std::vector<Tensor> inputs;
  for (const Shape& shape : {Shape{1, 2, 6, 6}, Shape{1, 3, 6, 6}}) {
    Tensor t = Tensor::zeros(DataType::kUint8, shape);
    for (int64_t i = 0; i < t.numel(); ++i) t.data[i] = static_cast<uint8_t>(rng());
    inputs.push_back(std::move(t));
  }
  const auto [got, want] = run_both(mb, inputs);
  for (size_t i = 0; i < got.size(); ++i) CHECK(std::abs(got[i] - want[i]) <= 1);
}

TEST_CASE("lower-qdq: DQ -> AveragePool -> Q becomes QLinearAveragePool within one step",
          "[passes][qdq]") {
  // count_include_pad 0 (divisors 4 to 9 at the borders) and 1; ceil_mode adds a last window.
  for (const int include_pad : {0, 1})
    for (const int ceil_mode : {0, 1}) {
      INFO("count_include_pad " << include_pad << " ceil_mode " << ceil_mode);
      ModelBuilder mb(19);
      mb.input("x", onnx::TensorProto::FLOAT, {2, 4, 8, 8});
      mb.initializer("xs", {}, {0.02f}).int_initializer("xz", onnx::TensorProto::INT8, {}, {-7});
      mb.initializer("ys", {}, {0.013f}).int_initializer("yz", onnx::TensorProto::INT8, {}, {4});
      quantize_io(mb, "x", "xq", "xs", "xz", "xd");
      onnx::NodeProto& pool = mb.node("AveragePool", {"xd"}, {"p"}, "pool");
      ModelBuilder::ints_attr(pool, "kernel_shape", {3, 3});
      ModelBuilder::ints_attr(pool, "strides", {2, 2});
      ModelBuilder::ints_attr(pool, "pads", {1, 1, 1, 1});
      ModelBuilder::ints_attr(pool, "dilations", {1, 1});
      ModelBuilder::int_attr(pool, "count_include_pad", include_pad);
      ModelBuilder::int_attr(pool, "ceil_mode", ceil_mode);
      quantize_io(mb, "p", "yq", "ys", "yz", "y");
      // (8 + 2 - 3) / 2 + 1: 4, or with ceil_mode 5 (the last window's third tap past the pads)
      const int64_t out = ceil_mode ? 5 : 4;
      mb.output("y", onnx::TensorProto::FLOAT, {2, 4, out, out});
      Lowered l = lower_qdq(mb, true);
      INFO(l.ir);
      CHECK(filecheck(l.ir,
                      {"CHECK-NOT: = AveragePool@",
                       "CHECK: %yq: int8[2x4x" + std::to_string(out) + "x" + std::to_string(out) +
                           "] = com.microsoft.QLinearAveragePool@1(%xq, %xs, %xz, %ys, %yz)",
                       "CHECK-NOT: dilations", "CHECK: = DequantizeLinear@19(%yq, %ys, %yz)"}) ==
            "");
      CHECK(l.stats.at("pools lowered to integers") == 1);
      check_within_one_step(mb, 0.013f);
    }
}

TEST_CASE("lower-qdq keeps a dilated AveragePool and one whose scales do not fit",
          "[passes][qdq]") {
  for (const bool dilated : {false, true}) {
    ModelBuilder mb(19);
    mb.input("x", onnx::TensorProto::FLOAT, {1, 2, 6, 6});
    mb.initializer("xs", {}, {0.02f}).int_initializer("xz", onnx::TensorProto::INT8, {}, {0});
    // x_scale / y_scale = 0.02 / 2e-7 = 1e5 >= 2^15 unless dilated
    mb.initializer("ys", {}, {dilated ? 0.02f : 2e-7f});
    mb.int_initializer("yz", onnx::TensorProto::INT8, {}, {0});
    quantize_io(mb, "x", "xq", "xs", "xz", "xd");
    onnx::NodeProto& pool = mb.node("AveragePool", {"xd"}, {"p"}, "pool");
    ModelBuilder::ints_attr(pool, "kernel_shape", {2, 2});
    if (dilated) ModelBuilder::ints_attr(pool, "dilations", {2, 2});
    quantize_io(mb, "p", "yq", "ys", "yz", "y");
    mb.output("y", onnx::TensorProto::FLOAT, {1, 2, dilated ? 4 : 5, dilated ? 4 : 5});
    Lowered l = lower_qdq(mb, true);
    INFO(l.ir);
    CHECK(filecheck(l.ir, {"CHECK: = AveragePool@19(%xd)"}) == "");
    CHECK(l.stats.count("pools lowered to integers") == 0);
  }
}
