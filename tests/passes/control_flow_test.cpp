// Control flow (If, Loop, Scan) through the pass pipeline: the inline-if rewrite on IR dumps,
// subgraph shapes bound from the node's inputs, outer-scope values read by bodies, refusals, and
// check_storage() over plans with subgraph buffers.
#include <catch2/catch.hpp>

#include "harness/filecheck.h"
#include "passes/memory_planner.h"
#include "passes/memory_report.h"
#include "passes/pass_harness.h"

using namespace onnxc;
using onnxc::testing::disable;
using onnxc::testing::filecheck;
using onnxc::testing::ModelBuilder;
using onnxc::testing::run_passes;

namespace {

constexpr int kF = onnx::TensorProto::FLOAT;
constexpr int kB = onnx::TensorProto::BOOL;
constexpr int kI = onnx::TensorProto::INT64;

void value_info(onnx::ValueInfoProto* vi, const std::string& name, int type,
                const std::vector<int64_t>& dims) {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(type);
  auto* shape = tt->mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

void graph_attr(onnx::NodeProto& n, const std::string& name, const onnx::GraphProto& g) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::GRAPH);
  *a->mutable_g() = g;
}

void scalar_init(ModelBuilder& mb, const std::string& name, int type, int64_t v) {
  auto* t = mb.proto().mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(type);
  if (type == kI)
    t->add_int64_data(v);
  else
    t->add_int32_data(static_cast<int32_t>(v));
}

// y = If(cond) { x + x } else { x * one }: both branches read the outer x (and `one`).
ModelBuilder if_model(bool constant_cond, bool mismatched = false) {
  ModelBuilder mb(13);
  mb.input("x", kF, {2, 3});
  if (constant_cond)
    scalar_init(mb, "cond", kB, 1);
  else
    mb.input("cond", kB, {});
  mb.initializer("one", {1}, {1.0f});
  mb.output("y", kF, {2, 3});
  onnx::GraphProto then_g, else_g;
  then_g.set_name("then_body");
  ModelBuilder::add_node(then_g, "Add", {"x", "x"}, {"t"}, "then_add");
  value_info(then_g.add_output(), "t", kF, {2, 3});
  else_g.set_name("else_body");
  if (mismatched) {
    ModelBuilder::add_node(else_g, "ReduceSum", {"x"}, {"e"}, "else_sum");
  } else {
    ModelBuilder::add_node(else_g, "Mul", {"x", "one"}, {"e"}, "else_mul");
  }
  value_info(else_g.add_output(), "e", kF, {});
  auto& n = mb.node("If", {"cond"}, {"y"}, "branch");
  graph_attr(n, "then_branch", then_g);
  graph_attr(n, "else_branch", else_g);
  return mb;
}

}  // namespace

TEST_CASE("inline-if: a constant condition splices the taken branch into the parent", "[passes]") {
  ModelBuilder mb = if_model(true);
  auto r = run_passes(mb);
  INFO(r.diag.str());
  REQUIRE(r.ok);
  // Inference types only the taken branch; the other is dropped unseen.
  CHECK(filecheck(r.ir_after["infer-shapes"],
                  {"CHECK: %y: float[2x3] = If@13(%cond)", "CHECK: graph else_body() -> () {",
                   "CHECK: graph then_body() -> (%t) {",
                   "CHECK: %t: float[2x3] = Add@13(%x, %x)  # then_add"}) == "");
  CHECK(filecheck(r.ir_after["inline-if"],
                  {"CHECK-NOT: If@", "CHECK: %t: float[2x3] = Add@13(%x, %x)  # then_add",
                   "CHECK-NEXT: %y: float[2x3] = Identity@13(%t)  # branch/out0", "CHECK-NOT: Mul",
                   "CHECK: }"}) == "");
  CHECK(r.stats.find("1 Ifs inlined") != std::string::npos);
  // With the rewrite disabled the If stays and runs only its taken branch.
  auto kept = run_passes(mb, disable({"inline-if"}));
  INFO(kept.diag.str());
  REQUIRE(kept.ok);
  CHECK(filecheck(kept.ir_after["plan-memory"], {"CHECK: If@13(%cond)", "CHECK: then_add"}) == "");
}

TEST_CASE("If: a run-time condition infers both branches and plans their values", "[passes]") {
  ModelBuilder mb = if_model(false);
  auto r = run_passes(mb);
  INFO(r.diag.str());
  REQUIRE(r.ok);
  CHECK(
      filecheck(r.ir_after["plan-memory"],
                {"CHECK: %y: float[2x3] = If@13(%cond)", "CHECK: %e: float[2x3] = Mul@13(%x, %one)",
                 "CHECK: %t: float[2x3] = Add@13(%x, %x)", "CHECK: [%y: output]"}) == "");
  CHECK(check_storage(*r.module).empty());
  // Branch values have arena buffers of their own.
  const Graph& then_g = *r.module->graph->nodes[0]->attr("then_branch")->g;
  CHECK(then_g.outputs[0]->storage.kind == Storage::Kind::kArena);
  // Only one branch runs: both start at the same offset of one region, as big as the larger.
  const Graph& else_g = *r.module->graph->nodes[0]->attr("else_branch")->g;
  CHECK(else_g.outputs[0]->storage.offset == then_g.outputs[0]->storage.offset);
  CHECK(r.module->memory.arena_bytes == 64);
}

TEST_CASE("If: branches of different shapes need a compile-time condition", "[passes]") {
  ModelBuilder mb = if_model(false, /*mismatched=*/true);
  auto r = run_passes(mb);
  CHECK_FALSE(r.ok);
  CHECK(r.diag.str().find("node 'branch' (If)") != std::string::npos);
  CHECK(r.diag.str().find("identical static type and shape") != std::string::npos);
  // The same If with a constant condition takes one branch: fine.
  ModelBuilder folded = if_model(true, /*mismatched=*/true);
  auto f = run_passes(folded);
  INFO(f.diag.str());
  CHECK(f.ok);
}

namespace {

// Scan (opset 11): state s[2] += each slice of x[3, 4, 2] along axis 1 (reversed); scan output
// is the running sum, stacked along axis 1 of the output.
ModelBuilder scan_model() {
  ModelBuilder mb(11);
  mb.input("s0", kF, {3, 2}).input("x", kF, {3, 4, 2});
  mb.output("s", kF, {3, 2}).output("ys", kF, {3, 4, 2});
  onnx::GraphProto body;
  body.set_name("scan_body");
  value_info(body.add_input(), "s_in", kF, {3, 2});
  value_info(body.add_input(), "x_t", kF, {3, 2});
  ModelBuilder::add_node(body, "Add", {"s_in", "x_t"}, {"s_out"}, "acc");
  ModelBuilder::add_node(body, "Identity", {"s_out"}, {"y_t"}, "copy");
  value_info(body.add_output(), "s_out", kF, {3, 2});
  value_info(body.add_output(), "y_t", kF, {3, 2});
  auto& n = mb.node("Scan", {"s0", "x"}, {"s", "ys"}, "scan");
  ModelBuilder::int_attr(n, "num_scan_inputs", 1);
  ModelBuilder::ints_attr(n, "scan_input_axes", {1});
  ModelBuilder::ints_attr(n, "scan_input_directions", {1});
  ModelBuilder::ints_attr(n, "scan_output_axes", {-2});
  graph_attr(n, "body", body);
  return mb;
}

// Loop: carried c[2] += x (outer value) per iteration; scan output stacks c. M is an input or a
// constant; the body's condition passes its input through.
ModelBuilder loop_model(bool constant_trips, bool with_scan_output) {
  ModelBuilder mb(13);
  mb.input("x", kF, {2}).input("c0", kF, {2});
  if (constant_trips)
    scalar_init(mb, "M", kI, 4);
  else
    mb.input("M", kI, {});
  mb.output("c", kF, {2});
  if (with_scan_output) mb.output("cs", kF, {4, 2});
  onnx::GraphProto body;
  body.set_name("loop_body");
  value_info(body.add_input(), "i", kI, {});
  value_info(body.add_input(), "cond_in", kB, {});
  value_info(body.add_input(), "c_in", kF, {2});
  ModelBuilder::add_node(body, "Identity", {"cond_in"}, {"cond_out"}, "keep_going");
  ModelBuilder::add_node(body, "Add", {"c_in", "x"}, {"c_out"}, "acc");
  value_info(body.add_output(), "cond_out", kB, {});
  value_info(body.add_output(), "c_out", kF, {2});
  std::vector<std::string> outs = {"c"};
  if (with_scan_output) {
    ModelBuilder::add_node(body, "Identity", {"c_out"}, {"c_scan"}, "emit");
    value_info(body.add_output(), "c_scan", kF, {2});
    outs.push_back("cs");
  }
  auto& n = mb.node("Loop", {"M", "", "c0"}, outs, "loop");
  graph_attr(n, "body", body);
  return mb;
}

}  // namespace

TEST_CASE("Scan: body inputs are slices along the scan axis, outputs stack the trips", "[passes]") {
  ModelBuilder mb = scan_model();
  auto r = run_passes(mb);
  INFO(r.diag.str());
  REQUIRE(r.ok);
  CHECK(filecheck(r.ir_after["infer-shapes"],
                  {"CHECK: %s: float[3x2], %ys: float[3x4x2] = Scan@11(%s0, %x)",
                   "CHECK: graph scan_body(%s_in: float[3x2], %x_t: float[3x2]) -> (%s_out, %y_t)",
                   "CHECK: %s_out: float[3x2] = Add@11(%s_in, %x_t)  # acc"}) == "");
  CHECK(check_storage(*r.module).empty());
}

TEST_CASE("Loop: a constant trip count sizes scan outputs, outer values stay live", "[passes]") {
  ModelBuilder mb = loop_model(true, true);
  auto r = run_passes(mb);
  INFO(r.diag.str());
  REQUIRE(r.ok);
  CHECK(filecheck(r.ir_after["infer-shapes"],
                  {"CHECK: %c: float[2], %cs: float[4x2] = Loop@13(%M, none, %c0)",
                   "CHECK: graph loop_body(%i: int64[scalar], %cond_in: bool[scalar], %c_in: "
                   "float[2])",
                   "CHECK: %c_out: float[2] = Add@13(%c_in, %x)  # acc"}) == "");
  CHECK(check_storage(*r.module).empty());
}

TEST_CASE("Loop: a run-time trip count works without scan outputs, is refused with them",
          "[passes]") {
  ModelBuilder ok = loop_model(false, false);
  auto r = run_passes(ok);
  INFO(r.diag.str());
  CHECK(r.ok);
  ModelBuilder grows = loop_model(false, true);
  auto g = run_passes(grows);
  CHECK_FALSE(g.ok);
  CHECK(g.diag.str().find("node 'loop' (Loop)") != std::string::npos);
  CHECK(g.diag.str().find("must be a constant") != std::string::npos);
  CHECK(g.diag.str().find("--max-trip-count loop=N") != std::string::npos);
}

TEST_CASE("memory report: subgraph values appear with their region, the plan has no overlap",
          "[passes]") {
  ModelBuilder mb = loop_model(true, true);
  auto r = run_passes(mb);
  INFO(r.diag.str());
  REQUIRE(r.ok);
  CHECK(check_storage(*r.module).empty());
  std::string report = memory_report(*r.module, false);
  CHECK(filecheck(report, {"CHECK: tensors:", "CHECK: c_in float[2]  in subgraph loop/loop_body",
                           "CHECK: c_out float[2]  in subgraph loop/loop_body"}) == "");
  CHECK(memory_report(*r.module, true).find("\"subgraph\": \"loop/loop_body\"") !=
        std::string::npos);
}

namespace {

// Loop (trip count M a graph input) whose body holds an If on the iteration's parity:
// c = c + x (then) or c * half (else), x and half read from the main graph.
ModelBuilder loop_if_model() {
  ModelBuilder mb(13);
  mb.input("x", kF, {2}).input("c0", kF, {2}).input("M", kI, {});
  mb.initializer("half", {1}, {0.5f});
  scalar_init(mb, "two", kI, 2);
  scalar_init(mb, "zero", kI, 0);
  mb.output("c", kF, {2});
  onnx::GraphProto then_g, else_g, body;
  then_g.set_name("then_body");
  ModelBuilder::add_node(then_g, "Add", {"c_in", "x"}, {"t"}, "then_add");
  value_info(then_g.add_output(), "t", kF, {2});
  else_g.set_name("else_body");
  ModelBuilder::add_node(else_g, "Mul", {"c_in", "half"}, {"e"}, "else_mul");
  value_info(else_g.add_output(), "e", kF, {2});
  body.set_name("loop_body");
  value_info(body.add_input(), "i", kI, {});
  value_info(body.add_input(), "cond_in", kB, {});
  value_info(body.add_input(), "c_in", kF, {2});
  ModelBuilder::add_node(body, "Identity", {"cond_in"}, {"cond_out"}, "keep_going");
  ModelBuilder::add_node(body, "Mod", {"i", "two"}, {"r"}, "parity");
  ModelBuilder::add_node(body, "Equal", {"r", "zero"}, {"even"}, "even");
  auto* branch = ModelBuilder::add_node(body, "If", {"even"}, {"c_out"}, "branch");
  graph_attr(*branch, "then_branch", then_g);
  graph_attr(*branch, "else_branch", else_g);
  value_info(body.add_output(), "cond_out", kB, {});
  value_info(body.add_output(), "c_out", kF, {2});
  auto& n = mb.node("Loop", {"M", "", "c0"}, {"c"}, "loop");
  graph_attr(n, "body", body);
  return mb;
}

}  // namespace

TEST_CASE("memory report: a Loop with an If inside plans every nested value without overlap",
          "[passes]") {
  ModelBuilder mb = loop_if_model();
  auto r = run_passes(mb);
  INFO(r.diag.str());
  REQUIRE(r.ok);
  CHECK(check_storage(*r.module).empty());
  const std::string report = memory_report(*r.module, false);
  INFO(report);
  CHECK(filecheck(report, {"CHECK: arena_bytes",
                           "CHECK: tensors:", "CHECK: c_in float[2]  in subgraph loop/loop_body",
                           "CHECK: even bool[scalar]  in subgraph loop/loop_body",
                           "CHECK: e float[2]  in subgraph loop/loop_body",
                           "CHECK: t float[2]  in subgraph loop/loop_body"}) == "");
}

TEST_CASE("plan-memory: the branches of an If inside a Loop body share one region", "[passes]") {
  ModelBuilder mb = loop_if_model();
  auto r = run_passes(mb);
  INFO(r.diag.str());
  REQUIRE(r.ok);
  const Node* loop = nullptr;
  for (const auto& n : r.module->graph->nodes)
    if (n->op_type == "Loop") loop = n.get();
  REQUIRE(loop);
  const Graph& body = *loop->attr("body")->g;
  const Node* branch = nullptr;
  for (const auto& n : body.nodes)
    if (n->op_type == "If") branch = n.get();
  REQUIRE(branch);
  // then: t = c_in + x; else: e = c_in * half. Only one runs, so both start the If's region.
  const Value* t = branch->attr("then_branch")->g->outputs[0];
  const Value* e = branch->attr("else_branch")->g->outputs[0];
  REQUIRE(t->storage.kind == Storage::Kind::kArena);
  REQUIRE(e->storage.kind == Storage::Kind::kArena);
  CHECK(t->storage.offset == e->storage.offset);
  // The body's own values are not in the If's region.
  for (const auto& v : body.values)
    if (!v->is_constant() && v->storage.kind == Storage::Kind::kArena)
      CHECK(v->storage.offset != t->storage.offset);
  CHECK(check_storage(*r.module).empty());
}

namespace {

// A branch graph whose one node is an If nested `level` deep over both branches (0: Identity).
onnx::GraphProto nested_branch(int level, int& count) {
  onnx::GraphProto g;
  const std::string id = std::to_string(++count), out = "o" + id;
  g.set_name("g" + id);
  if (level == 0) {
    ModelBuilder::add_node(g, "Identity", {"x"}, {out}, "id" + id);
  } else {
    onnx::NodeProto* n = ModelBuilder::add_node(g, "If", {"c"}, {out}, "if" + id);
    graph_attr(*n, "then_branch", nested_branch(level - 1, count));
    graph_attr(*n, "else_branch", nested_branch(level - 1, count));
  }
  value_info(g.add_output(), out, kF, {4});
  return g;
}

}  // namespace

TEST_CASE("check_storage: If nested both ways is checked level by level", "[passes]") {
  ModelBuilder mb(13);
  mb.input("x", kF, {4}).input("c", kB, {});
  int count = 0;
  onnx::GraphProto top = nested_branch(8, count);  // 510 branch values, all live at node 0
  *mb.proto().mutable_graph()->add_node() = top.node(0);
  mb.output(top.output(0).name(), kF, {4});
  auto r = run_passes(mb);
  INFO(r.diag.str());
  REQUIRE(r.ok);
  CHECK(check_storage(*r.module).empty());
  // The then branch's value and its nested If's region sit side by side: moving a value of that
  // region onto the branch's own value is caught (both live while the branch runs) ...
  const Graph& then_g = *r.module->graph->nodes[0]->attr("then_branch")->g;
  const Graph& inner = *then_g.nodes[0]->attr("then_branch")->g;
  Value* own = then_g.outputs[0];
  Value* nested = inner.outputs[0];
  const size_t kept = nested->storage.offset;
  nested->storage.offset = own->storage.offset;
  auto errors = check_storage(*r.module);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].find("overlaps") != std::string::npos);
  // ... while the two branches of one If share their bytes: only one runs.
  nested->storage.offset = kept;
  const Graph& inner_else = *then_g.nodes[0]->attr("else_branch")->g;
  CHECK(inner_else.outputs[0]->storage.offset == nested->storage.offset);
  CHECK(check_storage(*r.module).empty());
}
