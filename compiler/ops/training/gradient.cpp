// Gradient (ai.onnx.preview.training, version 1), lowered before inference by symbolic reverse-mode
// differentiation of the forward graph (lower_gradients(), run by the lower-gradients pass right
// after import). A Gradient node names, by attribute, the tensors `xs` to differentiate with
// respect to, the scalar-summed target `y`, and optional `zs` held constant; its outputs are
// dY/dX_i, each of X_i's shape, where dY is a tensor of ones (the gradient of sum(y)).
//
// The rewrite replaces the Gradient node by ordinary nodes, placed where it was:
//   seed:       dY = FillLike(y, 1)
//   per forward node on a path from some x to y, in reverse order, its inputs' contributions:
//     Add       dA = dC, dB = dC            Sub  dA = dC, dB = -dC
//     Mul       dA = dC * B, dB = dC * A    Div  dA = dC / B, dB = -(dC * C) / B   (C = A / B)
//     Neg       dA = -dC                    Identity  dA = dC
//   each summed back to its input's shape over broadcast axes (SumToShape), and contributions to
//   one value added together; an x that y does not depend on gets zeros (FillLike(x, 0)).
// Any other op on such a path is refused ("not supported") with the op and node named. The added
// ai.onnx nodes are given opset 14; FillLike and SumToShape are onnxc's own helpers (domain
// onnxc.gradient, float and double only; runtime/onnxc/training.h). The Gradient node
// itself has no handler.
#include "ops/training/gradient.h"

#include <map>
#include <memory>
#include <set>

#include "onnxc/training.h"
#include "ops/dispatch.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

constexpr const char* kGradDomain = "onnxc.gradient";
constexpr int kForwardOpset = 14;

bool float_or_double(InferContext& ctx, size_t i) {
  return ctx.check_dtype(i, {DataType::kFloat, DataType::kDouble});
}

struct FillState : OpState {
  float value = 0;
};

// FillLike(x) {value}: x's type and shape, every element `value`.
class FillLikeOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1) || !float_or_double(ctx, 0)) return false;
    ctx.make_state<FillState>().value = ctx.attr_float("value", 0);
    ctx.set_output(0, ctx.input(0)->dtype, ctx.input(0)->shape);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>&,
                std::vector<Tensor>& out) const override {
    return visit_dtype<kFloatTypes>(out[0].dtype, [&](auto tag) {
      using T = decltype(tag);
      fill_ref<T>(out[0].as<T>(), out[0].numel(), static_cast<T>(n.state_as<FillState>().value));
    });
  }
  void emit(EmitContext& ctx) const override {
    ctx.include("onnxc/training.h");
    ctx.line("onnxc::fill_ref<{}>({}, {}, {});", dtype_cpp(ctx.output(0)->dtype), ctx.out(0),
             ctx.output(0)->numel(),
             cpp_scalar(ctx.output(0)->dtype, ctx.node().state_as<FillState>().value));
  }
};

struct SumToShapeState : OpState {
  int rank = 0;
  std::vector<int64_t> dims, strides;  // g's shape; x's element strides over it (0: broadcast)
};

// SumToShape(g, x): g summed over the axes along which x's shape broadcasts to g's.
class SumToShapeOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 2, 1, 1) || !float_or_double(ctx, 0)) return false;
    const Shape &g = ctx.input(0)->shape, &x = ctx.input(1)->shape;
    if (g.size() > static_cast<size_t>(kMaxRank))
      return ctx.fail("rank {} exceeds the kernel limit {}", g.size(), kMaxRank);
    if (x.size() > g.size())
      return ctx.fail("shape {} does not broadcast to {}", shape_str(x), shape_str(g));
    auto& s = ctx.make_state<SumToShapeState>();
    s.rank = static_cast<int>(g.size());
    s.dims = g;
    s.strides.assign(g.size(), 0);
    int64_t stride = 1;
    for (size_t k = 0; k < x.size(); ++k) {
      const size_t xd = x.size() - 1 - k, gd = g.size() - 1 - k;
      if (x[xd] != g[gd] && x[xd] != 1)
        return ctx.fail("shape {} does not broadcast to {}", shape_str(x), shape_str(g));
      s.strides[gd] = x[xd] == 1 ? 0 : stride;
      stride *= x[xd];
    }
    ctx.set_output(0, ctx.input(0)->dtype, x);
    return true;
  }
  static SumToShapeParams params(const SumToShapeState& s, int64_t out_n) {
    SumToShapeParams p{};
    p.rank = s.rank;
    for (int d = 0; d < s.rank; ++d) {
      p.dims[d] = s.dims[static_cast<size_t>(d)];
      p.strides[d] = s.strides[static_cast<size_t>(d)];
    }
    p.out_n = out_n;
    return p;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const SumToShapeParams p = params(n.state_as<SumToShapeState>(), out[0].numel());
    return visit_dtype<kFloatTypes>(out[0].dtype, [&](auto tag) {
      using T = decltype(tag);
      sum_to_shape_ref<T>(in[0]->as<T>(), out[0].as<T>(), p);
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<SumToShapeState>();
    ctx.include("onnxc/training.h");
    ctx.line(
        "onnxc::sum_to_shape_ref<{}>({}, {}, {{/*rank=*/{}, /*dims=*/{}, /*strides=*/{}, "
        "/*out_n=*/{}}});",
        dtype_cpp(ctx.input(0)->dtype), ctx.in(0), ctx.out(0), s.rank, cpp_ints(s.dims),
        cpp_ints(s.strides), ctx.output(0)->numel());
  }
};

// Gradient's registry row, so that `onnxc ops` and the README table list it: the node never
// reaches inference, since lower_gradients() replaced it.
class GradientOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    return ctx.fail("Gradient must be lowered (lower_gradients) before inference");
  }
  void emit(EmitContext&) const override {}
};

const GradientOp kGradient;
const FillLikeOp kFillLike;
const SumToShapeOp kSumToShape;

// Builds the replacement nodes of one Gradient node.
class GradientLowering {
 public:
  GradientLowering(Graph& g, Node& grad, Diagnostics& diag) : g_(g), grad_(grad), diag_(diag) {}

  // The nodes that replace grad_, or false (reported).
  bool run(std::vector<std::unique_ptr<Node>>& out, const std::vector<const Node*>& before) {
    const Attribute *xs = grad_.attr("xs"), *y_attr = grad_.attr("y"), *zs = grad_.attr("zs");
    if (!xs || xs->kind != Attribute::Kind::kStrings || !y_attr ||
        y_attr->kind != Attribute::Kind::kString)
      return fail("attributes 'xs' (strings) and 'y' (string) are required");
    if (grad_.outputs.size() > xs->strings.size())
      return fail("has {} outputs for {} tensors in 'xs'", grad_.outputs.size(),
                  xs->strings.size());
    Value* y = g_.find_value(y_attr->s);
    if (!y) return fail("'y' names '{}', which is not a tensor of the graph", y_attr->s);
    std::vector<Value*> x_values;
    for (const auto& name : xs->strings) {
      Value* v = g_.find_value(name);
      if (!v) return fail("'xs' names '{}', which is not a tensor of the graph", name);
      x_values.push_back(v);
    }
    std::set<const Value*> constant;
    if (zs && zs->kind == Attribute::Kind::kStrings)
      for (const auto& name : zs->strings)
        if (const Value* v = g_.find_value(name)) constant.insert(v);

    // Forward: the values that depend on some x (through the nodes before the Gradient node).
    std::set<const Value*> varying(x_values.begin(), x_values.end());
    std::vector<const Node*> path;
    for (const Node* n : before) {
      bool depends = false;
      for (const Value* in : n->inputs) depends = depends || (in && varying.count(in));
      if (!depends) continue;
      path.push_back(n);
      for (const Value* o : n->outputs)
        if (o && !constant.count(o)) varying.insert(o);
    }
    // Backward from y: the path nodes y needs.
    std::set<const Value*> needed = {y};
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      const Node* n = *it;
      bool used = false;
      for (const Value* o : n->outputs) used = used || (o && needed.count(o));
      if (!used) continue;
      static const std::set<std::string> kDifferentiable = {"Add", "Sub", "Mul",
                                                            "Div", "Neg", "Identity"};
      if (!n->domain.empty() || !kDifferentiable.count(n->op_type))
        return fail(
            "differentiating op {} (node '{}') is not supported (only Add, Sub, Mul, Div, Neg, "
            "Identity)",
            n->op_type, n->name);
      for (const Value* in : n->inputs)
        if (in) needed.insert(in);
      backward_.push_back(n);
    }

    out_ = &out;
    if (varying.count(y)) adjoint_[y] = add("FillLike", kGradDomain, 1, {y}, 1.0f);
    for (const Node* n : backward_) {
      auto at = adjoint_.find(n->outputs[0]);
      if (at == adjoint_.end()) continue;
      Value* dc = at->second;
      Value *a = n->input(0), *b = n->input(1);
      const std::string& op = n->op_type;
      if (op == "Identity") contribute(a, dc, varying, constant);
      if (op == "Neg") contribute(a, add("Neg", "", kForwardOpset, {dc}), varying, constant);
      if (op == "Add" || op == "Sub") {
        contribute(a, dc, varying, constant);
        if (op == "Add")
          contribute(b, dc, varying, constant);
        else if (wanted(b, varying, constant))
          contribute(b, add("Neg", "", kForwardOpset, {dc}), varying, constant);
      }
      if (op == "Mul") {
        if (wanted(a, varying, constant))
          contribute(a, add("Mul", "", kForwardOpset, {dc, b}), varying, constant);
        if (wanted(b, varying, constant))
          contribute(b, add("Mul", "", kForwardOpset, {dc, a}), varying, constant);
      }
      if (op == "Div") {
        if (wanted(a, varying, constant))
          contribute(a, add("Div", "", kForwardOpset, {dc, b}), varying, constant);
        if (wanted(b, varying, constant)) {
          Value* t = add("Mul", "", kForwardOpset, {dc, n->outputs[0]});
          t = add("Div", "", kForwardOpset, {t, b});
          contribute(b, add("Neg", "", kForwardOpset, {t}), varying, constant);
        }
      }
    }
    for (size_t k = 0; k < grad_.outputs.size(); ++k) {
      Value* result = grad_.outputs[k];
      if (!result) continue;
      auto at = adjoint_.find(x_values[k]);
      Value* src =
          at != adjoint_.end() ? at->second : add("FillLike", kGradDomain, 1, {x_values[k]}, 0.0f);
      Node* id = add_node("Identity", "", kForwardOpset, {src});
      id->outputs.push_back(result);
      result->producer = id;
    }
    return true;
  }

 private:
  template <typename... Args>
  bool fail(fmt::format_string<Args...> f, Args&&... args) {
    diag_.node_error(grad_.name, grad_.op_type, f, std::forward<Args>(args)...);
    return false;
  }
  static bool wanted(const Value* v, const std::set<const Value*>& varying,
                     const std::set<const Value*>& constant) {
    return v && varying.count(v) && !constant.count(v);
  }
  Node* add_node(const char* op, const char* domain, int opset, std::vector<Value*> inputs) {
    auto n = std::make_unique<Node>();
    n->name = fmt::format("{}/grad{}", grad_.name, counter_++);
    n->op_type = op;
    n->domain = domain;
    n->opset = opset;
    n->inputs = std::move(inputs);
    out_->push_back(std::move(n));
    return out_->back().get();
  }
  // A new node with one new output value; `fill` sets FillLike's value.
  Value* add(const char* op, const char* domain, int opset, std::vector<Value*> inputs,
             float fill = 0) {
    Node* n = add_node(op, domain, opset, std::move(inputs));
    if (std::string(op) == "FillLike") {
      Attribute& a = n->attributes["value"];
      a.kind = Attribute::Kind::kFloat;
      a.f = fill;
    }
    Value* v = g_.add_value(n->name);
    v->producer = n;
    n->outputs.push_back(v);
    return v;
  }
  // Adds `d`, a gradient of v's broadcast shape, into v's adjoint.
  void contribute(Value* v, Value* d, const std::set<const Value*>& varying,
                  const std::set<const Value*>& constant) {
    if (!wanted(v, varying, constant)) return;
    d = add("SumToShape", kGradDomain, 1, {d, v});
    auto at = adjoint_.find(v);
    adjoint_[v] = at == adjoint_.end() ? d : add("Add", "", kForwardOpset, {at->second, d});
  }

  Graph& g_;
  Node& grad_;
  Diagnostics& diag_;
  std::vector<const Node*> backward_;
  std::map<const Value*, Value*> adjoint_;
  std::vector<std::unique_ptr<Node>>* out_ = nullptr;
  int counter_ = 0;
};

}  // namespace

bool lower_gradients(Module& module, Diagnostics& diag) {
  Graph& g = *module.graph;
  size_t i = 0;
  while (i < g.nodes.size()) {
    Node& n = *g.nodes[i];
    if (n.domain != "ai.onnx.preview.training" || n.op_type != "Gradient") {
      ++i;
      continue;
    }
    std::vector<const Node*> before;
    for (size_t k = 0; k < i; ++k) before.push_back(g.nodes[k].get());
    std::vector<std::unique_ptr<Node>> replacement;
    if (!GradientLowering(g, n, diag).run(replacement, before)) return false;
    const size_t count = replacement.size();
    g.nodes.erase(g.nodes.begin() + static_cast<long>(i));
    g.nodes.insert(g.nodes.begin() + static_cast<long>(i),
                   std::make_move_iterator(replacement.begin()),
                   std::make_move_iterator(replacement.end()));
    i += count;
  }
  return true;
}

std::vector<OpRegistration> gradient_ops() {
  return {
      {"ai.onnx.preview.training", "Gradient", 1, 1, &kGradient},
      {kGradDomain, "FillLike", 1, 1, &kFillLike},
      {kGradDomain, "SumToShape", 1, 1, &kSumToShape},
  };
}

}  // namespace onnxc
