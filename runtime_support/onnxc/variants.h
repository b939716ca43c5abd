// The kernel-variant table: every hand-tuned kernel variant, one row each, read by the compiler
// (the select-kernels pass picks among a node's candidates), the kernel testers (each runs every
// row the build host can execute against the family's reference) and `onnxc ops` / bench.
//
//   X(dtype, op, tile, isa, header)
//
// names the function onnxc::<dtype>_<op>_<tile>__<isa>, declared in onnxc/<header>, with the
// family's plain signature (for conv: (const ConvParams&, x, w, b, y, scratch) and the fused
// epilogue overload (..., scratch, const Epilogue&, residual); for gemm: (const GemmParams&, a,
// b, c, y, ws) and (..., y, const Epilogue&, residual, ws); for gemm_packed: (const GemmParams&,
// a, packed_b, c, y [, const Epilogue&, residual])). isa is one of ONNXC_ISAS
// (compiler/ir/target.h): variants in intrinsics are defined only when the C++ compiler may use
// that ISA (`#if defined(__AVX512F__)` ...); portable ones (scalar, and the 8x32 tiles tuned for
// AVX-512 but written in plain C++) always. Within a family, rows are in preference
// order: select-kernels takes the first one the node's shape and the target allow.
//
// This file is a macro table only: no code, no includes.
#ifndef ONNXC_VARIANTS_H
#define ONNXC_VARIANTS_H

#define ONNXC_KERNEL_VARIANTS(X)                            \
  /* depthwise convolution (one input channel per group) */ \
  X(f32, dwconv, 3x3, avx512f, "conv_variants.h")           \
  X(f32, dwconv, 3x3, avx2_fma, "conv_variants.h")          \
  X(f32, dwconv, 3x3, neonfma, "conv_variants.h")           \
  X(f32, dwconv, 5x5, avx512f, "conv_variants.h")           \
  X(f32, dwconv, 5x5, avx2_fma, "conv_variants.h")          \
  X(f32, dwconv, 5x5, neonfma, "conv_variants.h")           \
  X(f32, dwconv, any, scalar, "conv.h")                     \
  /* any other float convolution: Winograd, or a GEMM */    \
  X(f32, conv, wino4x4, avx512f, "conv_winograd.h")         \
  X(f32, conv, 8x32, avx512f, "conv.h")                     \
  X(f32, conv, 6x16, scalar, "conv.h")                      \
  X(f32, conv, 4x8, scalar, "conv.h")                       \
  /* float GEMM with B (weights) packed at compile time */  \
  X(f32, gemm_packed, 8x32, avx512f, "gemm.h")              \
  X(f32, gemm_packed, 4x16, scalar, "gemm.h")               \
  X(f32, gemm_packed, 4x4, scalar, "gemm.h")                \
  /* float GEMM (the Gemm op); 1x1 is the reference */      \
  X(f32, gemm, 8x32, avx512f, "gemm.h")                     \
  X(f32, gemm, 4x16, scalar, "gemm.h")                      \
  X(f32, gemm, 4x4, scalar, "gemm.h")                       \
  X(f32, gemm, 1x1, scalar, "gemm.h")

#endif  // ONNXC_VARIANTS_H
