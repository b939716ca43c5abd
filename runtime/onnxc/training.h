// Optimizer steps of the ai.onnx.preview.training domain, one optimized tensor per call (a node
// optimizing several tensors makes one call per tensor). R is the scalar learning rate and T the
// scalar int64 update count; X, G and the accumulators have n elements each. All math is done in
// the tensor's type T (float stays float). An output pointer may be null (the output is absent).
//   adagrad_ref   r = R / (1 + T * decay_factor); g = norm_coefficient * X + G;
//                 H' = H + g * g; X' = X - r * g / (sqrt(H') + epsilon)
//   momentum_ref  g = norm_coefficient * X + G; b = T > 0 ? beta : 1; V' = alpha * V + b * g;
//                 standard: X' = X - R * V'; nesterov: X' = X - R * (g + alpha * V')
//   adam_ref      g = norm_coefficient * X + G; V' = alpha * V + (1 - alpha) * g;
//                 H' = beta * H + (1 - beta) * g * g;
//                 r = T > 0 ? R * sqrt(1 - beta^T) / (1 - alpha^T) : R;
//                 X' = (1 - norm_coefficient_post) * (X - r * V' / (sqrt(H') + epsilon))
#ifndef ONNXC_TRAINING_H
#define ONNXC_TRAINING_H

#include <cmath>
#include <cstdint>

#include "onnxc/base.h"

namespace onnxc {

struct AdagradParams {
  index_t n;  // elements of X, G, H
  float decay_factor;
  float epsilon;
  float norm_coefficient;
};

template <typename R, typename T>
inline void adagrad_ref(const R* rate, const int64_t* count, const T* x, const T* g, const T* h,
                        T* x_new, T* h_new, const AdagradParams& p) {
  const T r =
      static_cast<T>(rate[0]) / (T(1) + static_cast<T>(count[0]) * static_cast<T>(p.decay_factor));
  const T norm = static_cast<T>(p.norm_coefficient), eps = static_cast<T>(p.epsilon);
  for (index_t i = 0; i < p.n; ++i) {
    const T gr = norm * x[i] + g[i];
    const T hn = h[i] + gr * gr;
    if (h_new) h_new[i] = hn;
    if (x_new) x_new[i] = x[i] - r * gr / (std::sqrt(hn) + eps);
  }
}

struct MomentumParams {
  index_t n;  // elements of X, G, V
  float alpha;
  float beta;
  float norm_coefficient;
  bool nesterov;  // mode "nesterov" (else "standard")
};

template <typename R, typename T>
inline void momentum_ref(const R* rate, const int64_t* count, const T* x, const T* g, const T* v,
                         T* x_new, T* v_new, const MomentumParams& p) {
  const T r = static_cast<T>(rate[0]);
  const T alpha = static_cast<T>(p.alpha), norm = static_cast<T>(p.norm_coefficient);
  const T beta = count[0] > 0 ? static_cast<T>(p.beta) : T(1);
  for (index_t i = 0; i < p.n; ++i) {
    const T gr = norm * x[i] + g[i];
    const T vn = alpha * v[i] + beta * gr;
    if (v_new) v_new[i] = vn;
    if (x_new) x_new[i] = x[i] - r * (p.nesterov ? gr + alpha * vn : vn);
  }
}

struct AdamParams {
  index_t n;  // elements of X, G, V, H
  float alpha;
  float beta;
  float epsilon;
  float norm_coefficient;
  float norm_coefficient_post;
};

template <typename R, typename T>
inline void adam_ref(const R* rate, const int64_t* count, const T* x, const T* g, const T* v,
                     const T* h, T* x_new, T* v_new, T* h_new, const AdamParams& p) {
  const T alpha = static_cast<T>(p.alpha), beta = static_cast<T>(p.beta);
  const T norm = static_cast<T>(p.norm_coefficient), eps = static_cast<T>(p.epsilon);
  const T post = T(1) - static_cast<T>(p.norm_coefficient_post);
  T r = static_cast<T>(rate[0]);
  if (count[0] > 0) {
    const T steps = static_cast<T>(count[0]);
    r = r * std::sqrt(T(1) - std::pow(beta, steps)) / (T(1) - std::pow(alpha, steps));
  }
  for (index_t i = 0; i < p.n; ++i) {
    const T gr = norm * x[i] + g[i];
    const T vn = alpha * v[i] + (T(1) - alpha) * gr;
    const T hn = beta * h[i] + (T(1) - beta) * gr * gr;
    if (v_new) v_new[i] = vn;
    if (h_new) h_new[i] = hn;
    if (x_new) x_new[i] = post * (x[i] - r * vn / (std::sqrt(hn) + eps));
  }
}

// Helpers of the Gradient lowering (compiler/ops/training/gradient.cpp).
// fill_ref: y[0..n) = v.
template <typename T>
inline void fill_ref(T* y, index_t n, T v) {
  for (index_t i = 0; i < n; ++i) y[i] = v;
}

struct SumToShapeParams {
  int rank;                   // rank of g
  index_t dims[kMaxRank];     // g's shape
  index_t strides[kMaxRank];  // y's element strides over g's shape (0 along summed axes)
  index_t out_n;              // elements of y
};

// y = g summed over the axes along which y broadcasts to g's shape (the adjoint of broadcasting).
template <typename T>
inline void sum_to_shape_ref(const T* g, T* y, const SumToShapeParams& p) {
  for (index_t i = 0; i < p.out_n; ++i) y[i] = T(0);
  index_t n = 1;
  for (int d = 0; d < p.rank; ++d) n *= p.dims[d];
  index_t idx[kMaxRank] = {};
  index_t at = 0;  // y's offset of g's element i
  for (index_t i = 0; i < n; ++i) {
    y[at] += g[i];
    for (int d = p.rank - 1; d >= 0; --d) {  // next index, last axis fastest
      at += p.strides[d];
      if (++idx[d] < p.dims[d]) break;
      at -= p.strides[d] * p.dims[d];
      idx[d] = 0;
    }
  }
}

}  // namespace onnxc

#endif  // ONNXC_TRAINING_H
