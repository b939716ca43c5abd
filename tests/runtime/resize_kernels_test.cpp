// Resize kernels on hand-built tap tables: nearest gathers, the -1 extrapolation marker, and
// weighted taps against bilinear interpolation written out directly.
#include <catch2/catch.hpp>
#include <vector>

#include "onnxc/resize.h"

using namespace onnxc;

TEST_CASE("resize_nearest_ref gathers through per-axis offset tables", "[resize-kernels]") {
  // x is 2 x 3; rows repeated (0, 0, 1), columns reversed (2, 1, 0) -> offsets pre-multiplied.
  const int x[] = {1, 2, 3, 4, 5, 6};
  ResizeParams p{};
  p.rank = 2;
  p.out_dims[0] = 3;
  p.out_dims[1] = 3;
  p.taps[0] = p.taps[1] = 1;
  p.table[0] = 0;
  p.table[1] = 3;
  const index_t off[] = {0, 0, 3, 2, 1, 0};
  int y[9];
  resize_nearest_ref(p, off, x, y);
  CHECK(std::vector<int>(y, y + 9) == std::vector<int>{3, 2, 1, 3, 2, 1, 6, 5, 4});
}

TEST_CASE("resize kernels write the extrapolation value where a position is marked -1",
          "[resize-kernels]") {
  const float x[] = {10, 20};
  ResizeParams p{};
  p.rank = 1;
  p.out_dims[0] = 3;
  p.taps[0] = 1;
  p.extrapolation_value = -7;
  const index_t off[] = {-1, 1, 0};
  float y[3];
  resize_nearest_ref(p, off, x, y);
  CHECK(std::vector<float>(y, y + 3) == std::vector<float>{-7, 20, 10});
  // Weighted form: two taps per position.
  p.taps[0] = 2;
  const index_t off2[] = {-1, 0, 0, 1, 1, 1};
  const float w2[] = {0, 0, 0.25f, 0.75f, 1, 0};
  resize_ref(p, off2, w2, x, y);
  CHECK(y[0] == -7);
  CHECK(y[1] == Approx(17.5));
  CHECK(y[2] == 20);
}

TEST_CASE("resize_ref with two-tap tables is bilinear interpolation", "[resize-kernels]") {
  // x is 3 x 4; sample the output grid at source rows {0.5, 1.25} and columns {0, 2.5, 3}.
  std::vector<double> x(12);
  for (int i = 0; i < 12; ++i) x[static_cast<size_t>(i)] = i * i * 0.5 - i;
  const double rows[] = {0.5, 1.25}, cols[] = {0, 2.5, 3};
  std::vector<index_t> off;
  std::vector<double> w;
  ResizeParams p{};
  p.rank = 2;
  p.out_dims[0] = 2;
  p.out_dims[1] = 3;
  p.taps[0] = p.taps[1] = 2;
  auto add_axis = [&](const double* src, int n, int len, int stride) {
    for (int k = 0; k < n; ++k) {
      const int lo = static_cast<int>(src[k]);
      const int hi = lo + 1 < len ? lo + 1 : lo;
      off.push_back(lo * stride);
      off.push_back(hi * stride);
      w.push_back(1 - (src[k] - lo));
      w.push_back(src[k] - lo);
    }
  };
  p.table[0] = 0;
  add_axis(rows, 2, 3, 4);
  p.table[1] = static_cast<index_t>(off.size());
  add_axis(cols, 3, 4, 1);
  double y[6];
  resize_ref(p, off.data(), w.data(), x.data(), y);
  auto at = [&](int r, int c) { return x[static_cast<size_t>(r * 4 + c)]; };
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      const double r = rows[i], c = cols[j];
      const int r0 = static_cast<int>(r), c0 = static_cast<int>(c);
      const int r1 = r0 + 1 < 3 ? r0 + 1 : r0, c1 = c0 + 1 < 4 ? c0 + 1 : c0;
      const double fr = r - r0, fc = c - c0;
      const double want = (1 - fr) * ((1 - fc) * at(r0, c0) + fc * at(r0, c1)) +
                          fr * ((1 - fc) * at(r1, c0) + fc * at(r1, c1));
      CHECK(y[i * 3 + j] == Approx(want));
    }
}
