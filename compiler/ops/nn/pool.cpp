// Windowed pools over 1 to 3 spatial dims, and their global forms:
//   MaxPool (1, 8, 10, 11, 12, 22): storage_order and the Indices output from 8, ceil_mode and
//     dilations from 10, int8/uint8 from 12.
//   AveragePool (1, 7, 10, 11, 19, 22): count_include_pad from 7, ceil_mode from 10, dilations
//     from 19.
//   LpPool (1, 2, 11, 18, 22): p is a float in 1 and an int from 2; ceil_mode, dilations from 18.
//   GlobalAveragePool, GlobalMaxPool (1, 22), GlobalLpPool (1, 2, 22; p as in LpPool).
// float16 and float/double throughout, bfloat16 from 22 (half types computed in float). An
// attribute a version does not define is an error unless it holds its later default.
#include "onnxc/pool.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "ops/accum.h"
#include "ops/dispatch.h"
#include "ops/registry.h"
#include "ops/spatial.h"

namespace onnxc {
namespace {

enum class PoolKind { kMax, kAverage, kLp };

// The opset that introduced each version-dependent feature of a pool op (0: never).
struct PoolVersions {
  int ceil_mode, dilations, count_include_pad, indices, int8, int_p;
};

bool is_float_type(DataType t) {
  return t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 ||
         t == DataType::kBFloat16;
}

// Checks X's type (float16/float/double; bfloat16 from 22; int8/uint8 when `int8_since` <= opset)
// and rank (N, C, 1 to 3 spatial dims; or any spatial rank >= 1 when `any_rank`).
bool check_input(InferContext& ctx, int int8_since, bool any_rank) {
  const Value* x = ctx.input(0);
  const DataType t = x->dtype;
  const bool ints = t == DataType::kInt8 || t == DataType::kUint8;
  if (!(is_float_type(t) || ints) || (t == DataType::kBFloat16 && ctx.opset() < 22) ||
      (ints && (!int8_since || ctx.opset() < int8_since)))
    return ctx.fail("X has type {}; this version takes float16, float, double{}{}", dtype_name(t),
                    ctx.opset() >= 22 ? ", bfloat16" : "",
                    int8_since && ctx.opset() >= int8_since ? ", int8, uint8" : "");
  if (x->shape.size() < 3 || (!any_rank && x->shape.size() > 5))
    return ctx.fail("X must be N x C x D1 [x D2 [x D3]]{}, has shape {}",
                    any_rank ? "" : " (1 to 3 spatial dims)", shape_str(x->shape));
  return true;
}

// p: a float attribute before `int_since`, an int from it; must be positive.
bool read_p(InferContext& ctx, int int_since, float& p) {
  p = ctx.opset() >= int_since ? static_cast<float>(ctx.attr_int("p", 2))
                               : ctx.attr_float("p", 2.0f);
  if (!(p > 0)) return ctx.fail("p must be positive, is {}", p);
  return true;
}

// The pooling kernels' element types (int8/uint8: MaxPool only; the handlers check).
constexpr TypeSet kPoolTypes =
    kFloatTypes | kHalfTypes | type_set({DataType::kInt8, DataType::kUint8});

std::string arr3(const index_t* v) {
  return fmt::format("{{{}, {}, {}}}", v[0], v[1], v[2]);
}

void to3(const std::vector<int64_t>& v, int64_t fill, index_t* out) {
  const size_t lead = 3 - v.size();
  for (size_t i = 0; i < 3; ++i) out[i] = i < lead ? fill : v[i - lead];
}

// ---- windowed pools ----------------------------------------------------------------------------

struct PoolState : OpState {
  PoolParams p{};
  bool fast = false;         // f32_maxpool_rows__scalar instead of the reference
  bool float_accum = false;  // ops/accum.h
  int tasks = 1;             // --threads: the parts the fast kernel runs in (by channel)
};

class PoolOp final : public OpHandler {
 public:
  PoolOp(PoolKind kind, PoolVersions v) : kind_(kind), v_(v) {}

  bool infer(InferContext& ctx) const override {
    const int opset = ctx.opset();
    const bool indices = v_.indices && opset >= v_.indices;
    if (!ctx.check_arity(1, 1, 1, indices ? 2 : 1) || !check_input(ctx, v_.int8, false))
      return false;
    if (!ctx.has_attr("kernel_shape")) return ctx.fail("attribute 'kernel_shape' is required");
    const int64_t ceil_mode = ctx.attr_int("ceil_mode", 0);
    const int64_t count_include_pad = ctx.attr_int("count_include_pad", 0);
    const int64_t storage_order = ctx.attr_int("storage_order", 0);
    const std::vector<int64_t> dilations = ctx.attr_ints("dilations");
    const bool dilated =
        std::any_of(dilations.begin(), dilations.end(), [](int64_t d) { return d != 1; });
    if (!defined_since(ctx, "ceil_mode", ceil_mode != 0, v_.ceil_mode) ||
        !defined_since(ctx, "dilations", dilated, v_.dilations) ||
        !defined_since(ctx, "count_include_pad", count_include_pad != 0, v_.count_include_pad) ||
        !defined_since(ctx, "storage_order", storage_order != 0, v_.indices))
      return false;
    if (storage_order != 0 && storage_order != 1)
      return ctx.fail("storage_order must be 0 (row major) or 1 (column major), is {}",
                      storage_order);
    const Shape& xs = ctx.input(0)->shape;
    const std::vector<int64_t> in(xs.begin() + 2, xs.end());
    WindowGeometry g;
    if (!window_geometry(ctx, in, ctx.attr_ints("kernel_shape"), ceil_mode != 0, g)) return false;

    auto& s = ctx.make_state<PoolState>();
    PoolParams& p = s.p;
    p.channels = xs[0] * xs[1];
    to3(in, 1, p.in), to3(g.out, 1, p.out), to3(g.kernel, 1, p.kernel), to3(g.stride, 1, p.stride);
    to3(g.dilation, 1, p.dilation), to3(g.pad_begin, 0, p.pad), to3(g.pad_end, 0, p.pad_end);
    p.count_include_pad = count_include_pad != 0;
    p.storage_order = static_cast<int>(storage_order);
    p.p = 2.0f;
    if (kind_ == PoolKind::kLp && !read_p(ctx, v_.int_p, p.p)) return false;
    s.float_accum = float_accumulates(ctx.target());
    s.fast =
        kind_ == PoolKind::kMax && ctx.input(0)->dtype == DataType::kFloat && !ctx.has_output(1);
    Shape out = {xs[0], xs[1]};
    out.insert(out.end(), g.out.begin(), g.out.end());
    ctx.set_output(0, ctx.input(0)->dtype, out);
    if (ctx.has_output(1)) ctx.set_output(1, DataType::kInt64, out);
    return true;
  }

  // The fast MaxPool is row f32_maxpool_rows__scalar (family maxpool), which --threads splits
  // by channel: its work is a comparison per window tap.
  KernelQuery describe_kernel_query(const Node& node) const override {
    const auto& s = node.state_as<PoolState>();
    KernelQuery q;
    if (!s.fast) return q;
    q.families = {"maxpool"};
    const PoolParams& p = s.p;
    q.flops = static_cast<double>(p.channels * p.out[0] * p.out[1] * p.out[2]) *
              static_cast<double>(p.kernel[0] * p.kernel[1] * p.kernel[2]);
    q.max_parts = p.channels;
    return q;
  }
  size_t use_kernel(Node& node, const KernelVariant& /*variant*/, int tasks) const override {
    static_cast<PoolState&>(*node.state).tasks = tasks;
    return 0;
  }
  int kernel_tasks(const Node& node) const override { return node.state_as<PoolState>().tasks; }

  bool evaluate(const Node& node, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = node.state_as<PoolState>();
    int64_t* indices = node.output(1) ? out[1].as<int64_t>() : nullptr;
    return visit_dtype<kPoolTypes>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      const T* x = in[0]->as<T>();
      T* y = out[0].as<T>();
      if constexpr (std::is_same_v<T, float>) {
        if (s.fast) return f32_maxpool_rows__scalar(s.p, x, y, nullptr);
      }
      if (kind_ == PoolKind::kMax) return maxpool_ref<T>(s.p, x, y, indices);
      if constexpr (!std::is_integral_v<T>) {
        if (kind_ == PoolKind::kAverage) return avgpool_ref<T>(s.p, x, y);
        lppool_ref<T>(s.p, x, y);
      }
    });
  }

  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<PoolState>();
    const PoolParams& p = s.p;
    ctx.include("onnxc/pool.h");
    ctx.line("static constexpr onnxc::PoolParams p = {};",
             labeled({{"channels", fmt::format("{}", p.channels)},
                      {"in", arr3(p.in)},
                      {"out", arr3(p.out)},
                      {"kernel", arr3(p.kernel)},
                      {"stride", arr3(p.stride)},
                      {"dilation", arr3(p.dilation)},
                      {"pad", arr3(p.pad)},
                      {"pad_end", arr3(p.pad_end)},
                      {"count_include_pad", fmt::format("{}", p.count_include_pad)},
                      {"storage_order", fmt::format("{}", p.storage_order)},
                      {"p", cpp_float(p.p)}}));
    const char* type = dtype_cpp(ctx.input(0)->dtype);
    if (s.fast && s.tasks > 1) ctx.include("onnxc/kernels_parallel.h");
    if (s.fast)
      ctx.line("onnxc::f32_maxpool_rows__scalar(p, {}, {}, nullptr{});", ctx.in(0), ctx.out(0),
               s.tasks > 1 ? parallel_args(s.tasks) : "");
    else if (kind_ == PoolKind::kMax)
      ctx.line("onnxc::maxpool_ref<{}>(p, {}, {}, {});", type, ctx.in(0), ctx.out(0), ctx.out(1));
    else
      ctx.line("onnxc::{}<{}>(p, {}, {}{});",
               kind_ == PoolKind::kAverage ? "avgpool_ref" : "lppool_ref", type, ctx.in(0),
               ctx.out(0), accum_arg(s.float_accum));
  }

 private:
  // An attribute set to a non-default value must exist in the node's version.
  static bool defined_since(InferContext& ctx, const char* name, bool set, int since) {
    if (!set || (since && ctx.opset() >= since)) return true;
    if (!since) return ctx.fail("attribute '{}' is not defined for this op", name);
    return ctx.fail("attribute '{}' is defined from opset {}; the model imports opset {}", name,
                    since, ctx.opset());
  }

  PoolKind kind_;
  PoolVersions v_;
};

// ---- global pools ------------------------------------------------------------------------------

struct GlobalPoolState : OpState {
  float p = 2.0f;
  bool float_accum = false;  // ops/accum.h
};

class GlobalPoolOp final : public OpHandler {
 public:
  explicit GlobalPoolOp(PoolKind kind) : kind_(kind) {}

  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1) || !check_input(ctx, 0, true)) return false;
    auto& s = ctx.make_state<GlobalPoolState>();
    if (kind_ == PoolKind::kLp && !read_p(ctx, 2, s.p)) return false;
    s.float_accum = float_accumulates(ctx.target());
    const Shape& xs = ctx.input(0)->shape;
    Shape out(xs.size(), 1);
    out[0] = xs[0], out[1] = xs[1];
    ctx.set_output(0, ctx.input(0)->dtype, out);
    return true;
  }

  bool evaluate(const Node& node, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const Shape& xs = in[0]->shape;
    const index_t channels = xs[0] * xs[1],
                  spatial = shape_numel(xs) / std::max<int64_t>(channels, 1);
    const float p = node.state_as<GlobalPoolState>().p;
    return visit_dtype<kPoolTypes>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_integral_v<T>) {
        const T* x = in[0]->as<T>();
        T* y = out[0].as<T>();
        if (kind_ == PoolKind::kMax) return global_maxpool_ref<T>(x, y, channels, spatial);
        if constexpr (std::is_same_v<T, float>) {
          if (kind_ == PoolKind::kAverage)
            return f32_globalavgpool_lanes__scalar(x, y, channels, spatial);
        }
        if (kind_ == PoolKind::kAverage) return global_avgpool_ref<T>(x, y, channels, spatial);
        global_lppool_ref<T>(x, y, channels, spatial, p);
      }
    });
  }

  void emit(EmitContext& ctx) const override {
    const Shape& xs = ctx.input(0)->shape;
    const int64_t channels = xs[0] * xs[1];
    const int64_t spatial = shape_numel(xs) / std::max<int64_t>(channels, 1);
    const char* type = dtype_cpp(ctx.input(0)->dtype);
    const auto& s = ctx.node().state_as<GlobalPoolState>();
    const std::string accum = kind_ == PoolKind::kMax ? "" : accum_arg(s.float_accum);
    ctx.include("onnxc/pool.h");
    if (kind_ == PoolKind::kLp)
      ctx.line("onnxc::global_lppool_ref<{}>({}, {}, /*channels=*/{}, /*spatial=*/{}, /*p=*/{}{});",
               type, ctx.in(0), ctx.out(0), channels, spatial, cpp_float(s.p), accum);
    else if (kind_ == PoolKind::kAverage && ctx.input(0)->dtype == DataType::kFloat &&
             !s.float_accum)
      ctx.line("onnxc::f32_globalavgpool_lanes__scalar({}, {}, /*channels=*/{}, /*spatial=*/{});",
               ctx.in(0), ctx.out(0), channels, spatial);
    else
      ctx.line("onnxc::{}<{}>({}, {}, /*channels=*/{}, /*spatial=*/{}{});",
               kind_ == PoolKind::kMax ? "global_maxpool_ref" : "global_avgpool_ref", type,
               ctx.in(0), ctx.out(0), channels, spatial, accum);
  }

 private:
  PoolKind kind_;
};

//                                  ceil  dil  cip  idx  int8  int_p
const PoolOp kMaxPool(PoolKind::kMax, {10, 10, 0, 8, 12, 0});
const PoolOp kAveragePool(PoolKind::kAverage, {10, 19, 7, 0, 0, 0});
const PoolOp kLpPool(PoolKind::kLp, {18, 18, 0, 0, 0, 2});
const GlobalPoolOp kGlobalAveragePool(PoolKind::kAverage);
const GlobalPoolOp kGlobalMaxPool(PoolKind::kMax);
const GlobalPoolOp kGlobalLpPool(PoolKind::kLp);

}  // namespace

std::vector<OpRegistration> pool_ops() {
  return {{"", "MaxPool", 1, kMaxOpset, &kMaxPool},
          {"", "AveragePool", 1, kMaxOpset, &kAveragePool},
          {"", "LpPool", 1, kMaxOpset, &kLpPool},
          {"", "GlobalAveragePool", 1, kMaxOpset, &kGlobalAveragePool},
          {"", "GlobalMaxPool", 1, kMaxOpset, &kGlobalMaxPool},
          {"", "GlobalLpPool", 1, kMaxOpset, &kGlobalLpPool}};
}

}  // namespace onnxc
