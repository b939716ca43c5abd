#include "ops/kernel_variants.h"

#include <cstdlib>

#include "onnxc/variants.h"

namespace onnxc {

const std::vector<KernelVariant>& all_kernel_variants() {
#define ONNXC_VARIANT_ROW(dtype, op, tile, isa, header)                           \
  KernelVariant{#dtype "_" #op "_" #tile "__" #isa, #dtype, #op, #tile, Isa::isa, \
                std::string("onnxc/") + header},
  static const std::vector<KernelVariant> rows = {ONNXC_KERNEL_VARIANTS(ONNXC_VARIANT_ROW)};
#undef ONNXC_VARIANT_ROW
  return rows;
}

std::vector<const KernelVariant*> kernel_variants(std::string_view dtype, std::string_view op) {
  std::vector<const KernelVariant*> out;
  for (const KernelVariant& v : all_kernel_variants())
    if (v.dtype == dtype && v.op == op) out.push_back(&v);
  return out;
}

const KernelVariant* find_kernel_variant(std::string_view name) {
  for (const KernelVariant& v : all_kernel_variants())
    if (v.name == name) return &v;
  return nullptr;
}

int square_tile(const KernelVariant& v) {
  const size_t x = v.tile.find('x');
  if (x == std::string::npos || v.tile.substr(0, x) != v.tile.substr(x + 1)) return 0;
  return std::atoi(v.tile.c_str());
}

bool isa_allows(Isa target, Isa variant) {
  if (variant == Isa::scalar || variant == target) return true;
  switch (target) {
    case Isa::avx512f:
      return variant == Isa::avx2_fma || variant == Isa::sse2;
    case Isa::avx2_fma:
      return variant == Isa::sse2;
    case Isa::neonfma:
      return variant == Isa::neon;
    default:
      return false;
  }
}

int parallel_tasks(int threads, double flops, double gflop_per_s) {
  constexpr double kMinParallelSeconds = 20e-6;
  return threads > 1 && flops / (gflop_per_s * 1e9) >= kMinParallelSeconds ? threads : 1;
}

std::string parallel_args(int tasks) {
  return ", parallel, /*tasks=*/" + std::to_string(tasks);
}

}  // namespace onnxc
