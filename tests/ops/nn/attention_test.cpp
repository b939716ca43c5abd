// Attention-family handlers: output shapes for 3-D/4-D, GQA and caches, the kernel parameters
// emit() prints, half-type widening, scratch requests, and errors naming the rule broken.
#include <catch2/catch.hpp>
#include <cmath>

#include "ops/infer_harness.h"

using namespace onnxc;
using onnxc::testing::InferHarness;

namespace {
const DataType F = DataType::kFloat;
bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}
}  // namespace

TEST_CASE("Attention 4-D: shapes of Y, present K/V and the qk output", "[attention]") {
  InferHarness h("Attention", 23);
  h.input(F, {2, 8, 3, 16});  // Q: 8 query heads
  h.input(F, {2, 2, 5, 16});  // K: 2 kv heads (GQA)
  h.input(F, {2, 2, 5, 12});  // V
  h.absent_input();
  h.input(F, {2, 2, 4, 16});  // past_key
  h.input(F, {2, 2, 4, 12});  // past_value
  h.outputs(4);
  REQUIRE(h.infer());
  CHECK(h.out(0).shape == Shape{2, 8, 3, 12});
  CHECK(h.out(1).shape == Shape{2, 2, 9, 16});
  CHECK(h.out(2).shape == Shape{2, 2, 9, 12});
  CHECK(h.out(3).shape == Shape{2, 8, 3, 9});
  CHECK(h.node().scratch_bytes == 9 * sizeof(float));  // one score row
  const std::string code = h.emit();
  CHECK(has(code, "/*q_len, kv_len, past_len*/ 3, 5, 4"));
  CHECK(has(code, "/*sqrt_scale*/ 0.5"));  // (1 / sqrt(16)) ^ 0.5, shortest exact literal
  CHECK(has(code,
            "onnxc::attention_ref<float, float>(p, x0, x1, x2, nullptr, x4, x5, nullptr, "
            "y0, y1, y2, y3, scores);"));
}

TEST_CASE("Attention 3-D: heads from the attributes, strides of the packed layout", "[attention]") {
  InferHarness h("Attention", 23);
  h.input(F, {1, 4, 24});  // Q: 3 heads x 8
  h.input(F, {1, 6, 8});   // K: 1 head (MQA)
  h.input(F, {1, 6, 10});  // V
  h.input(DataType::kBool, {4, 6});
  h.attr_int("q_num_heads", 3);
  h.attr_int("kv_num_heads", 1);
  h.attr_int("is_causal", 1);
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{1, 4, 30});
  const std::string code = h.emit();
  CHECK(has(code, "/*q_strides*/ {96, 8, 24}"));
  CHECK(has(code, "/*y_strides*/ {120, 10, 30}"));
  CHECK(has(code, "/*mask_strides*/ {0, 0, 6}, /*mask_len*/ 6, /*mask_kind*/ 1, /*is_causal*/ 1"));
  CHECK(has(code, "attention_ref<float, bool>"));
}

TEST_CASE("Attention float16 runs the float kernel on widened copies", "[attention]") {
  InferHarness h("Attention", 23);
  for (int i = 0; i < 3; ++i) h.input(DataType::kFloat16, {1, 1, 2, 4});
  REQUIRE(h.infer());
  const std::string code = h.emit();
  CHECK(has(code, "f16_f32_cast__scalar(x0, half_in0"));
  CHECK(has(code, "attention_ref<float, float>(p, half_in0, half_in1, half_in2"));
  CHECK(has(code, "f32_f16_cast__scalar(half_out0, y0"));
}

TEST_CASE("Attention errors name the rule", "[attention]") {
  InferHarness a("Attention", 23);
  a.input(F, {1, 4, 24});
  a.input(F, {1, 6, 8});
  a.input(F, {1, 6, 8});
  CHECK_FALSE(a.infer());
  CHECK(has(a.error(), "3-D inputs need the q_num_heads and kv_num_heads attributes"));
  InferHarness b("Attention", 23);
  b.input(F, {1, 3, 2, 4});
  b.input(F, {1, 2, 2, 4});
  b.input(F, {1, 2, 2, 4});
  CHECK_FALSE(b.infer());
  CHECK(has(b.error(), "q heads 3 must be a multiple of kv heads 2"));
  InferHarness c("Attention", 23);
  for (int i = 0; i < 3; ++i) c.input(F, {1, 1, 2, 4});
  c.input(DataType::kInt32, {2, 2});
  CHECK_FALSE(c.infer());
  CHECK(has(c.error(), "attn_mask must be bool or Q's type float, is int32"));
  InferHarness d("Attention", 23);
  for (int i = 0; i < 3; ++i) d.input(F, {1, 1, 2, 4});
  d.input(F, {3, 2});
  CHECK_FALSE(d.infer());
  CHECK(has(d.error(), "attn_mask shape 3x2 does not broadcast to 1x1x2x2"));
}

TEST_CASE("RotaryEmbedding: layouts, partial rotation, cache shapes", "[attention]") {
  InferHarness h("RotaryEmbedding", 23);
  h.input(F, {2, 3, 8});  // 3-D: 2 heads x 4
  h.input(F, {10, 1});
  h.input(F, {10, 1});
  h.input(DataType::kInt64, {2, 3});
  h.attr_int("num_heads", 2);
  h.attr_int("rotary_embedding_dim", 2);
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{2, 3, 8});
  CHECK(has(h.emit(),
            "/*rot_dim*/ 2, /*strides*/ {24, 8, 4}, /*interleaved*/ 0, "
            "/*has_positions*/ 1, /*cache_rows*/ 10"));
  InferHarness bad("RotaryEmbedding", 23);
  bad.input(F, {1, 2, 3, 4});
  bad.input(F, {1, 3, 3});
  bad.input(F, {1, 3, 3});
  CHECK_FALSE(bad.infer());
  CHECK(has(bad.error(), "without position_ids the caches must be 1x3x2"));
}

TEST_CASE("SwiGLU and TensorScatter fold constants", "[attention]") {
  InferHarness s("SwiGLU", 28);
  s.constant<double>(DataType::kDouble, {2}, {1.0, -2.0});
  s.constant<double>(DataType::kDouble, {2}, {3.0, 0.5});
  REQUIRE(s.infer());
  REQUIRE(s.fold());
  CHECK(s.folded().as<double>()[0] == Approx(3.0 / (1 + std::exp(-1.0))));
  CHECK(s.folded().as<double>()[1] == Approx(-1.0 / (1 + std::exp(2.0))));
  InferHarness t("TensorScatter", 24);
  t.constant<int>(DataType::kInt32, {1, 4, 1}, {1, 2, 3, 4});
  t.constant<int>(DataType::kInt32, {1, 2, 1}, {8, 9});
  t.constant<int>(DataType::kInt64, {1}, {3});
  t.node().attributes["mode"].kind = Attribute::Kind::kString;
  t.node().attributes["mode"].s = "circular";
  REQUIRE(t.infer());
  REQUIRE(t.fold());
  const int32_t* y = t.folded().as<int32_t>();
  CHECK(std::vector<int32_t>(y, y + 4) == std::vector<int32_t>{9, 2, 3, 8});
  InferHarness bad("TensorScatter", 24);
  bad.input(F, {2, 4, 3});
  bad.input(F, {2, 2, 3});
  bad.attr_int("axis", 0);
  CHECK_FALSE(bad.infer());
  CHECK(has(bad.error(), "axis cannot be 0"));
}

TEST_CASE("LinearAttention and CausalConvWithState: shapes, scratch state, errors", "[attention]") {
  InferHarness h("LinearAttention", 27);
  h.input(F, {2, 5, 16});  // 4 query heads x 4
  h.input(F, {2, 5, 8});   // 2 kv heads
  h.input(F, {2, 5, 6});   // dv = 3
  h.attr_int("q_num_heads", 4);
  h.attr_int("kv_num_heads", 2);
  h.node().attributes["update_rule"].kind = Attribute::Kind::kString;
  h.node().attributes["update_rule"].s = "linear";
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{2, 5, 12});
  CHECK(h.node().scratch_bytes == 2 * 2 * 4 * 3 * sizeof(float));  // S without present_state
  CHECK(has(h.emit(),
            "linear_attention_ref<float>(p, x0, x1, x2, nullptr, nullptr, nullptr, "
            "y0, state);"));
  InferHarness g("LinearAttention", 27);  // gated_delta by default: needs decay and beta
  g.input(F, {1, 1, 4});
  g.input(F, {1, 1, 4});
  g.input(F, {1, 1, 4});
  g.attr_int("q_num_heads", 1);
  g.attr_int("kv_num_heads", 1);
  CHECK_FALSE(g.infer());
  CHECK(has(g.error(), "update_rule 'gated_delta' needs the decay input"));
  InferHarness c("CausalConvWithState", 27);
  c.input(F, {2, 3, 7});
  c.input(F, {3, 1, 4});
  c.outputs(2);
  REQUIRE(c.infer());
  CHECK(c.out(1).shape == Shape{2, 3, 3});
  InferHarness cb("CausalConvWithState", 27);
  cb.input(F, {2, 3, 7});
  cb.input(F, {3, 2, 4});
  CHECK_FALSE(cb.infer());
  CHECK(has(cb.error(), "weight must be (3, 1, k)"));
}

namespace {
// FlexAttention lives in ai.onnx.preview, which InferHarness::infer() does not look up.
bool infer_flex(InferHarness& h) {
  h.node().domain = "ai.onnx.preview";
  if (h.node().outputs.empty()) h.outputs(1);
  h.node().handler = OpRegistry::instance().find("ai.onnx.preview", "FlexAttention", 1);
  if (!h.node().handler) return false;
  Diagnostics diag;
  InferContext ctx(h.node(), diag);
  const bool ok = h.node().handler->infer(ctx) && diag.ok();
  if (!diag.ok()) FAIL_CHECK(diag.errors()[0]);
  return ok;
}

// A modifier graph x -> op(x, c) with a constant c, as the importer builds subgraphs.
std::shared_ptr<Graph> binary_modifier(const std::string& op, Tensor c) {
  auto g = std::make_shared<Graph>();
  Value* x = g->add_value("x");
  g->inputs.push_back(x);
  Value* cv = g->add_value("c");
  cv->dtype = c.dtype;
  cv->shape = c.shape;
  cv->has_shape = true;
  cv->constant = std::make_shared<const Tensor>(std::move(c));
  auto n = std::make_unique<Node>();
  n->name = "m";
  n->op_type = op;
  n->opset = 21;
  n->inputs = {x, cv};
  Value* y = g->add_value("y");
  y->producer = n.get();
  n->outputs = {y};
  g->add_node(std::move(n));
  g->outputs.push_back(y);
  return g;
}
}  // namespace

TEST_CASE("FlexAttention compiles a modifier subgraph into a ModProgram", "[attention]") {
  InferHarness h("FlexAttention", 1);
  h.input(F, {1, 2, 3, 4});
  h.input(F, {1, 1, 5, 4});
  h.input(F, {1, 1, 5, 4});
  Tensor bias = Tensor::zeros(F, {3, 1});  // broadcast over heads and keys: per element
  for (int i = 0; i < 3; ++i) bias.as<float>()[i] = static_cast<float>(i);
  Attribute& a = h.node().attributes["score_mod"];
  a.kind = Attribute::Kind::kGraph;
  a.g = binary_modifier("Add", bias);
  REQUIRE(infer_flex(h));
  CHECK(h.out().shape == Shape{1, 2, 3, 4});
  const std::string code = h.emit();
  CHECK(has(code,
            "/*n_consts*/ 1, /*n_instrs*/ 1, /*const_full*/ {1}, "
            "/*instrs {op, a, b, c}*/ {{0, 0, 1, 0}}, /*result*/ 2"));
  CHECK(has(code,
            "static const float score_c0[30] = {0.0f, 0.0f, 0.0f, 0.0f, "
            "0.0f, 1.0f,"));  // row i of each head holds i, for its 5 keys
  CHECK(has(code,
            "onnxc::flex_attention_ref<float>(p, x0, x1, x2, &score_mod, score_consts, "
            "nullptr, nullptr, y0, scores);"));
}

TEST_CASE("FlexAttention refuses modifiers it cannot compile", "[attention]") {
  InferHarness h("FlexAttention", 1);
  for (int i = 0; i < 3; ++i) h.input(F, {1, 1, 2, 4});
  Attribute& a = h.node().attributes["prob_mod"];
  a.kind = Attribute::Kind::kGraph;
  a.g = binary_modifier("Pow", Tensor::zeros(F, {}));
  h.node().domain = "ai.onnx.preview";
  h.outputs(1);
  h.node().handler = OpRegistry::instance().find("ai.onnx.preview", "FlexAttention", 1);
  Diagnostics diag;
  InferContext ctx(h.node(), diag);
  CHECK_FALSE(h.node().handler->infer(ctx));
  REQUIRE_FALSE(diag.ok());
  CHECK(has(diag.errors()[0], "prob_mod: op Pow on the scores is not supported"));
}

TEST_CASE("Attention folds constant inputs", "[attention]") {
  // One query, two keys with scores 0 and log(3) (scale 1): weights 1/4 and 3/4.
  InferHarness h("Attention", 23);
  h.constant<double>(DataType::kDouble, {1, 1, 1, 1}, {1.0});
  h.constant<double>(DataType::kDouble, {1, 1, 2, 1}, {0.0, std::log(3.0)});
  h.constant<double>(DataType::kDouble, {1, 1, 2, 1}, {4.0, 8.0});
  h.attr_float("scale", 1.0f);
  REQUIRE(h.infer());
  REQUIRE(h.fold());
  CHECK(h.folded().as<double>()[0] == Approx(4.0 * 0.25 + 8.0 * 0.75));
}
