// Image ops that sample or rearrange spatial data:
//   grid_sample_ref     GridSample: nearest / linear / cubic sampling of X at normalized grid
//                       coordinates, with zeros / border / reflection padding (1-3 spatial dims)
//   affine_grid_ref     AffineGrid: the sampling grid of a batch of 2-D or 3-D affine matrices
//   center_crop_pad_ref CenterCropPad: a centered window of the input, zero outside it
//   col2im_ref          Col2Im: sums sliding-block columns back into an N-D image
//   max_unpool_ref      MaxUnpool: scatters values to their pooling argmax positions
//   roi_align_ref       RoiAlign: average / max of bilinear samples over each region's bins
//   deform_conv_ref     DeformConv: 2-D convolution at offset (and masked) bilinear sample points
//   nms_ref             NonMaxSuppression: greedy IoU suppression (host folding only)
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
// (align_corners) or their outer edges. Nearest rounds halves to even (std::nearbyint), which is
// what the conformance data holds for 2-D and 3-D grids alike.
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
        T* base = w[k];  // the weights, written in place
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

// ---- CenterCropPad -----------------------------------------------------------------------------

struct CropPadParams {
  int rank;
  index_t in_dims[kMaxRank], out_dims[kMaxRank];
  index_t shift[kMaxRank];  // input index = output index + shift (crop > 0, pad < 0)
};

// y[o] = x[o + shift] where that lies inside x, 0 elsewhere. Any element type.
template <typename T>
inline void center_crop_pad_ref(const CropPadParams& p, const T* x, T* y) {
  index_t total = 1;
  for (int d = 0; d < p.rank; ++d) total *= p.out_dims[d];
  if (total == 0) return;
  index_t o[kMaxRank] = {0};
  for (index_t k = 0; k < total; ++k) {
    index_t at = 0;
    bool inside = true;
    for (int d = 0; d < p.rank; ++d) {
      const index_t i = o[d] + p.shift[d];
      inside = inside && i >= 0 && i < p.in_dims[d];
      at = at * p.in_dims[d] + i;
    }
    y[k] = inside ? x[at] : T{};
    for (int d = p.rank - 1; d >= 0; --d) {
      if (++o[d] < p.out_dims[d]) break;
      o[d] = 0;
    }
  }
}

// ---- Col2Im ------------------------------------------------------------------------------------

struct Col2ImParams {
  index_t batch, channels;
  int spatial;                   // 1..kMaxRank-2
  index_t image[kMaxRank - 2];   // output spatial dims
  index_t block[kMaxRank - 2];   // block (kernel) dims
  index_t blocks[kMaxRank - 2];  // sliding positions per dim
  index_t stride[kMaxRank - 2], dilation[kMaxRank - 2], pad_begin[kMaxRank - 2];
};

// x is [batch, channels * prod(block), prod(blocks)]; every column entry is added to the image
// pixel its block offset and sliding position cover (entries landing in the padding are dropped).
template <typename T>
inline void col2im_ref(const Col2ImParams& p, const T* x, T* y) {
  const int S = p.spatial;
  index_t image_size = 1, block_size = 1, positions = 1;
  for (int d = 0; d < S; ++d) {
    image_size *= p.image[d];
    block_size *= p.block[d];
    positions *= p.blocks[d];
  }
  for (index_t i = 0; i < p.batch * p.channels * image_size; ++i) y[i] = T(0);
  for (index_t nc = 0; nc < p.batch * p.channels; ++nc) {
    T* img = y + nc * image_size;
    index_t k[kMaxRank - 2] = {0};
    for (index_t kk = 0; kk < block_size; ++kk) {
      const T* col = x + (nc * block_size + kk) * positions;
      index_t l[kMaxRank - 2] = {0};
      for (index_t ll = 0; ll < positions; ++ll) {
        index_t at = 0;
        bool inside = true;
        for (int d = 0; d < S; ++d) {
          const index_t i = l[d] * p.stride[d] - p.pad_begin[d] + k[d] * p.dilation[d];
          inside = inside && i >= 0 && i < p.image[d];
          at = at * p.image[d] + i;
        }
        if (inside) img[at] += col[ll];
        for (int d = S - 1; d >= 0; --d) {
          if (++l[d] < p.blocks[d]) break;
          l[d] = 0;
        }
      }
      for (int d = S - 1; d >= 0; --d) {
        if (++k[d] < p.block[d]) break;
        k[d] = 0;
      }
    }
  }
}

// ---- MaxUnpool ---------------------------------------------------------------------------------

struct MaxUnpoolParams {
  int rank;
  index_t count;               // elements of X (and of the indices)
  index_t unpooled[kMaxRank];  // the shape the indices address: (in - 1) * stride - pads + k
  index_t out_dims[kMaxRank];  // output_shape (>= unpooled on every axis)
};

// y = 0, then y[position of I[i] in the unpooled shape] = x[i]; the unpooled tensor sits at the
// origin corner of a larger output_shape. Indices outside the unpooled tensor are ignored.
template <typename T, typename I>
inline void max_unpool_ref(const MaxUnpoolParams& p, const T* x, const I* indices, T* y) {
  index_t total = 1, unpooled = 1;
  for (int d = 0; d < p.rank; ++d) {
    total *= p.out_dims[d];
    unpooled *= p.unpooled[d];
  }
  for (index_t i = 0; i < total; ++i) y[i] = T(0);
  for (index_t i = 0; i < p.count; ++i) {
    index_t flat = static_cast<index_t>(indices[i]);
    if (flat < 0 || flat >= unpooled) continue;
    index_t at = 0, scale = 1;
    for (int d = p.rank - 1; d >= 0; --d) {
      at += (flat % p.unpooled[d]) * scale;
      flat /= p.unpooled[d];
      scale *= p.out_dims[d];
    }
    y[at] = x[i];
  }
}

// ---- RoiAlign ----------------------------------------------------------------------------------

struct RoiAlignParams {
  index_t rois, channels, height, width;  // X is [batch, channels, height, width]
  index_t batch;
  index_t out_h, out_w;
  index_t sampling_ratio;  // samples per bin side; 0: ceil(roi size / output size)
  float spatial_scale;     // a float attribute: float kernels read it without double math
  int half_pixel;          // shift by -0.5 pixel (coordinate_transformation_mode half_pixel)
  int max_mode;            // 0 avg, 1 max
};

// y[r, c, ph, pw] = average (or max) over the bin's sampling grid of bilinear samples of
// X[batch_indices[r], c] (max mode takes the largest weighted corner of each sample). Samples
// more than one pixel outside the map count as 0.
template <typename T, typename I>
inline void roi_align_ref(const RoiAlignParams& p, const T* x, const T* rois,
                          const I* batch_indices, T* y) {
  const T H = static_cast<T>(p.height), W = static_cast<T>(p.width);
  const T offset = p.half_pixel ? T(0.5) : T(0);
  const T scale = static_cast<T>(p.spatial_scale);
  for (index_t r = 0; r < p.rois; ++r) {
    const T* box = rois + r * 4;
    const index_t b = static_cast<index_t>(batch_indices[r]);
    const T start_w = box[0] * scale - offset, start_h = box[1] * scale - offset;
    T roi_w = box[2] * scale - offset - start_w, roi_h = box[3] * scale - offset - start_h;
    if (!p.half_pixel) {
      roi_w = roi_w > T(1) ? roi_w : T(1);
      roi_h = roi_h > T(1) ? roi_h : T(1);
    }
    const T bin_h = roi_h / static_cast<T>(p.out_h), bin_w = roi_w / static_cast<T>(p.out_w);
    const index_t grid_h = p.sampling_ratio > 0
                               ? p.sampling_ratio
                               : static_cast<index_t>(std::ceil(roi_h / static_cast<T>(p.out_h)));
    const index_t grid_w = p.sampling_ratio > 0
                               ? p.sampling_ratio
                               : static_cast<index_t>(std::ceil(roi_w / static_cast<T>(p.out_w)));
    const index_t count = grid_h * grid_w > 1 ? grid_h * grid_w : 1;
    for (index_t c = 0; c < p.channels; ++c) {
      const T* img =
          (b >= 0 && b < p.batch) ? x + (b * p.channels + c) * p.height * p.width : nullptr;
      for (index_t ph = 0; ph < p.out_h; ++ph)
        for (index_t pw = 0; pw < p.out_w; ++pw) {
          T acc = T(0);
          bool first = true;
          for (index_t iy = 0; iy < grid_h; ++iy) {
            const T yy = start_h + static_cast<T>(ph) * bin_h +
                         (static_cast<T>(iy) + T(0.5)) * bin_h / static_cast<T>(grid_h);
            for (index_t ix = 0; ix < grid_w; ++ix) {
              T sx = start_w + static_cast<T>(pw) * bin_w +
                     (static_cast<T>(ix) + T(0.5)) * bin_w / static_cast<T>(grid_w);
              T sy = yy;
              T v[4] = {T(0), T(0), T(0), T(0)};
              if (img && !(sy < T(-1) || sy > H || sx < T(-1) || sx > W)) {
                sy = sy > T(0) ? sy : T(0);
                sx = sx > T(0) ? sx : T(0);
                index_t y0 = static_cast<index_t>(sy), x0 = static_cast<index_t>(sx), y1, x1;
                if (y0 >= p.height - 1) {
                  y0 = y1 = p.height - 1;
                  sy = static_cast<T>(y0);
                } else {
                  y1 = y0 + 1;
                }
                if (x0 >= p.width - 1) {
                  x0 = x1 = p.width - 1;
                  sx = static_cast<T>(x0);
                } else {
                  x1 = x0 + 1;
                }
                const T ly = sy - static_cast<T>(y0), lx = sx - static_cast<T>(x0);
                const T hy = T(1) - ly, hx = T(1) - lx;
                v[0] = hy * hx * img[y0 * p.width + x0];
                v[1] = hy * lx * img[y0 * p.width + x1];
                v[2] = ly * hx * img[y1 * p.width + x0];
                v[3] = ly * lx * img[y1 * p.width + x1];
              }
              if (p.max_mode) {
                T m = v[0];
                for (int k = 1; k < 4; ++k) m = v[k] > m ? v[k] : m;
                acc = first || m > acc ? m : acc;
                first = false;
              } else {
                acc += v[0] + v[1] + v[2] + v[3];
              }
            }
          }
          if (!p.max_mode) acc /= static_cast<T>(count);
          y[((r * p.channels + c) * p.out_h + ph) * p.out_w + pw] = acc;
        }
    }
  }
}

// ---- DeformConv --------------------------------------------------------------------------------

struct DeformConvParams {
  index_t batch, in_channels, in_h, in_w;
  index_t out_channels, out_h, out_w;
  index_t kernel_h, kernel_w;
  index_t group, offset_group;
  index_t stride_h, stride_w, pad_top, pad_left, dilation_h, dilation_w;
};

// y[n, oc, oh, ow] = B[oc] + sum over the group's input channels c and kernel taps (i, j) of
//   W[oc, c', i, j] * mask[n, g, i, j, oh, ow] * X[n, c](bilinear at (h, w)),
// h = oh * stride - pad + i * dilation + offset[n, g, i, j, 0, oh, ow] (w likewise with index 1),
// g = c's offset group; samples outside the image read 0. bias and mask may be null.
template <typename T>
inline void deform_conv_ref(const DeformConvParams& p, const T* x, const T* w, const T* offset,
                            const T* bias, const T* mask, T* y) {
  const index_t K = p.kernel_h * p.kernel_w, plane = p.out_h * p.out_w;
  const index_t ic_per_group = p.in_channels / p.group, oc_per_group = p.out_channels / p.group;
  const index_t ic_per_offset_group = p.in_channels / p.offset_group;
  for (index_t n = 0; n < p.batch; ++n)
    for (index_t oc = 0; oc < p.out_channels; ++oc) {
      const index_t g = oc / oc_per_group;
      for (index_t oh = 0; oh < p.out_h; ++oh)
        for (index_t ow = 0; ow < p.out_w; ++ow) {
          T acc = bias ? bias[oc] : T(0);
          for (index_t cg = 0; cg < ic_per_group; ++cg) {
            const index_t c = g * ic_per_group + cg;
            const index_t og = c / ic_per_offset_group;
            const T* img = x + (n * p.in_channels + c) * p.in_h * p.in_w;
            for (index_t k = 0; k < K; ++k) {
              const index_t i = k / p.kernel_w, j = k % p.kernel_w;
              const index_t at = (n * p.offset_group + og) * K + k;
              const T dy = offset[(at * 2 + 0) * plane + oh * p.out_w + ow];
              const T dx = offset[(at * 2 + 1) * plane + oh * p.out_w + ow];
              const T hy = static_cast<T>(oh * p.stride_h - p.pad_top + i * p.dilation_h) + dy;
              const T wx = static_cast<T>(ow * p.stride_w - p.pad_left + j * p.dilation_w) + dx;
              const T fy = std::floor(hy), fx = std::floor(wx);
              const index_t y0 = static_cast<index_t>(fy), x0 = static_cast<index_t>(fx);
              const T ly = hy - fy, lx = wx - fx;
              T v = T(0);
              for (int a = 0; a < 2; ++a) {
                const index_t yy = y0 + a;
                if (yy < 0 || yy >= p.in_h) continue;
                const T wy = a ? ly : T(1) - ly;
                for (int b = 0; b < 2; ++b) {
                  const index_t xx = x0 + b;
                  if (xx < 0 || xx >= p.in_w) continue;
                  v += wy * (b ? lx : T(1) - lx) * img[yy * p.in_w + xx];
                }
              }
              if (mask) v *= mask[at * plane + oh * p.out_w + ow];
              acc += w[(oc * ic_per_group + cg) * K + k] * v;
            }
          }
          y[((n * p.out_channels + oc) * p.out_h + oh) * p.out_w + ow] = acc;
        }
    }
}

// ---- NonMaxSuppression -------------------------------------------------------------------------

struct NmsParams {
  index_t batch, classes, boxes;
  std::int64_t max_per_class;  // 0 selects nothing
  float iou_threshold;
  float score_threshold;
  int has_score_threshold;
  int center_point_box;  // boxes are [x_center, y_center, w, h] instead of corner pairs
};

namespace image_detail {

// IoU of two boxes in either corner order ([y1, x1, y2, x2]) or center form; -1 when they do
// not overlap or one is empty.
template <typename T>
inline float box_iou(const T* a, const T* b, int center) {
  float ay0, ax0, ay1, ax1, by0, bx0, by1, bx1;
  if (center) {
    const float acx = static_cast<float>(a[0]), acy = static_cast<float>(a[1]);
    const float aw = static_cast<float>(a[2]), ah = static_cast<float>(a[3]);
    const float bcx = static_cast<float>(b[0]), bcy = static_cast<float>(b[1]);
    const float bw = static_cast<float>(b[2]), bh = static_cast<float>(b[3]);
    ax0 = acx - aw / 2;
    ax1 = acx + aw / 2;
    ay0 = acy - ah / 2;
    ay1 = acy + ah / 2;
    bx0 = bcx - bw / 2;
    bx1 = bcx + bw / 2;
    by0 = bcy - bh / 2;
    by1 = bcy + bh / 2;
  } else {
    ay0 = std::fmin(static_cast<float>(a[0]), static_cast<float>(a[2]));
    ay1 = std::fmax(static_cast<float>(a[0]), static_cast<float>(a[2]));
    ax0 = std::fmin(static_cast<float>(a[1]), static_cast<float>(a[3]));
    ax1 = std::fmax(static_cast<float>(a[1]), static_cast<float>(a[3]));
    by0 = std::fmin(static_cast<float>(b[0]), static_cast<float>(b[2]));
    by1 = std::fmax(static_cast<float>(b[0]), static_cast<float>(b[2]));
    bx0 = std::fmin(static_cast<float>(b[1]), static_cast<float>(b[3]));
    bx1 = std::fmax(static_cast<float>(b[1]), static_cast<float>(b[3]));
  }
  const float iw = std::fmin(ax1, bx1) - std::fmax(ax0, bx0);
  const float ih = std::fmin(ay1, by1) - std::fmax(ay0, by0);
  if (iw <= 0 || ih <= 0) return -1.0f;  // disjoint: never suppresses
  const float inter = iw * ih;
  const float area_a = (ax1 - ax0) * (ay1 - ay0), area_b = (bx1 - bx0) * (by1 - by0);
  const float uni = area_a + area_b - inter;
  return area_a > 0 && area_b > 0 && uni > 0 ? inter / uni : -1.0f;
}

}  // namespace image_detail

// Greedy NMS per (batch, class): candidates above the score threshold, best score first (ties:
// lower box index first), each kept unless its IoU with a kept box exceeds the threshold, at most
// max_per_class. Writes [batch, class, box] triples to `selected` (room for
// batch * classes * min(boxes, max_per_class) rows) and returns their count. `order` and `kept`
// are workspaces of `boxes` entries.
template <typename T>
inline index_t nms_ref(const NmsParams& p, const T* boxes, const T* scores, std::int64_t* selected,
                       index_t* order, index_t* kept) {
  index_t total = 0;
  for (index_t b = 0; b < p.batch; ++b)
    for (index_t c = 0; c < p.classes; ++c) {
      const T* sc = scores + (b * p.classes + c) * p.boxes;
      const T* bx = boxes + b * p.boxes * 4;
      index_t n = 0;
      for (index_t i = 0; i < p.boxes; ++i)
        if (!p.has_score_threshold || static_cast<float>(sc[i]) > p.score_threshold) {
          // Insertion keeps the order stable: after every equal score.
          index_t j = n++;
          while (j > 0 && sc[order[j - 1]] < sc[i]) {
            order[j] = order[j - 1];
            --j;
          }
          order[j] = i;
        }
      index_t nk = 0;
      for (index_t k = 0; k < n && nk < p.max_per_class; ++k) {
        const index_t i = order[k];
        bool keep = true;
        for (index_t q = 0; q < nk && keep; ++q)
          keep = !(image_detail::box_iou(bx + i * 4, bx + kept[q] * 4, p.center_point_box) >
                   p.iou_threshold);
        if (!keep) continue;
        kept[nk++] = i;
        selected[total * 3 + 0] = b;
        selected[total * 3 + 1] = c;
        selected[total * 3 + 2] = i;
        ++total;
      }
    }
  return total;
}

}  // namespace onnxc

#endif  // ONNXC_IMAGE_H
