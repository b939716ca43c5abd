// The parallel forms of the kernel variants, for code generated with --threads N (see
// onnxc/parallel.h): each variant's fused-epilogue form also takes (..., residual, par, tasks)
// and runs in `tasks` parts on `par`. Part i always does the same work, on scratch slice i of
// task_scratch_bytes(<the variant's scratch bytes>(p)) bytes, so the outputs are the serial
// kernel's, bit for bit, for any pool:
//   convolution GEMM  a grid of position groups x output-channel groups (conv_gemm_grid: the
//                     largest part's multiply-adds and packing, least)
//   depthwise         input channels (and their outputs), one image
//   Winograd          a grid of blocks of bands x output-channel panels (winograd_grid)
//   GEMM, packed B    column panels when there are at least `tasks` of them (each part streams
//                     only its weights), else rows; no scratch
//   GEMM, < 4 rows    columns (each part streams only its columns of B); no scratch
//   max pooling       channels (f32_maxpool_rows__scalar)
//   recurrent cells   each step's product by R^T by columns, when it is a vector product
// The microcontroller variants (4x8, 4x4) have none: no thread code is generated for them.
#ifndef ONNXC_KERNELS_PARALLEL_H
#define ONNXC_KERNELS_PARALLEL_H

#include "onnxc/base.h"
#include "onnxc/conv.h"
#include "onnxc/conv_variants.h"
#include "onnxc/conv_winograd.h"
#include "onnxc/gemm.h"
#include "onnxc/parallel.h"
#include "onnxc/pool.h"
#include "onnxc/recurrent.h"

namespace onnxc {

// ---- convolution -------------------------------------------------------------------------------

// The parts of a convolution GEMM: a grid of position groups x row groups (output channels in
// whole MR-row register tiles). Every part packs the patch-matrix panels of its positions, so a
// row split repeats packing; a position split leaves register tiles and cores idle when the
// plane is small. conv_gemm_grid weighs the two by each part's cost: its positions x depth x
// (its rows + kConvPackRows, the packing's cost in rows of multiply-adds), and picks the grid of
// at most `tasks` parts whose largest part costs least (on ties the fewest position groups). A
// constant expression of ConvParams: the compiler predicts the same grid.
// Packing is 12-30% of a GEMM convolution's one-core time (perf on a Zen 3: 12% for a 3x3
// stride-1 layer of 512 rows, 26% for 3x3 stride 2 on 128 rows, 30% for ResNet's 7x7 stem on 64):
// 27 to 70 rows. At 8, ResNet-18's layer3.0.conv1 (14x14 out, 256 rows) split by rows: 1.44 ms
// on 2 cores, against 1.20 by positions; at 48 the grid picks the faster split on each of 9
// ResNet and MobileNet layers timed both ways (medians of 300 interleaved runs per grid).
inline constexpr index_t kConvPackRows = 48;

struct ConvGrid {
  index_t position_groups, row_groups;
};

constexpr index_t conv_part_cost(index_t positions, index_t rows, index_t depth, index_t mr,
                                 index_t nr, ConvGrid g) {
  const index_t panels = (positions + nr - 1) / nr, tiles = (rows + mr - 1) / mr;
  const index_t cols = (panels + g.position_groups - 1) / g.position_groups * nr;
  const index_t part_rows = (tiles + g.row_groups - 1) / g.row_groups * mr;
  return cols * depth * (part_rows + kConvPackRows);
}

constexpr ConvGrid conv_gemm_grid(const ConvParams& p, index_t mr, index_t nr, index_t tasks) {
  const index_t positions = p.out[0] * p.out[1] * p.out[2], rows = p.c_out / p.group;
  const index_t depth = p.c_in / p.group * p.kernel[0] * p.kernel[1] * p.kernel[2];
  const index_t panels = (positions + nr - 1) / nr, tiles = (rows + mr - 1) / mr;
  ConvGrid best = {1, 1};
  index_t best_cost = conv_part_cost(positions, rows, depth, mr, nr, best);
  for (index_t gp = 1; gp <= tasks && gp <= panels; ++gp) {
    const index_t gr = tasks / gp < tiles ? tasks / gp : tiles;
    const ConvGrid g = {gp, gr};
    const index_t cost = conv_part_cost(positions, rows, depth, mr, nr, g);
    if (cost < best_cost) best = g, best_cost = cost;
  }
  return best;
}

namespace conv_detail {

// Part `task` of the grid (position group = task % position_groups): positions in whole NR
// panels, rows in whole MR tiles. Tasks past the grid get an empty part.
template <index_t MR, index_t NR>
inline GroupPart group_part(const ConvParams& p, ConvGrid g, index_t task) {
  const index_t positions = volume(p.out), m = p.c_out / p.group;
  if (task >= g.position_groups * g.row_groups) return {0, 0, 0, 0};
  GroupPart part = {};
  split_units(positions, NR, task % g.position_groups, g.position_groups, &part.pos0, &part.pos1);
  split_units(m, MR, task / g.position_groups, g.row_groups, &part.row0, &part.row1);
  return part;
}

// conv_gemm_all in `tasks` parts on `par`, part i in scratch slice i (of
// task_scratch_bytes(conv_gemm_scratch_bytes(p)) bytes).
template <index_t MR, index_t NR, class Act>
inline void conv_gemm_parallel(const ConvParams& p, const float* x, const float* w, const float* b,
                               float* y, void* scratch, const Epilogue<Act>& e, const float* res,
                               const Parallel& par, index_t tasks) {
  const index_t slice = task_scratch_bytes(conv_gemm_scratch_bytes(p));
  const ConvGrid grid = conv_gemm_grid(p, MR, NR, tasks);
  auto run_part = [&](index_t i) {
    const GroupPart part = group_part<MR, NR>(p, grid, i);
    conv_gemm_rows<MR, NR, true>(p, x, w, b, y, static_cast<unsigned char*>(scratch) + i * slice, e,
                                 res, &part);
  };
  parallel_run(par, tasks, run_part);
}

// A depthwise convolution of one image in `tasks` parts by input channel: part i runs `kernel`
// on its channels (and their outputs) with scratch slice i of `slice` bytes. Channels never
// interact, so every part computes what the whole kernel would.
template <class Act>
using ConvEpilogueKernel = void (*)(const ConvParams&, const float*, const float*, const float*,
                                    float*, void*, const Epilogue<Act>&, const float*);

template <class Act>
inline void dwconv_parallel(ConvEpilogueKernel<Act> kernel, const ConvParams& p, const float* x,
                            const float* w, const float* b, float* y, void* scratch, index_t slice,
                            const Epilogue<Act>& e, const float* residual, const Parallel& par,
                            index_t tasks) {
  const index_t multiplier = p.c_out / p.c_in, taps = volume(p.kernel);
  const index_t in_plane = volume(p.in), out_plane = volume(p.out);
  auto part = [&](index_t i) {
    index_t c0, c1;
    split_range(p.c_in, i, tasks, &c0, &c1);
    if (c0 == c1) return;
    ConvParams q = p;
    q.c_in = q.group = c1 - c0;
    q.c_out = (c1 - c0) * multiplier;
    const index_t o0 = c0 * multiplier;
    kernel(q, x + c0 * in_plane, w + o0 * taps, b ? b + o0 : nullptr, y + o0 * out_plane,
           static_cast<unsigned char*>(scratch) + i * slice, e,
           residual ? residual + o0 * out_plane : nullptr);
  };
  parallel_run(par, tasks, part);
}

}  // namespace conv_detail

template <class Act>
inline void f32_conv_8x32__scalar(const ConvParams& p, const float* x, const float* w,
                                  const float* b, float* y, void* scratch, const Epilogue<Act>& e,
                                  const float* residual, const Parallel& par, index_t tasks) {
  conv_detail::conv_gemm_parallel<8, 32>(p, x, w, b, y, scratch, e, residual, par, tasks);
}
template <class Act>
inline void f32_conv_6x16__scalar(const ConvParams& p, const float* x, const float* w,
                                  const float* b, float* y, void* scratch, const Epilogue<Act>& e,
                                  const float* residual, const Parallel& par, index_t tasks) {
  conv_detail::conv_gemm_parallel<6, 16>(p, x, w, b, y, scratch, e, residual, par, tasks);
}
template <class Act>
inline void f32_dwconv_any__scalar(const ConvParams& p, const float* x, const float* w,
                                   const float* b, float* y, void* scratch, const Epilogue<Act>& e,
                                   const float* residual, const Parallel& par, index_t tasks) {
  conv_detail::dwconv_parallel(f32_dwconv_any__scalar, p, x, w, b, y, scratch,
                               task_scratch_bytes(conv_dw_scratch_bytes(p)), e, residual, par,
                               tasks);
}

template <class Act>
inline void f32_conv_wino4x4__scalar(const ConvParams& p, const float* x, const float* u,
                                     const float* b, float* y, void* scratch,
                                     const Epilogue<Act>& e, const float* residual,
                                     const Parallel& par, index_t tasks) {
  const index_t slice = task_scratch_bytes(f32_conv_winograd_scratch_bytes(p));
  const WinogradGrid grid = winograd_grid(p, tasks);
  auto run_part = [&](index_t i) {
    if (i >= grid.block_groups * grid.panel_groups) return;
    index_t lo, hi, pn0, pn1;
    split_range(winograd_blocks(p), i % grid.block_groups, grid.block_groups, &lo, &hi);
    split_range(wino_detail::cout_padded(p) / wino_detail::kNr, i / grid.block_groups,
                grid.panel_groups, &pn0, &pn1);
    wino_detail::blocks(p, x, u, b, y, static_cast<unsigned char*>(scratch) + i * slice, e,
                        e.residual ? residual : nullptr, lo, hi, pn0, pn1);
  };
  parallel_run(par, tasks, run_part);
}

// The parallel overload of a depthwise 3x3 / 5x5 variant of onnxc/conv_variants.h: its
// arguments, then the pool and the part count.
#define ONNXC_DWCONV_KXK_PARALLEL(variant)                                                         \
  template <class Act>                                                                             \
  inline void variant(const ConvParams& p, const float* x, const float* w, const float* b,         \
                      float* y, void* scratch, const Epilogue<Act>& e, const float* residual,      \
                      const Parallel& par, index_t tasks) {                                        \
    conv_detail::dwconv_parallel(variant, p, x, w, b, y, scratch,                                  \
                                 task_scratch_bytes(f32_dwconv_kxk_scratch_bytes(p)), e, residual, \
                                 par, tasks);                                                      \
  }

ONNXC_DWCONV_KXK_PARALLEL(f32_dwconv_3x3__scalar)
ONNXC_DWCONV_KXK_PARALLEL(f32_dwconv_5x5__scalar)
#if defined(__AVX512F__)
ONNXC_DWCONV_KXK_PARALLEL(f32_dwconv_3x3__avx512f)
ONNXC_DWCONV_KXK_PARALLEL(f32_dwconv_5x5__avx512f)
#endif
#if defined(__AVX2__) && defined(__FMA__)
ONNXC_DWCONV_KXK_PARALLEL(f32_dwconv_3x3__avx2_fma)
ONNXC_DWCONV_KXK_PARALLEL(f32_dwconv_5x5__avx2_fma)
#endif
#if defined(__ARM_NEON) && defined(__aarch64__)
ONNXC_DWCONV_KXK_PARALLEL(f32_dwconv_3x3__neonfma)
ONNXC_DWCONV_KXK_PARALLEL(f32_dwconv_5x5__neonfma)
#endif

// ---- GEMM with packed B -------------------------------------------------------------------------

namespace gemm_detail {

template <class Act>
using PackedEpilogueKernel = void (*)(const GemmParams&, const float*, const float*, const float*,
                                      float*, const Epilogue<Act>&, const float*);

template <index_t NR, class Act>
inline void gemm_packed_parallel(PackedEpilogueKernel<Act> kernel, const GemmParams& p,
                                 const float* a, const float* packed_b, const float* c, float* y,
                                 const Epilogue<Act>& e, const float* residual, const Parallel& par,
                                 index_t tasks) {
  const index_t panels = (p.n + NR - 1) / NR;
  auto part = [&](index_t i) {
    GemmParams q = p;
    index_t lo, hi;
    if (panels >= tasks) {
      index_t j0, j1;
      split_units(p.n, NR, i, tasks, &j0, &j1);
      if (j0 >= j1) return;
      q.n = j1 - j0;
      kernel(q, a, packed_b + j0 * p.k, c ? c + j0 * p.c_col_stride : c, y + j0, e,
             residual ? residual + j0 : residual);
    } else {
      split_range(p.m, i, tasks, &lo, &hi);
      if (lo == hi) return;
      q.m = hi - lo;
      kernel(q, a + lo * (p.trans_a ? 1 : p.lda), packed_b, c ? c + lo * p.c_row_stride : c,
             y + lo * p.ldy, e, residual ? residual + lo * p.ldy : residual);
    }
  };
  parallel_run(par, tasks, part);
}

// A product of fewer than 4 rows (gemm_detail::runs_row_products: B streamed as stored, no
// scratch) in `tasks` parts by columns, in whole vectors of 16: each part streams only its
// columns of B (a classifier's weights), and every output is the serial one. Other products run
// whole (the compiler splits no other).
template <index_t MR, index_t NR, class Act>
inline void gemm_columns_parallel(const GemmParams& p, const float* a, const float* b,
                                  const float* c, float* y, const Epilogue<Act>& e,
                                  const float* residual, const Workspace& ws, const Parallel& par,
                                  index_t tasks) {
  if (tasks < 2 || !runs_row_products(p))
    return f32_gemm_blocked<MR, NR>(p, a, b, c, y, e, residual, ws);
  auto part = [&](index_t i) {
    index_t j0, j1;
    split_units(p.n, 16, i, tasks, &j0, &j1);
    if (j0 >= j1) return;
    GemmParams q = p;
    q.n = j1 - j0;
    f32_gemm_blocked<MR, NR>(q, a, b + j0 * (p.trans_b ? p.ldb : 1),
                             c ? c + j0 * p.c_col_stride : c, y + j0, e,
                             residual ? residual + j0 : residual, Workspace{nullptr, 0});
  };
  parallel_run(par, tasks, part);
}

}  // namespace gemm_detail

template <class Act>
inline void f32_gemm_8x32__scalar(const GemmParams& p, const float* a, const float* b,
                                  const float* c, float* y, const Epilogue<Act>& e,
                                  const float* residual, const Workspace& ws, const Parallel& par,
                                  index_t tasks) {
  gemm_detail::gemm_columns_parallel<8, 32>(p, a, b, c, y, e, residual, ws, par, tasks);
}
template <class Act>
inline void f32_gemm_6x16__scalar(const GemmParams& p, const float* a, const float* b,
                                  const float* c, float* y, const Epilogue<Act>& e,
                                  const float* residual, const Workspace& ws, const Parallel& par,
                                  index_t tasks) {
  gemm_detail::gemm_columns_parallel<6, 16>(p, a, b, c, y, e, residual, ws, par, tasks);
}

template <class Act>
inline void f32_gemm_packed_8x32__scalar(const GemmParams& p, const float* a, const float* packed_b,
                                         const float* c, float* y, const Epilogue<Act>& e,
                                         const float* residual, const Parallel& par,
                                         index_t tasks) {
  gemm_detail::gemm_packed_parallel<32>(f32_gemm_packed_8x32__scalar, p, a, packed_b, c, y, e,
                                        residual, par, tasks);
}
template <class Act>
inline void f32_gemm_packed_6x16__scalar(const GemmParams& p, const float* a, const float* packed_b,
                                         const float* c, float* y, const Epilogue<Act>& e,
                                         const float* residual, const Parallel& par,
                                         index_t tasks) {
  gemm_detail::gemm_packed_parallel<16>(f32_gemm_packed_6x16__scalar, p, a, packed_b, c, y, e,
                                        residual, par, tasks);
}

// ---- pooling -----------------------------------------------------------------------------------

// f32_maxpool_rows__scalar in `tasks` parts by channel (planes never interact); no scratch.
inline void f32_maxpool_rows__scalar(const PoolParams& p, const float* x, float* y,
                                     int64_t* indices, const Parallel& par, index_t tasks) {
  const index_t in_size = p.in[0] * p.in[1] * p.in[2], out_size = p.out[0] * p.out[1] * p.out[2];
  auto part = [&](index_t i) {
    index_t c0, c1;
    split_range(p.channels, i, tasks, &c0, &c1);
    if (c0 == c1) return;
    PoolParams q = p;
    q.channels = c1 - c0;
    f32_maxpool_rows__scalar(q, x + c0 * in_size, y + c0 * out_size, indices);
  };
  parallel_run(par, tasks, part);
}

// ---- recurrent cells
// -----------------------------------------------------------------------------

namespace recurrent_detail {

// Each step's product by R^T in `tasks` parts by columns (gates, gemm_columns_parallel), when it
// is the vector product the serial code runs (float, fewer than 4 rows: f32_gemm_blocked streams
// each row of R once);
// each part streams only its rows of R, which then fit the core's cache. Every column is the same
// dot product as in the whole product, so the states are bit for bit the serial ones. Other
// products (double, 4 rows or more) stay whole.
template <class Tile>
struct SplitProduct {
  const Parallel& par;
  index_t tasks;

  template <typename T>
  void operator()(const GemmParams& p, const T* a, const T* b, const T* c, T* y,
                  const Workspace& ws) const {
    if constexpr (std::is_same_v<T, float>) {
      if (tasks > 1 && gemm_prefers_blocked(p.m, p.n, p.k) && gemm_detail::runs_row_products(p))
        return gemm_detail::gemm_columns_parallel<Tile::kRows, Tile::kCols>(
            p, a, b, c, y, Epilogue<>{}, static_cast<const float*>(nullptr), ws, par, tasks);
    }
    gemm<Tile>(p, a, b, c, y, ws);
  }
};

}  // namespace recurrent_detail

// recurrent_ref with each step's product in `tasks` parts on `par` (SplitProduct).
template <typename T, class Tile>
inline void recurrent_ref(const RecurrentParams& p, const T* x, const T* w, const T* r,
                          const T* bias, const std::int32_t* seq_lens, const T* init_h,
                          const T* init_c, const T* peep, T* y, T* y_h, T* y_c, T* scratch,
                          const Parallel& par, index_t tasks) {
  recurrent_ref<T, Tile>(p, x, w, r, bias, seq_lens, init_h, init_c, peep, y, y_h, y_c, scratch,
                         recurrent_detail::SplitProduct<Tile>{par, tasks});
}

}  // namespace onnxc

#endif  // ONNXC_KERNELS_PARALLEL_H
