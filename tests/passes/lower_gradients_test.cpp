// lower-gradients on IR text (FileCheck-style) and numerically: the derivative nodes it builds
// give the analytic gradient, computed here by hand from the forward formula.
#include <catch2/catch.hpp>

#include "harness/filecheck.h"
#include "passes/fusion_harness.h"
#include "passes/pass_harness.h"

using namespace onnxc;
using onnxc::testing::filecheck;
using onnxc::testing::ModelBuilder;

namespace {

// d = (a + b) * a, and Gradient(xs = [a, b], y = d): dd/da = 2a + b, dd/db = a.
ModelBuilder gradient_model() {
  ModelBuilder mb(12);
  auto* training = mb.proto().add_opset_import();
  training->set_domain("ai.onnx.preview.training");
  training->set_version(1);
  mb.input("a", onnx::TensorProto::FLOAT, {4}).input("b", onnx::TensorProto::FLOAT, {4});
  mb.node("Add", {"a", "b"}, {"c"}, "add");
  mb.node("Mul", {"c", "a"}, {"d"}, "mul");
  auto& g = mb.node("Gradient", {"a", "b"}, {"dd_da", "dd_db"}, "gradient");
  g.set_domain("ai.onnx.preview.training");
  auto* xs = g.add_attribute();
  xs->set_name("xs");
  xs->set_type(onnx::AttributeProto::STRINGS);
  xs->add_strings("a");
  xs->add_strings("b");
  onnxc::testing::string_attr(g, "y", "d");
  mb.output("d", onnx::TensorProto::FLOAT, {4});
  mb.output("dd_da", onnx::TensorProto::FLOAT, {4}).output("dd_db", onnx::TensorProto::FLOAT, {4});
  return mb;
}

}  // namespace

TEST_CASE("lower-gradients replaces Gradient by derivative nodes", "[passes][gradient]") {
  ModelBuilder mb = gradient_model();
  auto r = onnxc::testing::run_passes(mb);
  INFO(r.diag.str());
  REQUIRE(r.ok);
  const std::string& before = r.ir_after.at("lower-gradients");
  INFO(before);
  CHECK(filecheck(before, {"CHECK: Add", "CHECK: Mul", "CHECK-NOT: Gradient"}) == "");
  CHECK(r.stats.find("lower-gradients") != std::string::npos);
  CHECK(r.stats.find("nodes added") != std::string::npos);
}

TEST_CASE("lower-gradients computes the analytic gradient", "[passes][gradient]") {
  ModelBuilder mb = gradient_model();
  auto l = onnxc::testing::lower(mb, true);
  std::mt19937 rng(5);
  const Tensor a = onnxc::testing::random_tensor({4}, rng);
  const Tensor b = onnxc::testing::random_tensor({4}, rng);
  const std::vector<Tensor> out = onnxc::testing::run_graph(*l.module, {a, b});
  REQUIRE(out.size() == 3);
  for (int64_t i = 0; i < 4; ++i) {
    const float av = a.as<float>()[i], bv = b.as<float>()[i];
    CHECK(out[0].as<float>()[i] == Approx((av + bv) * av));
    CHECK(out[1].as<float>()[i] == Approx(2 * av + bv));
    CHECK(out[2].as<float>()[i] == Approx(av));
  }
}
