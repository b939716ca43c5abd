// Data-movement ops that index: Gather and GatherElements (see data_movement.cpp for the family).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>

#include "onnxc/transform.h"
#include "ops/broadcast.h"
#include "ops/dispatch.h"
#include "ops/registry.h"
#include "ops/tensor/data_movement.h"

namespace onnxc {
namespace {

// ---- Gather and GatherElements ------------------------------------------------------------------

// Calls f(T{}, I{}): the host type of data input 0, the C++ type of int32/int64 indices input 1.
template <typename F>
bool visit_gather_types(const std::vector<const Tensor*>& in, F&& f) {
  return visit_element_size(in[0]->dtype, [&](auto t) {
    in[1]->dtype == DataType::kInt32 ? f(t, int32_t{}) : f(t, int64_t{});
  });
}

// Constant indices are checked at compile time; run-time ones are clamped by the kernels.
bool check_constant_indices(InferContext& ctx, size_t i, int64_t dim) {
  if (const Tensor* t = ctx.constant_input(i))
    for (int64_t k : t->to_ints())
      if (k < -dim || k >= dim)
        return ctx.fail("index {} is out of range for an axis of {} elements", k, dim);
  return true;
}

struct GatherState : OpState {
  int64_t outer = 1, axis_dim = 1, inner = 1, num_indices = 1;
};

class GatherOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 2, 1, 1) || !check_movable(ctx, 0) ||
        !ctx.check_dtype(1, {DataType::kInt64, DataType::kInt32}))
      return false;
    const Value *x = ctx.input(0), *idx = ctx.input(1);
    const int64_t rank = static_cast<int64_t>(x->shape.size());
    if (rank < 1) return ctx.fail("data must have rank >= 1");
    int64_t axis = ctx.attr_int("axis", 0);
    if (!ctx.normalize_axis(axis, rank)) return false;
    const size_t a = static_cast<size_t>(axis);
    auto& s = ctx.make_state<GatherState>();
    s.outer = dims_product(x->shape, 0, a);
    s.axis_dim = x->shape[a];
    s.inner = dims_product(x->shape, a + 1, x->shape.size());
    s.num_indices = idx->numel();
    if (!check_constant_indices(ctx, 1, s.axis_dim)) return false;
    Shape out(x->shape.begin(), x->shape.begin() + axis);
    out.insert(out.end(), idx->shape.begin(), idx->shape.end());
    out.insert(out.end(), x->shape.begin() + axis + 1, x->shape.end());
    if (out.size() > kMaxRank) return ctx.fail("output rank {} exceeds {}", out.size(), kMaxRank);
    ctx.set_output(0, x->dtype, out);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<GatherState>();
    return visit_gather_types(in, [&](auto tag, auto itag) {
      using T = decltype(tag);
      gather_ref(in[0]->as<T>(), in[1]->as<decltype(itag)>(), out[0].as<T>(), s.outer, s.axis_dim,
                 s.inner, s.num_indices);
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<GatherState>();
    ctx.include("onnxc/transform.h");
    ctx.line(
        "onnxc::gather_ref({}, {}, {}, /*outer=*/{}, /*axis_dim=*/{}, /*inner=*/{}, "
        "/*num_indices=*/{});",
        ctx.in(0), ctx.in(1), ctx.out(0), s.outer, s.axis_dim, s.inner, s.num_indices);
  }
};

struct GatherElementsState : OpState {
  GatherElementsParams p{};
};

class GatherElementsOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 2, 1, 1) || !check_movable(ctx, 0) ||
        !ctx.check_dtype(1, {DataType::kInt64, DataType::kInt32}))
      return false;
    const Value *x = ctx.input(0), *idx = ctx.input(1);
    const int64_t rank = static_cast<int64_t>(x->shape.size());
    if (rank < 1) return ctx.fail("data must have rank >= 1");
    if (idx->shape.size() != x->shape.size())
      return ctx.fail("indices {} must have the rank of data {}", shape_str(idx->shape),
                      shape_str(x->shape));
    int64_t axis = ctx.attr_int("axis", 0);
    if (!ctx.normalize_axis(axis, rank)) return false;
    for (size_t d = 0; d < x->shape.size(); ++d)
      if (static_cast<int64_t>(d) != axis && idx->shape[d] > x->shape[d])
        return ctx.fail("indices dim {} is {}, larger than the data's {}", d, idx->shape[d],
                        x->shape[d]);
    auto& s = ctx.make_state<GatherElementsState>();
    s.p.rank = static_cast<int>(rank);
    s.p.axis = static_cast<int>(axis);
    auto st = contiguous_strides(x->shape);
    std::copy(idx->shape.begin(), idx->shape.end(), s.p.dims);
    std::copy(st.begin(), st.end(), s.p.x_strides);
    s.p.axis_dim = x->shape[static_cast<size_t>(axis)];
    s.p.numel = idx->numel();
    if (!check_constant_indices(ctx, 1, s.p.axis_dim)) return false;
    ctx.set_output(0, x->dtype, idx->shape);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& p = n.state_as<GatherElementsState>().p;
    return visit_gather_types(in, [&](auto tag, auto itag) {
      using T = decltype(tag);
      gather_elements_ref(p, in[0]->as<T>(), in[1]->as<decltype(itag)>(), out[0].as<T>());
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& p = ctx.node().state_as<GatherElementsState>().p;
    auto arr = [&](const index_t* v) { return index_array(v, p.rank); };
    ctx.include("onnxc/transform.h");
    ctx.line("static constexpr onnxc::GatherElementsParams p = {};",
             labeled({{"rank", fmt::format("{}", p.rank)},
                      {"axis", fmt::format("{}", p.axis)},
                      {"dims", arr(p.dims)},
                      {"x_strides", arr(p.x_strides)},
                      {"axis_dim", fmt::format("{}", p.axis_dim)},
                      {"numel", fmt::format("{}", p.numel)}}));
    ctx.line("onnxc::gather_elements_ref(p, {}, {}, {});", ctx.in(0), ctx.in(1), ctx.out(0));
  }
};

const GatherOp kGather;
const GatherElementsOp kGatherElements;

}  // namespace

std::vector<OpRegistration> data_movement_gather_ops() {
  return {{"", "Gather", 1, kMaxOpset, &kGather},
          {"", "GatherElements", 11, kMaxOpset, &kGatherElements}};
}

}  // namespace onnxc
