// Image ops that sample or rearrange spatial data:
//   grid_sample_ref     GridSample: nearest / linear / cubic sampling of X at normalized grid
//                       coordinates, with zeros / border / reflection padding (1-3 spatial dims)
//   affine_grid_ref     AffineGrid: the sampling grid of a batch of 2-D or 3-D affine matrices
// Float math in T (float for float tensors).
#ifndef ONNXC_IMAGE_H
#define ONNXC_IMAGE_H

#include <cmath>

#include "onnxc/base.h"

namespace onnxc {

// ---- GridSample --------------------------------------------------------------------------------

struct GridSampleParams {
  index_t batch, channels;
  int spatial;          // 1..3 spatial dims
  index_t in_dims[3];   // X's spatial dims (outermost first)
  index_t out_dims[3];  // the grid's spatial dims
  int mode;             // 0 nearest, 1 linear, 2 cubic
  int padding;          // 0 zeros, 1 border, 2 reflection
  int align_corners;
};

namespace image_detail {

// Reflects v into [lo, hi] by folding at the nearer border until it lies inside.
template <typename T>
inline T reflect(T v, T lo, T hi) {
  const T range = hi - lo;
  if (!(range > T(0))) return lo;
  if (v < lo) {
    const T dx = lo - v;
    const index_t n = static_cast<index_t>(dx / range);
    const T r = dx - static_cast<T>(n) * range;
    return n % 2 == 0 ? lo + r : hi - r;
  }
  if (v > hi) {
    const T dx = v - hi;
    const index_t n = static_cast<index_t>(dx / range);
    const T r = dx - static_cast<T>(n) * range;
    return n % 2 == 0 ? hi - r : lo + r;
  }
  return v;
}

// Keys' cubic convolution weights (a = -0.75) of the taps at -1, 0, 1, 2 for offset t in [0, 1).
template <typename T>
inline void cubic_weights(T t, T* w) {
  const T a = T(-0.75);
  const T t1 = t + T(1), t2 = T(1) - t, t3 = T(2) - t;
  w[0] = ((a * t1 - T(5) * a) * t1 + T(8) * a) * t1 - T(4) * a;
  w[1] = ((a + T(2)) * t - (a + T(3))) * t * t + T(1);
  w[2] = ((a + T(2)) * t2 - (a + T(3))) * t2 * t2 + T(1);
  w[3] = ((a * t3 - T(5) * a) * t3 + T(8) * a) * t3 - T(4) * a;
}

}  // namespace image_detail

// y[n, c, o...] = X[n, c] sampled at grid[n, o..., :] (the last grid axis lists x, y, z: the
// innermost spatial axis first). Coordinates in [-1, 1] span the corner pixels' centers
// (align_corners) or their outer edges.
template <typename T>
inline void grid_sample_ref(const GridSampleParams& p, const T* x, const T* grid, T* y) {
  using image_detail::reflect;
  const int S = p.spatial;
  index_t in_size = 1, out_size = 1;
  for (int d = 0; d < S; ++d) {
    in_size *= p.in_dims[d];
    out_size *= p.out_dims[d];
  }
  const int taps = p.mode == 0 ? 1 : p.mode == 1 ? 2 : 4;
  for (index_t n = 0; n < p.batch; ++n)
    for (index_t o = 0; o < out_size; ++o) {
      const T* g = grid + (n * out_size + o) * S;
      // Per axis (padded to 3 with single-tap leading axes): input offsets (-1: zero) and weights.
      index_t off[3][4];
      T w[3][4];
      int count[3];
      index_t stride = 1;
      for (int k = 2; k >= 0; --k) {
        const int d = k - (3 - S);  // the spatial axis in slot k
        if (d < 0) {
          count[k] = 1;
          off[k][0] = 0;
          w[k][0] = T(1);
          continue;
        }
        const index_t len = p.in_dims[d];
        const T L = static_cast<T>(len);
        const T v = g[S - 1 - d];
        T xf = p.align_corners ? (v + T(1)) / T(2) * (L - T(1)) : ((v + T(1)) * L - T(1)) / T(2);
        const T lo = p.align_corners ? T(0) : T(-0.5);
        const T hi = p.align_corners ? L - T(1) : L - T(0.5);
        if (p.mode == 0) xf = std::nearbyint(xf);
        if (xf < lo || xf > hi) {
          if (p.padding == 1)
            xf = xf < T(0) ? T(0) : xf > L - T(1) ? L - T(1) : xf;
          else if (p.padding == 2)
            xf = reflect(xf, lo, hi);
        }
        index_t first;
        T base[4];
        if (p.mode == 0) {
          first = static_cast<index_t>(xf);
          base[0] = T(1);
        } else {
          const T f = std::floor(xf);
          const T t = xf - f;
          first = static_cast<index_t>(f) - (p.mode == 2 ? 1 : 0);
          if (p.mode == 1) {
            base[0] = T(1) - t;
            base[1] = t;
          } else {
            image_detail::cubic_weights(t, base);
          }
        }
        count[k] = taps;
        for (int j = 0; j < taps; ++j) {
          index_t i = first + j;
          if (p.padding == 0) {
            i = i >= 0 && i < len ? i : -1;
          } else if (p.padding == 1) {
            i = i < 0 ? 0 : i >= len ? len - 1 : i;
          } else {
            i = static_cast<index_t>(reflect(static_cast<T>(i), lo, hi));
            i = i < 0 ? 0 : i >= len ? len - 1 : i;
          }
          off[k][j] = i < 0 ? -1 : i * stride;
          w[k][j] = base[j];
        }
        stride *= len;
      }
      for (index_t c = 0; c < p.channels; ++c) {
        const T* xc = x + (n * p.channels + c) * in_size;
        T acc = T(0);
        for (int a = 0; a < count[0]; ++a) {
          if (off[0][a] < 0) continue;
          for (int b = 0; b < count[1]; ++b) {
            if (off[1][b] < 0) continue;
            const T wab = w[0][a] * w[1][b];
            const index_t ab = off[0][a] + off[1][b];
            for (int e = 0; e < count[2]; ++e)
              if (off[2][e] >= 0) acc += wab * w[2][e] * xc[ab + off[2][e]];
          }
        }
        y[(n * p.channels + c) * out_size + o] = acc;
      }
    }
}

// ---- AffineGrid --------------------------------------------------------------------------------

struct AffineGridParams {
  index_t batch;
  int spatial;      // 2 (theta N x 2 x 3, grid N x H x W x 2) or 3 (N x 3 x 4, N x D x H x W x 3)
  index_t dims[3];  // H, W or D, H, W
  int align_corners;
};

// grid[n, ..., k] = theta[n, k, :] . (x, y[, z], 1), with x running along the innermost axis and
// each base coordinate in [-1, 1]: the pixel centers (align_corners) or the centers of L equal
// cells.
template <typename T>
inline void affine_grid_ref(const AffineGridParams& p, const T* theta, T* grid) {
  const int S = p.spatial;
  auto base = [&](int axis, index_t i) -> T {
    const T L = static_cast<T>(p.dims[axis]);
    if (p.align_corners)
      return p.dims[axis] == 1 ? T(-1) : T(-1) + static_cast<T>(i) * T(2) / (L - T(1));
    return (T(2) * static_cast<T>(i) + T(1)) / L - T(1);
  };
  const index_t D = S == 3 ? p.dims[0] : 1, H = p.dims[S - 2], W = p.dims[S - 1];
  for (index_t n = 0; n < p.batch; ++n) {
    const T* th = theta + n * S * (S + 1);
    for (index_t dz = 0; dz < D; ++dz)
      for (index_t hy = 0; hy < H; ++hy)
        for (index_t wx = 0; wx < W; ++wx) {
          const T c[3] = {base(S - 1, wx), base(S - 2, hy), S == 3 ? base(0, dz) : T(0)};
          for (int k = 0; k < S; ++k) {
            T v = th[k * (S + 1) + S];
            for (int j = 0; j < S; ++j) v += th[k * (S + 1) + j] * c[j];
            *grid++ = v;
          }
        }
  }
}

}  // namespace onnxc

#endif  // ONNXC_IMAGE_H
