#include "frontend/validator.h"

#include <array>
#include <catch2/catch.hpp>

#include "harness/model_builder.h"

using namespace onnxc;
using onnxc::testing::ModelBuilder;

namespace {

constexpr int kFloat = onnx::TensorProto::FLOAT;

// x -> Relu -> h -> Neg -> y
ModelBuilder valid_model() {
  ModelBuilder mb;
  mb.input("x", kFloat, {2, 3}).output("y", kFloat, {2, 3});
  mb.node("Relu", {"x"}, {"h"}, "relu0");
  mb.node("Neg", {"h"}, {"y"}, "neg0");
  return mb;
}

std::vector<std::string> errors_of(const onnx::ModelProto& model) {
  Diagnostics diag;
  bool ok = validate_model(model, diag);
  CHECK(ok == diag.ok());
  return diag.errors();
}

// The single error of `model`; fails the test unless there is exactly one.
std::string single_error(const onnx::ModelProto& model) {
  auto errors = errors_of(model);
  INFO(fmt::format("{}", fmt::join(errors, "\n")));
  REQUIRE(errors.size() == 1);
  return errors[0];
}

onnx::AttributeProto* add_attr(onnx::NodeProto& n, const std::string& name,
                               onnx::AttributeProto::AttributeType type) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(type);
  return a;
}

}  // namespace

TEST_CASE("a valid model passes", "[validator]") {
  ModelBuilder mb = valid_model();
  mb.initializer("b", {3}, {1, 2, 3});
  mb.node("Add", {"y", "b"}, {"z"}, "add0");
  CHECK(errors_of(mb.proto()).empty());
}

TEST_CASE("model header rules", "[validator]") {
  ModelBuilder mb = valid_model();
  auto& m = mb.proto();
  SECTION("missing ir_version") {
    m.clear_ir_version();
    CHECK_THAT(single_error(m), Catch::Contains("no ir_version"));
  }
  SECTION("unknown ir_version") {
    m.set_ir_version(99);
    CHECK_THAT(single_error(m), Catch::Contains("ir_version 99 is not a known"));
  }
  SECTION("no opset_import") {
    m.clear_opset_import();
    CHECK_THAT(single_error(m), Catch::Contains("no opset_import (required from IR version 3"));
  }
  SECTION("duplicate domain, spelled two ways") {
    auto* os = m.add_opset_import();
    os->set_domain("ai.onnx");
    os->set_version(17);
    CHECK_THAT(single_error(m), Catch::Contains("domain 'ai.onnx' more than once"));
  }
  SECTION("opset versions") {
    m.mutable_opset_import(0)->set_version(99);
    auto* ml = m.add_opset_import();
    ml->set_domain("ai.onnx.ml");
    ml->set_version(0);
    auto errors = errors_of(m);
    REQUIRE(errors.size() == 2);
    CHECK_THAT(errors[0], Catch::Contains("ai.onnx version 99 is newer than the newest known"));
    CHECK_THAT(errors[1], Catch::Contains("'ai.onnx.ml' has version 0"));
  }
  SECTION("no graph") {
    m.clear_graph();
    CHECK_THAT(single_error(m), Catch::Contains("model has no graph"));
  }
  SECTION("graph without a name") {
    m.mutable_graph()->clear_name();
    CHECK_THAT(single_error(m), Catch::Contains("main graph has no name"));
  }
}

TEST_CASE("node domains need an opset import", "[validator]") {
  ModelBuilder mb = valid_model();
  mb.node("Custom", {"y"}, {"z"}, "custom0").set_domain("com.example");
  std::string error = single_error(mb.proto());
  CHECK_THAT(error, Catch::StartsWith("node 'custom0' (Custom): "));
  CHECK_THAT(error, Catch::Contains("domain 'com.example' has no opset_import"));
}

TEST_CASE("SSA and topological order", "[validator]") {
  ModelBuilder mb;
  mb.input("x", kFloat, {2}).output("y", kFloat, {2});
  SECTION("a value assigned twice") {
    mb.node("Relu", {"x"}, {"y"}, "relu0");
    mb.node("Neg", {"x"}, {"y"}, "neg0");
    CHECK_THAT(single_error(mb.proto()),
               Catch::Contains("node 'neg0' (Neg): output 'y' is assigned more than once"));
  }
  SECTION("a node output reusing a graph input name") {
    mb.node("Relu", {"x"}, {"x"}, "relu0");
    mb.node("Neg", {"x"}, {"y"}, "neg0");
    CHECK_THAT(single_error(mb.proto()),
               Catch::Contains("node 'relu0' (Relu): output 'x' is assigned more than once"));
  }
  SECTION("use before definition") {
    mb.node("Neg", {"h"}, {"y"}, "neg0");
    mb.node("Relu", {"x"}, {"h"}, "relu0");
    std::string error = single_error(mb.proto());
    CHECK_THAT(error, Catch::StartsWith("node 'neg0' (Neg): "));
    CHECK_THAT(error, Catch::Contains("input 'h' is used before the node that produces it"));
  }
  SECTION("undefined input") {
    mb.node("Add", {"x", "nowhere"}, {"y"}, "add0");
    CHECK_THAT(single_error(mb.proto()),
               Catch::Contains("node 'add0' (Add): input 'nowhere' is not defined"));
  }
  SECTION("empty names are absent optional inputs") {
    mb.node("Clip", {"x", "", ""}, {"y"}, "clip0");
    CHECK(errors_of(mb.proto()).empty());
  }
  SECTION("undefined graph output") {
    mb.node("Relu", {"x"}, {"h"}, "relu0");
    CHECK_THAT(single_error(mb.proto()),
               Catch::Contains("main graph output 'y' is not produced by any node"));
  }
  SECTION("an initializer may repeat a graph input's name") {
    mb.initializer("x", {2}, {1, 2});
    mb.node("Relu", {"x"}, {"y"}, "relu0");
    CHECK(errors_of(mb.proto()).empty());
  }
  SECTION("duplicate node names") {
    mb.node("Relu", {"x"}, {"h"}, "n");
    mb.node("Neg", {"h"}, {"y"}, "n");
    CHECK_THAT(single_error(mb.proto()),
               Catch::Contains("node 'n' (Neg): another node of the same graph has this name"));
  }
}

TEST_CASE("main graph inputs and outputs are typed and ranked", "[validator]") {
  ModelBuilder mb = valid_model();
  auto* graph = mb.proto().mutable_graph();
  SECTION("untyped input") {
    graph->mutable_input(0)->clear_type();
    CHECK_THAT(single_error(mb.proto()), Catch::Contains("main graph input 'x' has no type"));
  }
  SECTION("no elem_type") {
    graph->mutable_input(0)->mutable_type()->mutable_tensor_type()->clear_elem_type();
    CHECK_THAT(single_error(mb.proto()),
               Catch::Contains("main graph input 'x' has invalid elem_type 0"));
  }
  SECTION("no shape") {
    graph->mutable_output(0)->mutable_type()->mutable_tensor_type()->clear_shape();
    CHECK_THAT(single_error(mb.proto()), Catch::Contains("main graph output 'y' has no shape"));
  }
}

TEST_CASE("the main graph has outputs, a subgraph's are its op's business", "[validator]") {
  ModelBuilder mb = valid_model();
  mb.proto().mutable_graph()->clear_output();
  CHECK_THAT(single_error(mb.proto()), Catch::Contains("main graph has no outputs"));
}

// The attribute-form rules below use made-up attributes: the node is put in a domain of no known
// schema, so the unknown-attribute rule (validator_rules_test.cpp) stays out of the way.
void use_unchecked_domain(ModelBuilder& mb, onnx::NodeProto& node) {
  node.set_domain("test.attrs");
  auto* os = mb.proto().add_opset_import();
  os->set_domain("test.attrs");
  os->set_version(1);
}

TEST_CASE("attribute rules", "[validator]") {
  ModelBuilder mb = valid_model();
  auto& relu = *mb.proto().mutable_graph()->mutable_node(0);
  use_unchecked_domain(mb, relu);
  SECTION("two values") {
    auto* a = add_attr(relu, "alpha", onnx::AttributeProto::FLOAT);
    a->set_f(1);
    a->set_i(2);
    CHECK_THAT(single_error(mb.proto()),
               Catch::Contains("node 'relu0' (Relu): attribute 'alpha' holds 2 values (FLOAT, "
                               "INT); an attribute holds exactly one"));
  }
  SECTION("value not matching the type") {
    add_attr(relu, "axes", onnx::AttributeProto::INTS)->set_i(1);
    CHECK_THAT(single_error(mb.proto()),
               Catch::Contains("attribute 'axes' has type INTS but holds a value of type INT"));
  }
  SECTION("scalar type without value") {
    add_attr(relu, "alpha", onnx::AttributeProto::FLOAT);
    CHECK_THAT(single_error(mb.proto()),
               Catch::Contains("attribute 'alpha' has type FLOAT but no value"));
  }
  SECTION("an empty list is a value") {
    add_attr(relu, "axes", onnx::AttributeProto::INTS);
    CHECK(errors_of(mb.proto()).empty());
  }
  SECTION("no type") {
    add_attr(relu, "alpha", onnx::AttributeProto::UNDEFINED)->set_f(1);
    CHECK_THAT(single_error(mb.proto()), Catch::Contains("attribute 'alpha' has no type"));
  }
  SECTION("duplicate name") {
    add_attr(relu, "alpha", onnx::AttributeProto::FLOAT)->set_f(1);
    add_attr(relu, "alpha", onnx::AttributeProto::FLOAT)->set_f(2);
    CHECK_THAT(single_error(mb.proto()),
               Catch::Contains("node 'relu0' (Relu): attribute 'alpha' appears more than once"));
  }
  SECTION("ref_attr_name outside a function") {
    add_attr(relu, "alpha", onnx::AttributeProto::FLOAT)->set_ref_attr_name("a");
    CHECK_THAT(single_error(mb.proto()), Catch::Contains("outside a function body"));
  }
  SECTION("empty op_type") {
    relu.clear_op_type();
    CHECK_THAT(single_error(mb.proto()), Catch::Contains("node 'relu0' (?): op_type is empty"));
  }
}

TEST_CASE("initializer tensors are checked", "[validator]") {
  ModelBuilder mb = valid_model();
  mb.initializer("w", {3}, {1, 2, 3});
  auto* w = mb.proto().mutable_graph()->mutable_initializer(0);
  SECTION("typed data count") {
    w->add_float_data(4);
    CHECK_THAT(single_error(mb.proto()),
               Catch::Contains("initializer 'w': has 4 entries in float_data; its dims need 3"));
  }
  SECTION("raw_data size") {
    w->clear_float_data();
    w->set_raw_data(std::string(11, '\0'));
    CHECK_THAT(single_error(mb.proto()),
               Catch::Contains("initializer 'w': has 11 bytes of raw_data; its dims and float "
                               "type need 12"));
  }
  SECTION("data in the wrong field") {
    w->clear_float_data();
    for (int i = 0; i < 3; ++i) w->add_int64_data(i);
    CHECK_THAT(single_error(mb.proto()),
               Catch::Contains("float data belongs in float_data, not int64_data"));
  }
  SECTION("invalid data_type") {
    w->set_data_type(77);
    CHECK_THAT(single_error(mb.proto()), Catch::Contains("initializer 'w': invalid data_type 77"));
  }
  SECTION("negative dims") {
    w->set_dims(0, -3);
    CHECK_THAT(single_error(mb.proto()), Catch::Contains("negative dimension -3"));
  }
  SECTION("dims whose product overflows") {
    w->set_dims(0, int64_t{1} << 40);
    w->add_dims(int64_t{1} << 40);
    CHECK_THAT(single_error(mb.proto()), Catch::Contains("dims overflow"));
  }
}

TEST_CASE("subgraphs see outer names but may not shadow them", "[validator]") {
  ModelBuilder mb = valid_model();
  mb.input("cond", onnx::TensorProto::BOOL, {});
  auto& if_node = mb.node("If", {"cond"}, {"z"}, "if0");
  auto* then_branch = add_attr(if_node, "then_branch", onnx::AttributeProto::GRAPH)->mutable_g();
  then_branch->set_name("then");
  then_branch->add_output()->set_name("t");
  auto* inner = then_branch->add_node();
  inner->set_op_type("Neg");
  inner->add_input("h");  // from the outer graph
  inner->add_output("t");
  SECTION("outer names are visible") {
    CHECK(errors_of(mb.proto()).empty());
  }
  SECTION("shadowing") {
    inner->set_output(0, "x");
    then_branch->mutable_output(0)->set_name("x");
    CHECK_THAT(single_error(mb.proto()),
               Catch::Contains("node 'if0/then_branch/#0' (Neg): output 'x' shadows a name of "
                               "an enclosing graph"));
  }
  SECTION("the node's own outputs are not visible inside") {
    inner->set_input(0, "z");
    CHECK_THAT(single_error(mb.proto()),
               Catch::Contains("node 'if0/then_branch/#0' (Neg): input 'z' is not defined"));
  }
}

TEST_CASE("all errors are reported, each naming its node and op", "[validator]") {
  ModelBuilder mb;
  mb.input("x", kFloat, {2}).output("y", kFloat, {2});
  mb.node("Relu", {"x"}, {"h"}, "relu0");
  mb.node("Neg", {"missing"}, {"h2"}, "neg0");
  mb.node("Add", {"h", "later"}, {"y"}, "add0");
  auto& exp = mb.node("Exp", {"x"}, {"later"});
  exp.set_domain("com.example");
  exp.clear_name();  // reported by position, as "#3"
  use_unchecked_domain(mb, *mb.proto().mutable_graph()->mutable_node(0));
  auto* a =
      add_attr(*mb.proto().mutable_graph()->mutable_node(0), "alpha", onnx::AttributeProto::FLOAT);
  a->set_f(1);
  a->add_floats(2);
  auto errors = errors_of(mb.proto());
  INFO(fmt::format("{}", fmt::join(errors, "\n")));
  REQUIRE(errors.size() == 4);
  CHECK_THAT(errors[0], Catch::StartsWith("node 'relu0' (Relu): attribute 'alpha' holds 2"));
  CHECK_THAT(errors[1], Catch::StartsWith("node 'neg0' (Neg): input 'missing' is not defined"));
  CHECK_THAT(errors[2], Catch::StartsWith("node 'add0' (Add): input 'later' is used before"));
  CHECK_THAT(errors[3], Catch::StartsWith("node '#3' (Exp): domain 'com.example' has no"));
}

TEST_CASE("model-local function bodies are checked", "[validator]") {
  ModelBuilder mb = valid_model();
  auto* local = mb.proto().add_opset_import();
  local->set_domain("local");
  local->set_version(1);
  mb.node("Scale", {"y"}, {"z"}, "call0").set_domain("local");
  auto* f = mb.proto().add_functions();
  f->set_name("Scale");
  f->set_domain("local");
  f->add_input("u");
  f->add_output("v");
  f->add_attribute("alpha");
  auto* constant = f->add_node();
  constant->set_op_type("Constant");
  constant->add_output("k");
  add_attr(*constant, "value_float", onnx::AttributeProto::FLOAT)->set_ref_attr_name("alpha");
  auto* mul = f->add_node();
  mul->set_op_type("Mul");
  mul->add_input("u");
  mul->add_input("k");
  mul->add_output("v");
  SECTION("valid, with an attribute reference") {
    CHECK(errors_of(mb.proto()).empty());
  }
  SECTION("undefined name in the body") {
    mul->set_input(1, "nowhere");
    CHECK_THAT(single_error(mb.proto()),
               Catch::Contains("node 'Scale/#1' (Mul): input 'nowhere' is not defined"));
  }
}

TEST_CASE("subgraph initializers may not repeat subgraph input names from IR 4", "[validator]") {
  ModelBuilder mb = valid_model();
  auto& loop = mb.node("Loop", {"", ""}, {}, "loop0");
  loop.add_output("out");
  auto* body = add_attr(loop, "body", onnx::AttributeProto::GRAPH)->mutable_g();
  body->set_name("body");
  body->add_input()->set_name("i");
  body->add_output()->set_name("i");
  auto* init = body->add_initializer();
  init->set_name("i");
  init->set_data_type(onnx::TensorProto::INT64);
  init->add_int64_data(0);
  CHECK_THAT(single_error(mb.proto()),
             Catch::Contains("initializer 'i' has the name of a subgraph input"));
  mb.proto().set_ir_version(3);
  CHECK(errors_of(mb.proto()).empty());
}

namespace {

// valid_model() with initializer W and one TrainingInfoProto: algorithm graph "train" computing
// W_new = W - W * lr (lr its own initializer), update_binding W <- W_new.
ModelBuilder training_model() {
  ModelBuilder mb = valid_model();
  mb.initializer("W", {2}, {1, 2});
  auto* t = mb.proto().add_training_info();
  auto* g = t->mutable_algorithm();
  g->set_name("train");
  auto* lr = g->add_initializer();
  lr->set_name("lr");
  lr->set_data_type(kFloat);
  lr->add_float_data(0.5f);
  for (auto [op, in0, in1, out] : {std::array<const char*, 4>{"Mul", "W", "lr", "d"},
                                   std::array<const char*, 4>{"Sub", "W", "d", "W_new"}}) {
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(out);
    n->add_input(in0);
    n->add_input(in1);
    n->add_output(out);
  }
  auto* out = g->add_output();
  out->set_name("W_new");
  out->mutable_type()->mutable_tensor_type()->set_elem_type(kFloat);
  auto* b = t->add_update_binding();
  b->set_key("W");
  b->set_value("W_new");
  return mb;
}

}  // namespace

TEST_CASE("training info: graphs and bindings are checked", "[validator]") {
  CHECK(errors_of(training_model().proto()).empty());
  SECTION("the algorithm graph is required") {
    ModelBuilder mb = training_model();
    mb.proto().mutable_training_info(0)->clear_algorithm();
    CHECK(single_error(mb.proto()) == "training_info[0] has no algorithm graph (it is required)");
  }
  SECTION("its nodes are validated like the main graph's") {
    ModelBuilder mb = training_model();
    mb.proto().mutable_training_info(0)->mutable_algorithm()->mutable_node(1)->set_input(1, "e");
    CHECK_THAT(
        single_error(mb.proto()),
        Catch::Contains("node 'training_info[0]/algorithm/W_new' (Sub)") && Catch::Contains("'e'"));
  }
  SECTION("a binding's key is a state variable, its value an output, each key once") {
    ModelBuilder mb = training_model();
    auto* t = mb.proto().mutable_training_info(0);
    t->mutable_update_binding(0)->set_key("x");
    t->mutable_update_binding(0)->set_value("d");
    auto* again = t->add_update_binding();
    again->set_key("lr");  // the algorithm's own initializer is a state variable too
    again->set_value("W_new");
    *t->add_update_binding() = t->update_binding(1);
    auto errors = errors_of(mb.proto());
    INFO(fmt::format("{}", fmt::join(errors, "\n")));
    REQUIRE(errors.size() == 3);
    CHECK(errors[0] ==
          "training_info[0] update_binding: 'x' is not an initializer of the main graph or of the "
          "algorithm graph (a binding's key names a state variable)");
    CHECK(errors[1] ==
          "training_info[0] update_binding: 'd' is not an output of the algorithm graph");
    CHECK(errors[2] ==
          "training_info[0] update_binding: state variable 'lr' is bound more than once");
  }
  SECTION("an initialization_binding needs an initialization graph") {
    ModelBuilder mb = training_model();
    auto* b = mb.proto().mutable_training_info(0)->add_initialization_binding();
    b->set_key("W");
    b->set_value("W0");
    auto errors = errors_of(mb.proto());
    REQUIRE(errors.size() == 2);
    CHECK(errors[0] ==
          "training_info[0] has an initialization_binding but no initialization graph");
    CHECK(errors[1] ==
          "training_info[0] initialization_binding: 'W0' is not an output of the initialization "
          "graph");
  }
}
