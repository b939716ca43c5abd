#include "frontend/importer.h"

#include <catch2/catch.hpp>

#include "harness/model_builder.h"
#include "ir/printer.h"

using namespace onnxc;
using onnxc::testing::ModelBuilder;

TEST_CASE("importer builds typed values, constants and nodes", "[importer]") {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {2, 3}).output("y", onnx::TensorProto::FLOAT, {2, 3});
  mb.initializer("b", {3}, {1, 2, 3});
  auto& n = mb.node("Add", {"x", "b"}, {"y"}, "add0");
  ModelBuilder::int_attr(n, "unused", 5);
  Diagnostics diag;
  auto m = import_model(mb.proto(), ImportOptions{}, diag);
  REQUIRE(diag.ok());
  const Graph& g = *m->graph;
  REQUIRE(g.inputs.size() == 1);
  CHECK(g.inputs[0]->shape == Shape{2, 3});
  CHECK(g.inputs[0]->has_shape);
  const Value* b = g.find_value("b");
  REQUIRE(b);
  REQUIRE(b->is_constant());
  CHECK(b->constant->as<float>()[2] == 3.0f);
  REQUIRE(g.nodes.size() == 1);
  CHECK(g.nodes[0]->opset == 13);
  CHECK(g.nodes[0]->inputs[1] == b);
  CHECK(g.nodes[0]->attr("unused")->i == 5);
  CHECK(g.outputs[0]->producer == g.nodes[0].get());
}

TEST_CASE("symbolic dims are pinned by --dim and --shape, or reported", "[importer]") {
  ModelBuilder mb;
  mb.input("x", onnx::TensorProto::FLOAT, {-1, 3, -1}, {"batch", "", "seq"})
      .output("x", onnx::TensorProto::FLOAT, {-1, 3, -1}, {"batch", "", "seq"});
  SECTION("unresolved dims are each listed") {
    Diagnostics diag("m.onnx");
    import_model(mb.proto(), ImportOptions{}, diag);
    REQUIRE(diag.count() == 2);
    CHECK(diag.errors()[0].find("m.onnx: unresolved dim 'batch' of graph input 'x' (axis 0)") == 0);
    CHECK(diag.errors()[1].find("unresolved dim 'seq' of graph input 'x' (axis 2)") !=
          std::string::npos);
  }
  SECTION("--dim") {
    Diagnostics diag;
    ImportOptions o;
    o.dims = {{"batch", 4}, {"seq", 7}};
    auto m = import_model(mb.proto(), o, diag);
    REQUIRE(diag.ok());
    CHECK(m->graph->inputs[0]->shape == Shape{4, 3, 7});
  }
  SECTION("--shape") {
    Diagnostics diag;
    ImportOptions o;
    o.input_shapes["x"] = {1, 3, 9};
    auto m = import_model(mb.proto(), o, diag);
    REQUIRE(diag.ok());
    CHECK(m->graph->inputs[0]->shape == Shape{1, 3, 9});
  }
}

TEST_CASE("tensors decode from typed fields and raw data alike", "[importer]") {
  onnx::TensorProto p;
  p.set_data_type(onnx::TensorProto::INT64);
  p.add_dims(2);
  p.add_int64_data(-5);
  p.add_int64_data(9);
  Tensor t;
  std::string err;
  REQUIRE(tensor_from_proto(p, t, &err));
  CHECK(t.to_ints() == std::vector<int64_t>{-5, 9});
  p.clear_int64_data();
  int64_t raw[2] = {7, 8};
  p.set_raw_data(reinterpret_cast<const char*>(raw), sizeof raw);
  REQUIRE(tensor_from_proto(p, t, &err));
  CHECK(t.to_ints() == std::vector<int64_t>{7, 8});
  p.set_raw_data("abc");
  CHECK_FALSE(tensor_from_proto(p, t, &err));
  CHECK(err.find("has 3 bytes of raw_data, shape 2 of int64 needs 16") != std::string::npos);
}

TEST_CASE("the printer shows values, types, ops and attributes", "[ir]") {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {2, 3}).output("y", onnx::TensorProto::FLOAT, {2, 3});
  auto& n = mb.node("Transpose", {"x"}, {"y"}, "t0");
  ModelBuilder::ints_attr(n, "perm", {1, 0});
  Diagnostics diag;
  auto m = import_model(mb.proto(), ImportOptions{}, diag);
  std::string text = print_graph(*m->graph);
  CHECK(text.find("graph test(%x: float[2x3]) -> (%y) {") == 0);
  CHECK(text.find("%y: float[?] = Transpose@13(%x) {perm=[1, 0]}  # t0") != std::string::npos);
}

TEST_CASE("graph input and initializer sizes are checked before anything is allocated",
          "[importer][sizes]") {
  constexpr int64_t k2p31 = int64_t{1} << 31;
  SECTION("input dims whose product overflows int64") {
    ModelBuilder mb;
    mb.input("x", onnx::TensorProto::FLOAT, {k2p31, k2p31, k2p31})
        .output("x", onnx::TensorProto::FLOAT, {k2p31, k2p31, k2p31});
    Diagnostics diag("m.onnx");
    import_model(mb.proto(), ImportOptions{}, diag);
    REQUIRE(diag.count() == 1);
    CHECK(diag.errors()[0] ==
          "m.onnx: graph input 'x' of shape 2147483648x2147483648x2147483648 has a negative dim or "
          "more elements than int64 can count: a tensor may hold at most 2^40 bytes (1 TiB)");
  }
  SECTION("an input over 2^40 bytes, pinned by --shape") {
    ModelBuilder mb;
    mb.input("x", onnx::TensorProto::FLOAT, {-1}, {"n"})
        .output("x", onnx::TensorProto::FLOAT, {-1}, {"n"});
    Diagnostics diag;
    ImportOptions o;
    o.dims = {{"n", int64_t{1} << 39}};
    import_model(mb.proto(), o, diag);
    REQUIRE(diag.count() == 1);
    CHECK(diag.errors()[0].find("has 549755813888 elements, 2199023255552 bytes") !=
          std::string::npos);
  }
  SECTION("an initializer whose dims overflow") {
    ModelBuilder mb;
    mb.input("x", onnx::TensorProto::FLOAT, {1}).output("y", onnx::TensorProto::FLOAT, {1});
    mb.initializer("w", {int64_t{1} << 62, 4}, {});
    mb.node("Add", {"x", "w"}, {"y"}, "add0");
    Diagnostics diag;
    import_model(mb.proto(), ImportOptions{}, diag);
    REQUIRE_FALSE(diag.ok());
    CHECK(
        diag.errors()[0] ==
        "initializer: tensor 'w' of shape 4611686018427387904x4 is larger than 2^40 bytes (1 TiB)");
  }
}

TEST_CASE("tensor_from_proto reads complex numbers as two float_data entries each", "[importer]") {
  onnx::TensorProto p;
  p.set_data_type(onnx::TensorProto::COMPLEX64);
  p.add_dims(2);
  for (float v : {1.0f, -2.0f, 3.0f, 4.5f}) p.add_float_data(v);  // 1-2i, 3+4.5i
  Tensor t;
  std::string error;
  REQUIRE(tensor_from_proto(p, t, &error));
  REQUIRE(t.data.size() == 16);
  CHECK(t.as<float>()[1] == -2.0f);
  CHECK(t.as<float>()[3] == 4.5f);
  p.add_float_data(0.0f);  // a fifth float: not two per element
  CHECK_FALSE(tensor_from_proto(p, t, &error));
  onnx::TensorProto scalar;  // found by fuzz_test_data: a scalar with four floats was accepted
  scalar.set_data_type(onnx::TensorProto::COMPLEX64);
  for (float v : {1.0f, 2.0f, 3.0f, 4.0f}) scalar.add_float_data(v);
  CHECK_FALSE(tensor_from_proto(scalar, t, &error));
}
