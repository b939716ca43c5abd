// The activations: functors that map one element, shared by the unary ops of the same name
// (onnxc/unary.h) and the fused epilogues of the Conv, Gemm and MatMul kernels (onnxc/gemm.h),
// so that a fused graph computes exactly what the unfused one does.
//
// Each functor holds the op's two float attributes, alpha and beta (unused ones are 0), and
// receives the element in its compute type (float for the half types). A fused epilogue names
// its activation as a type (Epilogue<Relu>), so a program carries the code of the activations
// it uses and no other. NoActivation is the epilogue without one.
//
//   NoActivation  x                     Relu         max(x, 0) (NaN gives 0)
//   Clip          min(max(x, alpha), beta) (alpha > beta gives beta everywhere, as clip_ref)
//   LeakyRelu     x >= 0 ? x : alpha x  Sigmoid      1 / (1 + e^-x)
//   HardSigmoid   max(0, min(1, alpha x + beta))     HardSwish    x max(0, min(1, x / 6 + 1/2))
//   Tanh, GeluErf (Gelu), GeluTanh (Gelu, approximate="tanh"), Swish x sigmoid(alpha x)
#ifndef ONNXC_ACTIVATION_H
#define ONNXC_ACTIVATION_H

#include <cmath>

#include "onnxc/base.h"
#include "onnxc/vmath.h"

namespace onnxc {

#define ONNXC_UNARY_FUNCTOR(Name, expr)           \
  struct Name {                                   \
    float alpha, beta;                            \
    template <typename T>                         \
    ONNXC_ALWAYS_INLINE T operator()(T x) const { \
      (void)alpha;                                \
      (void)beta;                                 \
      return static_cast<T>(expr);                \
    }                                             \
  };

// min(max(x, lo), hi) in comparisons (they vectorize; NaN stays NaN).
template <typename T>
ONNXC_ALWAYS_INLINE T clip_to(T x, T lo, T hi) {
  const T v = x < lo ? lo : x;
  return v > hi ? hi : v;
}

ONNXC_UNARY_FUNCTOR(NoActivation, x)
ONNXC_UNARY_FUNCTOR(Relu, x > T(0) ? x : T(0))
ONNXC_UNARY_FUNCTOR(Clip, clip_to(x, static_cast<T>(alpha), static_cast<T>(beta)))
ONNXC_UNARY_FUNCTOR(LeakyRelu, pick(x >= T(0), x, static_cast<T>(x* static_cast<T>(alpha))))
// Float (and the half types, computed in float) through the vectorizable sigmoid_poly.
ONNXC_UNARY_FUNCTOR(Sigmoid, sigmoid_of(x))
ONNXC_UNARY_FUNCTOR(HardSigmoid, clamp_unit(static_cast<T>(alpha) * x + static_cast<T>(beta)))
// HardSwish multiplies by float(1/6) as the spec's alpha does (and HardSigmoid with that alpha):
// x * HardSigmoid(x), the form exporters wrote before opset 14, is HardSwish bit for bit.
ONNXC_UNARY_FUNCTOR(HardSwish, clamp_unit(static_cast<T>(1.0 / 6) * x + T(0.5)) * x)
ONNXC_UNARY_FUNCTOR(Tanh, tanh_of(x))
ONNXC_UNARY_FUNCTOR(GeluErf, T(0.5) * x * (T(1) + erf_of(x / std::sqrt(T(2)))))
ONNXC_UNARY_FUNCTOR(GeluTanh, T(0.5) * x *
                                  (T(1) + tanh_of(std::sqrt(T(2) / T(3.14159265358979323846)) *
                                                  (x + T(0.044715) * x * x * x))))
ONNXC_UNARY_FUNCTOR(Swish, x* sigmoid_of(static_cast<T>(static_cast<T>(alpha) * x)))

}  // namespace onnxc

#endif  // ONNXC_ACTIVATION_H
