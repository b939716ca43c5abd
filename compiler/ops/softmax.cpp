// Softmax, LogSoftmax and Hardmax (opsets 1, 11, 13). Before opset 13 the input is coerced to
// 2-D at `axis` (default 1) and each row of the flattened [d0*...*d(axis-1), d(axis)*...*dn]
// matrix is normalized; from 13 on only dim `axis` (default -1) is.
#include "onnxc/softmax.h"

#include <algorithm>

#include "ops/dispatch.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

struct SoftmaxState : OpState {
  int64_t outer = 1, axis = 1, inner = 1;  // the [outer, axis, inner] view the kernel walks
};

using SoftmaxKernel = void (*)(const Tensor&, Tensor&, const SoftmaxState&);

template <void (*kFloat)(const float*, float*, index_t, index_t, index_t),
          void (*kDouble)(const double*, double*, index_t, index_t, index_t)>
void run_softmax(const Tensor& x, Tensor& y, const SoftmaxState& s) {
  if (x.dtype == DataType::kFloat)
    kFloat(x.as<float>(), y.as<float>(), s.outer, s.axis, s.inner);
  else
    kDouble(x.as<double>(), y.as<double>(), s.outer, s.axis, s.inner);
}

class SoftmaxOp final : public OpHandler {
 public:
  // f32_kernel / kernel: the onnxc functions for float and for double; host: the same kernels
  // for folding.
  SoftmaxOp(const char* f32_kernel, const char* kernel, SoftmaxKernel host)
      : f32_kernel_(f32_kernel), kernel_(kernel), host_(host) {}

  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1) || !ctx.check_dtype(0, {DataType::kFloat, DataType::kDouble}))
      return false;
    const Value* x = ctx.input(0);
    const int64_t rank = static_cast<int64_t>(x->shape.size());
    const bool coerce_2d = ctx.opset() < 13;
    int64_t axis = ctx.attr_int("axis", coerce_2d ? 1 : -1);
    if (!ctx.normalize_axis(axis, rank)) return false;
    auto prod = [&](int64_t from, int64_t to) {
      int64_t p = 1;
      for (int64_t i = from; i < to; ++i) p *= x->shape[static_cast<size_t>(i)];
      return p;
    };
    auto& s = ctx.make_state<SoftmaxState>();
    s.outer = prod(0, axis);
    if (coerce_2d) {
      s.axis = prod(axis, rank);
    } else {
      s.axis = prod(axis, std::min(axis + 1, rank));
      s.inner = prod(axis + 1, rank);
    }
    ctx.set_output(0, x->dtype, x->shape);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    host_(*in[0], out[0], n.state_as<SoftmaxState>());
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<SoftmaxState>();
    ctx.include("onnxc/softmax.h");
    const bool f32 = ctx.input(0)->dtype == DataType::kFloat;
    ctx.line("onnxc::{}({}, {}, {}, {}, {});", f32 ? f32_kernel_ : kernel_, ctx.in(0), ctx.out(0),
             s.outer, s.axis, s.inner);
  }

 private:
  const char* f32_kernel_;
  const char* kernel_;
  SoftmaxKernel host_;
};

const SoftmaxOp kSoftmax("f32_softmax__poly", "softmax_ref",
                         run_softmax<f32_softmax__poly, softmax_ref<double>>);
const SoftmaxOp kLogSoftmax("f32_log_softmax__poly", "log_softmax_ref",
                            run_softmax<f32_log_softmax__poly, log_softmax_ref<double>>);
const SoftmaxOp kHardmax("hardmax_ref", "hardmax_ref",
                         run_softmax<hardmax_ref<float>, hardmax_ref<double>>);

}  // namespace

std::vector<OpRegistration> softmax_ops() {
  return {{"", "Softmax", 1, kMaxOpset, &kSoftmax},
          {"", "LogSoftmax", 1, kMaxOpset, &kLogSoftmax},
          {"", "Hardmax", 1, kMaxOpset, &kHardmax}};
}

}  // namespace onnxc
