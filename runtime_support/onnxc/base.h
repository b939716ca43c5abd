// Shared pieces of the kernels: index type, max rank, byte copies and broadcasting strides.
#ifndef ONNXC_BASE_H
#define ONNXC_BASE_H

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "onnxc/types.h"

namespace onnxc {

using index_t = std::ptrdiff_t;
constexpr int kMaxRank = 8;

inline void copy_bytes(void* dst, const void* src, std::size_t n) {
  if (n && dst != src) std::memcpy(dst, src, n);
}

// A shape and, for an operand broadcast to it, the operand's strides (0 on broadcast axes).
struct BroadcastShape {
  int rank;
  index_t dims[kMaxRank];
};

}  // namespace onnxc

#endif  // ONNXC_BASE_H
