// Fused activations in the widest vector copy the CPU has, for code built for the x86-64
// baseline (--target generic or x86-64-v2 with no -march; ONNXC_X86_ISA_DISPATCH, onnxc/base.h).
//
// SSE2 leaves the float polynomials of onnxc/vmath.h (Sigmoid, Swish, Tanh, Gelu) scalar: the
// bit tricks and selects do not vectorize there, and efficientnet_b0's SiLU convolutions ran
// 9-11x slower than --target native. The compiler wraps such an epilogue's functor as
// Dispatched<Act> (EpilogueSpec::dispatched, the activation table's "polynomial" column), and
// this overload of apply_epilogue runs the row's activation in an AVX-512 or AVX2 + FMA copy of
// the same loop, picked per call. Without -ffp-contract=fast the copies compute every value bit
// for bit as the baseline does (onnxc test and bench, and onnxc_add_model, build so); elsewhere
// the activation is Act's. Generated code includes this header only when it uses the wrapper, so
// other models paste none of it.
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

#if defined(ONNXC_X86_ISA_DISPATCH)
// g++ -O2 vectorizes only loops whose trip count is a known multiple of the vector (its "very
// cheap" cost model): a row of n stayed scalar, and efficientnet_b0's SiLU rows took 19x their
// -O3 time. The copies ask for -O3's cost model (the values are the same either way).
#if defined(__clang__)
#define ONNXC_VECTORIZE_ROW
#else
#define ONNXC_VECTORIZE_ROW optimize("vect-cost-model=dynamic")
#endif
template <class Act>
__attribute__((target("avx512f"), ONNXC_VECTORIZE_ROW, noinline)) void activate_row_avx512f(
    const Act& act, float* y, index_t n) {
  activate_row(act, y, n);
}
template <class Act>
__attribute__((target("avx2,fma"), ONNXC_VECTORIZE_ROW, noinline)) void activate_row_avx2_fma(
    const Act& act, float* y, index_t n) {
  activate_row(act, y, n);
}
#endif

}  // namespace activation_dispatch_detail

// apply_epilogue (onnxc/gemm.h) for a dispatched activation: the residual as there, then the
// activation in the copy the CPU runs.
template <class Act, typename T>
inline void apply_epilogue(const Epilogue<Dispatched<Act>>& e, T* y, const T* residual, index_t n) {
  apply_epilogue(Epilogue<>{{}, e.residual}, y, residual, n);
  const Act& act = e.activation;
#if defined(ONNXC_X86_ISA_DISPATCH)
  if constexpr (std::is_same_v<T, float>) {
    if (ONNXC_CPU_HAS_AVX512F()) return activation_dispatch_detail::activate_row_avx512f(act, y, n);
    if (ONNXC_CPU_HAS_AVX2_FMA())
      return activation_dispatch_detail::activate_row_avx2_fma(act, y, n);
  }
#endif
  activation_dispatch_detail::activate_row(act, y, n);
}

}  // namespace onnxc

#endif  // ONNXC_ACTIVATION_DISPATCH_H
