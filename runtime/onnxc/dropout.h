// Dropout, with numpy's Mersenne Twister so that a seeded training-mode Dropout draws the mask the
// ONNX reference draws.
#ifndef ONNXC_DROPOUT_H
#define ONNXC_DROPOUT_H

#include <cstdint>

#include "onnxc/base.h"
#include "onnxc/unary.h"

namespace onnxc {

// MT19937 seeded like numpy's legacy RandomState(seed), so that a seeded training-mode Dropout
// draws the mask the ONNX reference draws.
class Mt19937 {
 public:
  explicit Mt19937(uint32_t seed) {
    state_[0] = seed;
    for (uint32_t i = 1; i < kN; ++i)
      state_[i] = 1812433253u * (state_[i - 1] ^ (state_[i - 1] >> 30)) + i;
  }
  uint32_t next() {
    if (pos_ == kN) twist();
    uint32_t y = state_[pos_++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
  }
  // A double in [0, 1) from 53 random bits, as numpy's random_sample.
  double uniform() {
    const uint32_t hi = next() >> 5, lo = next() >> 6;
    return (hi * 67108864.0 + lo) / 9007199254740992.0;
  }

 private:
  static constexpr uint32_t kN = 624, kM = 397;
  void twist() {
    for (uint32_t i = 0; i < kN; ++i) {
      const uint32_t y = (state_[i] & 0x80000000u) | (state_[(i + 1) % kN] & 0x7fffffffu);
      state_[i] = state_[(i + kM) % kN] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    }
    pos_ = 0;
  }
  uint32_t state_[kN];
  uint32_t pos_ = kN;
};

// Dropout. Inference (training null or false, or a zero ratio): y = x and the mask is all true.
// Training: element i is kept when the i-th uniform draw is >= ratio (default 0.5) and scaled by
// 1 / (1 - ratio). mask may be null; its type is bool from opset 10, the data type before.
template <typename T, typename R, typename M>
inline void dropout_ref(const T* x, T* y, M* mask, index_t n, const R* ratio, const bool* training,
                        uint32_t seed) {
  const double r = ratio ? static_cast<double>(elem_load(*ratio)) : 0.5;
  if (!(training && *training) || r == 0) {
    for (index_t i = 0; i < n; ++i) y[i] = x[i];
    if (mask)
      for (index_t i = 0; i < n; ++i) mask[i] = ElemStore<M>::to(1);
    return;
  }
  Mt19937 rng(seed);
  const double scale = 1.0 / (1.0 - r);
  for (index_t i = 0; i < n; ++i) {
    const bool keep = rng.uniform() >= r;
    y[i] = ElemStore<T>::to(keep ? static_cast<double>(elem_load(x[i])) * scale : 0.0);
    if (mask) mask[i] = ElemStore<M>::to(keep ? 1 : 0);
  }
}

}  // namespace onnxc

#endif  // ONNXC_DROPOUT_H
