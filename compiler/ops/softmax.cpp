// Softmax and LogSoftmax. Opsets 1-12 flatten the input to 2-D at `axis` (default 1) and
// normalize each row; from 13 on they normalize along `axis` (default -1).
#include "ops/registry.h"

namespace onnxc {
namespace {

struct SoftmaxState : OpState {
  int64_t outer = 1, axis = 1, inner = 1;
};

template <bool kLog>
class SoftmaxOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1) || !ctx.check_dtype(0, {DataType::kFloat, DataType::kDouble})) return false;
    const Value* x = ctx.input(0);
    const int64_t rank = static_cast<int64_t>(x->shape.size());
    int64_t axis = ctx.attr_int("axis", ctx.opset() < 13 ? 1 : -1);
    if (!ctx.normalize_axis(axis, rank)) return false;
    auto& s = ctx.make_state<SoftmaxState>();
    auto prod = [&](int64_t from, int64_t to) {
      int64_t p = 1;
      for (int64_t i = from; i < to; ++i) p *= x->shape[static_cast<size_t>(i)];
      return p;
    };
    s.outer = prod(0, axis);
    if (ctx.opset() < 13) {
      s.axis = prod(axis, rank);
      s.inner = 1;
    } else {
      s.axis = rank ? x->shape[static_cast<size_t>(axis)] : 1;
      s.inner = prod(axis + 1, rank);
    }
    ctx.set_output(0, x->dtype, x->shape);
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<SoftmaxState>();
    ctx.include("onnxc/normalization.h");
    ctx.line("onnxc::softmax_ref<{}, {}>({}, {}, {}, {}, {});", dtype_cpp(ctx.input(0)->dtype), kLog,
             ctx.in(0), ctx.out(0), s.outer, s.axis, s.inner);
  }
};

const SoftmaxOp<false> kSoftmax;
const SoftmaxOp<true> kLogSoftmax;

}  // namespace

std::vector<OpRegistration> softmax_ops() {
  return {{"", "Softmax", 1, kMaxOpset, &kSoftmax}, {"", "LogSoftmax", 1, kMaxOpset, &kLogSoftmax}};
}

}  // namespace onnxc
