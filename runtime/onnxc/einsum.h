// Einsum as one generic loop nest. The compiler parses the equation and numbers its labels: the
// output labels first (in output order), then the summed ones. Each operand has an element stride
// per label (the sum of the strides of its axes carrying that label, so a repeated label walks a
// diagonal; 0 where the operand lacks the label or broadcasts it).
//   y[out labels] = sum over the summed labels of prod_i x_i[labels]
// Parameters are computed by the compiler; kernels never validate them.
#ifndef ONNXC_EINSUM_H
#define ONNXC_EINSUM_H

#include "onnxc/base.h"

namespace onnxc {

constexpr int kEinsumMaxInputs = 4;
constexpr int kEinsumMaxLabels = 16;

struct EinsumParams {
  int num_inputs;
  int num_out;     // labels 0..num_out-1 index the output, row-major
  int num_labels;  // labels num_out..num_labels-1 are summed
  index_t sizes[kEinsumMaxLabels];
  index_t strides[kEinsumMaxInputs][kEinsumMaxLabels];
  index_t out_numel;  // product of the output label sizes
  index_t sum_numel;  // product of the summed label sizes
};

// x: num_inputs operand pointers. The sum runs in T (float for float tensors).
template <typename T>
inline void einsum_ref(const EinsumParams& p, const T* const* x, T* y) {
  index_t idx[kEinsumMaxLabels] = {};
  for (index_t o = 0; o < p.out_numel; ++o) {
    T acc = T(0);
    for (index_t s = 0; s < p.sum_numel; ++s) {
      T prod = T(1);
      for (int i = 0; i < p.num_inputs; ++i) {
        index_t off = 0;
        for (int l = 0; l < p.num_labels; ++l) off += idx[l] * p.strides[i][l];
        prod = static_cast<T>(prod * x[i][off]);
      }
      acc = static_cast<T>(acc + prod);
      for (int l = p.num_labels - 1; l >= p.num_out; --l) {  // next summed position
        if (++idx[l] < p.sizes[l]) break;
        idx[l] = 0;
      }
    }
    y[o] = acc;
    for (int l = p.num_out - 1; l >= 0; --l) {  // next output position
      if (++idx[l] < p.sizes[l]) break;
      idx[l] = 0;
    }
  }
}

}  // namespace onnxc

#endif  // ONNXC_EINSUM_H
