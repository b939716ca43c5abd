// The kernel-variant table: every hand-tuned kernel variant, one row each, and the one place
// that says which node may run which variant. Read by the compiler (select-kernels takes, for
// each node, the first row that fits it; the thread split uses the row's rate; pack-weights the
// row's panel width), the kernel testers (each runs every row the build host can execute
// against the family's reference) and `onnxc ops --kernels` / bench.
//
//   X(dtype, op, tile, isa, header, fits, weights, targets, panel, gflops)
//
// names the function onnxc::<dtype>_<op>_<tile>__<isa> (the one naming grammar of every kernel),
// declared in onnxc/<header>, with the family's plain signature (for conv: (const ConvParams&,
// x, w, b, y, scratch) and the fused epilogue overload (..., scratch, const Epilogue&,
// residual); for gemm: (const GemmParams&, a, b, c, y, ws) and (..., y, const Epilogue&,
// residual, ws); for gemm_packed: (const GemmParams&, a, packed_b, c, y [, const Epilogue&,
// residual]); for recurrent: recurrent_ref's; for qconv and qdwconv: (const QConvS8Params&, x,
// packed_w, channels, y, scratch)).
//   isa:     what the row REQUIRES, one of ONNXC_ISAS (compiler/ir/target.h): scalar rows are
//            plain C++ and build anywhere; the others are in intrinsics, defined only when the
//            C++ compiler may use that ISA (`#if defined(__AVX512F__)` ...).
//   fits:    the node shapes it takes, a predicate named in ONNXC_KERNEL_FITS
//            (compiler/ops/kernel_variants.cpp): any, dwconv_kxk (a KxK depthwise window the
//            tile handles), window_kxk (a 2-D KxK window, any stride), winograd (the node's
//            Winograd blocks fit), gemm_packed, gemm_blocked, gemm_small (below
//            gemm_prefers_blocked), gemv_rows (a product of under 4 rows).
//   weights: any, or constant (the variant reads its weights in a layout packed at compile time).
//   targets: the target class it is meant for (ONNXC_TARGET_CLASSES): any; hosted (not a
//            microcontroller); mcu (microcontrollers: no vector unit, a 256-byte kernel stack);
//            wide (hosted targets with AVX-512's 32 vector registers, which tiles such as 8x32
//            are tuned for, though written in plain C++); baseline (hosted targets of the x86-64
//            baseline, isa scalar or sse2: generic, x86-64-v2, whose plain C++ rows run AVX-512 or
//            AVX2 copies picked at run time where the build is x86-64, ONNXC_X86_ISA_DISPATCH;
//            the conv rows' AVX-512 copy runs the 8x32 tile); vector_fma (hosted x86-64 targets
//            compiled for AVX2 + FMA or AVX-512: x86-64-v3, x86-64-v4, native on such a CPU).
//   panel:   for gemm_packed: the B panel width NR its register tile loads (pack_gemm_b<NR>); 0
//            for the others.
//   gflops:  about how fast it runs on one core (bench/run --layers on an AVX-512 core), the rate
//            --threads' split uses (ops/kernel_variants.h, kernel_parts); 0: it has no parallel
//            form and always runs whole.
// Within a dtype, rows are in preference order: select-kernels takes the first row of the
// node's families that fits its shape, weights, target class and ISA (first_fitting_variant; the
// last row of a family fits every node of it on the targets it names). A GEMM convolution that
// select-kernels does not reach (the pass disabled) runs the first conv row that fits its weights
// as stored; the first gemm_blocked row a target may use is the GEMM tile of the kernels that run
// GEMMs inside (MatMul, ConvTranspose, recurrent: gemm<GemmTile<MR, NR>>, onnxc/gemm.h). No
// kernel header chooses a tile by `#if`.
//
// This file is a macro table only: no code, no includes.
#ifndef ONNXC_VARIANTS_H
#define ONNXC_VARIANTS_H

// clang-format off
#define ONNXC_KERNEL_VARIANTS(X)                                                                   \
  /* depthwise convolution (one input channel per group) */                                        \
  X(f32, dwconv, 3x3, avx512f, "conv_variants.h", dwconv_kxk, any, any, 0, 15)                     \
  X(f32, dwconv, 3x3, avx2_fma, "conv_variants.h", dwconv_kxk, any, any, 0, 15)                    \
  X(f32, dwconv, 3x3, neonfma, "conv_variants.h", dwconv_kxk, any, any, 0, 15)                     \
  X(f32, dwconv, 3x3, sse2, "conv_variants_sse2.h", dwconv_kxk, any, any, 0, 15)                   \
  X(f32, dwconv, 3x3, scalar, "conv_variants.h", dwconv_kxk, any, baseline, 0, 15)                 \
  X(f32, dwconv, 5x5, avx512f, "conv_variants.h", dwconv_kxk, any, any, 0, 15)                     \
  X(f32, dwconv, 5x5, avx2_fma, "conv_variants.h", dwconv_kxk, any, any, 0, 15)                    \
  X(f32, dwconv, 5x5, neonfma, "conv_variants.h", dwconv_kxk, any, any, 0, 15)                     \
  X(f32, dwconv, 5x5, scalar, "conv_variants.h", dwconv_kxk, any, baseline, 0, 15)                 \
  X(f32, dwconv, any, scalar, "conv.h", any, any, any, 0, 15)                                      \
  /* any other float convolution: Winograd (rate: direct-convolution flops / time), or a GEMM */   \
  X(f32, conv, wino4x4, scalar, "conv_winograd.h", winograd, constant, vector_fma, 0, 450)             \
  X(f32, conv, 8x32, scalar, "conv.h", any, any, wide, 0, 150)                                     \
  X(f32, conv, 6x16, scalar, "conv.h", any, any, hosted, 0, 150)                                   \
  X(f32, conv, 4x8, scalar, "conv.h", any, any, mcu, 0, 150)                                       \
  /* float GEMM with B (weights) packed at compile time */                                         \
  X(f32, gemm_packed, 8x32, scalar, "gemm.h", gemm_packed, constant, wide, 32, 150)                \
  X(f32, gemm_packed, 6x16, scalar, "gemm.h", gemm_packed, constant, hosted, 16, 150)              \
  X(f32, gemm_packed, 4x4, scalar, "gemm.h", gemm_packed, constant, mcu, 4, 150)                   \
  /* float GEMM (the Gemm op); 1x1 is the reference */                                             \
  X(f32, gemm, 8x32, scalar, "gemm.h", gemm_blocked, any, wide, 0, 8)                              \
  X(f32, gemm, 6x16, scalar, "gemm.h", gemm_blocked, any, hosted, 0, 8)                            \
  X(f32, gemm, 4x4, scalar, "gemm.h", gemm_blocked, any, mcu, 0, 0)                                \
  X(f32, gemm, 1x1, scalar, "gemm.h", gemm_small, any, any, 0, 0)                                  \
  /* RNN, GRU, LSTM: each step's product by R^T, split while it is a vector product */            \
  X(f32, recurrent, ref, scalar, "recurrent.h", gemv_rows, any, any, 0, 35)                        \
  /* float MaxPool without indices: vectorized along output rows, split by channel */              \
  X(f32, maxpool, rows, scalar, "pool.h", any, any, any, 0, 8)                                     \
  /* int8 QLinearConv (group 1, then depthwise) with compile-time requantization */                \
  X(s8, qconv, 4x2, mve, "qconv_variants_mve.h", any, constant, any, 0, 0)                             \
  X(s8, qconv, 2x2, dsp, "qconv_variants.h", any, constant, any, 0, 0)                             \
  X(s8, qconv, 2x2, scalar, "qconv_variants.h", any, constant, any, 0, 0)                          \
  X(s8, qdwconv, 3x3, mve, "qconv_variants_mve.h", window_kxk, constant, any, 0, 0)                    \
  X(s8, qdwconv, 3x3, dsp, "qconv_variants.h", window_kxk, constant, any, 0, 0)                    \
  X(s8, qdwconv, 3x3, scalar, "qconv_variants.h", window_kxk, constant, any, 0, 0)                 \
  X(s8, qdwconv, any, scalar, "qconv_variants.h", any, constant, any, 0, 0)
// clang-format on

#endif  // ONNXC_VARIANTS_H
