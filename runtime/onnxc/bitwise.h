// Bit-level and small elementwise kernels, on top of onnxc/elementwise.h's unary_ref/binary_ref:
//   BitAnd, BitOr, BitXor, BitNot   functors for the Bitwise* ops (integer types)
//   ShrinkFn                        Shrink: x < -lambd ? x + bias : x > lambd ? x - bias : 0
//   bitcast_ref                     BitCast: the same bytes read as another type of equal width
#ifndef ONNXC_BITWISE_H
#define ONNXC_BITWISE_H

#include <cmath>
#include <cstddef>
#include <type_traits>

#include "onnxc/base.h"
#include "onnxc/elementwise.h"

namespace onnxc {

struct BitAnd {
  template <typename A>
  A operator()(A a, A b) const {
    return static_cast<A>(a & b);
  }
};
struct BitOr {
  template <typename A>
  A operator()(A a, A b) const {
    return static_cast<A>(a | b);
  }
};
struct BitXor {
  template <typename A>
  A operator()(A a, A b) const {
    return static_cast<A>(a ^ b);
  }
};
struct BitNot {
  template <typename A>
  A operator()(A a) const {
    return static_cast<A>(~a);
  }
};

// Integers are computed in double (the thresholds are float attributes) and converted back;
// floating types (float16 arrives as float) in their own type.
struct ShrinkFn {
  float lambd, bias;
  template <typename T>
  T operator()(T x) const {
    using C = std::conditional_t<std::is_floating_point_v<T>, T, double>;
    const C v = static_cast<C>(x), l = static_cast<C>(lambd), b = static_cast<C>(bias);
    if (v < -l) return static_cast<T>(v + b);
    if (v > l) return static_cast<T>(v - b);
    return T(0);
  }
};

inline void bitcast_ref(const void* x, void* y, std::size_t bytes) {
  copy_bytes(y, x, bytes);
}

}  // namespace onnxc

#endif  // ONNXC_BITWISE_H
