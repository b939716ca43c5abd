// The fused-epilogue activations as a table, for code that picks one at run time: the compiler
// (which reads fused_activation attributes, and evaluates fused nodes when it folds constants)
// and the kernel testers. Generated code does not include it: it names its activation's functor
// (onnxc/activation.h) in an Epilogue<Act> literal.
#ifndef ONNXC_ACTIVATION_TABLE_H
#define ONNXC_ACTIVATION_TABLE_H

#include "onnxc/activation.h"
#include "onnxc/gemm.h"

namespace onnxc {

// X(kind, fused_activation attribute value, functor, polynomial)
//   polynomial: 1 when the float activation is a polynomial of onnxc/vmath.h, which SSE2 leaves
//               scalar: a baseline x86 build runs its rows in an AVX2 or AVX-512 copy
//               (Dispatched<functor>, onnxc/activation_dispatch.h)
#define ONNXC_EPILOGUE_ACTIVATIONS(X)               \
  X(kActNone, "None", NoActivation, 0)              \
  X(kActRelu, "Relu", Relu, 0)                      \
  X(kActClip, "Clip", Clip, 0)                      \
  X(kActLeakyRelu, "LeakyRelu", LeakyRelu, 0)       \
  X(kActSigmoid, "Sigmoid", Sigmoid, 1)             \
  X(kActHardSigmoid, "HardSigmoid", HardSigmoid, 0) \
  X(kActHardSwish, "HardSwish", HardSwish, 0)       \
  X(kActTanh, "Tanh", Tanh, 1)                      \
  X(kActGeluErf, "Gelu", GeluErf, 1)                \
  X(kActGeluTanh, "GeluTanh", GeluTanh, 1)          \
  X(kActSwish, "Swish", Swish, 1)

enum EpilogueActivation : int {
#define ONNXC_ACTIVATION_KIND(kind, name, functor, polynomial) kind,
  ONNXC_EPILOGUE_ACTIVATIONS(ONNXC_ACTIVATION_KIND)
#undef ONNXC_ACTIVATION_KIND
};

// An epilogue as values: the activation's kind and parameters (Clip: min, max; LeakyRelu,
// Swish: alpha; HardSigmoid: alpha, beta; others none), whether a residual is added, and whether
// generated code wraps the functor as Dispatched<functor> (the compiler's choice for the target:
// a polynomial activation in a baseline x86 build).
struct EpilogueSpec {
  EpilogueActivation activation;
  float alpha, beta;
  int residual;
  int dispatched = 0;
};

inline bool has_epilogue(const EpilogueSpec& s) {
  return s.activation != kActNone || s.residual;
}

// f(Epilogue<functor>{...}) for s's activation: the typed epilogue the kernels take. Every
// EpilogueActivation has its case (-Wswitch checks the table covers the enum).
template <class F>
void with_epilogue(const EpilogueSpec& s, F&& f) {
  switch (s.activation) {
#define ONNXC_ACTIVATION_CASE(kind, name, functor, polynomial)  \
  case kind:                                                    \
    f(Epilogue<functor>{functor{s.alpha, s.beta}, s.residual}); \
    return;
    ONNXC_EPILOGUE_ACTIVATIONS(ONNXC_ACTIVATION_CASE)
#undef ONNXC_ACTIVATION_CASE
  }
}

// s's activation applied to one value (what a kernel's epilogue computes from acc + residual).
template <typename T>
T apply_activation(const EpilogueSpec& s, T x) {
  with_epilogue(s, [&](const auto& e) { x = e.activation(x); });
  return x;
}

}  // namespace onnxc

#endif  // ONNXC_ACTIVATION_TABLE_H
