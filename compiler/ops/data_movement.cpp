// Ops that move data: Transpose, Slice and Expand (one strided copy each), Concat and Split
// (block copies), Gather. All fold when their inputs are constant.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "ops/broadcast.h"
#include "ops/registry.h"
#include "onnxc/transform.h"

namespace onnxc {
namespace {

// Calls f with an unsigned type as wide as one element, so moves work for every plain dtype.
template <typename F>
bool visit_element_size(DataType t, F&& f) {
  if (t == DataType::kString || dtype_info(t).bits < 8) return false;
  switch (dtype_info(t).bits) {
    case 8: f(uint8_t{}); return true;
    case 16: f(uint16_t{}); return true;
    case 32: f(uint32_t{}); return true;
    case 64: f(uint64_t{}); return true;
    default: return false;
  }
}

std::string element_type(DataType t) { return fmt::format("uint{}_t", dtype_info(t).bits); }

std::vector<int64_t> contiguous_strides(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
  return st;
}

bool movable(InferContext& ctx, size_t input) {
  DataType t = ctx.input(input)->dtype;
  if (t == DataType::kString || dtype_info(t).bits < 8)
    return ctx.fail("element type {} is not supported here", dtype_name(t));
  if (ctx.input(input)->shape.size() > kMaxRank) return ctx.fail("rank exceeds {}", kMaxRank);
  return true;
}

struct StridedState : OpState {
  StridedCopyParams p;
};

// Transpose, Slice and Expand differ only in how infer() builds the strided view.
class StridedCopyOp : public OpHandler {
 public:
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in, std::vector<Tensor>& out) const override {
    const auto& p = n.state_as<StridedState>().p;
    return visit_element_size(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      strided_copy_ref(p, in[0]->as<T>(), out[0].as<T>());
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& p = ctx.node().state_as<StridedState>().p;
    auto arr = [&](const index_t* v) { return fmt::format("{{{}}}", fmt::join(v, v + p.rank, ", ")); };
    std::string t = element_type(ctx.input(0)->dtype);
    ctx.include("onnxc/transform.h");
    ctx.line("static constexpr onnxc::StridedCopyParams p = {{{}, {}, {}, {}, {}}};", p.rank, arr(p.dims),
             arr(p.in_strides), p.offset, p.numel);
    ctx.line("onnxc::strided_copy_ref(p, reinterpret_cast<const {0}*>({1}), reinterpret_cast<{0}*>({2}));", t,
             ctx.in(0), ctx.out(0));
  }

 protected:
  static void set_view(InferContext& ctx, const Shape& out, const std::vector<int64_t>& strides, int64_t offset) {
    StridedCopyParams p{};
    p.rank = static_cast<int>(out.size());
    for (size_t i = 0; i < out.size(); ++i) {
      p.dims[i] = out[i];
      p.in_strides[i] = strides[i];
    }
    p.offset = offset;
    p.numel = shape_numel(out);
    ctx.make_state<StridedState>().p = p;
    ctx.set_output(0, ctx.input(0)->dtype, out);
  }
};

class TransposeOp final : public StridedCopyOp {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1) || !movable(ctx, 0)) return false;
    const Shape& in = ctx.input(0)->shape;
    std::vector<int64_t> perm(in.size());
    std::iota(perm.rbegin(), perm.rend(), 0);
    perm = ctx.attr_ints("perm", perm);
    std::vector<int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i)
      if (sorted[i] != static_cast<int64_t>(i) || sorted.size() != in.size())
        return ctx.fail("perm {} is not a permutation of the {} axes", cpp_ints(perm), in.size());
    auto st = contiguous_strides(in);
    Shape out;
    std::vector<int64_t> strides;
    for (int64_t a : perm) {
      out.push_back(in[static_cast<size_t>(a)]);
      strides.push_back(st[static_cast<size_t>(a)]);
    }
    set_view(ctx, out, strides, 0);
    return true;
  }
};

class SliceOp final : public StridedCopyOp {
 public:
  bool infer(InferContext& ctx) const override {
    const Shape& in = ctx.input(0)->shape;
    const int64_t rank = static_cast<int64_t>(in.size());
    std::vector<int64_t> starts, ends, axes, steps;
    if (ctx.opset() < 10) {
      if (!ctx.check_arity(1, 1, 1, 1)) return false;
      starts = ctx.attr_ints("starts");
      ends = ctx.attr_ints("ends");
      axes = ctx.attr_ints("axes");
    } else {
      if (!ctx.check_arity(3, 5, 1, 1)) return false;
      std::vector<int64_t>* dst[] = {&starts, &ends, &axes, &steps};
      for (size_t i = 1; i < ctx.num_inputs(); ++i) {
        if (!ctx.has_input(i)) continue;
        const Tensor* t = ctx.constant_input(i);
        if (!t) return ctx.fail("input {} must be a constant", i);
        *dst[i - 1] = t->to_ints();
      }
    }
    if (!movable(ctx, 0)) return false;
    if (axes.empty())
      for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
      return ctx.fail("starts, ends, axes and steps must have the same length");
    Shape out = in;
    auto st = contiguous_strides(in);
    std::vector<int64_t> strides = st;
    int64_t offset = 0;
    std::vector<bool> seen(in.size(), false);
    for (size_t i = 0; i < starts.size(); ++i) {
      int64_t a = axes[i];
      if (!ctx.normalize_axis(a, rank)) return false;
      if (seen[static_cast<size_t>(a)]) return ctx.fail("axis {} is repeated", a);
      seen[static_cast<size_t>(a)] = true;
      int64_t dim = in[static_cast<size_t>(a)], step = steps[i];
      if (step == 0) return ctx.fail("steps must be non-zero");
      auto norm = [&](int64_t v) { return v < 0 ? v + dim : v; };
      int64_t s = norm(starts[i]), e = norm(ends[i]);
      // Clamp per the spec: [0, dim] for positive steps, [-1, dim - 1] for negative ones.
      if (step > 0) {
        s = std::clamp<int64_t>(s, 0, dim);
        e = std::clamp<int64_t>(e, 0, dim);
      } else {
        s = std::clamp<int64_t>(s, 0, dim - 1);
        e = std::clamp<int64_t>(e, -1, dim - 1);
      }
      int64_t count = step > 0 ? (e - s + step - 1) / step : (s - e + (-step) - 1) / (-step);
      count = std::max<int64_t>(count, 0);
      out[static_cast<size_t>(a)] = count;
      if (count) offset += s * st[static_cast<size_t>(a)];
      strides[static_cast<size_t>(a)] = st[static_cast<size_t>(a)] * step;
    }
    if (shape_numel(out) == 0) offset = 0;
    set_view(ctx, out, strides, offset);
    return true;
  }
};

class ExpandOp final : public StridedCopyOp {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 2, 1, 1) || !movable(ctx, 0)) return false;
    const Tensor* t = ctx.constant_input(1);
    if (!t) return ctx.fail("shape input must be a constant");
    Shape out;
    if (!broadcast_shapes({ctx.input(0)->shape, t->to_ints()}, out))
      return ctx.fail("shape {} does not broadcast with input {}", cpp_ints(t->to_ints()), shape_str(ctx.input(0)->shape));
    if (out.size() > kMaxRank) return ctx.fail("rank exceeds {}", kMaxRank);
    BroadcastParams bp = make_broadcast_params(out, ctx.input(0)->shape, ctx.input(0)->shape);
    set_view(ctx, out, std::vector<int64_t>(bp.a_strides, bp.a_strides + out.size()), 0);
    return true;
  }
};

// Concat and Split: [outer, axis, inner] views copied block by block.
struct BlocksState : OpState {
  int64_t outer = 1, inner = 1;
  std::vector<int64_t> sizes;  // per input (Concat) or output (Split), along the axis
  int64_t total = 0;
};

void axis_view(const Shape& s, int64_t axis, BlocksState& b) {
  b.outer = shape_numel(Shape(s.begin(), s.begin() + axis));
  b.inner = shape_numel(Shape(s.begin() + axis + 1, s.end()));
}

class ConcatOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1 << 20, 1, 1)) return false;
    const Value* first = ctx.input(0);
    int64_t rank = static_cast<int64_t>(first->shape.size());
    if (!ctx.has_attr("axis") && ctx.opset() >= 4) return ctx.fail("attribute 'axis' is required");
    int64_t axis = ctx.attr_int("axis", 1);
    if (!ctx.normalize_axis(axis, rank) || !movable(ctx, 0)) return false;
    auto& b = ctx.make_state<BlocksState>();
    Shape out = first->shape;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const Value* v = ctx.input(i);
      if (!v || v->dtype != first->dtype || v->shape.size() != first->shape.size())
        return ctx.fail("input {} must have the type and rank of input 0", i);
      for (int64_t d = 0; d < rank; ++d)
        if (d != axis && v->shape[static_cast<size_t>(d)] != first->shape[static_cast<size_t>(d)])
          return ctx.fail("input {} has shape {}, incompatible with {} off axis {}", i, shape_str(v->shape),
                          shape_str(first->shape), axis);
      b.sizes.push_back(v->shape[static_cast<size_t>(axis)]);
    }
    b.total = std::accumulate(b.sizes.begin(), b.sizes.end(), int64_t{0});
    out[static_cast<size_t>(axis)] = b.total;
    axis_view(out, axis, b);
    ctx.set_output(0, first->dtype, out);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in, std::vector<Tensor>& out) const override {
    const auto& b = n.state_as<BlocksState>();
    return visit_element_size(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      int64_t at = 0;
      for (size_t i = 0; i < in.size(); ++i) {
        block_copy_ref(in[i]->as<T>(), out[0].as<T>() + at * b.inner, b.outer, b.sizes[i] * b.inner,
                       b.sizes[i] * b.inner, b.total * b.inner);
        at += b.sizes[i];
      }
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& b = ctx.node().state_as<BlocksState>();
    std::string t = element_type(ctx.input(0)->dtype);
    ctx.include("onnxc/transform.h");
    int64_t at = 0;
    for (size_t i = 0; i < b.sizes.size(); ++i) {
      ctx.line("onnxc::block_copy_ref(reinterpret_cast<const {0}*>({1}), reinterpret_cast<{0}*>({2}) + {3}, {4}, {5}, {5}, {6});",
               t, ctx.in(i), ctx.out(0), at * b.inner, b.outer, b.sizes[i] * b.inner, b.total * b.inner);
      at += b.sizes[i];
    }
  }
};

class SplitOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 2, 1, 1 << 20) || !movable(ctx, 0)) return false;
    const Value* x = ctx.input(0);
    int64_t axis = ctx.attr_int("axis", 0);
    if (!ctx.normalize_axis(axis, static_cast<int64_t>(x->shape.size()))) return false;
    int64_t dim = x->shape[static_cast<size_t>(axis)], n = static_cast<int64_t>(ctx.num_outputs());
    std::vector<int64_t> split;
    if (ctx.has_input(1)) {
      const Tensor* t = ctx.constant_input(1);
      if (!t) return ctx.fail("split input must be a constant");
      split = t->to_ints();
    } else if (ctx.opset() < 13) {
      split = ctx.attr_ints("split");
    }
    if (split.empty()) {
      if (ctx.opset() >= 18) {
        int64_t parts = ctx.attr_int("num_outputs", n);
        if (parts != n) return ctx.fail("num_outputs {} differs from the {} outputs", parts, n);
      }
      int64_t chunk = (dim + n - 1) / n;  // opset 18: the last chunk may be smaller
      if (ctx.opset() < 18 && dim % n) return ctx.fail("axis dim {} does not split evenly into {}", dim, n);
      for (int64_t i = 0; i < n; ++i) split.push_back(std::max<int64_t>(0, std::min(chunk, dim - i * chunk)));
    }
    if (static_cast<int64_t>(split.size()) != n) return ctx.fail("split has {} entries for {} outputs", split.size(), n);
    if (std::accumulate(split.begin(), split.end(), int64_t{0}) != dim)
      return ctx.fail("split sizes {} do not add up to the axis dim {}", cpp_ints(split), dim);
    auto& b = ctx.make_state<BlocksState>();
    b.sizes = split;
    b.total = dim;
    axis_view(x->shape, axis, b);
    for (int64_t i = 0; i < n; ++i) {
      Shape out = x->shape;
      out[static_cast<size_t>(axis)] = split[static_cast<size_t>(i)];
      ctx.set_output(static_cast<size_t>(i), x->dtype, out);
    }
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in, std::vector<Tensor>& out) const override {
    const auto& b = n.state_as<BlocksState>();
    return visit_element_size(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      int64_t at = 0;
      for (size_t i = 0; i < out.size(); ++i) {
        if (!out[i].data.empty())
          block_copy_ref(in[0]->as<T>() + at * b.inner, out[i].as<T>(), b.outer, b.sizes[i] * b.inner,
                         b.total * b.inner, b.sizes[i] * b.inner);
        at += b.sizes[i];
      }
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& b = ctx.node().state_as<BlocksState>();
    std::string t = element_type(ctx.input(0)->dtype);
    ctx.include("onnxc/transform.h");
    int64_t at = 0;
    for (size_t i = 0; i < b.sizes.size(); ++i) {
      if (ctx.output(i))
        ctx.line("onnxc::block_copy_ref(reinterpret_cast<const {0}*>({1}) + {2}, reinterpret_cast<{0}*>({3}), {4}, {5}, {6}, {5});",
                 t, ctx.in(0), at * b.inner, ctx.out(i), b.outer, b.sizes[i] * b.inner, b.total * b.inner);
      at += b.sizes[i];
    }
  }
};

struct GatherState : OpState {
  int64_t outer = 1, axis_dim = 1, inner = 1, num_indices = 1;
};

class GatherOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 2, 1, 1) || !movable(ctx, 0) || !ctx.check_dtype(1, {DataType::kInt64, DataType::kInt32}))
      return false;
    const Value *x = ctx.input(0), *idx = ctx.input(1);
    int64_t rank = static_cast<int64_t>(x->shape.size());
    if (rank < 1) return ctx.fail("data must have rank >= 1");
    int64_t axis = ctx.attr_int("axis", 0);
    if (!ctx.normalize_axis(axis, rank)) return false;
    auto& s = ctx.make_state<GatherState>();
    s.outer = shape_numel(Shape(x->shape.begin(), x->shape.begin() + axis));
    s.axis_dim = x->shape[static_cast<size_t>(axis)];
    s.inner = shape_numel(Shape(x->shape.begin() + axis + 1, x->shape.end()));
    s.num_indices = idx->numel();
    if (const Tensor* t = ctx.constant_input(1))
      for (int64_t k : t->to_ints())
        if (k < -s.axis_dim || k >= s.axis_dim) return ctx.fail("index {} is out of range for axis dim {}", k, s.axis_dim);
    Shape out(x->shape.begin(), x->shape.begin() + axis);
    out.insert(out.end(), idx->shape.begin(), idx->shape.end());
    out.insert(out.end(), x->shape.begin() + axis + 1, x->shape.end());
    ctx.set_output(0, x->dtype, out);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in, std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<GatherState>();
    return visit_element_size(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      if (in[1]->dtype == DataType::kInt64)
        gather_ref(in[0]->as<T>(), in[1]->as<int64_t>(), out[0].as<T>(), s.outer, s.axis_dim, s.inner, s.num_indices);
      else
        gather_ref(in[0]->as<T>(), in[1]->as<int32_t>(), out[0].as<T>(), s.outer, s.axis_dim, s.inner, s.num_indices);
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<GatherState>();
    ctx.include("onnxc/transform.h");
    ctx.line("onnxc::gather_ref(reinterpret_cast<const {0}*>({1}), {2}, reinterpret_cast<{0}*>({3}), {4}, {5}, {6}, {7});",
             element_type(ctx.input(0)->dtype), ctx.in(0), ctx.in(1), ctx.out(0), s.outer, s.axis_dim, s.inner,
             s.num_indices);
  }
};

const TransposeOp kTranspose;
const SliceOp kSlice;
const ExpandOp kExpand;
const ConcatOp kConcat;
const SplitOp kSplit;
const GatherOp kGather;

}  // namespace

std::vector<OpRegistration> data_movement_ops() {
  return {{"", "Transpose", 1, kMaxOpset, &kTranspose}, {"", "Slice", 1, kMaxOpset, &kSlice},
          {"", "Expand", 8, kMaxOpset, &kExpand},       {"", "Concat", 1, kMaxOpset, &kConcat},
          {"", "Split", 1, kMaxOpset, &kSplit},         {"", "Gather", 1, kMaxOpset, &kGather}};
}

}  // namespace onnxc
