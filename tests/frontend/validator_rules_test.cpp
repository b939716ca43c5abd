// The validator rules of validator_rules.h through validate_model(): each hostile model gets the
// one error it deserves, and the valid variant of it passes (so the rule is not over-eager).
#include "frontend/validator_rules.h"

#include <catch2/catch.hpp>

#include "frontend/validator.h"
#include "harness/model_builder.h"

using namespace onnxc;
using onnxc::testing::ModelBuilder;

namespace {

constexpr int kFloat = onnx::TensorProto::FLOAT;

std::vector<std::string> errors_of(const onnx::ModelProto& model) {
  Diagnostics diag;
  validate_model(model, diag);
  return diag.errors();
}

std::string single_error(const onnx::ModelProto& model) {
  auto errors = errors_of(model);
  INFO(fmt::format("{}", fmt::join(errors, "\n")));
  REQUIRE(errors.size() == 1);
  return errors[0];
}

// A 3x4 float sparse initializer "s" with values at `indices` (linear, or [nnz, 2] coordinates).
ModelBuilder sparse_model(const std::vector<int64_t>& indices, bool coords) {
  ModelBuilder mb;
  mb.input("x", kFloat, {3, 4}).output("y", kFloat, {3, 4});
  mb.node("Add", {"x", "s"}, {"y"}, "add0");
  auto* s = mb.proto().mutable_graph()->add_sparse_initializer();
  s->add_dims(3);
  s->add_dims(4);
  const int64_t nnz = static_cast<int64_t>(indices.size()) / (coords ? 2 : 1);
  auto* v = s->mutable_values();
  v->set_name("s");
  v->set_data_type(kFloat);
  v->add_dims(nnz);
  for (int64_t k = 0; k < nnz; ++k) v->add_float_data(1.0f);
  auto* i = s->mutable_indices();
  i->set_data_type(onnx::TensorProto::INT64);
  i->add_dims(nnz);
  if (coords) i->add_dims(2);
  for (int64_t x : indices) i->add_int64_data(x);
  return mb;
}

}  // namespace

TEST_CASE("sparse indices must be in range and ascending", "[validator]") {
  CHECK(errors_of(sparse_model({0, 5, 11}, false).proto()).empty());
  CHECK(errors_of(sparse_model({0, 1, 2, 3}, true).proto()).empty());  // (0,1) and (2,3)
  CHECK_THAT(single_error(sparse_model({0, 12}, false).proto()),
             Catch::Contains("sparse index 12 of value 1 is out of range [0, 12)"));
  CHECK_THAT(single_error(sparse_model({0, 1, 3, 0}, true).proto()),
             Catch::Contains("sparse index 3 of value 1 is out of range [0, 3)"));
  CHECK_THAT(single_error(sparse_model({5, 5}, false).proto()),
             Catch::Contains("strictly ascending"));
  CHECK_THAT(single_error(sparse_model({-1}, false).proto()), Catch::Contains("out of range"));
}

TEST_CASE("a segment must lie in the tensor and hold its elements", "[validator]") {
  ModelBuilder mb;
  mb.input("x", kFloat, {4}).output("y", kFloat, {4});
  mb.initializer("b", {4}, {1, 2});  // elements [0, 2) of 4
  mb.node("Add", {"x", "b"}, {"y"}, "add0");
  auto* b = mb.proto().mutable_graph()->mutable_initializer(0);
  b->mutable_segment()->set_begin(0);
  b->mutable_segment()->set_end(2);
  CHECK(errors_of(mb.proto()).empty());
  b->mutable_segment()->set_end(3);  // truncated: 3 elements named, 2 stored
  CHECK_THAT(single_error(mb.proto()), Catch::Contains("segment [0, 3) needs 3 elements but its "
                                                       "data holds 2"));
  b->mutable_segment()->set_end(5);
  CHECK_THAT(single_error(mb.proto()), Catch::Contains("is not within the tensor's 4 elements"));
}

TEST_CASE("a function may not call itself, directly or through another", "[validator]") {
  ModelBuilder mb;
  mb.input("x", kFloat, {2}).output("y", kFloat, {2});
  auto& call = mb.node("F", {"x"}, {"y"}, "call");
  call.set_domain("local");
  auto* os = mb.proto().add_opset_import();
  os->set_domain("local");
  os->set_version(1);
  auto add_function = [&](const std::string& name, const std::string& callee) {
    auto* f = mb.proto().add_functions();
    f->set_name(name);
    f->set_domain("local");
    f->add_input("a");
    f->add_output("b");
    auto* n = f->add_node();
    n->set_op_type(callee);
    n->set_domain(callee == "Relu" ? "" : "local");
    n->add_input("a");
    n->add_output("b");
  };
  SECTION("no recursion") {
    add_function("F", "G");
    add_function("G", "Relu");
    CHECK(errors_of(mb.proto()).empty());
  }
  SECTION("itself") {
    add_function("F", "F");
    CHECK_THAT(single_error(mb.proto()), Catch::Contains("function 'local:F' calls itself "
                                                         "(local:F -> local:F)"));
  }
  SECTION("through another") {
    add_function("F", "G");
    add_function("G", "F");
    CHECK_THAT(single_error(mb.proto()),
               Catch::Contains("calls itself (local:F -> local:G -> local:F)"));
  }
}

TEST_CASE("an attribute the op's schema does not declare is refused", "[validator]") {
  ModelBuilder mb;
  mb.input("x", kFloat, {2, 3}).output("y", kFloat, {2, 3});
  auto& n = mb.node("Softmax", {"x"}, {"y"}, "sm");
  ModelBuilder::int_attr(n, "axis", 1);
  CHECK(errors_of(mb.proto()).empty());
  ModelBuilder::int_attr(n, "axsi", 1);
  CHECK_THAT(single_error(mb.proto()),
             Catch::Contains("unknown attribute 'axsi': Softmax-13 declares only axis"));
}

TEST_CASE("an attribute of another type than its schema declares is refused", "[validator]") {
  ModelBuilder mb;
  mb.input("x", kFloat, {2, 3}).output("y", kFloat, {2, 3});
  auto& n = mb.node("Softmax", {"x"}, {"y"}, "sm");
  auto* a = n.add_attribute();
  a->set_name("axis");
  a->set_type(onnx::AttributeProto::FLOAT);  // Changelog.md: "axis : int"
  a->set_f(1.0f);
  CHECK_THAT(single_error(mb.proto()),
             Catch::Contains("attribute 'axis' is FLOAT; Softmax-13 declares it INT"));
}

TEST_CASE("attribute schemas follow the opset version", "[validator]") {
  int since = 0;
  // Resize gained `antialias` in opset 18 (Changelog.md).
  const char* v13 = declared_attributes("", "Resize", 17, &since);
  REQUIRE(v13);
  CHECK(since == 13);
  CHECK(declared_type(v13, "antialias").empty());
  const char* v18 = declared_attributes("ai.onnx", "Resize", 18, &since);
  REQUIRE(v18);
  CHECK(since == 18);
  CHECK(declared_type(v18, "antialias") == "INT");  // Changelog.md: "antialias : int"
  CHECK(declared_type(v18, "mode") == "STRING");
  CHECK(declared_type(v18, "scales").empty());  // an input, not an attribute
  CHECK(declared_type(v18, "axes") == "INTS");
  CHECK(declared_type(v18, "mod").empty());
  CHECK(declared_names(v18).find("antialias axes coordinate_transformation_mode") == 0);
  CHECK(declared_attributes("", "Resize", 9, &since) == nullptr);  // not in opset 9
  CHECK(declared_attributes("com.example", "Resize", 18, &since) == nullptr);
  CHECK(declared_attributes("ai.onnx.ml", "Binarizer", 1, &since) != nullptr);
}

TEST_CASE("sizes that overflow or exceed 1 TiB are refused by check", "[validator]") {
  ModelBuilder mb;
  mb.input("x", kFloat, {int64_t{1} << 31, int64_t{1} << 31, int64_t{1} << 31})
      .output("y", kFloat, {2});
  mb.node("Relu", {"x"}, {"y"}, "r");
  CHECK_THAT(
      single_error(mb.proto()),
      Catch::Contains("main graph input 'x' of shape 2147483648x2147483648x2147483648 has more "
                      "elements than int64 can count: a tensor may hold at most 2^40 bytes"));
  ModelBuilder ok;
  ok.input("x", kFloat, {int64_t{1} << 20, 1024}).output("y", kFloat, {2});  // 4 GiB: fine
  ok.node("Relu", {"x"}, {"y"}, "r");
  CHECK(errors_of(ok.proto()).empty());
}
