// The compiler's view of the kernel-variant table (runtime_support/onnxc/variants.h): one
// KernelVariant per row, in table order, with the ISA it needs. select-kernels picks among the
// candidates a handler offers (OpHandler::kernel_candidates); `onnxc ops` and the kernel testers
// list the same rows.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ir/target.h"

namespace onnxc {

struct KernelVariant {
  std::string name;    // "f32_dwconv_3x3__avx512f": the function the generated code calls
  std::string dtype;   // "f32"
  std::string op;      // the family: "dwconv", "conv"
  std::string tile;    // "3x3", "8x32", "any"
  Isa isa;             // what the C++ compiler must be allowed to use to build it
  std::string header;  // "onnxc/conv_variants.h"
};

// Every row of ONNXC_KERNEL_VARIANTS, in table (preference) order.
const std::vector<KernelVariant>& all_kernel_variants();
// The rows of one family (dtype, op), in preference order.
std::vector<const KernelVariant*> kernel_variants(std::string_view dtype, std::string_view op);
const KernelVariant* find_kernel_variant(std::string_view name);
// The window size K of a square-window variant (tile "KxK" with equal sides: "3x3" -> 3), 0 for
// any other tile ("8x32", "any").
int square_tile(const KernelVariant& v);
// Whether code built for a target of ISA `target` may call a variant written for `variant`
// (scalar everywhere; AVX-512 targets have AVX2 + FMA and SSE2; AArch64 NEON has FMA).
bool isa_allows(Isa target, Isa variant);

// --threads: how many parts a kernel of `flops` floating-point operations, run at about
// `gflop_per_s` on one core, splits into on a target of `threads` threads. Kernels expected to
// take under 20 microseconds stay whole (1): handing a part to another core (a microsecond),
// and then reading its output from that core's cache, costs about as much as it saves.
int parallel_tasks(int threads, double flops, double gflop_per_s);
// The arguments a variant's parallel form takes after its fused-epilogue ones (onnxc/parallel.h):
// ", parallel, /*tasks=*/N".
std::string parallel_args(int tasks);

}  // namespace onnxc
