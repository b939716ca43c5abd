// The stack bound the generated header states as kMaxStackBytes: the most stack one call of
// run() may use on a target, library calls (libm, memset, soft-float helpers) included.
//
// How the figures were found: the generated call tree is static and shallow (run() -> kernel
// entries -> helpers; no recursion, no VLAs, no alloca), so its depth is the deepest path through
// GCC's -fcallgraph-info=su graph. examples/cortex-m/stack_depth.py computes that path; measured
// with the table's compilers at -O2 over the three models of run_qemu.sh (small, tiny_cnn, kws),
// the deepest path per target was (kernels of main at 05ed32d):
//   generic 3056, x86-64-v2 3056, x86-64-v3 1408, x86-64-v4 2720 (g++ 12),
//   aarch64 3088 (aarch64-linux-gnu-g++ 12), cortex-a7 2496, cortex-m7 608, cortex-m4 608,
//   cortex-m3 632, cortex-m0plus 616 (arm-none-eabi-g++ 12.2).
// Each bound is that depth plus 25% (for kernels those models do not call and other compilers'
// frames), rounded up to 256 bytes.
//
// What checks it: the qemu_embedded test (run_qemu.sh) re-measures the deepest path of every CI
// model for every target of this table and fails when one exceeds the bound; on the two
// microcontrollers it also runs every inference on a stack of exactly kMaxStackBytes above an MPU
// guard, so that an overflow faults. It does NOT prove the bound for models or compilers it has
// not seen: a kernel with a deeper frame than any CI model uses can exceed it.
#pragma once

#include <cstddef>
#include <string_view>

#include "ir/target.h"

namespace onnxc {

// X(target name, kMaxStackBytes)
#define ONNXC_STACK_BOUNDS(X) \
  X("generic", 4096)          \
  X("x86-64-v2", 4096)        \
  X("x86-64-v3", 1792)        \
  X("x86-64-v4", 3584)        \
  X("aarch64", 4096)          \
  X("cortex-a7", 3328)        \
  X("cortex-m55", 1024)       \
  X("cortex-m7", 1024)        \
  X("cortex-m4", 1024)        \
  X("cortex-m3", 1024)        \
  X("cortex-m0plus", 1024)

// kMaxStackBytes for `target`, or 0 when the table has no row for it (a test keeps every target
// of ONNXC_TARGETS in the table).
inline std::size_t max_stack_bytes(const Target& target) {
#define ONNXC_STACK_BOUND_ROW(row_name, bytes) \
  if (target.name == std::string_view(row_name)) return bytes;
  ONNXC_STACK_BOUNDS(ONNXC_STACK_BOUND_ROW)
#undef ONNXC_STACK_BOUND_ROW
  return 0;
}

}  // namespace onnxc
