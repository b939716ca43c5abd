#include "ops/epilogue.h"

#include <fmt/format.h>

namespace onnxc {
namespace {

struct ActivationName {
  const char* name;     // the fused_activation attribute's value
  const char* functor;  // onnxc/activation.h
  EpilogueActivation kind;
  bool polynomial;  // run in an ISA copy by baseline x86 builds (onnxc/activation_dispatch.h)
};
constexpr ActivationName kActivations[] = {
#define ONNXC_ACTIVATION_NAME(kind, name, functor, polynomial) {name, #functor, kind, polynomial},
    ONNXC_EPILOGUE_ACTIVATIONS(ONNXC_ACTIVATION_NAME)
#undef ONNXC_ACTIVATION_NAME
};

}  // namespace

bool epilogue_activation_kind(const std::string& name, EpilogueActivation* kind) {
  for (const auto& a : kActivations)
    if (name == a.name) {
      *kind = a.kind;
      return true;
    }
  return false;
}

bool infer_epilogue(InferContext& ctx, const Shape& out_shape, EpilogueSpec& e) {
  e = EpilogueSpec{};
  const Value* x = ctx.input(0);
  if (ctx.has_attr(kFusedActivation)) {
    const std::string name = ctx.attr_string(kFusedActivation, "");
    if (!epilogue_activation_kind(name, &e.activation))
      return ctx.fail("fused activation '{}' is not one onnxc fuses", name);
    e.alpha = ctx.attr_float(kFusedAlpha, 0.0f);
    e.beta = ctx.attr_float(kFusedBeta, 0.0f);
  }
  const Value* r = ctx.input(kResidualInput);
  if (r) {
    if (r->dtype != x->dtype || r->shape != out_shape)
      return ctx.fail("fused residual '{}' is {}[{}]; it must match the output, {}[{}]", r->name,
                      dtype_name(r->dtype), shape_str(r->shape), dtype_name(x->dtype),
                      shape_str(out_shape));
    e.residual = 1;
  }
  // Polynomial activations (the table's column) in AVX2/AVX-512 copies where the code is built
  // for the ISA baseline (generic, x86-64-v2 on a hosted target): SSE2 leaves them scalar.
  const Target& t = ctx.target();
  const bool baseline = (t.isa == Isa::scalar || t.isa == Isa::sse2) && !t.is_microcontroller();
  e.dispatched = kActivations[e.activation].polynomial && baseline;  // rows in the enum's order
  if (has_epilogue(e) && x->dtype != DataType::kFloat)
    return ctx.fail("a fused epilogue needs float tensors, the node computes {}",
                    dtype_name(x->dtype));
  return true;
}

std::string epilogue_declaration(EmitContext& ctx, const EpilogueSpec& e) {
  const char* functor = "NoActivation";
  for (const auto& a : kActivations)
    if (e.activation == a.kind) functor = a.functor;
  const std::string params =
      e.alpha != 0.0f || e.beta != 0.0f
          ? fmt::format("/*alpha=*/{}, /*beta=*/{}", cpp_float(e.alpha), cpp_float(e.beta))
          : "";
  std::string type = fmt::format("onnxc::{}", functor), init = fmt::format("{{{}}}", params);
  if (e.dispatched) {  // the functor wrapped for onnxc/activation_dispatch.h
    ctx.include("onnxc/activation_dispatch.h");
    type = "onnxc::Dispatched<" + type + ">", init = "{" + init + "}";
  }
  return fmt::format(
      "static constexpr onnxc::Epilogue<{}> e = {{/*activation=*/{}, /*residual=*/{}}};", type,
      init, e.residual);
}

}  // namespace onnxc
