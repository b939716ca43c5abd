// ai.onnx.preview.training optimizers: the handlers (arity, grouping of the variadic inputs,
// attribute rules, emitted calls) and the kernels against the spec's pseudo code evaluated
// independently (in double, by hand) on the spec examples' values.
#include "onnxc/training.h"

#include <catch2/catch.hpp>
#include <memory>

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
  momentum_ref(&r, &t, x, g, v, xn, nullptr, {2, 0.95f, 0.1f, 0.001f, /*nesterov=*/true});
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
