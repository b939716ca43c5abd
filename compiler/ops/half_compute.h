// float16 / bfloat16 through float kernels: the half-typed inputs of a node are widened into
// float buffers in the node's scratch memory, the float kernel runs on them, and the float
// results are rounded once into the half-typed outputs (as numpy computes half matmuls and
// reductions). Used by ops whose kernels are float-only (MatMul, Gemm, Softmax, reductions).
//   infer(): HalfPlan plan = plan_half(ctx, {inputs...}, {outputs...}); (requests the scratch)
//   emit():  HalfNames names = emit_widen(ctx, plan);  ...kernel on names...;
//            emit_narrow(ctx, plan, names);
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

#include "ops/op.h"

namespace onnxc {

inline bool is_half(DataType t) {
  return t == DataType::kFloat16 || t == DataType::kBFloat16;
}

// Byte offsets of the float copies in the scratch memory; -1 where a tensor is used in place.
struct HalfPlan {
  std::vector<size_t> inputs, outputs;  // the kernel's tensors (others are not referenced)
  std::vector<int64_t> in_offset, out_offset;
  size_t bytes = 0;
  bool active() const { return bytes > 0; }
};

// The tensor expressions the kernel uses: float buffers for widened tensors, the node's own
// otherwise.
struct HalfNames {
  std::vector<std::string> ins, outs;
  std::string in(size_t i) const { return i < ins.size() ? ins[i] : "nullptr"; }
  std::string out(size_t i) const { return i < outs.size() ? outs[i] : "nullptr"; }
};

// Plans float copies of the listed (present, half-typed) inputs and outputs.
inline HalfPlan plan_half(InferContext& ctx, const std::vector<size_t>& inputs,
                          const std::vector<size_t>& outputs) {
  HalfPlan plan;
  plan.inputs = inputs;
  plan.outputs = outputs;
  plan.in_offset.assign(ctx.num_inputs(), -1);
  plan.out_offset.assign(ctx.num_outputs(), -1);
  auto reserve = [&](const Value* v) {
    const int64_t at = static_cast<int64_t>(plan.bytes);
    plan.bytes += (static_cast<size_t>(v->numel()) * sizeof(float) + 63) / 64 * 64;
    return at;
  };
  for (size_t i : inputs)
    if (ctx.input(i) && is_half(ctx.input(i)->dtype)) plan.in_offset[i] = reserve(ctx.input(i));
  for (size_t i : outputs) {
    const Value* v = ctx.node().output(i);
    if (v && is_half(v->dtype)) plan.out_offset[i] = reserve(v);
  }
  if (plan.active()) ctx.request_scratch(plan.bytes);
  return plan;
}

namespace half_detail {
inline const char* suffix(DataType t) {
  return t == DataType::kFloat16 ? "f16" : "bf16";
}
}  // namespace half_detail

// Declares the float buffers and widens the half inputs into them.
inline HalfNames emit_widen(EmitContext& ctx, const HalfPlan& plan) {
  HalfNames names;
  names.ins.assign(plan.in_offset.size(), "nullptr");
  names.outs.assign(plan.out_offset.size(), "nullptr");
  for (size_t i : plan.inputs) {
    if (i >= plan.in_offset.size() || !ctx.input(i)) continue;
    if (plan.in_offset[i] < 0) {
      names.ins[i] = ctx.in(i);
      continue;
    }
    names.ins[i] = fmt::format("half_in{}", i);
    ctx.line("float* const {} = static_cast<float*>(static_cast<void*>({} + {}));", names.ins[i],
             ctx.scratch(), plan.in_offset[i]);
    ctx.include("onnxc/cast.h");
    ctx.line("onnxc::{}_f32_cast__scalar({}, {}, {}, onnxc::CastParams{{}});",
             half_detail::suffix(ctx.input(i)->dtype), ctx.in(i), names.ins[i],
             ctx.input(i)->numel());
  }
  for (size_t i : plan.outputs) {
    if (i >= plan.out_offset.size() || !ctx.output(i)) continue;
    if (plan.out_offset[i] < 0) {
      names.outs[i] = ctx.out(i);
      continue;
    }
    names.outs[i] = fmt::format("half_out{}", i);
    ctx.line("float* const {} = static_cast<float*>(static_cast<void*>({} + {}));", names.outs[i],
             ctx.scratch(), plan.out_offset[i]);
  }
  return names;
}

// Rounds the float results into the half outputs.
inline void emit_narrow(EmitContext& ctx, const HalfPlan& plan, const HalfNames& names) {
  for (size_t i = 0; i < plan.out_offset.size(); ++i) {
    if (plan.out_offset[i] < 0) continue;
    ctx.line("onnxc::f32_{}_cast__scalar({}, {}, {}, onnxc::CastParams{{}});",
             half_detail::suffix(ctx.output(i)->dtype), names.outs[i], ctx.out(i),
             ctx.output(i)->numel());
  }
}

// The C++ element type the kernel sees: float for half types.
inline const char* kernel_cpp_type(DataType t) {
  return is_half(t) ? "float" : dtype_cpp(t);
}

}  // namespace onnxc
