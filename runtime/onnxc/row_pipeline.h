// Row pipelines (the patch-rows pass, compiler/passes/patch_rows.cpp): the first stages of a CNN
// run in bands of output rows, one band per iteration, so that no full intermediate tensor of
// those stages is ever in memory. Each stage reads a window: the rows of its input that its next
// band needs, kept from one iteration to the next (the rows two bands share are kept, never
// recomputed). Tensors are NCHW with the batch folded into the planes ([planes][rows][width]).
//
//   rows_reset    fills a window with its padding value before the first iteration
//   rows_advance  drops the oldest `step` rows of a window and appends the producer's new rows
//                 (rows_advance_from: from the stage's full input); rows
//                 outside the tensor [0, valid_rows) get the consumer's padding value
//   rows_store    copies the in-range rows of the last stage's band into the full output
//   rows_sum      adds the in-range rows of the last stage's band, less an offset, into one
//                 uint32 sum per plane (a global average pool that never sees the full tensor)
//
// Row indices are those of the full tensor: at iteration t a producer's new rows begin at
// t * step - delay (the compiler picks each delay so that a window is complete when its stage
// runs). Only copies: any element type, bit-identical to the unbanded code by construction.
#ifndef ONNXC_ROW_PIPELINE_H
#define ONNXC_ROW_PIPELINE_H

#include <cstdint>
#include <cstring>

#include "onnxc/base.h"

namespace onnxc {

// A window over tensor rows, or the band geometry of a stage's output.
struct RowWindow {
  index_t planes;      // batch x channels
  index_t width;       // elements per row
  index_t rows;        // rows the window (or band) holds
  index_t step;        // new rows per iteration
  index_t delay;       // the first new row of iteration t is t * step - delay
  index_t valid_rows;  // the tensor's height: rows outside [0, valid_rows) are padding
};

template <typename T>
inline void rows_reset(T* window, const RowWindow& w, T pad) {
  const index_t n = w.planes * w.rows * w.width;
  for (index_t i = 0; i < n; ++i) window[i] = pad;
}

namespace row_detail {

template <typename T>
inline void fill_row(T* row, index_t width, T pad) {
  for (index_t x = 0; x < width; ++x) row[x] = pad;
}

// The full-tensor index of the first new row at iteration t.
inline index_t first_new_row(const RowWindow& w, int32_t t) {
  return static_cast<index_t>(t) * w.step - w.delay;
}

}  // namespace row_detail

namespace row_detail {

// Drops the window's oldest `step` rows and appends the next ones from `source`, whose row
// `source_first` (a full-tensor index) is at its row 0 and which has `source_rows` rows per plane.
template <typename T>
inline void advance(T* window, const T* source, index_t source_rows, index_t source_first,
                    const RowWindow& w, int32_t t, T pad) {
  const index_t kept = w.rows > w.step ? w.rows - w.step : 0;
  const index_t fresh = w.rows - kept;     // rows appended
  const index_t skipped = w.step - fresh;  // new rows the window has no room for
  const index_t first = first_new_row(w, t) + skipped;
  const std::size_t row_bytes = static_cast<std::size_t>(w.width) * sizeof(T);
  for (index_t p = 0; p < w.planes; ++p) {
    T* plane = window + p * w.rows * w.width;
    if (kept)
      std::memmove(plane, plane + w.step * w.width, static_cast<std::size_t>(kept) * row_bytes);
    for (index_t j = 0; j < fresh; ++j) {
      T* dst = plane + (kept + j) * w.width;
      const index_t row = first + j;
      if (!source || row < 0 || row >= w.valid_rows)
        fill_row(dst, w.width, pad);
      else
        std::memcpy(dst, source + (p * source_rows + row - source_first) * w.width, row_bytes);
    }
  }
}

}  // namespace row_detail

// Drops the window's oldest `step` rows and appends the producer's band (`step` rows per plane,
// computed this iteration), or padding when `band` is nullptr (the producer did not run: all its
// rows lie outside the tensor). A window shorter than its step (a 1x1 stride-2 consumer) keeps
// only the last `rows` of the new rows.
template <typename T>
inline void rows_advance(T* window, const T* band, const RowWindow& w, int32_t t, T pad) {
  row_detail::advance(window, band, w.step, row_detail::first_new_row(w, t), w, t, pad);
}

// The same, taking the new rows from the stage's full input ([planes][valid_rows][width]).
template <typename T>
inline void rows_advance_from(T* window, const T* full, const RowWindow& w, int32_t t, T pad) {
  row_detail::advance(window, full, w.valid_rows, 0, w, t, pad);
}

// Copies the band's rows that lie inside the tensor into `full` ([planes][valid_rows][width]).
template <typename T>
inline void rows_store(T* full, const T* band, const RowWindow& w, int32_t t) {
  const index_t first = row_detail::first_new_row(w, t);
  for (index_t p = 0; p < w.planes; ++p)
    for (index_t j = 0; j < w.step; ++j) {
      const index_t row = first + j;
      if (row < 0 || row >= w.valid_rows) continue;
      std::memcpy(full + (p * w.valid_rows + row) * w.width, band + (p * w.step + j) * w.width,
                  static_cast<std::size_t>(w.width) * sizeof(T));
    }
}

// sums[p] += (x - offset) over the band's in-range rows, wrapping as the integer pooling kernels'
// sums do (onnxc/quantize.h qlinear_global_avgpool_ref): the same additions in the same order.
template <typename T>
inline void rows_sum(std::uint32_t* sums, const T* band, const RowWindow& w, int32_t t,
                     int32_t offset) {
  const index_t first = row_detail::first_new_row(w, t);
  for (index_t p = 0; p < w.planes; ++p) {
    std::uint32_t sum = sums[p];
    for (index_t j = 0; j < w.step; ++j) {
      const index_t row = first + j;
      if (row < 0 || row >= w.valid_rows) continue;
      const T* x = band + (p * w.step + j) * w.width;
      for (index_t i = 0; i < w.width; ++i)
        sum += static_cast<std::uint32_t>(static_cast<int32_t>(x[i]) - offset);
    }
    sums[p] = sum;
  }
}

}  // namespace onnxc

#endif  // ONNXC_ROW_PIPELINE_H
