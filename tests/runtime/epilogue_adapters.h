// The kernel testers' view of fused epilogues: kernels take a typed Epilogue<Act> (onnxc/gemm.h);
// the testers keep their cases as EpilogueSpec values (onnxc/activation_table.h) and call each
// kernel through a plain function pointer that picks the activation at run time.
#pragma once

#include "onnxc/activation_table.h"
#include "onnxc/conv.h"
#include "onnxc/gemm.h"
#include "onnxc/parallel.h"

// The adapters pick the typed epilogue through ONNXC_TESTED_EPILOGUE: onnxc::with_epilogue (every
// activation of the table) unless a tester that checks only some activations defines it first as
// a narrower dispatcher, so that each kernel is compiled for those alone.
#ifndef ONNXC_TESTED_EPILOGUE
#define ONNXC_TESTED_EPILOGUE onnxc::with_epilogue
#endif

// fn's fused-epilogue overload (..., scratch, e, residual) as a function pointer on EpilogueSpec.
#define ONNXC_CONV_FUSED(fn)                                                                    \
  [](const onnxc::ConvParams& p, const float* x, const float* w, const float* b, float* y,      \
     void* scratch, const onnxc::EpilogueSpec& e, const float* r) {                             \
    ONNXC_TESTED_EPILOGUE(e, [&](const auto& typed) { fn(p, x, w, b, y, scratch, typed, r); }); \
  }

// fn's parallel overload (..., scratch, e, residual, par, tasks), likewise.
#define ONNXC_CONV_PARALLEL(fn)                                                               \
  [](const onnxc::ConvParams& p, const float* x, const float* w, const float* b, float* y,    \
     void* scratch, const onnxc::EpilogueSpec& e, const float* r, const onnxc::Parallel& par, \
     onnxc::index_t tasks) {                                                                  \
    ONNXC_TESTED_EPILOGUE(                                                                    \
        e, [&](const auto& typed) { fn(p, x, w, b, y, scratch, typed, r, par, tasks); });     \
  }

// A GEMM's fused overload (p, a, b, c, y, e, residual[, trailing...]), likewise.
#define ONNXC_GEMM_FUSED(fn)                                                               \
  [](const onnxc::GemmParams& p, const float* a, const float* b, const float* c, float* y, \
     const onnxc::EpilogueSpec& e, const float* r) {                                       \
    ONNXC_TESTED_EPILOGUE(e, [&](const auto& typed) { fn(p, a, b, c, y, typed, r); });     \
  }
