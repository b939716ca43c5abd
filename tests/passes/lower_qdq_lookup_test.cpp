// lower-qdq's table rules on IR text (FileCheck-style) and numerically against the float QDQ
// graph (lower-qdq disabled): unary ops as 256-entry lookup tables (equal to the float graph),
// Softmax as QLinearSoftmax (within one step: ORT's arithmetic) and Where on the 8-bit tensors.
#include <catch2/catch.hpp>

#include "frontend/contrib_expander.h"
#include "harness/filecheck.h"
#include "passes/lower_qdq_harness.h"

using namespace onnxc;
using namespace onnxc::testing::qdq;
using onnxc::testing::filecheck;
using onnxc::testing::ModelBuilder;

namespace {

struct UnaryCase {
  const char* op;
  void (*attributes)(onnx::NodeProto&);
};

void float_attr(onnx::NodeProto& n, const char* name, float v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}

void no_attributes(onnx::NodeProto&) {}

// DequantizeLinear(xq [256]) -> op -> [Relu] -> QuantizeLinear -> yq: opset 20 (Gelu).
ModelBuilder unary_model(const UnaryCase& u, int in_type, int out_type, bool relu) {
  ModelBuilder mb(20);
  mb.input("xq", in_type, {256});
  mb.initializer("xs", {}, {0.03f}).int_initializer("xz", in_type, {}, {zero_of(in_type, 130)});
  mb.initializer("ys", {}, {0.02f}).int_initializer("yz", out_type, {}, {zero_of(out_type, 100)});
  mb.node("DequantizeLinear", {"xq", "xs", "xz"}, {"xd"}, "dq");
  std::vector<std::string> in = {"xd"};
  if (std::string(u.op) == "Clip") {
    mb.initializer("lo", {}, {-0.7f}).initializer("hi", {}, {1.3f});
    in = {"xd", "lo", "hi"};
  }
  u.attributes(mb.node(u.op, in, {"u"}, "act"));
  if (relu) mb.node("Relu", {"u"}, {"r"}, "relu");
  mb.node("QuantizeLinear", {relu ? "r" : "u", "ys", "yz"}, {"yq"}, "q");
  mb.output("yq", out_type, {256});
  return mb;
}

}  // namespace

TEST_CASE("lower-qdq: DQ -> unary op -> Q becomes a QLinearLookup equal to the float graph",
          "[passes][qdq]") {
  const UnaryCase cases[] = {
      {"Sigmoid", no_attributes},
      {"Tanh", no_attributes},
      {"HardSigmoid", [](onnx::NodeProto& n) { float_attr(n, "alpha", 0.3f); }},
      {"HardSwish", no_attributes},
      {"LeakyRelu", [](onnx::NodeProto& n) { float_attr(n, "alpha", 0.1f); }},
      {"Relu", no_attributes},
      {"Elu", no_attributes},
      {"Selu", no_attributes},
      {"Softplus", no_attributes},
      {"Gelu", no_attributes},
      {"Erf", no_attributes},
      {"Exp", no_attributes},
      {"Neg", no_attributes},
      {"Abs", no_attributes},
      {"Clip", no_attributes}};
  const std::pair<int, int> types[] = {{onnx::TensorProto::INT8, onnx::TensorProto::INT8},
                                       {onnx::TensorProto::UINT8, onnx::TensorProto::UINT8},
                                       {onnx::TensorProto::INT8, onnx::TensorProto::UINT8}};
  for (const UnaryCase& u : cases)
    for (const auto& [in_type, out_type] : types) {
      INFO(u.op << " input type " << in_type << " output type " << out_type);
      ModelBuilder mb = unary_model(u, in_type, out_type, false);
      Lowered l = lower_qdq(mb, true);
      INFO(l.ir);
      const std::string out = out_type == onnx::TensorProto::INT8 ? "int8" : "uint8";
      CHECK(filecheck(l.ir,
                      {"CHECK: %act_table: " + out + "[256] = constant",
                       "CHECK-NOT: = " + std::string(u.op) + "@",
                       "CHECK: %yq: " + out + "[256] = onnxc.QLinearLookup@1(%xq, %act_table)",
                       "CHECK-NOT: = DequantizeLinear@", "CHECK-NOT: = QuantizeLinear@"}) == "");
      CHECK(l.stats.at("unary ops lowered to lookup tables") == 1);
      // Every 8-bit input: the table is the float graph's own result, bit for bit.
      const auto [got, want] = run_both(mb, {all_bytes(ir_type(in_type), 256, false)});
      CHECK(got == want);
      CHECK(std::set<int>(want.begin(), want.end()).size() >= 10);
    }
}

TEST_CASE("lower-qdq: a Relu after the unary op joins the table", "[passes][qdq]") {
  ModelBuilder mb =
      unary_model({"Tanh", no_attributes}, onnx::TensorProto::UINT8, onnx::TensorProto::INT8, true);
  Lowered l = lower_qdq(mb, true);
  INFO(l.ir);
  CHECK(filecheck(l.ir, {"CHECK-NOT: = Tanh@", "CHECK-NOT: = Relu@",
                         "CHECK: %yq: int8[256] = onnxc.QLinearLookup@1(%xq, %act_table)"}) == "");
  const auto [got, want] = run_both(mb, {all_bytes(DataType::kUint8, 256, false)});
  CHECK(got == want);
  CHECK(*std::min_element(want.begin(), want.end()) == zero_of(onnx::TensorProto::INT8, 100));
}

TEST_CASE("lower-qdq: the expanded QLinearSigmoid and QLinearLeakyRelu become lookups",
          "[passes][qdq]") {
  for (const char* op : {"QLinearSigmoid", "QLinearLeakyRelu"}) {
    INFO(op);
    ModelBuilder mb(17);
    auto* os = mb.proto().add_opset_import();
    os->set_domain("com.microsoft");
    os->set_version(1);
    mb.input("x", onnx::TensorProto::UINT8, {256});
    mb.initializer("xs", {}, {0.05f}).int_initializer("xz", onnx::TensorProto::UINT8, {}, {128});
    mb.initializer("ys", {}, {1 / 256.0f}).int_initializer("yz", onnx::TensorProto::UINT8, {}, {0});
    auto& n = mb.node(op, {"x", "xs", "xz", "ys", "yz"}, {"y"}, "qop");
    n.set_domain("com.microsoft");
    if (std::string(op) == "QLinearLeakyRelu") float_attr(n, "alpha", 0.1f);
    mb.output("y", onnx::TensorProto::UINT8, {256});
    Diagnostics diag;
    REQUIRE(expand_contrib_ops(mb.proto(), diag));
    Lowered l = lower_qdq(mb, true);
    INFO(l.ir);
    CHECK(filecheck(l.ir, {"CHECK-NOT: = Sigmoid@", "CHECK-NOT: = LeakyRelu@",
                           "CHECK: %y: uint8[256] = onnxc.QLinearLookup@1(%x, "}) == "");
    CHECK(l.stats.at("unary ops lowered to lookup tables") == 1);
    const auto [got, want] = run_both(mb, {all_bytes(DataType::kUint8, 256, false)});
    CHECK(got == want);
  }
}

TEST_CASE("lower-qdq keeps unary ops whose values are shared, run-time bounds and Softmax",
          "[passes][qdq]") {
  // Softmax is no lookup (each output reads its whole row): it becomes QLinearSoftmax instead.
  for (const char* variant : {"shared", "run-time bound", "Softmax", "per-axis output"}) {
    INFO(variant);
    const std::string v = variant;
    ModelBuilder mb(20);
    mb.input("xq", onnx::TensorProto::INT8, {2, 4});
    mb.initializer("xs", {}, {0.03f}).int_initializer("xz", onnx::TensorProto::INT8, {}, {0});
    if (v == "per-axis output")
      mb.initializer("ys", {4}, {0.02f, 0.03f, 0.02f, 0.01f})
          .int_initializer("yz", onnx::TensorProto::INT8, {4}, {0, 0, 0, 0});
    else
      mb.initializer("ys", {}, {0.02f}).int_initializer("yz", onnx::TensorProto::INT8, {}, {0});
    mb.node("DequantizeLinear", {"xq", "xs", "xz"}, {"xd"}, "dq");
    if (v == "run-time bound") {
      mb.input("hi", onnx::TensorProto::FLOAT, {});
      mb.node("Clip", {"xd", "", "hi"}, {"u"}, "act");
    } else {
      mb.node(v == "Softmax" ? "Softmax" : "Sigmoid", {"xd"}, {"u"}, "act");
    }
    mb.node("QuantizeLinear", {"u", "ys", "yz"}, {"yq"}, "q");
    mb.output("yq", onnx::TensorProto::INT8, {2, 4});
    if (v == "shared") mb.output("u", onnx::TensorProto::FLOAT, {2, 4});
    Lowered l = lower_qdq(mb, true);
    INFO(l.ir);
    CHECK(filecheck(l.ir, {v == "Softmax" ? "CHECK: = com.microsoft.QLinearSoftmax@1("
                                          : "CHECK: = DequantizeLinear@",
                           "CHECK-NOT: QLinearLookup"}) == "");
    CHECK(l.stats.count("unary ops lowered to lookup tables") == 0);
  }
}

namespace {

// DequantizeLinear(xq [shape]) -> Softmax {axis} at `opset` -> QuantizeLinear of xq's type.
ModelBuilder softmax_model(int type, const Shape& shape, int64_t axis, int opset, float y_scale) {
  ModelBuilder mb(opset);
  mb.input("xq", type, shape);
  mb.initializer("xs", {}, {0.05f}).int_initializer("xz", type, {}, {zero_of(type, 128)});
  mb.initializer("ys", {}, {y_scale}).int_initializer("yz", type, {}, {zero_of(type, 0)});
  mb.node("DequantizeLinear", {"xq", "xs", "xz"}, {"xd"}, "dq");
  ModelBuilder::int_attr(mb.node("Softmax", {"xd"}, {"p"}, "softmax"), "axis", axis);
  mb.node("QuantizeLinear", {"p", "ys", "yz"}, {"yq"}, "q");
  mb.output("yq", type, shape);
  return mb;
}

Tensor random_bytes(DataType type, const Shape& shape) {
  Tensor t = Tensor::zeros(type, shape);
  for (int64_t i = 0; i < t.numel(); ++i)
    t.data[static_cast<size_t>(i)] = static_cast<uint8_t>(rng());
  return t;
}

}  // namespace

TEST_CASE("lower-qdq: DQ -> Softmax -> Q becomes QLinearSoftmax within one step", "[passes][qdq]") {
  struct Variant {
    Shape shape;
    int64_t axis;
    int opset;
    const char* ir;  // the node's output type and attributes, as printed
  };
  const Variant variants[] = {{{6, 40},
                               -1,
                               13,
                               "[6x40] = com.microsoft.QLinearSoftmax@1(%xq, %xs, %xz, %ys, %yz) "
                               "{axis=-1, opset=13}"},
                              {{3, 7, 5},
                               1,
                               13,
                               "[3x7x5] = com.microsoft.QLinearSoftmax@1(%xq, %xs, %xz, %ys, %yz) "
                               "{axis=1, opset=13}"},
                              {{3, 7, 5},
                               1,
                               11,
                               "[3x7x5] = com.microsoft.QLinearSoftmax@1(%xq, %xs, %xz, %ys, %yz) "
                               "{axis=1, opset=11}"}};
  for (const auto type : {onnx::TensorProto::UINT8, onnx::TensorProto::INT8})
    for (const Variant& v : variants) {
      INFO("type " << type << " axis " << v.axis << " opset " << v.opset);
      ModelBuilder mb = softmax_model(type, v.shape, v.axis, v.opset, 1 / 256.0f);
      Lowered l = lower_qdq(mb, true);
      INFO(l.ir);
      const std::string t = type == onnx::TensorProto::INT8 ? "int8" : "uint8";
      CHECK(filecheck(l.ir, {"CHECK-NOT: = Softmax@", "CHECK-NOT: QuantizeLinear@",
                             "CHECK: %yq: " + t + v.ir}) == "");
      CHECK(l.stats.at("Softmaxes lowered to integers") == 1);
      // ORT's arithmetic (exp table, float sums) against the float graph: one step at most, and
      // mostly equal; the outputs spread over many codes.
      const auto [got, want] = run_both(mb, {random_bytes(ir_type(type), v.shape)});
      int exact = 0;
      for (size_t i = 0; i < got.size(); ++i) {
        INFO("element " << i << " lowered " << got[i] << " float graph " << want[i]);
        REQUIRE(std::abs(got[i] - want[i]) <= 1);
        exact += got[i] == want[i];
      }
      CHECK(exact * 10 >= static_cast<int>(got.size()) * 9);
      CHECK(std::set<int>(want.begin(), want.end()).size() >= 10);
    }
}

TEST_CASE("lower-qdq keeps a Softmax whose ORT arithmetic overflows or that changes type",
          "[passes][qdq]") {
  // y_scale 0.001: floor(1 / y_scale) = 999 times the table's largest value (FLT_MAX / (2 e^5) for
  // rows of 2) overflows float; ORT writes the type's maximum there, the float graph stays.
  ModelBuilder overflow = softmax_model(onnx::TensorProto::UINT8, {4, 2}, -1, 13, 0.001f);
  Lowered l = lower_qdq(overflow, true);
  INFO(l.ir);
  CHECK(filecheck(l.ir, {"CHECK: = Softmax@13(%xd)", "CHECK-NOT: QLinearSoftmax"}) == "");
  ModelBuilder mb(13);
  mb.input("xq", onnx::TensorProto::UINT8, {2, 8});
  mb.initializer("xs", {}, {0.05f}).int_initializer("xz", onnx::TensorProto::UINT8, {}, {128});
  mb.initializer("ys", {}, {1 / 256.0f}).int_initializer("yz", onnx::TensorProto::INT8, {}, {0});
  mb.node("DequantizeLinear", {"xq", "xs", "xz"}, {"xd"}, "dq");
  mb.node("Softmax", {"xd"}, {"p"}, "softmax");
  mb.node("QuantizeLinear", {"p", "ys", "yz"}, {"yq"}, "q");
  mb.output("yq", onnx::TensorProto::INT8, {2, 8});
  Lowered typed = lower_qdq(mb, true);
  INFO(typed.ir);
  CHECK(filecheck(typed.ir, {"CHECK: = Softmax@13(%xd)", "CHECK-NOT: QLinearSoftmax"}) == "");
}

namespace {

// Where(cond, DequantizeLinear(aq), DequantizeLinear(bq)) -> QuantizeLinear, [2x256] each: aq of
// (0.05, 128), bq of the output's (0.06, 120) or (0.03, 100).
ModelBuilder where_model(int type, bool b_as_output) {
  ModelBuilder mb(16);
  mb.input("cond", onnx::TensorProto::BOOL, {2, 256});
  mb.input("aq", type, {2, 256}).input("bq", type, {2, 256});
  mb.initializer("as", {}, {0.05f}).int_initializer("az", type, {}, {zero_of(type, 128)});
  mb.initializer("bs", {}, {b_as_output ? 0.06f : 0.03f})
      .int_initializer("bz", type, {}, {zero_of(type, b_as_output ? 120 : 100)});
  mb.initializer("ys", {}, {0.06f}).int_initializer("yz", type, {}, {zero_of(type, 120)});
  mb.node("DequantizeLinear", {"aq", "as", "az"}, {"ad"}, "dq_a");
  mb.node("DequantizeLinear", {"bq", "bs", "bz"}, {"bd"}, "dq_b");
  mb.node("Where", {"cond", "ad", "bd"}, {"w"}, "where");
  mb.node("QuantizeLinear", {"w", "ys", "yz"}, {"yq"}, "q");
  mb.output("yq", type, {2, 256});
  return mb;
}

}  // namespace

TEST_CASE("lower-qdq: DQ, DQ -> Where -> Q runs on the 8-bit tensors, equal to the float graph",
          "[passes][qdq]") {
  for (const auto type : {onnx::TensorProto::UINT8, onnx::TensorProto::INT8})
    for (const bool b_copied : {true, false}) {
      INFO("type " << type << " b copied " << b_copied);
      ModelBuilder mb = where_model(type, b_copied);
      Lowered l = lower_qdq(mb, true);
      INFO(l.ir);
      const std::string t = type == onnx::TensorProto::INT8 ? "int8" : "uint8";
      const std::string b = b_copied ? "%bq" : "%where_requantize_bq";
      CHECK(filecheck(l.ir, {"CHECK-NOT: DequantizeLinear@",
                             "CHECK: %where_requantize_aq: " + t +
                                 "[2x256] = onnxc.QLinearLookup@1(%aq, %where_requantize_aq_table)",
                             "CHECK: %yq: " + t +
                                 "[2x256] = Where@16(%cond, %where_requantize_aq, " + b + ")",
                             "CHECK-NOT: QuantizeLinear@"}) == "");
      CHECK(l.stats.at("Wheres run on 8-bit tensors") == 1);
      // Every byte of each operand on each side of the condition: the tables are the float
      // graph's own results, and the copy is exact, so the outputs are equal.
      const DataType ir = ir_type(type);
      Tensor cond = Tensor::zeros(DataType::kBool, {2, 256});
      for (int64_t i = 0; i < 256; ++i) cond.data[static_cast<size_t>(i)] = 1;
      Tensor a = all_bytes(ir, 512, false), bq = all_bytes(ir, 512, false);
      a.shape = bq.shape = {2, 256};
      const auto [got, want] = run_both(mb, {cond, a, bq});
      CHECK(got == want);
      CHECK(std::set<int>(want.begin(), want.end()).size() >= 100);
    }
}

TEST_CASE("lower-qdq: the expanded QLinearSoftmax and QLinearWhere reach integer nodes",
          "[passes][qdq]") {
  ModelBuilder mb(17);
  auto* os = mb.proto().add_opset_import();
  os->set_domain("com.microsoft");
  os->set_version(1);
  mb.input("x", onnx::TensorProto::UINT8, {2, 16}).input("c", onnx::TensorProto::BOOL, {2, 16});
  mb.initializer("xs", {}, {0.05f}).int_initializer("xz", onnx::TensorProto::UINT8, {}, {128});
  mb.initializer("ps", {}, {1 / 256.0f}).int_initializer("pz", onnx::TensorProto::UINT8, {}, {0});
  mb.initializer("ys", {}, {0.01f}).int_initializer("yz", onnx::TensorProto::UINT8, {}, {3});
  auto& sm = mb.node("QLinearSoftmax", {"x", "xs", "xz", "ps", "pz"}, {"p"}, "qsoftmax");
  sm.set_domain("com.microsoft");
  ModelBuilder::int_attr(sm, "axis", -1);
  ModelBuilder::int_attr(sm, "opset", 13);
  auto& where =
      mb.node("QLinearWhere", {"c", "p", "ps", "pz", "x", "xs", "xz", "ys", "yz"}, {"y"}, "qwhere");
  where.set_domain("com.microsoft");
  mb.output("y", onnx::TensorProto::UINT8, {2, 16});
  Diagnostics diag;
  REQUIRE(expand_contrib_ops(mb.proto(), diag));
  Lowered l = lower_qdq(mb, true);
  INFO(l.ir);
  CHECK(filecheck(l.ir, {"CHECK-NOT: DequantizeLinear@",
                         "CHECK: uint8[2x16] = com.microsoft.QLinearSoftmax@1(%x, %xs, %xz, ",
                         "CHECK: = onnxc.QLinearLookup@1(", "CHECK: = onnxc.QLinearLookup@1(",
                         "CHECK: %y: uint8[2x16] = Where@17(%c, "}) == "");
  CHECK(l.ir.find("= Softmax@") == std::string::npos);
  Tensor c = Tensor::zeros(DataType::kBool, {2, 16});
  for (int64_t i = 0; i < 32; i += 3) c.data[static_cast<size_t>(i)] = 1;
  const auto [got, want] = run_both(mb, {random_bytes(DataType::kUint8, {2, 16}), c});
  for (size_t i = 0; i < got.size(); ++i) CHECK(std::abs(got[i] - want[i]) <= 1);
}
