// RNN / GRU / LSTM handlers: output shapes by direction and layout, the params emit() writes
// (activations with alpha/beta consumed in order, defaults), scratch, errors and folding.
#include "onnxc/recurrent.h"

#include <catch2/catch.hpp>

#include "ops/infer_harness.h"

using namespace onnxc;
using onnxc::testing::InferHarness;

namespace {
const DataType F = DataType::kFloat;

void attr_strings(InferHarness& h, const std::string& name, std::vector<std::string> v) {
  Attribute& a = h.node().attributes[name];
  a.kind = Attribute::Kind::kStrings;
  a.strings = std::move(v);
}
void attr_floats(InferHarness& h, const std::string& name, std::vector<float> v) {
  Attribute& a = h.node().attributes[name];
  a.kind = Attribute::Kind::kFloats;
  a.floats = std::move(v);
}
}  // namespace

TEST_CASE("LSTM shapes: bidirectional, layout 0 and 1, all outputs", "[recurrent]") {
  for (int layout : {0, 1}) {
    InferHarness h("LSTM", 14);
    h.input(F, layout ? Shape{3, 7, 5} : Shape{7, 3, 5});  // seq 7, batch 3, input 5
    h.input(F, {2, 16, 5});
    h.input(F, {2, 16, 4});
    h.input(F, {2, 32});
    h.input(DataType::kInt32, {3});
    h.input(F, layout ? Shape{3, 2, 4} : Shape{2, 3, 4});
    h.input(F, layout ? Shape{3, 2, 4} : Shape{2, 3, 4});
    h.input(F, {2, 12});
    h.outputs(3);
    h.attr_string("direction", "bidirectional");
    h.attr_int("layout", layout);
    const bool ok = h.infer();
    INFO(h.error());
    REQUIRE(ok);
    CHECK(h.out(0).shape == (layout ? Shape{3, 7, 2, 4} : Shape{7, 2, 3, 4}));
    CHECK(h.out(1).shape == (layout ? Shape{3, 2, 4} : Shape{2, 3, 4}));
    CHECK(h.out(2).shape == h.out(1).shape);
    const std::string code = h.emit();
    CHECK(code.find("onnxc::recurrent_ref<float, onnxc::GemmTile<6, 16>>(p, x0, x1, x2, x3, x4, "
                    "x5, x6, x7, y0, y1, y2, rec_scratch);") != std::string::npos);
    CHECK(code.find("/*num_directions*/ 2") != std::string::npos);
    RecurrentParams want{};
    want.cell = kCellLstm;
    want.seq_length = 7;
    want.batch = 3;
    want.hidden = 4;
    want.input_size = 5;
    CHECK(h.node().scratch_bytes ==
          static_cast<size_t>(recurrent_scratch_elems(want)) * sizeof(float));
  }
}

TEST_CASE("GRU: hidden_size from R, default activations for both directions", "[recurrent]") {
  InferHarness h("GRU", 7);
  h.input(F, {2, 1, 3});
  h.input(F, {2, 9, 3});
  h.input(F, {2, 9, 3});
  h.absent_input();
  h.absent_input();
  h.absent_input();
  h.absent_output();
  h.outputs(1);
  h.attr_string("direction", "bidirectional");
  h.attr_int("linear_before_reset", 1);
  const bool ok = h.infer();
  INFO(h.error());
  REQUIRE(ok);
  CHECK(h.out(1).shape == Shape{2, 1, 3});
  const std::string code = h.emit();
  // Sigmoid (2), Tanh (1) per direction.
  const std::string z = cpp_float(0);
  CHECK(code.find(fmt::format("/*act*/ {{{{2, {0}, {0}}}, {{1, {0}, {0}}}, {{2, {0}, {0}}}, "
                              "{{1, {0}, {0}}}, {{0, {0}, {0}}}, {{0, {0}, {0}}}}}",
                              z)) != std::string::npos);
  CHECK(code.find("/*linear_before_reset*/ 1") != std::string::npos);
  CHECK(code.find("(p, x0, x1, x2, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, y1, "
                  "nullptr, rec_scratch)") != std::string::npos);
}

TEST_CASE("RNN activations: alpha/beta consumed in order by the functions that take them",
          "[recurrent]") {
  InferHarness h("RNN", 22);
  h.input(F, {1, 1, 2});
  h.input(F, {2, 3, 2});
  h.input(F, {2, 3, 3});
  h.attr_string("direction", "bidirectional");
  attr_strings(h, "activations", {"LeakyRelu", "hardsigmoid"});
  attr_floats(h, "activation_alpha", {0.5f});  // LeakyRelu's; HardSigmoid keeps 0.2, 0.5
  h.attr_float("clip", 3.0f);
  const bool ok = h.infer();
  INFO(h.error());
  REQUIRE(ok);
  const std::string code = h.emit();
  CHECK(code.find("/*clip*/ " + cpp_float(3)) != std::string::npos);
  CHECK(code.find(fmt::format("{{{{4, {}, {}}}, {{7, {}, {}}}, {{0,", cpp_float(0.5), cpp_float(0),
                              cpp_float(0.2f), cpp_float(0.5))) != std::string::npos);
}

TEST_CASE("bidirectional with one direction's activations shares them and their values",
          "[recurrent]") {
  InferHarness h("GRU", 14);
  h.input(F, {1, 1, 2});
  h.input(F, {2, 6, 2});
  h.input(F, {2, 6, 2});
  h.attr_string("direction", "bidirectional");
  attr_strings(h, "activations", {"HardSigmoid", "Affine"});
  attr_floats(h, "activation_alpha", {0.25f, 2.0f});
  attr_floats(h, "activation_beta", {0.5f});  // HardSigmoid's; Affine keeps beta 0
  const bool ok = h.infer();
  INFO(h.error());
  REQUIRE(ok);
  const std::string one = fmt::format("{{7, {}, {}}}, {{3, {}, {}}}", cpp_float(0.25f),
                                      cpp_float(0.5f), cpp_float(2.0f), cpp_float(0));
  CHECK(h.emit().find(fmt::format("/*act*/ {{{0}, {0}, {{0,", one)) != std::string::npos);
}

TEST_CASE("recurrent errors name the rule", "[recurrent]") {
  auto rnn = [](const char* op) {
    auto h = std::make_unique<InferHarness>(op, 14);
    const int64_t g = std::string(op) == "LSTM" ? 4 : std::string(op) == "GRU" ? 3 : 1;
    h->input(F, {4, 2, 3});
    h->input(F, {1, g * 5, 3});
    h->input(F, {1, g * 5, 5});
    return h;
  };
  auto h = rnn("RNN");
  h->attr_string("direction", "sideways");
  CHECK_FALSE(h->infer());
  CHECK(h->error() ==
        "node 'n' (RNN): direction 'sideways' is not one of forward, reverse, bidirectional");
  h = rnn("GRU");
  h->attr_int("hidden_size", 4);
  CHECK_FALSE(h->infer());
  INFO(h->error());
  CHECK(h->error().find("W has shape 1x15x3, expected 1x12x3") != std::string::npos);
  h = rnn("LSTM");
  attr_strings(*h, "activations", {"Sigmoid", "Tanh", "Gelu"});
  CHECK_FALSE(h->infer());
  CHECK(h->error().find("activation 'Gelu' is not supported") != std::string::npos);
  h = rnn("LSTM");
  attr_floats(*h, "activation_alpha", {1.0f});
  CHECK_FALSE(h->infer());
  CHECK(h->error().find("activation_alpha has 1 values") != std::string::npos);
  h = rnn("RNN");
  h->input(F, {1, 10});
  h->input(DataType::kInt64, {2});
  CHECK_FALSE(h->infer());
  CHECK(h->error().find("sequence_lens must be int32") != std::string::npos);
  h = rnn("RNN");
  attr_strings(*h, "activations", {"Tanh", "Tanh"});
  CHECK_FALSE(h->infer());
  CHECK(h->error().find("activations has 2 entries, expected 1") != std::string::npos);
}

TEST_CASE("RNN folds constant inputs", "[recurrent]") {
  // One step, hidden 1: h = tanh(1 * 0.5 + 0 + 0.25 + 0) .
  InferHarness h("RNN", 14);
  h.constant<float>(F, {1, 1, 1}, {0.5f});
  h.constant<float>(F, {1, 1, 1}, {1.0f});
  h.constant<float>(F, {1, 1, 1}, {3.0f});
  h.constant<float>(F, {1, 2}, {0.25f, 0.0f});
  const bool ok = h.infer();
  INFO(h.error());
  REQUIRE(ok);
  REQUIRE(h.fold());
  CHECK(h.folded().as<float>()[0] == Approx(std::tanh(0.75)));
}
