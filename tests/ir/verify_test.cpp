// The IR verifier (ir/verify.h): a well-formed module passes, and each broken invariant is
// reported with the node and value it concerns. The modules are built by hand, as a buggy pass
// would leave them.
#include "ir/verify.h"

#include <catch2/catch.hpp>
#include <string>

#include "passes/pass_manager.h"

using namespace onnxc;

namespace {

// x -> Relu(r1) -> a -> Neg(r2) -> y, float[4].
struct TinyModule {
  Module module;
  Value *x, *a, *y;
  Node *relu, *neg;

  TinyModule() {
    module.graph = std::make_unique<Graph>();
    Graph& g = *module.graph;
    g.name = "tiny";
    x = g.add_value("x");
    a = g.add_value("a");
    y = g.add_value("y");
    for (Value* v : {x, a, y}) {
      v->dtype = DataType::kFloat;
      v->shape = {4};
      v->has_shape = true;
    }
    x->is_graph_input = true;
    y->is_graph_output = true;
    g.inputs = {x};
    g.outputs = {y};
    relu = add_node("r1", "Relu", x, a);
    neg = add_node("r2", "Neg", a, y);
  }

  Node* add_node(const char* name, const char* op, Value* in, Value* out) {
    auto n = std::make_unique<Node>();
    n->name = name;
    n->op_type = op;
    n->inputs = {in};
    n->outputs = {out};
    out->producer = n.get();
    return module.graph->add_node(std::move(n));
  }
};

bool mentions(const std::vector<std::string>& problems, const std::string& text) {
  for (const std::string& p : problems)
    if (p.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("a well-formed module passes the verifier", "[ir][verify]") {
  TinyModule t;
  CHECK(verify_module(t.module, IrStage::kImported).empty());
}

TEST_CASE("the verifier reports nodes out of topological order", "[ir][verify]") {
  TinyModule t;
  std::swap(t.module.graph->nodes[0], t.module.graph->nodes[1]);
  auto problems = verify_module(t.module, IrStage::kImported);
  INFO((problems.empty() ? std::string() : problems[0]));
  CHECK(mentions(problems, "node 'r2' (Neg): input 'a' is read before it is defined"));
}

TEST_CASE("the verifier reports a value with two producers", "[ir][verify]") {
  TinyModule t;
  t.neg->outputs = {t.a};  // a buggy rewrite writes `a` twice and leaves `y` without a producer
  auto problems = verify_module(t.module, IrStage::kImported);
  CHECK(mentions(problems, "node 'r2' (Neg): output 'a' names another producer"));
  CHECK(mentions(problems, "value 'y': its producer is not a node of graph 'tiny' that writes it"));
}

TEST_CASE("the verifier reports an input owned by no enclosing graph", "[ir][verify]") {
  TinyModule t;
  Graph other;
  Value* stray = other.add_value("stray");
  t.neg->inputs = {stray};
  CHECK(mentions(verify_module(t.module, IrStage::kImported),
                 "node 'r2' (Neg): input is a dangling"));
}

TEST_CASE("the verifier reports a graph output nobody defines", "[ir][verify]") {
  TinyModule t;
  t.module.graph->nodes.pop_back();  // r2 removed, y kept as an output
  t.y->producer = nullptr;
  CHECK(mentions(verify_module(t.module, IrStage::kImported), "output 'y' is never defined"));
}

TEST_CASE("the verifier checks what each stage adds", "[ir][verify]") {
  TinyModule t;
  CHECK(mentions(verify_module(t.module, IrStage::kHandlersBound),
                 "node 'r1' (Relu): no handler bound"));
  t.a->has_shape = false;
  CHECK(mentions(verify_module(t.module, IrStage::kShapesInferred),
                 "input 'a' has no type or shape after inference"));
  auto planned = verify_module(t.module, IrStage::kMemoryPlanned);
  CHECK(mentions(planned, "the memory plan is missing"));
  CHECK(mentions(planned, "value 'x' has no placement"));
}

TEST_CASE("the verifier checks arena bounds and shared storage", "[ir][verify]") {
  TinyModule t;
  t.module.memory.planned = true;
  t.module.memory.arena_bytes = 16;
  t.x->storage.kind = Storage::Kind::kGraphInput;
  t.y->storage.kind = Storage::Kind::kGraphOutput;
  t.a->storage = Storage{Storage::Kind::kArena, nullptr, 8};  // 16 bytes at 8: 8 past the end
  auto problems = verify_module(t.module, IrStage::kMemoryPlanned);
  CHECK(mentions(problems, "'a' at [8, +16) runs past the arena (16 bytes)"));
  t.a->storage = Storage{Storage::Kind::kView, t.x, 4};  // a view 4 bytes into a 16-byte value
  CHECK(mentions(verify_module(t.module, IrStage::kMemoryPlanned), "'a' (view) at +4 runs past"));
  t.a->storage = Storage{Storage::Kind::kView, t.x, 0};
  t.neg->scratch_bytes = 32;
  CHECK(mentions(verify_module(t.module, IrStage::kMemoryPlanned),
                 "node 'r2' (Neg): scratch [0, +32) runs past the arena"));
}

TEST_CASE("the pass list's stages never go back", "[ir][verify][passes]") {
  IrStage stage = IrStage::kImported;
  for (const PassInfo& pass : pipeline_passes()) {
    INFO(pass.name);
    CHECK(pass.stage >= stage);
    stage = pass.stage;
  }
  CHECK(stage == IrStage::kMemoryPlanned);
}
