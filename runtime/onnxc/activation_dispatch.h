// Fused activations in the widest vector copy the CPU has, for code built for the x86-64
// baseline (--target generic or x86-64-v2 with no -march; ONNXC_X86_ISA_DISPATCH, onnxc/base.h).
//
// SSE2 leaves the float polynomials of onnxc/vmath.h (Sigmoid, Swish, Tanh, Gelu) scalar: the
// bit tricks and selects do not vectorize there, and efficientnet_b0's SiLU convolutions ran
// 9-11x slower than --target native. The compiler wraps such an epilogue's functor as
// Dispatched<Act> (EpilogueSpec::dispatched, the activation table's "polynomial" column), and
// this overload of apply_epilogue runs the row's activation in an AVX-512 or AVX2 + FMA copy of
// the same loop, picked per call (in_isa_copy, onnxc/base.h: the copies contract nothing, so they
// compute every value bit for bit as the baseline does); elsewhere the activation is Act's.
// Generated code includes this header only when it uses the wrapper, so other models paste none
// of it.
#ifndef ONNXC_ACTIVATION_DISPATCH_H
#define ONNXC_ACTIVATION_DISPATCH_H

#include <type_traits>

#include "onnxc/activation.h"
#include "onnxc/base.h"
#include "onnxc/gemm.h"

namespace onnxc {

// Act, marked for the dispatched row loop (its value function is Act's).
template <class Act>
struct Dispatched : Act {};

namespace activation_dispatch_detail {

template <class Act, typename T>
ONNXC_ALWAYS_INLINE void activate_row(const Act& act, T* y, index_t n) {
  for (index_t i = 0; i < n; ++i) y[i] = act(y[i]);
}

}  // namespace activation_dispatch_detail

// apply_epilogue (onnxc/gemm.h) for a dispatched activation: the residual as there, then the
// activation in the copy the CPU runs.
template <class Act, typename T>
inline void apply_epilogue(const Epilogue<Dispatched<Act>>& e, T* y, const T* residual, index_t n) {
  apply_epilogue(Epilogue<>{{}, e.residual}, y, residual, n);
  const Act& act = e.activation;
  if constexpr (std::is_same_v<T, float>)
    ONNXC_IN_ISA_COPY(activation_dispatch_detail::activate_row(act, y, n));
  else
    activation_dispatch_detail::activate_row(act, y, n);
}

}  // namespace onnxc

#endif  // ONNXC_ACTIVATION_DISPATCH_H
