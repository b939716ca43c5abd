// matmul-as-gemm: a float MatMul by a constant 2-D B (a linear layer: A [..., M, K] @ W [K, N])
// is one GEMM over all of A's rows, so it becomes a Gemm, with its bias, residual and activation:
//   A [b, M, K] -> Reshape [b*M, K] -+
//                  W [K, N] ---------+-> Gemm {transB as the MatMul's} -> [b*M, N] -> Reshape -> Y
//   (bias -> C; a residual [b, M, N] is reshaped to [b*M, N] the same way)
// The Reshapes are views (assign-storage aliases them), so nothing is copied; the Gemm's kernel
// variants then apply: select-kernels may pick one that reads W packed at compile time
// (pack-weights) and split it over --threads, which the MatMul kernel does not do.
// A 2-D MatMul becomes a Gemm directly (transA kept).
//
// It does NOT rewrite: MatMuls whose B is not a constant or not 2-D (attention scores, batched
// weights); a 1-D A; with batch dims, an A stored transposed (transA), whose rows are not
// contiguous, or a Y that is a graph output (its Reshape would copy: views alias their input);
// non-float nodes; MatMuls inside If/Loop/Scan bodies (it walks the main graph).
#include <fmt/format.h>

#include "ops/op.h"
#include "ops/registry.h"
#include "passes/fusion_util.h"
#include "passes/passes.h"

namespace onnxc {
namespace {

constexpr const char* kPass = "matmul-as-gemm";
constexpr int kGemmOpset = 13;
constexpr int kReshapeOpset = 13;

// A Reshape node `x` -> `shape` (a new value), inferred; null (reported) if its op rejects it.
std::unique_ptr<Node> reshape(Graph& g, const std::string& name, Value* x, Value* y,
                              const Shape& shape, const Target& target, Diagnostics& diag) {
  Tensor dims = Tensor::zeros(DataType::kInt64, {static_cast<int64_t>(shape.size())});
  for (size_t i = 0; i < shape.size(); ++i) dims.as<int64_t>()[i] = shape[i];
  auto n = std::make_unique<Node>();
  n->name = name;
  n->op_type = "Reshape";
  n->opset = kReshapeOpset;
  n->handler = OpRegistry::instance().find("", "Reshape", kReshapeOpset);
  n->inputs = {x, fusion::add_constant(g, name + "_shape", std::move(dims))};
  n->outputs = {y};
  y->producer = n.get();
  if (!n->handler || !fusion::reinfer(*n, target, diag, kPass)) return nullptr;
  return n;
}

// Whether MatMul n is a linear layer this pass rewrites.
bool applies(const Node& n) {
  const Value *a = n.input(0), *b = n.input(1), *y = n.output(0);
  if (!fusion::is_op(&n, "MatMul") || !a || !b || !y || a->dtype != DataType::kFloat ||
      y->numel() == 0)
    return false;
  if (!b->is_constant() || b->shape.size() != 2 || a->shape.size() < 2) return false;
  if (a->shape.size() == 2) return true;
  // Batched: A's rows must be contiguous, and Y not a graph output (assign-storage makes a
  // Reshape a view of its input, not the other way round, so Y's Reshape would be a copy).
  return !fusion::int_attr(n, "transA", 0) && !y->is_graph_output;
}

bool rewrite(Graph& g, Node& n, const Target& target, PassContext& stats) {
  Diagnostics& diag = stats.diag();
  Value *a = n.input(0), *y = n.output(0), *residual = n.input(3);
  const bool flat = a->shape.size() == 2;
  std::vector<std::unique_ptr<Node>> before, after;
  if (!flat) {  // A's rows, and the residual's, as matrices; Gemm writes Y's rows
    const int64_t k = a->shape.back(), cols = y->shape.back(), rows = y->numel() / cols;
    Value* a2 = fusion::add_value(g, a->name + "_rows");
    before.push_back(reshape(g, n.name + "/rows", a, a2, {rows, k}, target, diag));
    n.inputs[0] = a2;
    if (residual) {
      Value* r2 = fusion::add_value(g, residual->name + "_rows");
      before.push_back(
          reshape(g, n.name + "/residual_rows", residual, r2, {rows, cols}, target, diag));
      n.inputs[3] = r2;
    }
    fusion::take_output(n, y, fusion::add_value(g, y->name + "_rows"));
  }
  for (const auto& r : before)
    if (!r) return false;
  if (!fusion::retarget(n, "Gemm", kGemmOpset) || !fusion::reinfer(n, target, diag, kPass))
    return false;
  if (!flat) {
    after.push_back(reshape(g, n.name + "/unrows", n.output(0), y, y->shape, target, diag));
    if (!after.back()) return false;
  }
  const size_t at = fusion::position(g, &n);
  g.nodes.insert(g.nodes.begin() + static_cast<std::ptrdiff_t>(at + 1),
                 std::make_move_iterator(after.begin()), std::make_move_iterator(after.end()));
  g.nodes.insert(g.nodes.begin() + static_cast<std::ptrdiff_t>(at),
                 std::make_move_iterator(before.begin()), std::make_move_iterator(before.end()));
  stats.count("MatMuls made Gemms");
  return true;
}

}  // namespace

bool run_matmul_as_gemm(Module& module, PassContext& stats) {
  Graph& g = *module.graph;
  std::vector<Node*> todo;
  for (const auto& n : g.nodes)
    if (applies(*n)) todo.push_back(n.get());
  for (Node* n : todo)
    if (!rewrite(g, *n, *module.target, stats)) return true;
  return !todo.empty();
}

}  // namespace onnxc
