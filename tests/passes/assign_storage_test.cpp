// assign-storage and plan-memory on IR dumps: which values become views or are written in place,
// the offsets the planner gives them, and check_storage() rejecting plans that share wrongly.
#include <catch2/catch.hpp>

#include "harness/filecheck.h"
#include "passes/memory_planner.h"
#include "passes/pass_harness.h"

using namespace onnxc;
using onnxc::testing::disable;
using onnxc::testing::filecheck;
using onnxc::testing::ModelBuilder;
using onnxc::testing::run_passes;

namespace {

void int_init(ModelBuilder& mb, const std::string& name, std::vector<int64_t> dims,
              std::vector<int64_t> v) {
  auto* t = mb.proto().mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  for (auto d : dims) t->add_dims(d);
  for (auto x : v) t->add_int64_data(x);
}

// x -> Relu -> Reshape -> Neg -> Flatten -> Sigmoid -> y
ModelBuilder chain_model() {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {2, 3, 4}).output("y", onnx::TensorProto::FLOAT, {6, 4});
  int_init(mb, "shape", {2}, {6, 4});
  mb.node("Relu", {"x"}, {"r"}, "relu");
  mb.node("Reshape", {"r", "shape"}, {"rs"}, "reshape");
  mb.node("Neg", {"rs"}, {"n"}, "neg");
  mb.node("Flatten", {"n"}, {"f"}, "flatten");
  mb.node("Sigmoid", {"f"}, {"y"}, "sigmoid");
  return mb;
}

}  // namespace

TEST_CASE("assign-storage: reshapes are views, elementwise ops write over dying inputs",
          "[passes]") {
  ModelBuilder mb = chain_model();
  auto r = run_passes(mb);
  INFO(r.diag.str());
  REQUIRE(r.ok);
  // Flatten's output has shape [6,4] -> Flatten(axis 1) [6,4]: a view. Relu reads the graph input:
  // never in place over it. Neg writes over the reshape of Relu's output, which dies there.
  CHECK(filecheck(r.ir_after["assign-storage"],
                  {"CHECK: Relu@13(%x)  # relu", "CHECK-NOT: in place",
                   "CHECK: Reshape@13(%r, %shape)  # reshape  [%rs: view of %r+0; no code]",
                   "CHECK: Neg@13(%rs)  # neg  [%n: in place over %rs]",
                   "CHECK: Flatten@13(%n)  # flatten  [%f: view of %n+0; no code]",
                   "CHECK: Sigmoid@13(%f)  # sigmoid", "CHECK-NOT: in place", "CHECK: }"}) == "");
  CHECK(
      filecheck(r.ir_after["plan-memory"],
                {"CHECK: Relu@13(%x)  # relu  [%r: arena+0]", "CHECK: [%rs: view of %r+0; no code]",
                 "CHECK: [%n: in place over %rs]", "CHECK: [%f: view of %n+0; no code]",
                 "CHECK: Sigmoid@13(%f)  # sigmoid  [%y: output]",
                 "CHECK: memory: arena 128 bytes, live-bytes lower bound 96 bytes"}) == "");
  CHECK(r.stats.find("2 tensors aliased (views), 1 tensors written in place") != std::string::npos);
  CHECK(check_storage(*r.module).empty());

  // Disabled: every value has its own buffer and the reshapes copy.
  ModelBuilder mb2 = chain_model();
  auto off = run_passes(mb2, disable({"assign-storage"}));
  REQUIRE(off.ok);
  CHECK(off.ir_after["plan-memory"].find("view of") == std::string::npos);
  CHECK(off.ir_after["plan-memory"].find("in place") == std::string::npos);
  CHECK(off.module->memory.arena_bytes > r.module->memory.arena_bytes);
}

TEST_CASE("assign-storage: no in place over a value read later or by another input", "[passes]") {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {4}).output("y", onnx::TensorProto::FLOAT, {4});
  mb.node("Relu", {"x"}, {"a"}, "relu");
  mb.node("Neg", {"a"}, {"b"}, "neg");          // a is read again by add: not in place
  mb.node("Add", {"a", "b"}, {"c"}, "add");     // both die here: in place over a
  mb.node("Sigmoid", {"c"}, {"y"}, "sigmoid");  // graph output: the caller's buffer
  auto r = run_passes(mb);
  REQUIRE(r.ok);
  CHECK(filecheck(r.ir_after["plan-memory"],
                  {"CHECK: # neg  [%b: arena+", "CHECK: # add  [%c: in place over %a]",
                   "CHECK: # sigmoid  [%y: output]"}) == "");
  CHECK(check_storage(*r.module).empty());
}

TEST_CASE("assign-storage: a view of a graph output is not made, the node copies", "[passes]") {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {2, 2}).output("y", onnx::TensorProto::FLOAT, {4});
  mb.output("z", onnx::TensorProto::FLOAT, {2, 2});
  int_init(mb, "shape", {1}, {4});
  mb.node("Relu", {"x"}, {"z"}, "relu");
  mb.node("Reshape", {"z", "shape"}, {"y"}, "reshape");
  auto r = run_passes(mb);
  REQUIRE(r.ok);
  CHECK(r.ir_after["plan-memory"].find("view of") == std::string::npos);
  CHECK(filecheck(r.ir_after["plan-memory"], {"CHECK: # reshape  [%y: output]"}) == "");
}

TEST_CASE("assign-storage: a Slice of whole outer rows is a view at a byte offset", "[passes]") {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {4, 3}).output("y", onnx::TensorProto::FLOAT, {2, 3});
  int_init(mb, "starts", {1}, {1});
  int_init(mb, "ends", {1}, {3});
  int_init(mb, "axes", {1}, {0});
  int_init(mb, "starts1", {1}, {1});
  int_init(mb, "ends1", {1}, {2});
  int_init(mb, "axes1", {1}, {1});
  mb.node("Neg", {"x"}, {"n"}, "neg");
  mb.node("Slice", {"n", "starts", "ends", "axes"}, {"rows"}, "rows");      // rows 1..2: a view
  mb.node("Slice", {"rows", "starts1", "ends1", "axes1"}, {"col"}, "col");  // a column: a copy
  mb.node("Relu", {"rows"}, {"y"}, "relu");
  mb.output("c", onnx::TensorProto::FLOAT, {2, 1});
  mb.node("Neg", {"col"}, {"c"}, "negc");
  auto r = run_passes(mb);
  INFO(r.diag.str());
  REQUIRE(r.ok);
  CHECK(filecheck(r.ir_after["plan-memory"], {"CHECK: # rows  [%rows: view of %n+12; no code]",
                                              "CHECK: # col  [%col: arena+"}) == "");
  CHECK(check_storage(*r.module).empty());
}

TEST_CASE("check_storage rejects in place over a value still read, and overlapping buffers",
          "[passes]") {
  ModelBuilder mb(13);
  mb.input("x", onnx::TensorProto::FLOAT, {16}).output("y", onnx::TensorProto::FLOAT, {16});
  mb.node("Relu", {"x"}, {"a"}, "relu");
  mb.node("Neg", {"a"}, {"b"}, "neg");
  mb.node("Add", {"a", "b"}, {"y"}, "add");
  auto r = run_passes(mb);
  REQUIRE(r.ok);
  REQUIRE(check_storage(*r.module).empty());
  Graph& g = *r.module->graph;
  Value* a = g.find_value("a");
  Value* b = g.find_value("b");
  // b in place over a, though add reads a after neg.
  b->storage = Storage{Storage::Kind::kInPlace, a, 0};
  auto errors = check_storage(*r.module);
  REQUIRE(!errors.empty());
  CHECK(errors[0].find(
            "'b' is written in place over 'a', which is still read at node 2 after node 1") !=
        std::string::npos);
  // b at a's offset: both live at node 2.
  b->storage = Storage{Storage::Kind::kArena, nullptr, a->storage.offset};
  errors = check_storage(*r.module);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].find("overlaps") != std::string::npos);
  // In place over a graph input.
  b->storage = Storage{Storage::Kind::kInPlace, g.find_value("x"), 0};
  CHECK(check_storage(*r.module).at(0).find("not an arena buffer") != std::string::npos);
}

TEST_CASE("assign-storage: Concat inputs are written straight into the output", "[passes]") {
  auto model = [](bool reuse_a) {
    ModelBuilder mb(13);
    mb.input("x", onnx::TensorProto::FLOAT, {1, 4, 2})
        .output("y", onnx::TensorProto::FLOAT, {1, 8, 2});
    mb.node("Relu", {"x"}, {"a"}, "relu");
    mb.node("Neg", {"x"}, {"b"}, "neg");
    mb.node("Sigmoid", {"b"}, {"s"}, "sigmoid");  // in place over b: b's buffer is the slice
    auto& concat = mb.node("Concat", {"a", "s"}, {"c"}, "concat");
    ModelBuilder::int_attr(concat, "axis", 1);
    mb.node("Tanh", {"c"}, {"y"}, "tanh");
    if (reuse_a) {  // a is read after the Concat: no slices
      mb.output("z", onnx::TensorProto::FLOAT, {1, 4, 2});
      mb.node("Neg", {"a"}, {"z"}, "neg_a");
    }
    return mb;
  };
  ModelBuilder mb = model(false);
  auto r = run_passes(mb);
  INFO(r.diag.str());
  REQUIRE(r.ok);
  CHECK(filecheck(r.ir_after["plan-memory"],
                  {"CHECK: # relu  [%a: slice of %c+0]", "CHECK: # neg  [%b: slice of %c+32]",
                   "CHECK: # sigmoid  [%s: in place over %b]",
                   "CHECK: # concat  [%c: arena+0; no code]", "CHECK: memory: arena 64 bytes"}) ==
        "");
  CHECK(check_storage(*r.module).empty());
  CHECK(r.stats.find("2 tensors written into a Concat") != std::string::npos);

  ModelBuilder mb2 = model(true);
  auto r2 = run_passes(mb2);
  REQUIRE(r2.ok);
  CHECK(r2.ir_after["plan-memory"].find("slice of") == std::string::npos);
  CHECK(r2.ir_after["plan-memory"].find("no code") == std::string::npos);
  CHECK(check_storage(*r2.module).empty());
}
