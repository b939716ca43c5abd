// Model-local function inlining (frontend/function_inliner.cpp): readable unique names, attribute
// references and defaults, overloads, nested calls, and the refusals (recursion, depth, unknown
// attributes). Numerical checks against onnxruntime: tests/models/make_ir_models.py (`ir_models`).
#include "frontend/function_inliner.h"

#include <catch2/catch.hpp>

#include "harness/model_builder.h"

using namespace onnxc;
using onnxc::testing::ModelBuilder;

namespace {
onnx::FunctionProto& add_function(onnx::ModelProto& m, const std::string& name,
                                  const std::string& overload = "") {
  auto* f = m.add_functions();
  f->set_name(name);
  f->set_domain("local");
  f->set_overload(overload);
  f->add_input("X");
  f->add_output("Y");
  auto* os = f->add_opset_import();
  os->set_domain("");
  os->set_version(17);
  return *f;
}
onnx::NodeProto& body_node(onnx::FunctionProto& f, const std::string& op, const std::string& in,
                           const std::string& out, const std::string& domain = "") {
  auto* n = f.add_node();
  n->set_op_type(op);
  n->set_domain(domain);
  n->add_input(in);
  n->add_output(out);
  return *n;
}
ModelBuilder caller(const std::string& fn, const std::string& overload = "") {
  ModelBuilder b(17, 10);
  auto* os = b.proto().add_opset_import();
  os->set_domain("local");
  os->set_version(1);
  b.input("x", onnx::TensorProto::FLOAT, {2});
  b.output("y", onnx::TensorProto::FLOAT, {2});
  auto& n = b.node(fn, {"x"}, {"y"}, "call");
  n.set_domain("local");
  n.set_overload(overload);
  return b;
}
}  // namespace

TEST_CASE("inlining renames body values under the call and resolves attributes", "[functions]") {
  ModelBuilder b = caller("Act");
  auto& f = add_function(b.proto(), "Act");
  f.add_attribute("alpha");
  auto* beta = f.add_attribute_proto();  // default 0.25, not given by the call
  beta->set_name("beta");
  beta->set_type(onnx::AttributeProto::FLOAT);
  beta->set_f(0.25f);
  auto& relu = body_node(f, "LeakyRelu", "X", "t");
  auto* ref = relu.add_attribute();
  ref->set_name("alpha");
  ref->set_type(onnx::AttributeProto::FLOAT);
  ref->set_ref_attr_name("alpha");
  auto& hs = body_node(f, "HardSigmoid", "t", "Y");
  for (const char* a : {"alpha", "beta"}) {  // alpha: not given, so omitted; beta: the default
    auto* r = hs.add_attribute();
    r->set_name(a);
    r->set_type(onnx::AttributeProto::FLOAT);
    r->set_ref_attr_name(std::string(a) == "alpha" ? "gamma" : "beta");
  }
  auto* given = b.proto().mutable_graph()->mutable_node(0)->add_attribute();
  given->set_name("alpha");
  given->set_type(onnx::AttributeProto::FLOAT);
  given->set_f(0.5f);

  Diagnostics diag;
  FunctionInlineStats stats;
  REQUIRE(inline_model_functions(b.proto(), diag, &stats));
  const auto& g = b.proto().graph();
  REQUIRE(g.node_size() == 2);
  CHECK(g.node(0).name() == "call/LeakyRelu");
  CHECK(g.node(0).input(0) == "x");
  CHECK(g.node(0).output(0) == "call/t");
  CHECK(g.node(0).attribute(0).f() == 0.5f);
  CHECK(g.node(0).attribute(0).ref_attr_name().empty());
  CHECK(g.node(1).output(0) == "y");
  REQUIRE(g.node(1).attribute_size() == 1);  // the unbound reference was dropped
  CHECK(g.node(1).attribute(0).name() == "beta");
  CHECK(g.node(1).attribute(0).f() == 0.25f);
  CHECK(stats.calls == 1);
  CHECK(stats.nodes == 2);
}

TEST_CASE("overloads select their own body, nested calls expand", "[functions]") {
  ModelBuilder b = caller("F", "neg");
  body_node(add_function(b.proto(), "F", "abs"), "Abs", "X", "Y");
  auto& neg = add_function(b.proto(), "F", "neg");
  auto& inner = body_node(neg, "G", "X", "Y", "local");
  (void)inner;
  body_node(add_function(b.proto(), "G"), "Neg", "X", "Y");
  Diagnostics diag;
  FunctionInlineStats stats;
  REQUIRE(inline_model_functions(b.proto(), diag, &stats));
  REQUIRE(b.proto().graph().node_size() == 1);
  CHECK(b.proto().graph().node(0).op_type() == "Neg");
  CHECK(b.proto().graph().node(0).name() == "call/G/Neg");
  CHECK(stats.max_depth == 2);
}

TEST_CASE("recursion, runaway depth and unknown attributes are refused", "[functions]") {
  ModelBuilder r = caller("A");
  body_node(add_function(r.proto(), "A"), "B", "X", "Y", "local");
  body_node(add_function(r.proto(), "B"), "A", "X", "Y", "local");
  Diagnostics diag;
  CHECK_FALSE(inline_model_functions(r.proto(), diag));
  REQUIRE_FALSE(diag.ok());
  CHECK(diag.errors()[0].find("recursive function call: local:A -> local:B -> local:A") !=
        std::string::npos);

  ModelBuilder deep = caller("F0");
  for (int i = 0; i <= kMaxFunctionDepth; ++i)
    body_node(add_function(deep.proto(), "F" + std::to_string(i)),
              i == kMaxFunctionDepth ? "Neg" : "F" + std::to_string(i + 1), "X", "Y",
              i == kMaxFunctionDepth ? "" : "local");
  Diagnostics d2;
  CHECK_FALSE(inline_model_functions(deep.proto(), d2));
  CHECK(d2.errors()[0].find("nest deeper than 64 levels") != std::string::npos);

  ModelBuilder u = caller("F");
  body_node(add_function(u.proto(), "F"), "Neg", "X", "Y");
  auto* a = u.proto().mutable_graph()->mutable_node(0)->add_attribute();
  a->set_name("nope");
  a->set_type(onnx::AttributeProto::INT);
  Diagnostics d3;
  CHECK_FALSE(inline_model_functions(u.proto(), d3));
  CHECK(d3.errors()[0].find("attribute 'nope' is not a parameter of function local:F") !=
        std::string::npos);
}
