// Data-movement ops that copy blocks: Concat and Split, as [outer, axis, inner] views copied
// block by block (see data_movement.cpp for the family).
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

// ---- Concat and Split: [outer, axis, inner] views copied block by block -------------------------

struct BlocksState : OpState {
  bool concat = true;  // the blocks are the inputs (Concat) or the outputs (Split)
  int64_t outer = 1, inner = 1;
  std::vector<int64_t> sizes;  // of each block along the axis
  int64_t total = 0;           // the axis dim of the whole tensor
};

// Block i is the slab of sizes[i] along the axis after the blocks before it: `outer` runs of
// sizes[i] * inner elements, copied into (Concat) or out of (Split) the whole tensor.
class BlockCopyOp : public OpHandler {
 public:
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& b = n.state_as<BlocksState>();
    return visit_element_size(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      for_each_block(b, [&](size_t i, int64_t at, int64_t block, int64_t whole) {
        if (b.concat)
          block_copy_ref(in[i]->as<T>(), out[0].as<T>() + at, b.outer, block, block, whole);
        else if (!out[i].data.empty())
          block_copy_ref(in[0]->as<T>() + at, out[i].as<T>(), b.outer, block, whole, block);
      });
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& b = ctx.node().state_as<BlocksState>();
    ctx.include("onnxc/transform.h");
    for_each_block(b, [&](size_t i, int64_t at, int64_t block, int64_t whole) {
      if (b.concat)
        ctx.line(
            "onnxc::block_copy_ref({}, {} + {}, /*outer=*/{}, /*block=*/{}, /*x_stride=*/{}, "
            "/*y_stride=*/{});",
            ctx.in(i), ctx.out(0), at, b.outer, block, block, whole);
      else if (ctx.output(i))
        ctx.line(
            "onnxc::block_copy_ref({} + {}, {}, /*outer=*/{}, /*block=*/{}, /*x_stride=*/{}, "
            "/*y_stride=*/{});",
            ctx.in(0), at, ctx.out(i), b.outer, block, whole, block);
    });
  }

 private:
  // f(block index, its element offset in a row of the whole, its row length, the whole's row).
  template <typename F>
  static void for_each_block(const BlocksState& b, F&& f) {
    int64_t at = 0;
    for (size_t i = 0; i < b.sizes.size(); ++i) {
      f(i, at * b.inner, b.sizes[i] * b.inner, b.total * b.inner);
      at += b.sizes[i];
    }
  }
};

class ConcatOp final : public BlockCopyOp {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, SIZE_MAX, 1, 1) || !check_movable(ctx, 0)) return false;
    const Value* first = ctx.input(0);
    const int64_t rank = static_cast<int64_t>(first->shape.size());
    if (ctx.opset() >= 4 && !ctx.has_attr("axis")) return ctx.fail("attribute 'axis' is required");
    int64_t axis = ctx.attr_int("axis", 1);  // opset 1 defaults to 1
    if (rank == 0) return ctx.fail("inputs must have rank >= 1");
    if (!ctx.normalize_axis(axis, rank)) return false;
    auto& b = ctx.make_state<BlocksState>();
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const Value* v = ctx.input(i);
      if (!v) return ctx.fail("input {} is missing", i);
      if (v->dtype != first->dtype || v->shape.size() != first->shape.size())
        return ctx.fail("input {} ({} {}) must have the type and rank of input 0 ({} {})", i,
                        dtype_name(v->dtype), shape_str(v->shape), dtype_name(first->dtype),
                        shape_str(first->shape));
      for (int64_t d = 0; d < rank; ++d)
        if (d != axis && v->shape[static_cast<size_t>(d)] != first->shape[static_cast<size_t>(d)])
          return ctx.fail("input {} has shape {}, which differs from {} off axis {}", i,
                          shape_str(v->shape), shape_str(first->shape), axis);
      b.sizes.push_back(v->shape[static_cast<size_t>(axis)]);
    }
    b.total = std::accumulate(b.sizes.begin(), b.sizes.end(), int64_t{0});
    Shape out = first->shape;
    out[static_cast<size_t>(axis)] = b.total;
    b.outer = dims_product(out, 0, static_cast<size_t>(axis));
    b.inner = dims_product(out, static_cast<size_t>(axis) + 1, out.size());
    ctx.set_output(0, first->dtype, out);
    return true;
  }
  // One run per input (no outer axis): input k is the output's bytes after inputs 0..k-1.
  AliasInfo alias(const Node& n) const override {
    if (!n.state || n.state_as<BlocksState>().outer != 1) return {};
    return {AliasKind::kConcat, 0};
  }
};

class SplitOp final : public BlockCopyOp {
 public:
  bool infer(InferContext& ctx) const override {
    // The split sizes: input 1 at opset 1 and from 13, attribute `split` before 13.
    const bool input_allowed = ctx.opset() < 2 || ctx.opset() >= 13;
    if (!ctx.check_arity(1, input_allowed ? 2 : 1, 1, SIZE_MAX) || !check_movable(ctx, 0))
      return false;
    const Value* x = ctx.input(0);
    int64_t axis = ctx.attr_int("axis", 0);
    if (x->shape.empty()) return ctx.fail("input must have rank >= 1");
    if (!ctx.normalize_axis(axis, static_cast<int64_t>(x->shape.size()))) return false;
    const int64_t dim = x->shape[static_cast<size_t>(axis)];
    const int64_t n = static_cast<int64_t>(ctx.num_outputs());
    std::vector<int64_t> split;
    if (ctx.has_input(1)) {
      if (!constant_ints(ctx, 1, "split", split)) return false;
    } else if (ctx.opset() < 13) {
      split = ctx.attr_ints("split");
    }
    const bool has_num_outputs = ctx.opset() >= 18 && ctx.has_attr("num_outputs");
    if (has_num_outputs && ctx.has_input(1))
      return ctx.fail("the split input and attribute 'num_outputs' are mutually exclusive");
    if (split.empty()) {
      const int64_t parts = has_num_outputs ? ctx.attr_int("num_outputs", n) : n;
      if (parts != n) return ctx.fail("num_outputs is {} but the node has {} outputs", parts, n);
      if (parts < 1) return ctx.fail("num_outputs must be positive");
      if (dim % n == 0) {
        split.assign(static_cast<size_t>(n), dim / n);
      } else if (ctx.opset() < 18) {
        return ctx.fail("axis dim {} does not split evenly into {} outputs", dim, n);
      } else {  // opset 18: ceil(dim / n) each, the last one smaller
        const int64_t chunk = dim / n + 1, last = dim - chunk * (n - 1);
        if (last < 0)
          return ctx.fail("axis dim {} cannot be split into {} chunks of {}", dim, n, chunk);
        split.assign(static_cast<size_t>(n), chunk);
        split.back() = last;
      }
    }
    if (static_cast<int64_t>(split.size()) != n)
      return ctx.fail("split has {} entries for {} outputs", split.size(), n);
    for (int64_t s : split)
      if (s < 0) return ctx.fail("split sizes must be non-negative, got {}", cpp_ints(split));
    if (std::accumulate(split.begin(), split.end(), int64_t{0}) != dim)
      return ctx.fail("split sizes {} do not add up to the axis dim {}", cpp_ints(split), dim);
    auto& b = ctx.make_state<BlocksState>();
    b.concat = false;
    b.sizes = split;
    b.total = dim;
    b.outer = dims_product(x->shape, 0, static_cast<size_t>(axis));
    b.inner = dims_product(x->shape, static_cast<size_t>(axis) + 1, x->shape.size());
    for (size_t i = 0; i < split.size(); ++i) {
      Shape out = x->shape;
      out[static_cast<size_t>(axis)] = split[i];
      ctx.set_output(i, x->dtype, out);
    }
    return true;
  }
};

const ConcatOp kConcat;
const SplitOp kSplit;

}  // namespace

std::vector<OpRegistration> data_movement_blocks_ops() {
  return {{"", "Concat", 1, kMaxOpset, &kConcat}, {"", "Split", 1, kMaxOpset, &kSplit}};
}

}  // namespace onnxc
