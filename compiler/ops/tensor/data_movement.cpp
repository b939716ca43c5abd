// Ops that move data without computing on it, strided views: Transpose, Slice, Expand, Tile,
// DepthToSpace and SpaceToDepth are each one strided view of their input, built and simplified at
// compile time and copied by one kernel. The other data-movement ops are in
// data_movement_blocks.cpp (Concat, Split), data_movement_gather.cpp (Gather, GatherElements) and
// data_movement_fill.cpp (Pad, Trilu, OneHot). Generated code calls the onnxc/transform.h kernels
// with the real element type; evaluate() runs the same templates on an unsigned type of the same
// size, which moves the same bytes, so every dtype stored in whole bytes folds.
#include "ops/tensor/data_movement.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>

#include "base/checked_math.h"
#include "onnxc/transform.h"
#include "ops/broadcast.h"
#include "ops/dispatch.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

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

// A Slice start known only at run time whose extent is known at compile time (see SliceOp).
struct RunTimeStart {
  size_t index;    // entry of the starts/ends inputs
  int64_t dim;     // the sliced axis' length
  int64_t extent;  // ends - starts, proven at compile time
  int64_t stride;  // the axis' input stride, in elements
};

struct StridedState : OpState {
  StridedCopyParams p{};
  CopyKernel kernel = CopyKernel::kRef;
  std::vector<RunTimeStart> run_time;  // Slice only: starts added to p.offset by run()
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
    if (!x || !n.state || !n.state_as<StridedState>().run_time.empty()) return {};
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
    ctx.line("{}onnxc::StridedCopyParams p = {};", s.run_time.empty() ? "static constexpr " : "",
             labeled({{"rank", fmt::format("{}", p.rank)},
                      {"dims", arr(p.dims)},
                      {"in_strides", arr(p.in_strides)},
                      {"offset", fmt::format("{}", p.offset)},
                      {"numel", fmt::format("{}", p.numel)}}));
    for (const RunTimeStart& r : s.run_time) {
      // Normalized and clamped as the spec says; an extent other than the compiled one is an
      // error, not a silently different output.
      ctx.line("{{");
      ctx.line("  std::int64_t b = {}[{}], e = {}[{}];", ctx.in(1), r.index, ctx.in(2), r.index);
      ctx.line("  b = b < 0 ? b + {0} : b, e = e < 0 ? e + {0} : e;", r.dim);
      ctx.line("  b = b < 0 ? 0 : b > {0} ? {0} : b, e = e < 0 ? 0 : e > {0} ? {0} : e;", r.dim);
      ctx.line("  if (e - b != {}) return onnxc::kErrorRunTimeExtent;", r.extent);
      ctx.line("  p.offset += b * {};", r.stride);
      ctx.line("}}");
    }
    ctx.line("onnxc::{}(p, {}, {});", kCopyKernelNames[static_cast<int>(s.kernel)], ctx.in(0),
             ctx.out(0));
  }

 protected:
  // Sets output 0 to `out` (of the input's type), read through view `v` of input 0.
  static bool set_view(InferContext& ctx, const Shape& out, const View& v,
                       std::vector<RunTimeStart> run_time = {}) {
    if (!ctx.set_output(0, ctx.input(0)->dtype, out)) return false;  // sizes checked first
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
    st.run_time = std::move(run_time);
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
    std::vector<int64_t> extents;  // run-time starts: the extents proven at compile time
    if (from_inputs) {
      std::vector<int64_t>* dst[] = {&starts, &ends, &axes, &steps};
      const char* names[] = {"starts", "ends", "axes", "steps"};
      // Otherwise both must be constants: constant_ints() says so.
      const bool run_time =
          (!ctx.constant_input(1) || !ctx.constant_input(2)) && run_time_extents(ctx, extents);
      for (size_t i = run_time ? 3 : 1; i < ctx.num_inputs(); ++i)
        if (ctx.has_input(i) && !constant_ints(ctx, i, names[i - 1], *dst[i - 1])) return false;
      if (run_time) starts.assign(extents.size(), 0), ends = extents;
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
    std::vector<RunTimeStart> run_time;
    for (size_t i = 0; i < starts.size(); ++i) {
      int64_t a = axes[i];
      if (!ctx.normalize_axis(a, rank)) return false;
      const size_t ax = static_cast<size_t>(a);
      if (seen[ax]) return ctx.fail("axis {} is repeated", a);
      seen[ax] = true;
      const int64_t dim = in[ax];
      if (steps[i] == 0) return ctx.fail("steps must be non-zero");
      const int64_t step = clamp_step(steps[i], dim);
      int64_t s = starts[i] < 0 ? starts[i] + dim : starts[i];
      int64_t e = ends[i] < 0 ? ends[i] + dim : ends[i];
      // Clamped per the spec: to [0, dim] going forwards, [-1, dim - 1] going backwards.
      s = step > 0 ? std::clamp<int64_t>(s, 0, dim) : std::clamp<int64_t>(s, 0, dim - 1);
      e = step > 0 ? std::clamp<int64_t>(e, 0, dim) : std::clamp<int64_t>(e, -1, dim - 1);
      const int64_t span = step > 0 ? e - s : s - e, stride = step > 0 ? step : -step;
      const int64_t count = span > 0 ? (span - 1) / stride + 1 : 0;
      out[ax] = v.dims[ax] = count;
      if (count) v.offset += s * v.strides[ax];
      if (!extents.empty()) {
        if (steps[i] != 1) return ctx.fail("starts known only at run time need steps of 1");
        run_time.push_back({i, dim, std::min(extents[i], dim), v.strides[ax]});
      }
      if (!checked_mul(v.strides[ax], step, &v.strides[ax]))
        return ctx.fail("the stride along axis {} times step {} overflows int64", a, step);
    }
    return set_view(ctx, out, v, std::move(run_time));
  }

 private:
  // A step of magnitude above dim takes at most one element, as a step of dim + 1 does: clamped
  // so, -step and the stride times step cannot overflow (steps = INT64_MIN is a legal input).
  static int64_t clamp_step(int64_t step, int64_t dim) {
    return std::clamp<int64_t>(step, -(dim + 1), dim + 1);
  }
  // starts and ends computed at run time (a Loop's iteration number, ...), one axis: true when
  // ends is starts + k for a constant k > 0, traced through views of a value (Unsqueeze, Reshape,
  // ...: the handlers' alias()) and Add/Sub of a constant. Then extents[i] = k is the output's
  // extent along that axis, and run() checks it (kErrorRunTimeExtent).
  static bool run_time_extents(InferContext& ctx, std::vector<int64_t>& extents) {
    const Value *starts = ctx.input(1), *ends = ctx.input(2);
    if (!starts || !ends || starts->numel() != 1 || ends->numel() != 1) return false;
    auto [sb, so] = base_and_offset(starts);
    auto [eb, eo] = base_and_offset(ends);
    int64_t extent;
    if (sb != eb || !checked_sub(eo, so, &extent) || extent <= 0) return false;
    extents = {extent};
    return true;
  }
  // v as base + offset: the value it is a constant offset from (itself if none).
  static std::pair<const Value*, int64_t> base_and_offset(const Value* v) {
    int64_t offset = 0;
    for (int guard = 0; guard < 32 && v && v->producer && v->numel() == 1; ++guard) {
      const Node& n = *v->producer;
      const std::string& op = n.op_type;
      const AliasInfo view = n.handler ? n.handler->alias(n) : AliasInfo{};
      if (view.kind == AliasKind::kView && view.byte_offset == 0 && n.input(0) &&
          n.input(0)->dtype == v->dtype) {  // the same element under another shape
        v = n.input(0);
        continue;
      }
      if ((op == "Add" || op == "Sub") && n.input(0) && n.input(1)) {
        const Value *a = n.input(0), *b = n.input(1);
        const bool b_const = b->is_constant() && b->numel() == 1 && is_integer(b->dtype);
        const bool a_const = a->is_constant() && a->numel() == 1 && is_integer(a->dtype);
        // The offsets are model constants: a sum that overflows int64 traces no further.
        if (b_const) {
          const int64_t k = b->constant->int_at(0);
          int64_t sum;
          if (!(op == "Add" ? checked_add(offset, k, &sum) : checked_sub(offset, k, &sum))) break;
          offset = sum;
          v = a;
          continue;
        }
        if (a_const && op == "Add") {
          int64_t sum;
          if (!checked_add(offset, a->constant->int_at(0), &sum)) break;
          offset = sum;
          v = b;
          continue;
        }
      }
      break;
    }
    return {v, offset};
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
      out.push_back(0);
      if (!checked_mul(in[d], repeats[d], &out.back()))
        return ctx.fail("repeats[{}] = {} times dim {}: more elements than int64 can count", d,
                        repeats[d], in[d]);
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

const TransposeOp kTranspose;
const SliceOp kSlice;
const ExpandOp kExpand;
const TileOp kTile;
const BlockRearrangeOp kDepthToSpace(true);
const BlockRearrangeOp kSpaceToDepth(false);

}  // namespace

// Each handler covers every version of its op, branching on the node's opset where they differ.
std::vector<OpRegistration> data_movement_ops() {
  return {{"", "Transpose", 1, kMaxOpset, &kTranspose},
          {"", "Slice", 1, kMaxOpset, &kSlice},
          {"", "Expand", 8, kMaxOpset, &kExpand},
          {"", "Tile", 1, kMaxOpset, &kTile},
          {"", "DepthToSpace", 1, kMaxOpset, &kDepthToSpace},
          {"", "SpaceToDepth", 1, kMaxOpset, &kSpaceToDepth}};
}

}  // namespace onnxc
