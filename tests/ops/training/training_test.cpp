// ai.onnx.preview.training optimizers: the handlers (arity, grouping of the variadic inputs,
// attribute rules, emitted calls) and the kernels against the spec's pseudo code evaluated
// independently (in double, by hand) on the spec examples' values. Gradient: the lowering on
// constant models (so the derivative folds) against derivatives worked out by hand, including
// broadcasting, a tensor used twice, and the refusal of an op it cannot differentiate.
#include "onnxc/training.h"

#include <catch2/catch.hpp>
#include <memory>

#include "driver/pipeline.h"
#include "harness/model_builder.h"
#include "ops/infer_harness.h"

using namespace onnxc;

namespace {
const DataType F = DataType::kFloat;

// A node of the training domain bound to its handler and inferred.
struct TrainingNode {
  Graph graph;
  Node* node = nullptr;
  Diagnostics diag;
  TrainingNode(const char* op, std::vector<Shape> inputs, size_t outputs) {
    auto n = std::make_unique<Node>();
    n->name = "n";
    n->op_type = op;
    n->domain = "ai.onnx.preview.training";
    n->opset = 1;
    node = graph.add_node(std::move(n));
    for (size_t i = 0; i < inputs.size(); ++i) {
      Value* v = graph.add_value("in" + std::to_string(i));
      v->dtype = i == 1 ? DataType::kInt64 : F;
      v->shape = inputs[i];
      v->has_shape = true;
      v->is_graph_input = true;
      node->inputs.push_back(v);
    }
    for (size_t i = 0; i < outputs; ++i) {
      node->outputs.push_back(graph.add_value("out" + std::to_string(i)));
      node->outputs.back()->producer = node;
    }
  }
  void attr_float(const char* name, float v) {
    node->attributes[name].kind = Attribute::Kind::kFloat;
    node->attributes[name].f = v;
  }
  void attr_string(const char* name, const char* v) {
    node->attributes[name].kind = Attribute::Kind::kString;
    node->attributes[name].s = v;
  }
  bool infer() {
    node->handler = OpRegistry::instance().find(node->domain, node->op_type, node->opset);
    if (!node->handler) return false;
    InferContext ctx(*node, diag);
    return node->handler->infer(ctx) && diag.ok();
  }
  std::string error() const { return diag.ok() ? "" : diag.errors()[0]; }
  std::string emit() {
    auto ref = [this](const Value* v) -> std::string {
      if (!v) return "nullptr";
      for (size_t i = 0; i < node->inputs.size(); ++i)
        if (node->inputs[i] == v) return "x" + std::to_string(i);
      for (size_t i = 0; i < node->outputs.size(); ++i)
        if (node->outputs[i] == v) return "y" + std::to_string(i);
      return "?";
    };
    std::string body;
    std::set<std::string> includes;
    EmitContext ctx(*node, ref, "nullptr", &body, &includes);
    node->handler->emit(ctx);
    return body;
  }
};
}  // namespace

TEST_CASE("Adagrad groups X..., G..., H... and emits one call per tensor", "[training]") {
  TrainingNode t("Adagrad", {{}, {}, {3}, {2, 2}, {3}, {2, 2}, {3}, {2, 2}}, 4);
  REQUIRE(t.infer());
  CHECK(t.node->outputs[1]->shape == Shape{2, 2});  // X_new_2
  CHECK(t.node->outputs[2]->shape == Shape{3});     // H_new_1
  const std::string e = t.emit();
  CHECK(e.find("onnxc::adagrad_ref<float, float>(x0, x1, x2, x4, x6, y0, y2, {/*n=*/3,") !=
        std::string::npos);
  CHECK(e.find("onnxc::adagrad_ref<float, float>(x0, x1, x3, x5, x7, y1, y3, {/*n=*/4,") !=
        std::string::npos);
}

TEST_CASE("Optimizer errors name the rule", "[training]") {
  TrainingNode arity("Adam", {{}, {}, {3}, {3}, {3}}, 1);
  CHECK_FALSE(arity.infer());
  CHECK(arity.error().find("4 tensors per optimized tensor") != std::string::npos);
  TrainingNode shape("Adagrad", {{}, {}, {3}, {4}, {3}}, 2);
  CHECK_FALSE(shape.infer());
  CHECK(shape.error().find("must match optimized tensor 0") != std::string::npos);
  TrainingNode mode("Momentum", {{}, {}, {3}, {3}, {3}}, 2);
  mode.attr_float("alpha", 0.9f);
  mode.attr_float("beta", 0.1f);
  mode.attr_float("norm_coefficient", 0);
  CHECK_FALSE(mode.infer());
  CHECK(mode.error().find("attribute 'mode' is required") != std::string::npos);
  mode.attr_string("mode", "heavy");
  CHECK_FALSE(mode.infer());
}

TEST_CASE("Momentum nesterov is passed to the kernel", "[training]") {
  TrainingNode t("Momentum", {{}, {}, {2}, {2}, {2}}, 2);
  t.attr_float("alpha", 0.95f);
  t.attr_float("beta", 0.1f);
  t.attr_float("norm_coefficient", 0.001f);
  t.attr_string("mode", "nesterov");
  REQUIRE(t.infer());
  CHECK(t.emit().find("/*nesterov=*/true") != std::string::npos);
}

TEST_CASE("adagrad_ref on the spec example", "[training]") {
  const float r = 0.1f, x = 1, g = -1, h = 2;
  const int64_t t = 0;
  float xn, hn;
  adagrad_ref(&r, &t, &x, &g, &h, &xn, &hn, {1, /*decay_factor=*/0.1f, /*epsilon=*/1e-5f, 0.001f});
  CHECK(xn == Approx(1.0576961844316204));
  CHECK(hn == Approx(2.998001));
}

TEST_CASE("momentum_ref standard and nesterov on the spec example", "[training]") {
  const float r = 0.1f, x[2] = {1.2f, 2.8f}, g[2] = {-0.94f, -2.5f}, v[2] = {1.7f, 3.6f};
  const int64_t t = 0;  // first step: beta counts as 1
  float xn[2], vn[2];
  momentum_ref(&r, &t, x, g, v, xn, vn, {2, 0.95f, 0.1f, 0.001f, /*nesterov=*/false});
  CHECK(xn[0] == Approx(1.13238));
  CHECK(xn[1] == Approx(2.70772));
  CHECK(vn[1] == Approx(0.9228));
  momentum_ref(&r, &t, x, g, v, xn, static_cast<float*>(nullptr),
               {2, 0.95f, 0.1f, 0.001f, /*nesterov=*/true});
  CHECK(xn[0] == Approx(1.229641));
  CHECK(xn[1] == Approx(2.962054));
}

TEST_CASE("adam_ref on the spec example", "[training]") {
  const float r = 0.1f, x[2] = {1.2f, 2.8f}, g[2] = {-0.94f, -2.5f}, v[2] = {1.7f, 3.6f},
              h[2] = {0.1f, 0.1f};
  const int64_t t = 10;
  float xn[2], vn[2], hn[2];
  adam_ref(&r, &t, x, g, v, h, xn, vn, hn, {2, 0.95f, 0.1f, 1e-7f, 0.001f, 0});
  CHECK(xn[0] == Approx(0.7639677110013046));
  CHECK(xn[1] == Approx(2.4536752504691917));
  CHECK(vn[0] == Approx(1.56806));
  CHECK(hn[1] == Approx(5.622407056));
}

// ---- Gradient: the lowering before inference ----------------------------------------------

namespace {
// a[2x3] and b[3] constants; y = `build`(a, b); outputs y, dy/da, dy/db.
std::unique_ptr<Module> gradient_model(
    const std::vector<std::pair<std::string, std::vector<std::string>>>& ops, Diagnostics& diag) {
  using onnxc::testing::ModelBuilder;
  ModelBuilder mb(14);
  auto* os = mb.proto().add_opset_import();
  os->set_domain("ai.onnx.preview.training");
  os->set_version(1);
  mb.initializer("a", {2, 3}, {1, 2, 3, 4, 5, 6});
  mb.initializer("b", {3}, {2, 4, 8});
  int k = 0;
  for (const auto& [op, inputs] : ops) mb.node(op, inputs, {"t" + std::to_string(++k)});
  const std::string y = "t" + std::to_string(k);
  auto& g = mb.node("Gradient", {"a", "b"}, {"da", "db"}, "grad");
  g.set_domain("ai.onnx.preview.training");
  auto* xs = g.add_attribute();
  xs->set_name("xs");
  xs->set_type(onnx::AttributeProto::STRINGS);
  xs->add_strings("a");
  xs->add_strings("b");
  auto* ya = g.add_attribute();
  ya->set_name("y");
  ya->set_type(onnx::AttributeProto::STRING);
  ya->set_s(y);
  mb.output(y, 1, {2, 3}).output("da", 1, {2, 3}).output("db", 1, {3});
  ImportOptions options;
  return lower_model(mb.write(), options, diag);
}
}  // namespace

TEST_CASE("Gradient of Div and Sub sums broadcast axes back to each input", "[training]") {
  // y = a / b - b: dy/da = 1 / b (per column), dy/db = sum over rows of (-a / b^2) - 2.
  Diagnostics diag;
  auto m = gradient_model({{"Div", {"a", "b"}}, {"Sub", {"t1", "b"}}}, diag);
  REQUIRE(m);
  const Value *da = m->graph->outputs[1], *db = m->graph->outputs[2];
  REQUIRE(da->is_constant());  // constant inputs: the lowered nodes fold
  REQUIRE(db->is_constant());
  const float b[3] = {2, 4, 8};
  for (int i = 0; i < 6; ++i) CHECK(da->constant->as<float>()[i] == Approx(1.0 / b[i % 3]));
  for (int j = 0; j < 3; ++j) {
    const double a_col = (1 + j) + (4 + j);  // a[0][j] + a[1][j]
    CHECK(db->constant->as<float>()[j] == Approx(-a_col / (b[j] * b[j]) - 2));
  }
}

TEST_CASE("Gradient accumulates a tensor used twice and refuses other ops", "[training]") {
  // y = (a + b) * a: dy/da = 2a + b, dy/db = sum over rows of a.
  Diagnostics diag;
  auto m = gradient_model({{"Add", {"a", "b"}}, {"Mul", {"t1", "a"}}}, diag);
  REQUIRE(m);
  const Tensor &da = *m->graph->outputs[1]->constant, &db = *m->graph->outputs[2]->constant;
  const float a[6] = {1, 2, 3, 4, 5, 6}, b[3] = {2, 4, 8};
  for (int i = 0; i < 6; ++i) CHECK(da.as<float>()[i] == Approx(2 * a[i] + b[i % 3]));
  for (int j = 0; j < 3; ++j) CHECK(db.as<float>()[j] == Approx(a[j] + a[3 + j]));

  Diagnostics refused;
  CHECK_FALSE(gradient_model({{"Add", {"a", "b"}}, {"Relu", {"t1"}}}, refused));
  REQUIRE_FALSE(refused.errors().empty());
  CHECK(refused.errors()[0].find("differentiating op Relu") != std::string::npos);
  CHECK(refused.errors()[0].find("is not supported") != std::string::npos);
}

TEST_CASE("sum_to_shape_ref sums the broadcast axes", "[training]") {
  // g[2x3x2] onto y[3x1]: y[j] = sum over i, k of g[i][j][k].
  float g[12];
  for (int i = 0; i < 12; ++i) g[i] = float(i);
  float y[3];
  sum_to_shape_ref(g, y, {/*rank=*/3, {2, 3, 2}, {0, 1, 0}, /*out_n=*/3});
  for (int j = 0; j < 3; ++j) {
    double expect = 0;
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 2; ++k) expect += (i * 3 + j) * 2 + k;
    CHECK(y[j] == Approx(expect));
  }
}
