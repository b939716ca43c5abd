// Sequences of run-time length (ops/control/unroll.cpp, ops/control/sequence.cpp): a Loop whose
// trip count is a graph input, bounded by --max-trip-count, appends one tensor per iteration to
// sequences it carries. Each sequence becomes the rows of a scan output; ConcatFromSequence along
// axis 0 gives them (B rows, zeros past the iterations run), SequenceLength and LOOP.trip_count the
// count, and an iteration past the bound makes run() return onnxc::kErrorTripCount. Built with g++
// and run; values worked by hand from the ops' definitions (iteration i appends x + i).
#include <catch2/catch.hpp>

#include "driver/pipeline.h"
#include "harness/generated_program.h"
#include "harness/model_builder.h"
#include "ir/printer.h"

using namespace onnxc;
using onnx::TensorProto;
using onnxc::testing::ModelBuilder;

namespace {

void sequence_info(onnx::ValueInfoProto* vi, const std::string& name) {
  vi->set_name(name);
  vi->mutable_type()
      ->mutable_sequence_type()
      ->mutable_elem_type()
      ->mutable_tensor_type()
      ->set_elem_type(TensorProto::FLOAT);
}

enum class Reader { kConcat, kSequenceOutput, kConcatRead, kSequenceAt, kConcatAxis1 };

// Loop `loop` (trip count M, a graph input) carries two sequences, both empty at the start: per
// iteration i it appends t = x + i (float[2]) to `s` and Unsqueeze(t, 0) (float[1x2]) to `u`.
// ys = ConcatFromSequence(s, axis 0, new_axis 1), zs = ConcatFromSequence(u, axis 0), n =
// SequenceLength(s). `reader` swaps in a use the compiler must refuse.
testing::ModelBuilder grow_model(Reader reader = Reader::kConcat) {
  testing::ModelBuilder mb(17);
  mb.input("x", TensorProto::FLOAT, {2}).input("M", TensorProto::INT64, {});
  onnx::GraphProto body;
  body.set_name("loop_body");
  ModelBuilder::fill_value_info(body.add_input(), "i", TensorProto::INT64, {});
  ModelBuilder::fill_value_info(body.add_input(), "cond_in", TensorProto::BOOL, {});
  sequence_info(body.add_input(), "s_in");
  sequence_info(body.add_input(), "u_in");
  ModelBuilder::add_node(body, "Identity", {"cond_in"}, {"cond_out"}, "keep_going");
  ModelBuilder::int_attr(*ModelBuilder::add_node(body, "Cast", {"i"}, {"fi"}, "to_float"), "to",
                         TensorProto::FLOAT);
  ModelBuilder::add_node(body, "Add", {"x", "fi"}, {"t"}, "step");
  ModelBuilder::add_node(body, "Unsqueeze", {"t", "zero"}, {"t1"}, "row");
  ModelBuilder::add_node(body, "SequenceInsert", {"s_in", "t"}, {"s_out"}, "append_s");
  ModelBuilder::add_node(body, "SequenceInsert", {"u_in", "t1"}, {"u_out"}, "append_u");
  ModelBuilder::fill_value_info(body.add_output(), "cond_out", TensorProto::BOOL, {});
  sequence_info(body.add_output(), "s_out");
  sequence_info(body.add_output(), "u_out");
  auto* zero = mb.proto().mutable_graph()->add_initializer();
  zero->set_name("zero");
  zero->set_data_type(TensorProto::INT64);
  zero->add_dims(1);
  zero->add_int64_data(0);
  ModelBuilder::int_attr(mb.node("SequenceEmpty", {}, {"s0"}, "empty_s"), "dtype",
                         TensorProto::FLOAT);
  ModelBuilder::int_attr(mb.node("SequenceEmpty", {}, {"u0"}, "empty_u"), "dtype",
                         TensorProto::FLOAT);
  auto& loop = mb.node("Loop", {"M", "", "s0", "u0"}, {"s", "u"}, "loop");
  auto* a = loop.add_attribute();
  a->set_name("body");
  a->set_type(onnx::AttributeProto::GRAPH);
  *a->mutable_g() = body;
  mb.output("ys", TensorProto::FLOAT, {-1, 2}, {"trips"});
  auto& ys = mb.node("ConcatFromSequence", {"s"}, {"ys"}, "stack");
  ModelBuilder::int_attr(ys, "axis", reader == Reader::kConcatAxis1 ? 1 : 0);
  ModelBuilder::int_attr(ys, "new_axis", 1);
  mb.output("zs", TensorProto::FLOAT, {-1, 2}, {"trips"});
  ModelBuilder::int_attr(mb.node("ConcatFromSequence", {"u"}, {"zs"}, "concat"), "axis", 0);
  mb.output("n", TensorProto::INT64, {});
  mb.node("SequenceLength", {"s"}, {"n"}, "length");
  if (reader == Reader::kSequenceOutput) {
    auto* out = mb.proto().mutable_graph()->add_output();
    sequence_info(out, "s");
  } else if (reader == Reader::kConcatRead) {
    mb.output("r", TensorProto::FLOAT, {-1, 2}, {"trips"});
    mb.node("Relu", {"ys"}, {"r"}, "relu");
  } else if (reader == Reader::kSequenceAt) {
    mb.output("first", TensorProto::FLOAT, {2});
    mb.node("SequenceAt", {"s", "zero"}, {"first"}, "at");
  }
  return mb;
}

std::unique_ptr<Module> lower(const testing::ModelBuilder& mb,
                              std::map<std::string, int64_t> bounds, Diagnostics& diag) {
  ImportOptions options;
  options.max_trip_counts = std::move(bounds);
  return lower_model(mb.write(), options, diag);
}

const char* kDriver = R"(#include <cstdlib>
int main(int, char** argv) {
  const float x[2] = {1, 10};
  const std::int64_t m[1] = {std::atoll(argv[1])};
  float ys[6], zs[6];
  std::int64_t n[1] = {-1}, trips[1] = {-1};
  for (float& v : ys) v = -1;
  for (float& v : zs) v = -1;
  alignas(64) static unsigned char arena[net::kWorkspaceSize + 64];
  const int rc = net::run({x, m}, {ys, zs, n, trips}, arena);
  std::printf("%d|%lld %lld|", rc, static_cast<long long>(n[0]), static_cast<long long>(trips[0]));
  for (float v : ys) std::printf("%g ", double(v));
  std::printf("|");
  for (float v : zs) std::printf("%g ", double(v));
}
)";

}  // namespace

TEST_CASE("a bounded Loop grows sequences to a run-time length", "[ops][sequence]") {
  Diagnostics diag;
  auto module = lower(grow_model(), {{"loop", 3}}, diag);
  INFO(diag.str());
  REQUIRE(module);
  const std::string ir = print_graph(*module->graph, 0);
  CHECK_THAT(ir, Catch::Contains("%loop.trip_count: int64[1] = Loop@17"));
  CHECK_THAT(ir, Catch::Contains("%ys: float[3x2] = Identity@16(%s.rows)"));
  CHECK_THAT(ir, Catch::Contains("%zs: float[3x2] = Reshape@14(%u.rows"));
  const GeneratedCode code = testing::generate_net(*module);
  // M = 2: rows x + 0 and x + 1, the third zeros; two tensors in each sequence.
  CHECK(testing::build_and_run(code, kDriver, "2") == "0|2 2|1 10 2 11 0 0 |1 10 2 11 0 0 ");
  CHECK(testing::build_and_run(code, kDriver, "0") == "0|0 0|0 0 0 0 0 0 |0 0 0 0 0 0 ");
  CHECK(testing::build_and_run(code, kDriver, "3") == "0|3 3|1 10 2 11 3 12 |1 10 2 11 3 12 ");
  // A fourth iteration would pass the bound.
  CHECK(testing::build_and_run(code, kDriver, "4").substr(0, 2) == "9|");
}

TEST_CASE("a sequence of run-time length: refusals name the node and the rule", "[ops][sequence]") {
  auto refused = [](Reader reader, std::map<std::string, int64_t> bounds) {
    Diagnostics diag;
    CHECK_FALSE(lower(grow_model(reader), std::move(bounds), diag));
    return diag.str();
  };
  CHECK_THAT(refused(Reader::kConcat, {}), Catch::Contains("node 'loop' (Loop)") &&
                                               Catch::Contains("needs --max-trip-count loop=N"));
  CHECK_THAT(refused(Reader::kSequenceOutput, {{"loop", 3}}),
             Catch::Contains("graph output 's' is a sequence grown in a Loop bounded by "
                             "--max-trip-count"));
  CHECK_THAT(refused(Reader::kConcatRead, {{"loop", 3}}),
             Catch::Contains("node 'stack' (ConcatFromSequence)") &&
                 Catch::Contains("it must be a graph output that no node reads"));
  CHECK_THAT(refused(Reader::kSequenceAt, {{"loop", 3}}),
             Catch::Contains("node 'at' (SequenceAt)") &&
                 Catch::Contains("only ConcatFromSequence (along axis 0) and SequenceLength"));
  CHECK_THAT(refused(Reader::kConcatAxis1, {{"loop", 3}}),
             Catch::Contains("not along axis 1 of [2]"));
}
