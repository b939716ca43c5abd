// The compiler's view of the kernel-variant table (runtime/onnxc/variants.h): one
// KernelVariant per row, in table order, with what the row requires and prefers, and the one
// decision made from it: which row a node runs (kernel_fits: its shape predicate, weights,
// target class and ISA) and in how many parts (kernel_parts: the row's rate). Handlers only
// describe a node (OpHandler::describe_kernel_query -> KernelQuery); select-kernels walks the
// table; `onnxc ops --kernels` and the kernel testers list the same rows.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/target.h"
#include "onnxc/gemm.h"

namespace onnxc {

struct ConvParams;  // onnxc/conv.h

// The tile of the GEMMs that constant folding (OpHandler::evaluate) runs in the compiler itself:
// the hosted row's. Every tile sums each element's products in the same order, so the folded
// values are those the target's tile computes.
using EvaluateGemmTile = GemmTile<6, 16>;

// The shape predicates a row's `fits` column names, one entry each (kernel_variants.cpp holds
// what each one checks).
#define ONNXC_KERNEL_FITS(X) \
  X(any)                     \
  X(dwconv_kxk)              \
  X(window_kxk)              \
  X(winograd)                \
  X(gemm_packed)             \
  X(gemm_blocked)            \
  X(gemm_small)              \
  X(gemv_rows)
enum class KernelFit {
#define ONNXC_FIT_ENUM(name) name,
  ONNXC_KERNEL_FITS(ONNXC_FIT_ENUM)
#undef ONNXC_FIT_ENUM
};
// The target classes a row's `targets` column names (see variants.h).
#define ONNXC_TARGET_CLASSES(X) X(any) X(hosted) X(mcu) X(wide) X(baseline) X(vector_fma)
enum class TargetClass {
#define ONNXC_CLASS_ENUM(name) name,
  ONNXC_TARGET_CLASSES(ONNXC_CLASS_ENUM)
#undef ONNXC_CLASS_ENUM
};

struct KernelVariant {
  std::string name;       // "f32_dwconv_3x3__avx512f": the function the generated code calls
  std::string dtype;      // "f32"
  std::string op;         // the family: "dwconv", "conv"
  std::string tile;       // "3x3", "8x32", "any"
  Isa isa;                // what the C++ compiler must be allowed to use to build it
  std::string header;     // "onnxc/conv_variants.h"
  KernelFit fits;         // the node shapes it takes
  bool constant_weights;  // reads its weights packed at compile time (pack-weights)
  TargetClass targets;    // the targets it is meant for
  int64_t panel;          // gemm_packed: the B panel width (pack_gemm_b<panel>); 0 otherwise
  double gflops;          // per-core rate for --threads' split; 0: always runs whole
};

// What a handler says about a node for kernel choice (OpHandler::describe_kernel_query): the
// families it may run, in the table's order, and the facts the rows' predicates read. Pointers
// refer to the node's state and live as long as it.
struct KernelQuery {
  std::string dtype = "f32";          // the element type the kernel computes in
  std::vector<std::string> families;  // empty: the node runs no variant
  const ConvParams* conv = nullptr;   // dwconv_kxk: the convolution
  const GemmParams* gemm = nullptr;   // gemm_*, gemv_rows: the product (a recurrent step's)
  bool constant_weights = false;      // its weights are constant and read as stored
  bool winograd_fits = false;         // winograd: Winograd pays and its blocks fit the scratch
  double flops = 0;                   // the work of one parallel region (a call, a step)
  bool recurrent_step = false;        // that region is a recurrent step's (else a kernel call's)
  int64_t max_parts = INT64_MAX;      // the most parts its work divides into
};

// Every row of ONNXC_KERNEL_VARIANTS, in table (preference) order.
const std::vector<KernelVariant>& all_kernel_variants();
const KernelVariant* find_kernel_variant(std::string_view name);
// The window size K of a square-window variant (tile "KxK" with equal sides: "3x3" -> 3), 0 for
// any other tile ("8x32", "any").
int square_tile(const KernelVariant& v);
// The MR of a GEMM tile "MRxNR" (the leading number), 0 when the tile has none ("any").
constexpr int64_t tile_rows(const char* tile) {
  int64_t rows = 0;
  for (; *tile >= '0' && *tile <= '9'; ++tile) rows = rows * 10 + (*tile - '0');
  return rows;
}
std::string_view kernel_fit_name(KernelFit fit);
std::string_view target_class_name(TargetClass c);
// Whether code built for a target of ISA `target` may call a variant written for `variant`
// (scalar everywhere; AVX-512 targets have AVX2 + FMA and SSE2; AArch64 NEON has FMA).
bool isa_allows(Isa target, Isa variant);
// Whether `target` may use the row at all: its ISA allows the row's, and the row is meant for
// its class.
bool target_may_use(const KernelVariant& v, const Target& target);
// Whether the node `q` describes may run row `v` on `target`: one of its families and its dtype,
// the row's shape predicate, constant weights where the row packs them, and target_may_use.
bool kernel_fits(const KernelVariant& v, const KernelQuery& q, const Target& target);
// The first row of the table that fits the node `q` describes on `target` (kernel_fits), or null:
// the one walk every kernel choice makes (select-kernels, and infer()'s default for a node that
// select-kernels does not reach when disabled).
const KernelVariant* first_fitting_variant(const KernelQuery& q, const Target& target);
// The blocked float GEMM row (family gemm, fit gemm_blocked) that `target` runs: the register tile
// of the kernels that run GEMMs inside (MatMul, ConvTranspose, the recurrent ops), which the
// generated call names as a GemmTile (onnxc/gemm.h).
const KernelVariant& blocked_gemm_variant(const Target& target);
// "onnxc::GemmTile<6, 16>" for a GEMM row of tile "6x16".
std::string gemm_tile_type(const KernelVariant& v);
// --threads: the parts row `v` splits the node's work into on `target`: target.threads when the
// work, run at the row's rate on one core, takes at least the target's least split time
// (target.split: min_call_s for a kernel call, min_step_s for a recurrent step) and divides into
// that many parts; else 1 (also for rows without a parallel form, gflops 0).
int kernel_parts(const KernelVariant& v, const KernelQuery& q, const Target& target);
// The arguments a variant's parallel form takes after its fused-epilogue ones (onnxc/parallel.h):
// ", parallel, /*tasks=*/N".
std::string parallel_args(int tasks);

}  // namespace onnxc
