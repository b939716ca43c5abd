// onnxc/row_pipeline.h against its definition: after rows_advance at iteration t, a window holds
// rows [t * step - delay + step - rows, t * step - delay + step) of the full tensor, padding where
// a row lies outside it; rows_store writes exactly the band's rows inside the tensor; rows_sum
// adds what a whole-tensor sum adds. Each iteration's expectation is computed from the full tensor
// directly, not by replaying the kernels.
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "onnxc/row_pipeline.h"

using onnxc::index_t;
using onnxc::RowWindow;

namespace {

// A full tensor [planes][height][width] whose element says where it is.
std::vector<int16_t> full_tensor(index_t planes, index_t height, index_t width) {
  std::vector<int16_t> t(static_cast<size_t>(planes * height * width));
  for (index_t p = 0; p < planes; ++p)
    for (index_t r = 0; r < height; ++r)
      for (index_t x = 0; x < width; ++x)
        t[static_cast<size_t>((p * height + r) * width + x)] =
            static_cast<int16_t>(p * 1000 + r * 10 + x);
  return t;
}

// Row `row` of plane p of the full tensor, or `pad` outside it.
int16_t expected(const std::vector<int16_t>& full, const RowWindow& w, index_t p, index_t row,
                 index_t x, int16_t pad) {
  if (row < 0 || row >= w.valid_rows) return pad;
  return full[static_cast<size_t>((p * w.valid_rows + row) * w.width + x)];
}

// Slides a window over the tensor, from the full tensor (rows_advance_from) or from bands cut
// out of it (rows_advance, nullptr once the band lies wholly outside), and checks every
// iteration's contents.
void check_window(index_t rows, index_t step, index_t delay, bool from_bands) {
  const index_t planes = 3, height = 11, width = 4;
  const int16_t pad = -7;
  const RowWindow w{planes, width, rows, step, delay, height};
  const std::vector<int16_t> full = full_tensor(planes, height, width);
  std::vector<int16_t> window(static_cast<size_t>(planes * rows * width), 99);
  onnxc::rows_reset(window.data(), w, pad);
  // Early enough that the rows kept from before the first iteration lie above the tensor.
  const int32_t first = static_cast<int32_t>((delay - rows) / step - 2);
  const int32_t last = static_cast<int32_t>((height + delay) / step + 2);
  for (int32_t t = first; t <= last; ++t) {
    const index_t new_first = t * step - delay;
    if (from_bands) {
      std::vector<int16_t> band(static_cast<size_t>(planes * step * width));
      bool inside = false;
      for (index_t p = 0; p < planes; ++p)
        for (index_t j = 0; j < step; ++j)
          for (index_t x = 0; x < width; ++x) {
            const index_t row = new_first + j;
            inside |= row >= 0 && row < height;
            // Rows outside the tensor hold garbage, as a producer's band past the edge does.
            band[static_cast<size_t>((p * step + j) * width + x)] =
                row >= 0 && row < height ? expected(full, w, p, row, x, pad) : 12345;
          }
      onnxc::rows_advance(window.data(), inside ? band.data() : nullptr, w, t, pad);
    } else {
      onnxc::rows_advance_from(window.data(), full.data(), w, t, pad);
    }
    const index_t window_first = new_first + step - rows;
    for (index_t p = 0; p < planes; ++p)
      for (index_t i = 0; i < rows; ++i)
        for (index_t x = 0; x < width; ++x) {
          INFO("t " << t << " plane " << p << " window row " << i << " x " << x);
          REQUIRE(window[static_cast<size_t>((p * rows + i) * width + x)] ==
                  expected(full, w, p, window_first + i, x, pad));
        }
  }
}

}  // namespace

TEST_CASE("rows_advance: a window holds its rows of the tensor, padding outside it",
          "[row_pipeline]") {
  for (bool from_bands : {false, true}) {
    check_window(3, 1, -1, from_bands);  // 3x3 stride 1: two rows kept
    check_window(5, 2, 1, from_bands);   // 3x3 stride 2 over 2-row bands
    check_window(2, 2, 0, from_bands);   // a 1x1 consumer of 2-row bands
    check_window(1, 2, 0, from_bands);   // 1x1 stride 2: shorter than its step
    check_window(10, 4, -12, from_bands);
  }
}

TEST_CASE("rows_store and rows_sum write and add only the band's rows inside the tensor",
          "[row_pipeline]") {
  const index_t planes = 2, height = 7, width = 5, step = 3, delay = 2;
  const RowWindow band_rows{planes, width, step, step, delay, height};
  const std::vector<int16_t> full = full_tensor(planes, height, width);
  std::vector<int16_t> stored(full.size(), -1);
  std::vector<std::uint32_t> sums(static_cast<size_t>(planes), 0);
  const int32_t offset = -3;
  for (int32_t t = 0; t * step - delay < height; ++t) {
    std::vector<int16_t> band(static_cast<size_t>(planes * step * width), 777);
    for (index_t p = 0; p < planes; ++p)
      for (index_t j = 0; j < step; ++j) {
        const index_t row = t * step - delay + j;
        if (row < 0 || row >= height) continue;  // garbage (777) past the edges
        for (index_t x = 0; x < width; ++x)
          band[static_cast<size_t>((p * step + j) * width + x)] =
              full[static_cast<size_t>((p * height + row) * width + x)];
      }
    onnxc::rows_store(stored.data(), band.data(), band_rows, t);
    onnxc::rows_sum(sums.data(), band.data(), band_rows, t, offset);
  }
  CHECK(stored == full);
  for (index_t p = 0; p < planes; ++p) {
    std::uint32_t want = 0;
    for (index_t i = 0; i < height * width; ++i)
      want +=
          static_cast<std::uint32_t>(full[static_cast<size_t>(p * height * width + i)] - offset);
    CHECK(sums[static_cast<size_t>(p)] == want);
  }
}
