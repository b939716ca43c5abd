// Indexed writes and reads: ScatterND (11, 13, 16 reductions add/mul, 18 max/min),
// ScatterElements (11, 13, 16, 18 likewise), Scatter (9-10, ScatterElements without reduction)
// and GatherND (11, 12 batch_dims, 13). Generated code calls the onnxc/scatter_gather.h kernels
// with the real element type; evaluate() runs them on a host type of the same size ("none") or
// on the arithmetic type (reductions).
#include "onnxc/scatter_gather.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "ops/dispatch.h"
#include "ops/registry.h"
#include "ops/tensor/indexing_util.h"

namespace onnxc {
namespace {

using indexing::array_literal;
using indexing::check_movable;
using indexing::product;
using indexing::strides_of;
using indexing::visit_element_size;

// Reads the `reduction` attribute (opset 16 on; max/min from 18). Reductions need arithmetic
// element types.
bool parse_reduction(InferContext& ctx, DataType t, int& reduction) {
  const std::string r = ctx.attr_string("reduction", "none");
  if (r == "none")
    reduction = kScatterNone;
  else if (r == "add")
    reduction = kScatterAdd;
  else if (r == "mul")
    reduction = kScatterMul;
  else if (r == "max" && ctx.opset() >= 18)
    reduction = kScatterMax;
  else if (r == "min" && ctx.opset() >= 18)
    reduction = kScatterMin;
  else
    return ctx.fail("reduction '{}' is not valid at opset {}", r, ctx.opset());
  if (ctx.has_attr("reduction") && ctx.opset() < 16)
    return ctx.fail("the reduction attribute needs opset 16, the model uses {}", ctx.opset());
  if (reduction != kScatterNone && !in_type_set(t, kAllPlain))
    return ctx.fail("reduction '{}' on type {} is not supported", r, dtype_name(t));
  return true;
}

// Calls f(T{}, I{}) for data input 0 and index input 1: the element's host type (the arithmetic
// type when a reduction is needed, else one of the same size) and the index type.
template <typename F>
bool visit_data_index(const std::vector<const Tensor*>& in, bool arithmetic, F&& f) {
  auto with_index = [&](auto t) {
    in[1]->dtype == DataType::kInt32 ? f(t, int32_t{}) : f(t, int64_t{});
  };
  return arithmetic ? visit_dtype<kAllPlain>(in[0]->dtype, with_index)
                    : visit_element_size(in[0]->dtype, with_index);
}

// Constant indices are checked at compile time; run-time ones are clamped by the kernels.
bool check_index_range(InferContext& ctx, int64_t k, int64_t dim) {
  if (k < -dim || k >= dim)
    return ctx.fail("index {} is out of range for an axis of {} elements", k, dim);
  return true;
}

// ---- ScatterND ------------------------------------------------------------------------------

struct ScatterNDState : OpState {
  ScatterNDParams p{};
};

class ScatterNDOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(3, 3, 1, 1) || !check_movable(ctx, 0) ||
        !ctx.check_dtype(1, {DataType::kInt64}))
      return false;
    const Value *x = ctx.input(0), *idx = ctx.input(1), *upd = ctx.input(2);
    if (upd->dtype != x->dtype)
      return ctx.fail("updates type {} differs from data type {}", dtype_name(upd->dtype),
                      dtype_name(x->dtype));
    const Shape &xs = x->shape, &is = idx->shape;
    if (xs.empty() || is.empty()) return ctx.fail("data and indices must have rank >= 1");
    const int64_t k = is.back();
    if (k < 1 || k > static_cast<int64_t>(xs.size()))
      return ctx.fail("indices.shape[-1] = {} must be in [1, rank(data) = {}]", k, xs.size());
    Shape want(is.begin(), is.end() - 1);
    want.insert(want.end(), xs.begin() + k, xs.end());
    if (upd->shape != want)
      return ctx.fail("updates have shape {}, expected {} (indices.shape[:-1] + data.shape[k:])",
                      shape_str(upd->shape), shape_str(want));
    auto& s = ctx.make_state<ScatterNDState>();
    ScatterNDParams& p = s.p;
    if (!parse_reduction(ctx, x->dtype, p.reduction)) return false;
    const auto st = strides_of(xs);
    p.numel = x->numel();
    p.k = static_cast<int>(k);
    for (int64_t d = 0; d < k; ++d) {
      p.dims[d] = xs[static_cast<size_t>(d)];
      p.strides[d] = st[static_cast<size_t>(d)];
    }
    p.num_updates = product(is, 0, is.size() - 1);
    p.slice = product(xs, static_cast<size_t>(k), xs.size());
    if (const Tensor* t = ctx.constant_input(1)) {
      const auto v = t->to_ints();
      for (size_t i = 0; i < v.size(); ++i)
        if (!check_index_range(ctx, v[i], p.dims[i % static_cast<size_t>(k)])) return false;
    }
    ctx.set_output(0, x->dtype, xs);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& p = n.state_as<ScatterNDState>().p;
    return visit_data_index(in, p.reduction != kScatterNone, [&](auto tag, auto itag) {
      using T = decltype(tag);
      scatter_nd_ref(p, in[0]->as<T>(), in[1]->as<decltype(itag)>(), in[2]->as<T>(),
                     out[0].as<T>());
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& p = ctx.node().state_as<ScatterNDState>().p;
    ctx.include("onnxc/scatter_gather.h");
    ctx.line(
        "static constexpr onnxc::ScatterNDParams p = {{/*numel=*/{}, /*k=*/{}, /*dims=*/{}, "
        "/*strides=*/{}, /*num_updates=*/{}, /*slice=*/{}, /*reduction=*/{}}};",
        p.numel, p.k, array_literal(p.dims, p.k), array_literal(p.strides, p.k), p.num_updates,
        p.slice, p.reduction);
    ctx.line("onnxc::scatter_nd_ref(p, {}, {}, {}, {});", ctx.in(0), ctx.in(1), ctx.in(2),
             ctx.out(0));
  }
};

// ---- ScatterElements and Scatter ------------------------------------------------------------

struct ScatterElementsState : OpState {
  ScatterElementsParams p{};
};

class ScatterElementsOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(3, 3, 1, 1) || !check_movable(ctx, 0) ||
        !ctx.check_dtype(1, {DataType::kInt64, DataType::kInt32}))
      return false;
    const Value *x = ctx.input(0), *idx = ctx.input(1), *upd = ctx.input(2);
    if (upd->dtype != x->dtype)
      return ctx.fail("updates type {} differs from data type {}", dtype_name(upd->dtype),
                      dtype_name(x->dtype));
    const int64_t rank = static_cast<int64_t>(x->shape.size());
    if (rank < 1) return ctx.fail("data must have rank >= 1");
    if (idx->shape.size() != x->shape.size())
      return ctx.fail("indices {} must have the rank of data {}", shape_str(idx->shape),
                      shape_str(x->shape));
    if (upd->shape != idx->shape)
      return ctx.fail("updates {} must have the shape of indices {}", shape_str(upd->shape),
                      shape_str(idx->shape));
    int64_t axis = ctx.attr_int("axis", 0);
    if (!ctx.normalize_axis(axis, rank)) return false;
    for (size_t d = 0; d < x->shape.size(); ++d)
      if (static_cast<int64_t>(d) != axis && idx->shape[d] > x->shape[d])
        return ctx.fail("indices dim {} is {}, larger than the data's {}", d, idx->shape[d],
                        x->shape[d]);
    auto& s = ctx.make_state<ScatterElementsState>();
    ScatterElementsParams& p = s.p;
    p.reduction = kScatterNone;
    if (ctx.node().op_type != "Scatter" && !parse_reduction(ctx, x->dtype, p.reduction))
      return false;
    p.rank = static_cast<int>(rank);
    p.axis = static_cast<int>(axis);
    const auto st = strides_of(x->shape);
    std::copy(idx->shape.begin(), idx->shape.end(), p.dims);
    std::copy(st.begin(), st.end(), p.x_strides);
    p.axis_dim = x->shape[static_cast<size_t>(axis)];
    p.numel = idx->numel();
    p.x_numel = x->numel();
    if (const Tensor* t = ctx.constant_input(1))
      for (int64_t k : t->to_ints())
        if (!check_index_range(ctx, k, p.axis_dim)) return false;
    ctx.set_output(0, x->dtype, x->shape);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& p = n.state_as<ScatterElementsState>().p;
    return visit_data_index(in, p.reduction != kScatterNone, [&](auto tag, auto itag) {
      using T = decltype(tag);
      scatter_elements_ref(p, in[0]->as<T>(), in[1]->as<decltype(itag)>(), in[2]->as<T>(),
                           out[0].as<T>());
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& p = ctx.node().state_as<ScatterElementsState>().p;
    ctx.include("onnxc/scatter_gather.h");
    ctx.line(
        "static constexpr onnxc::ScatterElementsParams p = {{/*rank=*/{}, /*axis=*/{}, "
        "/*dims=*/{}, /*x_strides=*/{}, /*axis_dim=*/{}, /*numel=*/{}, /*x_numel=*/{}, "
        "/*reduction=*/{}}};",
        p.rank, p.axis, array_literal(p.dims, p.rank), array_literal(p.x_strides, p.rank),
        p.axis_dim, p.numel, p.x_numel, p.reduction);
    ctx.line("onnxc::scatter_elements_ref(p, {}, {}, {}, {});", ctx.in(0), ctx.in(1), ctx.in(2),
             ctx.out(0));
  }
};

// ---- GatherND -------------------------------------------------------------------------------

struct GatherNDState : OpState {
  GatherNDParams p{};
};

class GatherNDOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 2, 1, 1) || !check_movable(ctx, 0) ||
        !ctx.check_dtype(1, {DataType::kInt64}))
      return false;
    const Value *x = ctx.input(0), *idx = ctx.input(1);
    const Shape &xs = x->shape, &is = idx->shape;
    const int64_t b = ctx.attr_int("batch_dims", 0);
    if (b != 0 && ctx.opset() < 12) return ctx.fail("batch_dims needs opset 12");
    if (xs.empty() || is.empty()) return ctx.fail("data and indices must have rank >= 1");
    const int64_t r = static_cast<int64_t>(xs.size()), q = static_cast<int64_t>(is.size());
    if (b < 0 || b >= std::min(r, q))
      return ctx.fail("batch_dims {} must be in [0, min(rank(data), rank(indices)) = {})", b,
                      std::min(r, q));
    const size_t bd = static_cast<size_t>(b);
    for (size_t d = 0; d < bd; ++d)
      if (xs[d] != is[d])
        return ctx.fail("batch dim {} differs: data has {}, indices {}", d, xs[d], is[d]);
    const int64_t k = is.back();
    if (k < 1 || k > r - b)
      return ctx.fail("indices.shape[-1] = {} must be in [1, rank(data) - batch_dims = {}]", k,
                      r - b);
    Shape out(is.begin(), is.end() - 1);
    out.insert(out.end(), xs.begin() + b + k, xs.end());
    if (out.size() > static_cast<size_t>(kMaxRank))
      return ctx.fail("output rank {} exceeds {}", out.size(), kMaxRank);
    auto& s = ctx.make_state<GatherNDState>();
    GatherNDParams& p = s.p;
    const auto st = strides_of(xs);
    p.batches = product(xs, 0, bd);
    p.batch_stride = product(xs, bd, xs.size());
    p.k = static_cast<int>(k);
    for (int64_t d = 0; d < k; ++d) {
      p.dims[d] = xs[bd + static_cast<size_t>(d)];
      p.strides[d] = st[bd + static_cast<size_t>(d)];
    }
    p.per_batch = product(is, bd, is.size() - 1);
    p.slice = product(xs, bd + static_cast<size_t>(k), xs.size());
    if (const Tensor* t = ctx.constant_input(1)) {
      const auto v = t->to_ints();
      for (size_t i = 0; i < v.size(); ++i)
        if (!check_index_range(ctx, v[i], p.dims[i % static_cast<size_t>(k)])) return false;
    }
    ctx.set_output(0, x->dtype, out);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& p = n.state_as<GatherNDState>().p;
    return visit_data_index(in, false, [&](auto tag, auto itag) {
      using T = decltype(tag);
      gather_nd_ref(p, in[0]->as<T>(), in[1]->as<decltype(itag)>(), out[0].as<T>());
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& p = ctx.node().state_as<GatherNDState>().p;
    ctx.include("onnxc/scatter_gather.h");
    ctx.line(
        "static constexpr onnxc::GatherNDParams p = {{/*batches=*/{}, /*batch_stride=*/{}, "
        "/*k=*/{}, /*dims=*/{}, /*strides=*/{}, /*per_batch=*/{}, /*slice=*/{}}};",
        p.batches, p.batch_stride, p.k, array_literal(p.dims, p.k), array_literal(p.strides, p.k),
        p.per_batch, p.slice);
    ctx.line("onnxc::gather_nd_ref(p, {}, {}, {});", ctx.in(0), ctx.in(1), ctx.out(0));
  }
};

const ScatterNDOp kScatterND;
const ScatterElementsOp kScatterElements;
const GatherNDOp kGatherND;

}  // namespace

std::vector<OpRegistration> scatter_gather_ops() {
  return {{"", "ScatterND", 11, kMaxOpset, &kScatterND},
          {"", "ScatterElements", 11, kMaxOpset, &kScatterElements},
          {"", "Scatter", 9, 10, &kScatterElements},
          {"", "GatherND", 11, kMaxOpset, &kGatherND}};
}

}  // namespace onnxc
