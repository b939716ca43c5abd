// The fused-epilogue activations as a table, for code that picks one at run time: the compiler
// (which reads fused_activation attributes, and evaluates fused nodes when it folds constants)
// and the kernel testers. Generated code does not include it: it names its activation's functor
// (onnxc/activation.h) in an Epilogue<Act> literal.
#ifndef ONNXC_ACTIVATION_TABLE_H
#define ONNXC_ACTIVATION_TABLE_H

#include "onnxc/activation.h"
#include "onnxc/gemm.h"

namespace onnxc {

// X(kind, fused_activation attribute value, functor)
#define ONNXC_EPILOGUE_ACTIVATIONS(X)            \
  X(kActNone, "None", NoActivation)              \
  X(kActRelu, "Relu", Relu)                      \
  X(kActClip, "Clip", Clip)                      \
  X(kActLeakyRelu, "LeakyRelu", LeakyRelu)       \
  X(kActSigmoid, "Sigmoid", Sigmoid)             \
  X(kActHardSigmoid, "HardSigmoid", HardSigmoid) \
  X(kActHardSwish, "HardSwish", HardSwish)       \
  X(kActTanh, "Tanh", Tanh)                      \
  X(kActGeluErf, "Gelu", GeluErf)                \
  X(kActGeluTanh, "GeluTanh", GeluTanh)          \
  X(kActSwish, "Swish", Swish)

enum EpilogueActivation : int {
#define ONNXC_ACTIVATION_KIND(kind, name, functor) kind,
  ONNXC_EPILOGUE_ACTIVATIONS(ONNXC_ACTIVATION_KIND)
#undef ONNXC_ACTIVATION_KIND
};

// An epilogue as values: the activation's kind and parameters (Clip: min, max; LeakyRelu,
// Swish: alpha; HardSigmoid: alpha, beta; others none), and whether a residual is added.
struct EpilogueSpec {
  EpilogueActivation activation;
  float alpha, beta;
  int residual;
};

inline bool has_epilogue(const EpilogueSpec& s) {
  return s.activation != kActNone || s.residual;
}

// f(Epilogue<functor>{...}) for s's activation: the typed epilogue the kernels take. Every
// EpilogueActivation has its case (-Wswitch checks the table covers the enum).
template <class F>
void with_epilogue(const EpilogueSpec& s, F&& f) {
  switch (s.activation) {
#define ONNXC_ACTIVATION_CASE(kind, name, functor)              \
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
