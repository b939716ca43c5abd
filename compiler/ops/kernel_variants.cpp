#include "ops/kernel_variants.h"

#include <algorithm>
#include <cstdlib>

#include "onnxc/conv_variants.h"
#include "onnxc/gemm.h"
#include "onnxc/variants.h"

namespace onnxc {

const std::vector<KernelVariant>& all_kernel_variants() {
#define ONNXC_VARIANT_ROW(dtype, op, tile, isa, header, fits, weights, targets, panel, gflops) \
  KernelVariant{#dtype "_" #op "_" #tile "__" #isa,                                            \
                #dtype,                                                                        \
                #op,                                                                           \
                #tile,                                                                         \
                Isa::isa,                                                                      \
                std::string("onnxc/") + header,                                                \
                KernelFit::fits,                                                               \
                std::string_view(#weights) == "constant",                                      \
                TargetClass::targets,                                                          \
                panel,                                                                         \
                gflops},
  static const std::vector<KernelVariant> rows = {ONNXC_KERNEL_VARIANTS(ONNXC_VARIANT_ROW)};
#undef ONNXC_VARIANT_ROW
  return rows;
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

std::string_view kernel_fit_name(KernelFit fit) {
#define ONNXC_FIT_NAME(name) #name,
  static constexpr const char* kNames[] = {ONNXC_KERNEL_FITS(ONNXC_FIT_NAME)};
#undef ONNXC_FIT_NAME
  return kNames[static_cast<int>(fit)];
}

std::string_view target_class_name(TargetClass c) {
#define ONNXC_CLASS_NAME(name) #name,
  static constexpr const char* kNames[] = {ONNXC_TARGET_CLASSES(ONNXC_CLASS_NAME)};
#undef ONNXC_CLASS_NAME
  return kNames[static_cast<int>(c)];
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
    case Isa::mve:  // the Cortex-M55 has the DSP extension as well
      return variant == Isa::dsp;
    default:
      return false;
  }
}

namespace {

// ---- The shape predicates: one function per ONNXC_KERNEL_FITS entry ---------------------------
// Each reads only the KernelQuery a handler filled; the table below maps the row's `fits` name
// to its function, so no code tests tile or op names.

bool fits_any(const KernelVariant&, const KernelQuery&) {
  return true;
}
// A depthwise window the row's KxK tile computes (stride, dilation, padding it handles).
bool fits_dwconv_kxk(const KernelVariant& v, const KernelQuery& q) {
  return q.conv && f32_dwconv_kxk_applies(*q.conv, square_tile(v));
}
// A 2-D window of the row's KxK size (any stride, dilation and padding).
bool fits_window_kxk(const KernelVariant& v, const KernelQuery& q) {
  const int k = square_tile(v);
  return q.conv && q.conv->kernel[0] == 1 && q.conv->kernel[1] == k && q.conv->kernel[2] == k;
}
// Winograd F(4x4, 3x3): the handler found it pays for this convolution and its blocks fit.
bool fits_winograd(const KernelVariant&, const KernelQuery& q) {
  return q.winograd_fits;
}
// A product the blocked tiles beat the reference on (onnxc/gemm.h's gemm_prefers_blocked).
bool fits_gemm_blocked(const KernelVariant&, const KernelQuery& q) {
  return q.gemm && gemm_prefers_blocked(q.gemm->m, q.gemm->n, q.gemm->k);
}
// Below gemm_prefers_blocked: the reference (1x1) is faster than packing.
bool fits_gemm_small(const KernelVariant& v, const KernelQuery& q) {
  return q.gemm && !fits_gemm_blocked(v, q);
}
// Packing B at compile time pays: a blocked product of at least 4 rows whose B packs into panels.
bool fits_gemm_packed(const KernelVariant& v, const KernelQuery& q) {
  return fits_gemm_blocked(v, q) && q.gemm->m >= 4 && gemm_detail::packs_panels(*q.gemm);
}
// A vector product (under 4 rows): it streams its matrix, so parts read disjoint slices of it.
bool fits_gemv_rows(const KernelVariant&, const KernelQuery& q) {
  return q.gemm && q.gemm->m < 4;
}

using FitFn = bool (*)(const KernelVariant&, const KernelQuery&);
#define ONNXC_FIT_FN(name) fits_##name,
constexpr FitFn kFits[] = {ONNXC_KERNEL_FITS(ONNXC_FIT_FN)};
#undef ONNXC_FIT_FN

// Whether a target of this kind is one the row is meant for (variants.h, `targets`).
bool class_fits(TargetClass c, const Target& target) {
  switch (c) {
    case TargetClass::any:
      return true;
    case TargetClass::hosted:
      return !target.is_microcontroller();
    case TargetClass::mcu:
      return target.is_microcontroller();
    case TargetClass::wide:
      return !target.is_microcontroller() && target.isa == Isa::avx512f;
    case TargetClass::baseline:
      return !target.is_microcontroller() && (target.isa == Isa::scalar || target.isa == Isa::sse2);
    case TargetClass::vector_fma:
      return !target.is_microcontroller() &&
             (target.isa == Isa::avx2_fma || target.isa == Isa::avx512f);
  }
  return false;
}

}  // namespace

bool target_may_use(const KernelVariant& v, const Target& target) {
  return isa_allows(target.isa, v.isa) && class_fits(v.targets, target);
}

bool kernel_fits(const KernelVariant& v, const KernelQuery& q, const Target& target) {
  return v.dtype == q.dtype &&
         std::find(q.families.begin(), q.families.end(), v.op) != q.families.end() &&
         (!v.constant_weights || q.constant_weights) && kFits[static_cast<int>(v.fits)](v, q) &&
         target_may_use(v, target);
}

const KernelVariant* first_fitting_variant(const KernelQuery& q, const Target& target) {
  for (const KernelVariant& v : all_kernel_variants())
    if (kernel_fits(v, q, target)) return &v;
  return nullptr;
}

const KernelVariant& blocked_gemm_variant(const Target& target) {
  for (const KernelVariant& v : all_kernel_variants())
    if (v.op == "gemm" && v.fits == KernelFit::gemm_blocked && target_may_use(v, target)) return v;
  // variants.h has a gemm_blocked row for each target class (wide, hosted, mcu).
  std::abort();
}

std::string gemm_tile_type(const KernelVariant& v) {
  const size_t x = v.tile.find('x');
  return "onnxc::GemmTile<" + v.tile.substr(0, x) + ", " + v.tile.substr(x + 1) + ">";
}

int kernel_parts(const KernelVariant& v, const KernelQuery& q, const Target& target) {
  const int threads = target.threads;
  if (threads < 2 || v.gflops <= 0 || q.max_parts < threads) return 1;
  const double least_s = q.recurrent_step ? target.split.min_step_s : target.split.min_call_s;
  return q.flops / (v.gflops * 1e9) >= least_s ? threads : 1;
}

std::string parallel_args(int tasks) {
  return ", parallel, /*tasks=*/" + std::to_string(tasks);
}

}  // namespace onnxc
