// Sequences and optionals resolved at compile time (ops/control/sequence.cpp,
// ops/control/optional.cpp, ops/control/unroll.cpp): after infer-shapes no container op is left,
// only the tensor nodes they became; sequence graph inputs and outputs are flattened into tensors;
// what is only known at run time is refused with the node named. Numerical results are checked by
// the conformance cases.
#include <catch2/catch.hpp>

#include "driver/commands.h"
#include "harness/filecheck.h"
#include "passes/pass_harness.h"

using namespace onnxc;
using onnxc::testing::filecheck;
using onnxc::testing::ModelBuilder;
using onnxc::testing::run_passes;

namespace {

constexpr int kF = onnx::TensorProto::FLOAT;
constexpr int kB = onnx::TensorProto::BOOL;
constexpr int kI = onnx::TensorProto::INT64;

void int64_init(ModelBuilder& mb, const std::string& name, std::vector<int64_t> v, bool scalar) {
  auto* t = mb.proto().mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(kI);
  if (!scalar) t->add_dims(static_cast<int64_t>(v.size()));
  for (int64_t x : v) t->add_int64_data(x);
}

void sequence_type(onnx::ValueInfoProto* vi, const std::string& name, int elem) {
  vi->set_name(name);
  vi->mutable_type()
      ->mutable_sequence_type()
      ->mutable_elem_type()
      ->mutable_tensor_type()
      ->set_elem_type(elem);
}

void value_info(onnx::ValueInfoProto* vi, const std::string& name, int type) {
  vi->set_name(name);
  vi->mutable_type()->mutable_tensor_type()->set_elem_type(type);
}

}  // namespace

TEST_CASE("SplitToSequence, SequenceAt and ConcatFromSequence become tensor nodes", "[sequence]") {
  // x[6x2] split into rows of 2 and 4: the second piece; the first one twice in a sequence,
  // stacked on a new axis 0 (ConcatFromSequence new_axis=1).
  ModelBuilder mb(13);
  mb.input("x", kF, {6, 2});
  int64_init(mb, "split", {2, 4}, false);
  int64_init(mb, "one", {1}, true);
  mb.output("second", kF, {4, 2}).output("stacked", kF, {2, 2, 2});
  ModelBuilder::int_attr(mb.node("SplitToSequence", {"x", "split"}, {"seq"}, "split"), "axis", 0);
  mb.node("SequenceAt", {"seq", "one"}, {"second"}, "at");
  int64_init(mb, "zero", {0}, true);
  mb.node("SequenceAt", {"seq", "zero"}, {"first"}, "at0");
  mb.node("SequenceConstruct", {"first", "first"}, {"pair"}, "pair");
  auto& cat = mb.node("ConcatFromSequence", {"pair"}, {"stacked"}, "stack");
  ModelBuilder::int_attr(cat, "axis", 0);
  ModelBuilder::int_attr(cat, "new_axis", 1);
  auto r = run_passes(mb);
  INFO(r.diag.str());
  REQUIRE(r.ok);
  CHECK(filecheck(r.ir_after["infer-shapes"],
                  {"CHECK-NOT: Sequence", "CHECK: %seq.0: float[2x2] = Slice@13(%x",
                   "CHECK: %seq.1: float[4x2] = Slice@13(%x",
                   "CHECK: %second: float[4x2] = Identity@16(%seq.1)  # at/at",
                   "CHECK: %first: float[2x2] = Identity@16(%seq.0)",
                   "CHECK: = Unsqueeze@13(%first", "CHECK: = Unsqueeze@13(%first",
                   "CHECK: %stacked: float[2x2x2] = Concat@13(", "CHECK-NOT: Sequence"}) == "");
}

TEST_CASE("Sequence positions must be compile-time constants and in range", "[sequence]") {
  ModelBuilder mb(13);
  mb.input("x", kF, {2}).input("pos", kI, {});
  mb.output("y", kF, {2});
  mb.node("SequenceConstruct", {"x", "x"}, {"seq"}, "make");
  mb.node("SequenceAt", {"seq", "pos"}, {"y"}, "pick");
  auto r = run_passes(mb);
  CHECK_FALSE(r.ok);
  CHECK(r.diag.str().find("node 'pick' (SequenceAt)") != std::string::npos);
  CHECK(r.diag.str().find("must be a constant") != std::string::npos);

  ModelBuilder far(13);
  far.input("x", kF, {2});
  int64_init(far, "pos", {-3}, true);
  far.output("y", kF, {2});
  far.node("SequenceConstruct", {"x", "x"}, {"seq"}, "make");
  far.node("SequenceAt", {"seq", "pos"}, {"y"}, "pick");
  auto f = run_passes(far);
  CHECK_FALSE(f.ok);
  CHECK(f.diag.str().find("position -3 is out of range [-2, 1] for a sequence of 2 tensors") !=
        std::string::npos);
}

namespace {

// A Loop appending x[0:i+1] to a sequence each iteration (ONNX's test_loop13_seq), M trips; the
// sequence is returned and its length too.
ModelBuilder loop_model(bool constant_trips) {
  ModelBuilder mb(13);
  mb.input("x", kF, {5});
  if (constant_trips)
    int64_init(mb, "M", {3}, true);
  else
    mb.input("M", kI, {});
  int64_init(mb, "zero", {0}, false);
  int64_init(mb, "one", {1}, true);
  int64_init(mb, "axes", {0}, false);
  sequence_type(mb.proto().mutable_graph()->add_output(), "seq", kF);
  mb.output("n", kI, {});
  mb.node("SequenceEmpty", {}, {"empty"}, "empty");
  onnx::GraphProto body;
  body.set_name("loop_body");
  value_info(body.add_input(), "i", kI);
  value_info(body.add_input(), "cond_in", kB);
  sequence_type(body.add_input(), "seq_in", kF);
  ModelBuilder::add_node(body, "Identity", {"cond_in"}, {"cond_out"}, "keep_going");
  ModelBuilder::add_node(body, "Add", {"i", "one"}, {"end"}, "end");
  ModelBuilder::add_node(body, "Unsqueeze", {"end", "axes"}, {"ends"}, "ends");
  ModelBuilder::add_node(body, "Slice", {"x", "zero", "ends"}, {"piece"}, "piece");
  ModelBuilder::add_node(body, "SequenceInsert", {"seq_in", "piece"}, {"seq_out"}, "append");
  value_info(body.add_output(), "cond_out", kB);
  sequence_type(body.add_output(), "seq_out", kF);
  auto& loop = mb.node("Loop", {"M", "", "empty"}, {"seq"}, "grow");
  auto* a = loop.add_attribute();
  a->set_name("body");
  a->set_type(onnx::AttributeProto::GRAPH);
  *a->mutable_g() = body;
  mb.node("SequenceLength", {"seq"}, {"n"}, "count");
  return mb;
}

}  // namespace

TEST_CASE("Loop growing a sequence is unrolled, sequence outputs become tensors", "[sequence]") {
  ModelBuilder mb = loop_model(true);
  auto r = run_passes(mb);
  INFO(r.diag.str());
  REQUIRE(r.ok);
  const std::string& ir = r.ir_after["infer-shapes"];
  CHECK(
      filecheck(ir, {"CHECK-NOT: Loop@", "CHECK: float[1] = Slice@13(%x",
                     "CHECK: float[2] = Slice@13(%x", "CHECK: float[3] = Slice@13(%x",
                     "CHECK: %seq.0: float[1] = Identity@16(", "CHECK: %seq.1: float[2] = Identity",
                     "CHECK: %seq.2: float[3] = Identity", "CHECK-NOT: Sequence"}) == "");
  // The graph outputs: the sequence's three tensors, then its length (a constant).
  const auto& outs = r.module->graph->outputs;
  REQUIRE(outs.size() == 4);
  CHECK(outs[0]->name == "seq.0");
  CHECK(outs[2]->shape == Shape{3});
  REQUIRE(outs[3]->is_constant());
  CHECK(outs[3]->constant->int_at(0) == 3);

  ModelBuilder runtime = loop_model(false);
  auto f = run_passes(runtime);
  CHECK_FALSE(f.ok);
  CHECK(f.diag.str().find("node 'grow' (Loop)") != std::string::npos);
  CHECK(f.diag.str().find("must be a constant") != std::string::npos);
  CHECK(f.diag.str().find("needs --max-trip-count grow=N") != std::string::npos);
}

TEST_CASE("Optionals: presence is a compile-time fact", "[sequence][optional]") {
  ModelBuilder mb(18);
  mb.input("x", kF, {3});
  mb.output("has", kB, {}).output("none", kB, {}).output("y", kF, {3});
  mb.node("Optional", {"x"}, {"opt"}, "wrap");
  mb.node("OptionalHasElement", {"opt"}, {"has"}, "has");
  mb.node("OptionalHasElement", {}, {"none"}, "has_nothing");
  mb.node("OptionalGetElement", {"opt"}, {"y"}, "unwrap");
  auto r = run_passes(mb);
  INFO(r.diag.str());
  REQUIRE(r.ok);
  const auto& outs = r.module->graph->outputs;
  REQUIRE(outs.size() == 3);
  REQUIRE(outs[0]->is_constant());
  CHECK(outs[0]->constant->int_at(0) == 1);
  REQUIRE(outs[1]->is_constant());
  CHECK(outs[1]->constant->int_at(0) == 0);
  CHECK(filecheck(r.ir_after["infer-shapes"],
                  {"CHECK-NOT: Optional", "CHECK: %y: float[3] = Identity@16(%x)  # unwrap/get"}) ==
        "");

  ModelBuilder empty(18);
  empty.output("y", kF, {3});
  auto& make = empty.node("Optional", {}, {"opt"}, "nothing");
  auto* t = make.add_attribute();
  t->set_name("type");
  t->set_type(onnx::AttributeProto::TYPE_PROTO);
  t->mutable_tp()->mutable_tensor_type()->set_elem_type(kF);
  empty.node("OptionalGetElement", {"opt"}, {"y"}, "unwrap");
  auto e = run_passes(empty);
  CHECK_FALSE(e.ok);
  CHECK(e.diag.str().find("node 'unwrap' (OptionalGetElement): the optional 'opt' is empty") !=
        std::string::npos);
}

TEST_CASE("Sequence graph inputs are flattened by their compile-time layout", "[sequence]") {
  ModelBuilder mb(13);
  sequence_type(mb.proto().mutable_graph()->add_input(), "xs", kF);
  mb.output("y", kF, {4, 3});
  auto& cat = mb.node("ConcatFromSequence", {"xs"}, {"y"}, "cat");
  ModelBuilder::int_attr(cat, "axis", 0);
  Diagnostics diag;
  auto unknown = import_model(mb.proto(), ImportOptions{}, diag);
  CHECK(diag.str().find("graph input 'xs' is a sequence: its layout must be known at compile "
                        "time") != std::string::npos);
  ImportOptions options;
  options.container_inputs["xs"].shapes = {{1, 3}, {3, 3}};
  Diagnostics ok;
  auto m = import_model(mb.proto(), options, ok);
  INFO(ok.str());
  REQUIRE(ok.ok());
  REQUIRE(m->graph->inputs.size() == 2);
  CHECK(m->graph->inputs[0]->name == "xs.0");
  CHECK(m->graph->inputs[1]->shape == Shape{3, 3});
  PassManager pm(PassOptions{});
  REQUIRE(pm.run(*m, ok));
  CHECK(m->graph->outputs[0]->shape == Shape{4, 3});
}

TEST_CASE("flag --shape: gives sequence and optional inputs their layout", "[sequence][driver]") {
  ImportOptions options;
  std::string error;
  REQUIRE(parse_dim_flags({}, {"xs=[2x3;4x3]", "opt=none", "one=[5]", "x=1x2"}, options, &error));
  CHECK(options.container_inputs["xs"].shapes == std::vector<Shape>{{2, 3}, {4, 3}});
  CHECK(options.container_inputs["opt"].absent);
  CHECK(options.container_inputs["one"].shapes == std::vector<Shape>{{5}});
  CHECK(options.input_shapes["x"] == Shape{1, 2});
  ImportOptions bad;
  CHECK_FALSE(parse_dim_flags({}, {"xs=[2x3;-1]"}, bad, &error));
  CHECK(error == "bad --shape 'xs=[2x3;-1]': expected INPUT=[2x3;4x3] for a sequence");
}

TEST_CASE("Sequence and optional ops refuse malformed input without crashing", "[sequence]") {
  ModelBuilder mb(18);
  mb.input("x", kF, {4});
  mb.output("y", kF, {4});
  mb.node("OptionalGetElement", {""}, {"y"}, "get_nothing");
  auto r = run_passes(mb);
  CHECK_FALSE(r.ok);
  INFO(r.diag.str());
  CHECK(r.diag.str().find("node 'get_nothing' (OptionalGetElement): required input 0 is missing") !=
        std::string::npos);

  ModelBuilder huge(13);
  huge.input("x", kF, {100000});
  sequence_type(huge.proto().mutable_graph()->add_output(), "seq", kF);
  huge.node("SplitToSequence", {"x"}, {"seq"}, "split");
  auto h = run_passes(huge);
  CHECK_FALSE(h.ok);
  CHECK(h.diag.str().find("splitting into 100000 tensors: at most 65536 are supported") !=
        std::string::npos);

  ModelBuilder at(13);
  at.input("x", kF, {4});
  at.output("y", kF, {4});
  int64_init(at, "zero", {0}, true);
  at.node("SequenceAt", {"x", "zero"}, {"y"}, "not_a_sequence");
  auto a = run_passes(at);
  CHECK_FALSE(a.ok);
  CHECK(a.diag.str().find("node 'not_a_sequence' (SequenceAt): input 0 must be a sequence") !=
        std::string::npos);
}
