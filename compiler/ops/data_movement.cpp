// Ops that move data without computing on it. Transpose, Slice, Expand, Tile, DepthToSpace and
// SpaceToDepth are each one strided view of their input, built and simplified at compile time and
// copied by one kernel; Concat and Split copy blocks; Gather and GatherElements index; Pad, Trilu
// and OneHot fill. Generated code calls the onnxc/transform.h kernels with the real element
// type; evaluate() runs the same templates on an unsigned type of the same size, which moves the
// same bytes, so every dtype stored in whole bytes folds.
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

namespace onnxc {
namespace {

// Calls f with a host type as wide as one element of `t`; false for strings and packed types.
template <typename F>
bool visit_element_size(DataType t, F&& f) {
  if (t == DataType::kString) return false;
  switch (dtype_info(t).bits) {
    case 8:
      return f(uint8_t{}), true;
    case 16:
      return f(uint16_t{}), true;
    case 32:
      return f(uint32_t{}), true;
    case 64:
      return f(uint64_t{}), true;
    case 128:
      return f(complex128{}), true;
    default:
      return false;
  }
}

// Input i must be addressable element by element and within the kernels' rank limit.
bool check_movable(InferContext& ctx, size_t i) {
  const Value* v = ctx.input(i);
  if (v->dtype == DataType::kString) return ctx.fail("string tensors are not supported");
  if (dtype_info(v->dtype).bits < 8)
    return ctx.fail("packed {}-bit type {} is not supported", dtype_info(v->dtype).bits,
                    dtype_name(v->dtype));
  if (v->shape.size() > kMaxRank)
    return ctx.fail("input {} has rank {}, more than the supported {}", i, v->shape.size(),
                    kMaxRank);
  return true;
}

int64_t dims_product(const Shape& s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to && i < s.size(); ++i) p *= s[i];
  return p;
}

std::vector<int64_t> contiguous_strides(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
  return st;
}

// "{a, b, ...}": the first n entries of a params array, as emit() writes them.
std::string index_array(const index_t* v, int n) {
  return fmt::format("{{{}}}", fmt::join(v, v + n, ", "));
}

// Reads a constant integer input, failing with "<what> input must be a constant" otherwise.
bool constant_ints(InferContext& ctx, size_t i, const char* what, std::vector<int64_t>& out) {
  const Tensor* t = ctx.constant_input(i);
  if (!t) return ctx.fail("{} input must be a constant (its value decides the output shape)", what);
  if (!is_integer(t->dtype)) return ctx.fail("{} input must be an integer tensor", what);
  out = t->to_ints();
  return true;
}

// ---- Strided views ------------------------------------------------------------------------------

// Output axis d walks dims[d] elements, strides[d] input elements apart, from input element offset.
struct View {
  std::vector<int64_t> dims, strides;
  int64_t offset = 0;
};

// Drops unit axes and merges neighbours that are contiguous in the input, so the kernel walks as
// few axes as possible (a slice of whole rows becomes one run, NCHW->NHWC a batched 2-D transpose).
View simplify(const View& v) {
  View s;
  s.offset = v.offset;
  for (size_t d = 0; d < v.dims.size(); ++d) {
    if (v.dims[d] == 0) return View{{0}, {0}, 0};
    if (v.dims[d] == 1) continue;
    if (!s.dims.empty() && s.strides.back() == v.strides[d] * v.dims[d]) {
      s.dims.back() *= v.dims[d];
      s.strides.back() = v.strides[d];
    } else {
      s.dims.push_back(v.dims[d]);
      s.strides.push_back(v.strides[d]);
    }
  }
  return s;
}

enum class CopyKernel { kRef, kRows, kTransposeTiled };
const char* const kCopyKernelNames[] = {"strided_copy_ref", "strided_copy__rows",
                                        "strided_copy__transpose_tiled"};

// Row copies, except for batched 2-D transposes: there one output row reads one cache line per
// element, and large ones evict each other before the next row reuses them; tiles keep them in L1.
CopyKernel choose_copy_kernel(const StridedCopyParams& p) {
  const int r = p.rank;
  if (r >= 2 && p.in_strides[r - 2] == 1 && p.in_strides[r - 1] == p.dims[r - 2] &&
      p.dims[r - 2] >= 16 && p.dims[r - 1] >= 16)
    return CopyKernel::kTransposeTiled;
  return r >= 1 ? CopyKernel::kRows : CopyKernel::kRef;
}

template <typename T>
void run_strided_copy(CopyKernel k, const StridedCopyParams& p, const T* x, T* y) {
  using Kernel = void (*)(const StridedCopyParams&, const T*, T*);
  const Kernel kernels[] = {strided_copy_ref<T>, strided_copy__rows<T>,
                            strided_copy__transpose_tiled<T>};  // in CopyKernel order
  kernels[static_cast<int>(k)](p, x, y);
}

struct StridedState : OpState {
  StridedCopyParams p{};
  CopyKernel kernel = CopyKernel::kRef;
};

// Transpose, Slice, Expand, Tile, DepthToSpace and SpaceToDepth differ only in the view infer()
// builds; they share folding and emission.
class StridedCopyOp : public OpHandler {
 public:
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<StridedState>();
    return visit_element_size(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      run_strided_copy(s.kernel, s.p, in[0]->as<T>(), out[0].as<T>());
    });
  }
  // A copy that reads one contiguous run of the input (a Slice of whole outer rows, a Transpose
  // moving only unit axes) is a view of the input at the run's start.
  AliasInfo alias(const Node& n) const override {
    const Value* x = n.input(0);
    if (!x || !n.state) return {};
    const auto& p = n.state_as<StridedState>().p;
    const size_t elem = dtype_bytes(x->dtype, 1);
    if (p.numel == 0 || dtype_bytes(x->dtype, 2) != 2 * elem) return {};  // sub-byte types
    index_t expect = 1;
    for (int d = p.rank - 1; d >= 0; --d) {
      if (p.dims[d] == 1) continue;
      if (p.in_strides[d] != expect) return {};
      expect *= p.dims[d];
    }
    return {AliasKind::kView, static_cast<size_t>(p.offset) * elem};
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<StridedState>();
    const auto& p = s.p;
    auto arr = [&](const index_t* v) { return index_array(v, p.rank); };
    ctx.include("onnxc/transform.h");
    ctx.line("static constexpr onnxc::StridedCopyParams p = {{{}, {}, {}, {}, {}}};", p.rank,
             arr(p.dims), arr(p.in_strides), p.offset, p.numel);
    ctx.line("onnxc::{}(p, {}, {});", kCopyKernelNames[static_cast<int>(s.kernel)], ctx.in(0),
             ctx.out(0));
  }

 protected:
  // Sets output 0 to `out` (of the input's type), read through view `v` of input 0.
  static bool set_view(InferContext& ctx, const Shape& out, const View& v) {
    View s = simplify(v);
    if (s.dims.size() > kMaxRank)
      return ctx.fail("the copy needs {} strided axes, more than the supported {}", s.dims.size(),
                      kMaxRank);
    auto& st = ctx.make_state<StridedState>();
    st.p.rank = static_cast<int>(s.dims.size());
    std::copy(s.dims.begin(), s.dims.end(), st.p.dims);
    std::copy(s.strides.begin(), s.strides.end(), st.p.in_strides);
    st.p.offset = s.offset;
    st.p.numel = shape_numel(out);
    st.kernel = choose_copy_kernel(st.p);
    ctx.set_output(0, ctx.input(0)->dtype, out);
    return true;
  }
  // The view of a contiguous tensor reshaped to `dims` and then transposed by `perm`.
  static View reshape_transpose(const Shape& dims, const std::vector<int64_t>& perm) {
    auto st = contiguous_strides(dims);
    View v;
    for (int64_t a : perm) {
      v.dims.push_back(dims[static_cast<size_t>(a)]);
      v.strides.push_back(st[static_cast<size_t>(a)]);
    }
    return v;
  }
};

class TransposeOp final : public StridedCopyOp {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1) || !check_movable(ctx, 0)) return false;
    const Shape& in = ctx.input(0)->shape;
    std::vector<int64_t> perm(in.size());
    std::iota(perm.rbegin(), perm.rend(), 0);  // default: reverse the axes
    perm = ctx.attr_ints("perm", perm);
    std::vector<int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size() || i < in.size(); ++i)
      if (sorted.size() != in.size() || sorted[i] != static_cast<int64_t>(i))
        return ctx.fail("perm {} is not a permutation of the {} input axes", cpp_ints(perm),
                        in.size());
    View v = reshape_transpose(in, perm);
    return set_view(ctx, v.dims, v);
  }
};

class SliceOp final : public StridedCopyOp {
 public:
  bool infer(InferContext& ctx) const override {
    std::vector<int64_t> starts, ends, axes, steps;
    const bool from_inputs = ctx.opset() >= 10;  // before 10: attributes, no steps
    if (!ctx.check_arity(from_inputs ? 3 : 1, from_inputs ? 5 : 1, 1, 1)) return false;
    if (from_inputs) {
      std::vector<int64_t>* dst[] = {&starts, &ends, &axes, &steps};
      const char* names[] = {"starts", "ends", "axes", "steps"};
      for (size_t i = 1; i < ctx.num_inputs(); ++i)
        if (ctx.has_input(i) && !constant_ints(ctx, i, names[i - 1], *dst[i - 1])) return false;
    } else {
      if (!ctx.has_attr("starts") || !ctx.has_attr("ends"))
        return ctx.fail("attributes 'starts' and 'ends' are required");
      starts = ctx.attr_ints("starts");
      ends = ctx.attr_ints("ends");
      axes = ctx.attr_ints("axes");
    }
    if (!check_movable(ctx, 0)) return false;
    const Shape& in = ctx.input(0)->shape;
    const int64_t rank = static_cast<int64_t>(in.size());
    if (!ctx.has_input(3) && !ctx.has_attr("axes"))
      for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
    if (!ctx.has_input(4)) steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() ||
        steps.size() != starts.size())
      return ctx.fail("starts, ends, axes and steps must have the same length");
    Shape out = in;
    View v{in, contiguous_strides(in), 0};
    std::vector<bool> seen(in.size(), false);
    for (size_t i = 0; i < starts.size(); ++i) {
      int64_t a = axes[i];
      if (!ctx.normalize_axis(a, rank)) return false;
      const size_t ax = static_cast<size_t>(a);
      if (seen[ax]) return ctx.fail("axis {} is repeated", a);
      seen[ax] = true;
      const int64_t dim = in[ax], step = steps[i];
      if (step == 0) return ctx.fail("steps must be non-zero");
      int64_t s = starts[i] < 0 ? starts[i] + dim : starts[i];
      int64_t e = ends[i] < 0 ? ends[i] + dim : ends[i];
      // Clamped per the spec: to [0, dim] going forwards, [-1, dim - 1] going backwards.
      s = step > 0 ? std::clamp<int64_t>(s, 0, dim) : std::clamp<int64_t>(s, 0, dim - 1);
      e = step > 0 ? std::clamp<int64_t>(e, 0, dim) : std::clamp<int64_t>(e, -1, dim - 1);
      const int64_t span = step > 0 ? e - s : s - e, stride = step > 0 ? step : -step;
      const int64_t count = span > 0 ? (span - 1) / stride + 1 : 0;
      out[ax] = v.dims[ax] = count;
      if (count) v.offset += s * v.strides[ax];
      v.strides[ax] *= step;
    }
    return set_view(ctx, out, v);
  }
};

// The view of `in` broadcast (numpy rules) to `out`: stride 0 on broadcast axes.
View broadcast_view(const Shape& in, const Shape& out) {
  auto st = contiguous_strides(in);
  View v;
  const size_t lead = out.size() - in.size();
  for (size_t d = 0; d < out.size(); ++d) {
    v.dims.push_back(out[d]);
    v.strides.push_back(d < lead || in[d - lead] != out[d] ? 0 : st[d - lead]);
  }
  return v;
}

class ExpandOp final : public StridedCopyOp {
 public:
  bool infer(InferContext& ctx) const override {
    std::vector<int64_t> target;
    if (!ctx.check_arity(2, 2, 1, 1) || !check_movable(ctx, 0) ||
        !constant_ints(ctx, 1, "shape", target))
      return false;
    const Shape& in = ctx.input(0)->shape;
    Shape out;  // the bidirectional broadcast: target dims of 1 keep the input's
    if (std::any_of(target.begin(), target.end(), [](int64_t d) { return d < 0; }) ||
        !broadcast_shapes({in, target}, out))
      return ctx.fail("shape {} does not broadcast with the input shape {}", cpp_ints(target),
                      shape_str(in));
    return set_view(ctx, out, broadcast_view(in, out));
  }
};

class TileOp final : public StridedCopyOp {
 public:
  bool infer(InferContext& ctx) const override {
    const bool axis_form = ctx.opset() < 6;  // Tile-1: (input, tiles, axis) scalars
    if (!ctx.check_arity(axis_form ? 3 : 2, axis_form ? 3 : 2, 1, 1) || !check_movable(ctx, 0))
      return false;
    const Shape& in = ctx.input(0)->shape;
    std::vector<int64_t> repeats(in.size(), 1);
    if (axis_form) {
      std::vector<int64_t> tiles, axis;
      if (!constant_ints(ctx, 1, "tiles", tiles) || !constant_ints(ctx, 2, "axis", axis))
        return false;
      if (tiles.size() != 1 || axis.size() != 1) return ctx.fail("tiles and axis must be scalars");
      if (!ctx.normalize_axis(axis[0], static_cast<int64_t>(in.size()))) return false;
      repeats[static_cast<size_t>(axis[0])] = tiles[0];
    } else if (!constant_ints(ctx, 1, "repeats", repeats)) {
      return false;
    }
    if (repeats.size() != in.size())
      return ctx.fail("repeats has {} entries for an input of rank {}", repeats.size(), in.size());
    // Output axis d of size r*n is viewed as [r, n]: the repeat axis has input stride 0.
    auto st = contiguous_strides(in);
    View v;
    Shape out;
    for (size_t d = 0; d < in.size(); ++d) {
      if (repeats[d] < 0) return ctx.fail("repeats must be non-negative, got {}", repeats[d]);
      out.push_back(in[d] * repeats[d]);
      v.dims.insert(v.dims.end(), {repeats[d], in[d]});
      v.strides.insert(v.strides.end(), {0, st[d]});
    }
    return set_view(ctx, out, v);
  }
};

// DepthToSpace and SpaceToDepth: a reshape of the NCHW input to 6-D and a transpose.
class BlockRearrangeOp final : public StridedCopyOp {
 public:
  explicit BlockRearrangeOp(bool to_space) : to_space_(to_space) {}
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1) || !check_movable(ctx, 0)) return false;
    const Shape& in = ctx.input(0)->shape;
    if (in.size() != 4) return ctx.fail("input must be 4-D (NCHW), got {}", shape_str(in));
    if (!ctx.has_attr("blocksize")) return ctx.fail("attribute 'blocksize' is required");
    const int64_t b = ctx.attr_int("blocksize", 1), n = in[0], c = in[1], h = in[2], w = in[3];
    if (b < 1) return ctx.fail("blocksize must be positive, got {}", b);
    if (!to_space_) {
      if (h % b || w % b)
        return ctx.fail("height {} and width {} must be multiples of blocksize {}", h, w, b);
      View v = reshape_transpose({n, c, h / b, b, w / b, b}, {0, 3, 5, 1, 2, 4});
      return set_view(ctx, {n, c * b * b, h / b, w / b}, v);
    }
    if (c % (b * b))
      return ctx.fail("channels {} must be a multiple of blocksize^2 = {}", c, b * b);
    const std::string mode = ctx.opset() >= 11 ? ctx.attr_string("mode", "DCR") : "DCR";
    if (mode != "DCR" && mode != "CRD") return ctx.fail("mode must be DCR or CRD, got '{}'", mode);
    View v = mode == "DCR" ? reshape_transpose({n, b, b, c / (b * b), h, w}, {0, 3, 4, 1, 5, 2})
                           : reshape_transpose({n, c / (b * b), b, b, h, w}, {0, 1, 4, 2, 5, 3});
    return set_view(ctx, {n, c / (b * b), h * b, w * b}, v);
  }

 private:
  bool to_space_;
};

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
        ctx.line("onnxc::block_copy_ref({}, {} + {}, {}, {}, {}, {});", ctx.in(i), ctx.out(0), at,
                 b.outer, block, block, whole);
      else if (ctx.output(i))
        ctx.line("onnxc::block_copy_ref({} + {}, {}, {}, {}, {}, {});", ctx.in(0), at, ctx.out(i),
                 b.outer, block, whole, block);
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
    ctx.line("onnxc::gather_ref({}, {}, {}, {}, {}, {}, {});", ctx.in(0), ctx.in(1), ctx.out(0),
             s.outer, s.axis_dim, s.inner, s.num_indices);
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
    ctx.line("static constexpr onnxc::GatherElementsParams p = {{{}, {}, {}, {}, {}, {}}};", p.rank,
             p.axis, arr(p.dims), arr(p.x_strides), p.axis_dim, p.numel);
    ctx.line("onnxc::gather_elements_ref(p, {}, {}, {});", ctx.in(0), ctx.in(1), ctx.out(0));
  }
};

// ---- Pad ----------------------------------------------------------------------------------------

struct PadState : OpState {
  PadParams p{};
  bool value_from_input = false;  // constant_value is input 2 (read at run time)
  double value = 0;               // otherwise: the `value` attribute (0 from opset 11 on)
  Tensor value_bytes;             // `value` as one element of the data type, for folding
};

class PadOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    const int v = ctx.opset();
    // Opset 1: attribute `paddings`; 2: `pads`; 11: inputs pads, constant_value; 18: axes input.
    if (!ctx.check_arity(v < 11 ? 1 : 2, v < 11 ? 1 : (v < 18 ? 3 : 4), 1, 1) ||
        !check_movable(ctx, 0))
      return false;
    const Value* x = ctx.input(0);
    const Shape& in = x->shape;
    const int64_t rank = static_cast<int64_t>(in.size());
    auto& s = ctx.make_state<PadState>();
    std::vector<int64_t> pads, axes;
    if (v < 11) {
      const char* name = v < 2 ? "paddings" : "pads";
      if (!ctx.has_attr(name)) return ctx.fail("attribute '{}' is required", name);
      pads = ctx.attr_ints(name);
      s.value = ctx.attr_float("value", 0.0f);
    } else if (!constant_ints(ctx, 1, "pads", pads)) {
      return false;
    }
    if (ctx.has_input(3)) {
      if (!constant_ints(ctx, 3, "axes", axes)) return false;
    } else {
      for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
    }
    if (pads.size() != 2 * axes.size())
      return ctx.fail("pads has {} entries; expected 2 per padded axis ({})", pads.size(),
                      2 * axes.size());
    const std::string mode = ctx.attr_string("mode", "constant");
    const char* modes[] = {"constant", "reflect", "edge", "wrap"};
    auto it = std::find(std::begin(modes), std::end(modes), mode);
    if (it == std::end(modes) || (mode == "wrap" && v < 19))
      return ctx.fail("mode '{}' is not one of constant, reflect, edge{}", mode,
                      v >= 19 ? ", wrap" : " (wrap needs opset 19)");
    s.p.mode = static_cast<int>(it - std::begin(modes));
    s.p.rank = static_cast<int>(rank);
    Shape out = in;
    std::vector<bool> seen(in.size(), false);
    for (size_t i = 0; i < axes.size(); ++i) {
      int64_t a = axes[i];
      if (!ctx.normalize_axis(a, rank, "axes entry")) return false;
      const size_t ax = static_cast<size_t>(a);
      if (seen[ax]) return ctx.fail("axis {} is repeated", a);
      seen[ax] = true;
      const int64_t begin = pads[i], end = pads[i + axes.size()];
      out[ax] = in[ax] + begin + end;
      if (out[ax] < 0)
        return ctx.fail("pads {}, {} remove more than the {} elements of axis {}", begin, end,
                        in[ax], a);
      if (in[ax] == 0 && out[ax] > 0 && s.p.mode != kPadConstant)
        return ctx.fail("mode '{}' cannot pad the empty axis {}", mode, a);
      s.p.begin[ax] = begin;
    }
    std::copy(in.begin(), in.end(), s.p.in_dims);
    std::copy(out.begin(), out.end(), s.p.out_dims);
    s.p.numel = shape_numel(out);
    // constant_value: an optional input of the data type (an empty tensor means absent).
    if (ctx.has_input(2) && ctx.input(2)->numel() > 0) {
      if (ctx.input(2)->dtype != x->dtype)
        return ctx.fail("constant_value has type {}, the data {}", dtype_name(ctx.input(2)->dtype),
                        dtype_name(x->dtype));
      s.value_from_input = true;
    }
    s.value_bytes = Tensor::zeros(x->dtype, {});
    const bool plain = visit_dtype<kAllPlain>(x->dtype, [&](auto tag) {
      using T = decltype(tag);
      s.value_bytes.template as<T>()[0] = static_cast<T>(s.value);
    });
    if (!plain && s.value != 0)
      return ctx.fail("a non-zero 'value' attribute is not supported for type {}",
                      dtype_name(x->dtype));
    ctx.set_output(0, x->dtype, out);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<PadState>();
    const Tensor& value = s.value_from_input ? *in[2] : s.value_bytes;
    return visit_element_size(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      T v;
      std::memcpy(&v, value.data.data(), sizeof(T));
      pad_ref(s.p, in[0]->as<T>(), out[0].as<T>(), v);
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<PadState>();
    const auto& p = s.p;
    const DataType t = ctx.input(0)->dtype;
    auto arr = [&](const index_t* v) { return index_array(v, p.rank); };
    std::string value = s.value_from_input          ? fmt::format("{}[0]", ctx.in(2))
                        : in_type_set(t, kAllPlain) ? cpp_scalar(t, s.value)
                                                    : fmt::format("{}{{}}", dtype_cpp(t));
    ctx.include("onnxc/transform.h");
    ctx.line("static constexpr onnxc::PadParams p = {{{}, {}, {}, {}, {}, {}}};", p.rank, p.mode,
             arr(p.out_dims), arr(p.in_dims), arr(p.begin), p.numel);
    ctx.line("onnxc::pad_ref(p, {}, {}, {});", ctx.in(0), ctx.out(0), value);
  }
};

// ---- Trilu, OneHot -----------------------------------------------------------------------------

struct TriluState : OpState {
  int64_t batch = 1, rows = 1, cols = 1;
  bool upper = true;
};

class TriluOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 2, 1, 1) || !check_movable(ctx, 0)) return false;
    if (ctx.has_input(1) && (ctx.input(1)->dtype != DataType::kInt64 || ctx.input(1)->numel() != 1))
      return ctx.fail("k must be an int64 scalar");
    const Shape& in = ctx.input(0)->shape;
    if (in.size() < 2) return ctx.fail("input must have rank >= 2, got {}", shape_str(in));
    auto& s = ctx.make_state<TriluState>();
    s.rows = in[in.size() - 2];
    s.cols = in.back();
    s.batch = dims_product(in, 0, in.size() - 2);
    s.upper = ctx.attr_int("upper", 1) != 0;
    ctx.set_output(0, ctx.input(0)->dtype, in);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<TriluState>();
    const index_t k = in.size() > 1 && in[1] ? in[1]->int_at(0) : 0;
    return visit_element_size(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      trilu_ref(in[0]->as<T>(), out[0].as<T>(), s.batch, s.rows, s.cols, k, s.upper);
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<TriluState>();
    ctx.include("onnxc/transform.h");
    // k is read at run time, so a k that is a graph input works too.
    std::string k =
        ctx.input(1) ? fmt::format("static_cast<onnxc::index_t>({}[0])", ctx.in(1)) : "0";
    ctx.line("onnxc::trilu_ref({}, {}, {}, {}, {}, {}, {});", ctx.in(0), ctx.out(0), s.batch,
             s.rows, s.cols, k, s.upper ? "true" : "false");
  }
};

struct OneHotState : OpState {
  int64_t outer = 1, depth = 1, inner = 1;
};

class OneHotOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(3, 3, 1, 1) || !check_movable(ctx, 2)) return false;
    const Value *idx = ctx.input(0), *values = ctx.input(2);
    if (!in_type_set(idx->dtype, kNumeric)) return ctx.fail("indices must be a numeric tensor");
    if (values->numel() != 2) return ctx.fail("values must hold [off_value, on_value]");
    const Tensor* depth = ctx.constant_input(1);
    if (!depth) return ctx.fail("depth input must be a constant (it decides the output shape)");
    if (depth->numel() != 1 || !in_type_set(depth->dtype, kNumeric))
      return ctx.fail("depth must be a numeric scalar");
    const int64_t rank = static_cast<int64_t>(idx->shape.size());
    int64_t axis = ctx.attr_int("axis", -1);
    if (!ctx.normalize_axis(axis, rank + 1)) return false;
    auto& s = ctx.make_state<OneHotState>();
    s.depth = static_cast<int64_t>(depth->double_at(0));
    if (s.depth < 1) return ctx.fail("depth must be positive, got {}", s.depth);
    s.outer = dims_product(idx->shape, 0, static_cast<size_t>(axis));
    s.inner = dims_product(idx->shape, static_cast<size_t>(axis), idx->shape.size());
    Shape out = idx->shape;
    out.insert(out.begin() + axis, s.depth);
    if (out.size() > kMaxRank) return ctx.fail("output rank {} exceeds {}", out.size(), kMaxRank);
    ctx.set_output(0, values->dtype, out);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<OneHotState>();
    return visit_element_size(in[2]->dtype, [&](auto tag) {
      using T = decltype(tag);
      visit_dtype<kNumeric>(in[0]->dtype, [&](auto itag) {
        using I = decltype(itag);
        one_hot_ref(in[0]->as<I>(), in[2]->as<T>(), out[0].as<T>(), s.outer, s.depth, s.inner);
      });
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<OneHotState>();
    ctx.include("onnxc/transform.h");
    ctx.line("onnxc::one_hot_ref({}, {}, {}, {}, {}, {});", ctx.in(0), ctx.in(2), ctx.out(0),
             s.outer, s.depth, s.inner);
  }
};

const TransposeOp kTranspose;
const SliceOp kSlice;
const ExpandOp kExpand;
const TileOp kTile;
const BlockRearrangeOp kDepthToSpace(true);
const BlockRearrangeOp kSpaceToDepth(false);
const ConcatOp kConcat;
const SplitOp kSplit;
const GatherOp kGather;
const GatherElementsOp kGatherElements;
const PadOp kPad;
const TriluOp kTrilu;
const OneHotOp kOneHot;

}  // namespace

// Each handler covers every version of its op, branching on the node's opset where they differ.
std::vector<OpRegistration> data_movement_ops() {
  return {{"", "Transpose", 1, kMaxOpset, &kTranspose},
          {"", "Slice", 1, kMaxOpset, &kSlice},
          {"", "Expand", 8, kMaxOpset, &kExpand},
          {"", "Tile", 1, kMaxOpset, &kTile},
          {"", "DepthToSpace", 1, kMaxOpset, &kDepthToSpace},
          {"", "SpaceToDepth", 1, kMaxOpset, &kSpaceToDepth},
          {"", "Concat", 1, kMaxOpset, &kConcat},
          {"", "Split", 1, kMaxOpset, &kSplit},
          {"", "Gather", 1, kMaxOpset, &kGather},
          {"", "GatherElements", 11, kMaxOpset, &kGatherElements},
          {"", "Pad", 1, kMaxOpset, &kPad},
          {"", "Trilu", 14, kMaxOpset, &kTrilu},
          {"", "OneHot", 9, kMaxOpset, &kOneHot}};
}

}  // namespace onnxc
