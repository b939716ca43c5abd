// MaxPool (1, 8, 10, 11, 12, 22), AveragePool (1, 7, 10, 11, 19, 22), GlobalAveragePool and
// GlobalMaxPool: 1-3 spatial dims, ceil_mode, dilations, padding, MaxPool's Indices output.
#include <fmt/format.h>

#include "ops/registry.h"
#include "ops/spatial.h"

namespace onnxc {
namespace {

struct PoolState : OpState {
  WindowGeometry g;
  int64_t channels = 0;
  std::vector<int64_t> in;
  bool count_include_pad = false;
  int64_t storage_order = 0;
};

template <bool kMax>
class PoolOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, kMax ? 2 : 1)) return false;
    const Value* x = ctx.input(0);
    if (x->dtype != DataType::kFloat && x->dtype != DataType::kDouble &&
        !(kMax && (x->dtype == DataType::kInt8 || x->dtype == DataType::kUint8)))
      return ctx.fail("input type {} is not supported", dtype_name(x->dtype));
    if (x->shape.size() < 3) return ctx.fail("X must have rank >= 3, has {}", x->shape.size());
    if (!ctx.has_attr("kernel_shape")) return ctx.fail("attribute 'kernel_shape' is required");
    auto& s = ctx.make_state<PoolState>();
    s.channels = x->shape[0] * x->shape[1];
    s.in.assign(x->shape.begin() + 2, x->shape.end());
    bool ceil_mode = ctx.opset() >= 10 && ctx.attr_int("ceil_mode", 0) != 0;
    if (!kMax && ctx.opset() < 19 && ctx.has_attr("dilations")) return ctx.fail("dilations need opset 19");
    if (!window_geometry(ctx, s.in, ctx.attr_ints("kernel_shape"), ceil_mode, s.g)) return false;
    s.count_include_pad = ctx.attr_int("count_include_pad", 0) != 0;
    s.storage_order = ctx.attr_int("storage_order", 0);
    Shape out = {x->shape[0], x->shape[1]};
    out.insert(out.end(), s.g.out.begin(), s.g.out.end());
    ctx.set_output(0, x->dtype, out);
    ctx.set_output(1, DataType::kInt64, out);
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<PoolState>();
    ctx.include("onnxc/pool.h");
    ctx.line("static constexpr onnxc::PoolParams p = {{{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}}};",
             s.channels, spatial3(s.in, 1), spatial3(s.g.out, 1), spatial3(s.g.kernel, 1),
             spatial3(s.g.stride, 1), spatial3(s.g.dilation, 1), spatial3(s.g.pad_begin, 0),
             spatial3(s.g.pad_end, 0), s.count_include_pad ? 1 : 0, s.storage_order, s.in.size());
    ctx.line("onnxc::pool_ref<{}, {}>(p, {}, {}, {});", dtype_cpp(ctx.input(0)->dtype), kMax, ctx.in(0),
             ctx.out(0), ctx.output(1) ? ctx.out(1) : "nullptr");
  }
};

template <bool kMax>
class GlobalPoolOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1) || !ctx.check_dtype(0, {DataType::kFloat, DataType::kDouble})) return false;
    const Value* x = ctx.input(0);
    if (x->shape.size() < 3) return ctx.fail("X must have rank >= 3, has {}", x->shape.size());
    Shape out = {x->shape[0], x->shape[1]};
    out.resize(x->shape.size(), 1);
    ctx.set_output(0, x->dtype, out);
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const Shape& in = ctx.input(0)->shape;
    int64_t channels = in[0] * in[1];
    ctx.include("onnxc/pool.h");
    ctx.line("onnxc::global_pool_ref<{}, {}>({}, {}, {}, {});", dtype_cpp(ctx.input(0)->dtype), kMax,
             ctx.in(0), ctx.out(0), channels, shape_numel(in) / std::max<int64_t>(channels, 1));
  }
};

const PoolOp<true> kMaxPool;
const PoolOp<false> kAveragePool;
const GlobalPoolOp<false> kGlobalAveragePool;
const GlobalPoolOp<true> kGlobalMaxPool;

}  // namespace

std::vector<OpRegistration> pool_ops() {
  return {{"", "MaxPool", 1, kMaxOpset, &kMaxPool},
          {"", "AveragePool", 1, kMaxOpset, &kAveragePool},
          {"", "GlobalAveragePool", 1, kMaxOpset, &kGlobalAveragePool},
          {"", "GlobalMaxPool", 1, kMaxOpset, &kGlobalMaxPool}};
}

}  // namespace onnxc
