// Conv (opsets 1, 11, 22): 1-3 spatial dims, groups, strides, dilations, pads and auto_pad.
#include <fmt/format.h>

#include "ops/registry.h"
#include "ops/spatial.h"

namespace onnxc {
namespace {

struct ConvState : OpState {
  WindowGeometry g;
  int64_t batch = 0, c_in = 0, c_out = 0, group = 1;
  std::vector<int64_t> in;
};

class ConvOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 3, 1, 1) || !ctx.check_dtype(0, {DataType::kFloat, DataType::kDouble}))
      return false;
    const Value *x = ctx.input(0), *w = ctx.input(1), *b = ctx.input(2);
    if (w->dtype != x->dtype || (b && b->dtype != x->dtype)) return ctx.fail("X, W and B must have one type");
    if (x->shape.size() < 3) return ctx.fail("X must have rank >= 3 (N, C, spatial...), has {}", x->shape.size());
    if (w->shape.size() != x->shape.size()) return ctx.fail("W has rank {}, X has {}", w->shape.size(), x->shape.size());
    auto& s = ctx.make_state<ConvState>();
    s.batch = x->shape[0];
    s.c_in = x->shape[1];
    s.c_out = w->shape[0];
    s.group = ctx.attr_int("group", 1);
    if (s.group < 1 || s.c_in % s.group || s.c_out % s.group || w->shape[1] * s.group != s.c_in)
      return ctx.fail("group {} does not divide channels: X has {}, W is {}", s.group, s.c_in, shape_str(w->shape));
    if (b && (b->shape.size() != 1 || b->shape[0] != s.c_out)) return ctx.fail("B must have shape [{}]", s.c_out);
    s.in.assign(x->shape.begin() + 2, x->shape.end());
    std::vector<int64_t> kernel(w->shape.begin() + 2, w->shape.end());
    std::vector<int64_t> attr_kernel = ctx.attr_ints("kernel_shape", kernel);
    if (attr_kernel != kernel) return ctx.fail("kernel_shape does not match W's spatial dims");
    if (!window_geometry(ctx, s.in, kernel, false, s.g)) return false;
    Shape out = {s.batch, s.c_out};
    out.insert(out.end(), s.g.out.begin(), s.g.out.end());
    ctx.set_output(0, x->dtype, out);
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<ConvState>();
    ctx.include("onnxc/conv.h");
    ctx.line("static constexpr onnxc::ConvParams p = {{{}, {}, {}, {}, {}, {}, {}, {}, {}, {}}};", s.batch,
             s.c_in, s.c_out, s.group, spatial3(s.in, 1), spatial3(s.g.out, 1), spatial3(s.g.kernel, 1),
             spatial3(s.g.stride, 1), spatial3(s.g.dilation, 1), spatial3(s.g.pad_begin, 0));
    ctx.line("onnxc::conv_ref(p, {}, {}, {}, {});", ctx.in(0), ctx.in(1),
             ctx.input(2) ? ctx.in(2) : fmt::format("static_cast<const {}*>(nullptr)", dtype_cpp(ctx.input(0)->dtype)),
             ctx.out(0));
  }
};

const ConvOp kConv;

}  // namespace

std::vector<OpRegistration> conv_ops() { return {{"", "Conv", 1, kMaxOpset, &kConv}}; }

}  // namespace onnxc
