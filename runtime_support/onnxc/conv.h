// Convolution kernels, NCHW layout, over 1 to 3 spatial dims: 1-D and 2-D run as 3-D with
// leading unit dims (in, out, kernel, stride and dilation 1, pad 0).
//
//   Conv:          y[n, oc, o] = b[oc] + sum over the ic of oc's group and kernel taps k of
//                                x[n, ic, o * stride + k * dilation - pad] * w[oc, ic, k]
//   ConvTranspose: y[n, oc, i * stride + k * dilation - pad] gets x[n, ic, i] * w[ic, oc', k]
//                  from every input channel ic of oc's group (oc' = oc within the group), + b[oc]
//
// Taps in the padding read zero. Every variant has the signature
//   (const ConvParams& p, const T* x, const T* w, const T* b, T* y, void* scratch)
// where b may be null and scratch is the node's workspace (conv_scratch_bytes() of it; variants
// that need none ignore it). The compiler picks a variant per node from the shape:
//   conv_ref<T>                 any float type (float16 and bfloat16 are computed in float)
//   f32_conv_1x1__gemm          kernel 1, stride 1, no padding: one GEMM per image and group
//   f32_conv_im2col__gemm       any shape: tiles of the patch matrix in scratch, each a GEMM
//   f32_dwconv__generic         one input channel per group (depthwise, any multiplier): direct,
//                               vectorized along output rows
//   conv_transpose_ref<T>       ConvTranspose, any float type
//   f32_conv_transpose__gemm    ConvTranspose: a GEMM per tile of input positions, then col2im
#ifndef ONNXC_CONV_H
#define ONNXC_CONV_H

#include <type_traits>

#include "onnxc/base.h"
#include "onnxc/convert.h"
#include "onnxc/gemm.h"

namespace onnxc {

struct ConvParams {
  index_t batch, c_in, c_out, group;
  index_t in[3], out[3], kernel[3], stride[3], dilation[3], pad[3];  // pad: leading padding
  // The GEMM variants' tile: output positions per patch-matrix tile (Conv) or input positions
  // per column tile (ConvTranspose). conv_scratch_bytes() gives the workspace it needs.
  index_t tile;
};

namespace conv_detail {

// float16 and bfloat16 are loaded to float, computed in float and rounded once when stored.
template <typename T>
using compute_t =
    std::conditional_t<std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>, float, T>;

template <typename T>
inline compute_t<T> load(T v) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>)
    return to_float(v);
  else
    return v;
}

template <typename T>
inline T store(compute_t<T> v) {
  if constexpr (std::is_same_v<T, float16>)
    return to_float16(static_cast<double>(v));
  else if constexpr (std::is_same_v<T, bfloat16>)
    return to_bfloat16(static_cast<double>(v));
  else
    return v;
}

inline index_t volume(const index_t* d) { return d[0] * d[1] * d[2]; }

// Output positions o in [0, n) whose input position o * stride + offset lies in [0, size):
// the range [*lo, *hi), empty when no position is valid.
inline void valid_outputs(index_t n, index_t stride, index_t offset, index_t size, index_t* lo,
                          index_t* hi) {
  *lo = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  *hi = size - offset <= 0 ? 0 : (size - offset - 1) / stride + 1;
  if (*hi > n) *hi = n;
  if (*lo > *hi) *lo = *hi;
}

// Columns [p0, p0 + nc) of the patch matrix of one group's input xg (cin_g channels):
// col[r * nc + j], row r = (ic, kd, kh, kw), holds the tap r of output position p0 + j (0 in the
// padding). Positions are walked in runs along the last output dim, where rows are contiguous.
inline void im2col_tile(const ConvParams& p, const float* xg, index_t p0, index_t nc, float* col) {
  const index_t cin_g = p.c_in / p.group, in_size = volume(p.in), plane = p.out[1] * p.out[2];
  for (index_t ic = 0; ic < cin_g; ++ic)
    for (index_t kd = 0; kd < p.kernel[0]; ++kd)
      for (index_t kh = 0; kh < p.kernel[1]; ++kh)
        for (index_t kw = 0; kw < p.kernel[2]; ++kw) {
          const float* xc = xg + ic * in_size;
          const index_t off = kw * p.dilation[2] - p.pad[2];
          index_t w_lo, w_hi;
          valid_outputs(p.out[2], p.stride[2], off, p.in[2], &w_lo, &w_hi);
          index_t od = p0 / plane, oh = (p0 / p.out[2]) % p.out[1], ow = p0 % p.out[2];
          for (index_t j = 0; j < nc;) {
            const index_t run = nc - j < p.out[2] - ow ? nc - j : p.out[2] - ow, end = ow + run;
            const index_t id = od * p.stride[0] - p.pad[0] + kd * p.dilation[0];
            const index_t ih = oh * p.stride[1] - p.pad[1] + kh * p.dilation[1];
            float* dst = col + j - ow;  // dst[o] for o in [ow, end)
            if (id < 0 || id >= p.in[0] || ih < 0 || ih >= p.in[1]) {
              for (index_t o = ow; o < end; ++o) dst[o] = 0.0f;
            } else {
              const float* xrow = xc + (id * p.in[1] + ih) * p.in[2];
              const index_t a = w_lo < ow ? ow : w_lo > end ? end : w_lo;
              const index_t e = w_hi < a ? a : w_hi > end ? end : w_hi;
              for (index_t o = ow; o < a; ++o) dst[o] = 0.0f;
              if (p.stride[2] == 1) {
                for (index_t o = a; o < e; ++o) dst[o] = xrow[o + off];
              } else {
                for (index_t o = a; o < e; ++o) dst[o] = xrow[o * p.stride[2] + off];
              }
              for (index_t o = e; o < end; ++o) dst[o] = 0.0f;
            }
            j += run;
            ow = 0;
            if (++oh == p.out[1]) oh = 0, ++od;
          }
          col += nc;
        }
}

}  // namespace conv_detail

// Workspace bytes of the GEMM variants for p (p.tile set); the others need none.
constexpr index_t conv_im2col_scratch_bytes(const ConvParams& p) {
  return p.c_in / p.group * p.kernel[0] * p.kernel[1] * p.kernel[2] * p.tile *
         static_cast<index_t>(sizeof(float));
}
constexpr index_t conv_transpose_scratch_bytes(const ConvParams& p) {
  return p.c_out / p.group * p.kernel[0] * p.kernel[1] * p.kernel[2] * p.tile *
         static_cast<index_t>(sizeof(float));
}

// ---- Conv --------------------------------------------------------------------------------------

template <typename T>
inline void conv_ref(const ConvParams& p, const T* x, const T* w, const T* b, T* y,
                     void* /*scratch*/) {
  using C = conv_detail::compute_t<T>;
  using conv_detail::load;
  const index_t cin_g = p.c_in / p.group, cout_g = p.c_out / p.group;
  const index_t in_size = conv_detail::volume(p.in), out_size = conv_detail::volume(p.out);
  const index_t k_size = conv_detail::volume(p.kernel);
  for (index_t n = 0; n < p.batch; ++n)
    for (index_t oc = 0; oc < p.c_out; ++oc) {
      const index_t g = oc / cout_g;
      T* yc = y + (n * p.c_out + oc) * out_size;
      for (index_t od = 0; od < p.out[0]; ++od)
        for (index_t oh = 0; oh < p.out[1]; ++oh)
          for (index_t ow = 0; ow < p.out[2]; ++ow) {
            C acc = b ? load(b[oc]) : C(0);
            for (index_t ic = 0; ic < cin_g; ++ic) {
              const T* xc = x + (n * p.c_in + g * cin_g + ic) * in_size;
              const T* wk = w + (oc * cin_g + ic) * k_size;
              for (index_t kd = 0; kd < p.kernel[0]; ++kd) {
                const index_t id = od * p.stride[0] - p.pad[0] + kd * p.dilation[0];
                if (id < 0 || id >= p.in[0]) continue;
                for (index_t kh = 0; kh < p.kernel[1]; ++kh) {
                  const index_t ih = oh * p.stride[1] - p.pad[1] + kh * p.dilation[1];
                  if (ih < 0 || ih >= p.in[1]) continue;
                  const T* xrow = xc + (id * p.in[1] + ih) * p.in[2];
                  const T* wrow = wk + (kd * p.kernel[1] + kh) * p.kernel[2];
                  for (index_t kw = 0; kw < p.kernel[2]; ++kw) {
                    const index_t iw = ow * p.stride[2] - p.pad[2] + kw * p.dilation[2];
                    if (iw < 0 || iw >= p.in[2]) continue;
                    acc += load(xrow[iw]) * load(wrow[kw]);
                  }
                }
              }
            }
            yc[(od * p.out[1] + oh) * p.out[2] + ow] = conv_detail::store<T>(acc);
          }
    }
}

// Pointwise: per image and group, Y[cout_g x positions] = W[cout_g x cin_g] X[cin_g x positions]
// + b, straight from the input (kernel 1, stride 1 and no padding make the patch matrix X).
inline void f32_conv_1x1__gemm(const ConvParams& p, const float* x, const float* w, const float* b,
                               float* y, void* /*scratch*/) {
  const index_t cin_g = p.c_in / p.group, cout_g = p.c_out / p.group;
  const index_t size = conv_detail::volume(p.out);
  const GemmParams gp = {cout_g, size, cin_g, 0, 0, cin_g, size, size, 1.0, 1.0, 1, 0};
  for (index_t n = 0; n < p.batch; ++n)
    for (index_t g = 0; g < p.group; ++g)
      gemm<float>(gp, w + g * cout_g * cin_g, x + (n * p.c_in + g * cin_g) * size,
                  b ? b + g * cout_g : nullptr, y + (n * p.c_out + g * cout_g) * size);
}

// General: per image, group and tile of p.tile output positions, the patch matrix tile
// (cin_g * kernel volume rows) is built in scratch and multiplied by the group's weights.
// Tiles keep the patch matrix cache-sized however large the image.
inline void f32_conv_im2col__gemm(const ConvParams& p, const float* x, const float* w,
                                  const float* b, float* y, void* scratch) {
  float* col = static_cast<float*>(scratch);
  const index_t cin_g = p.c_in / p.group, cout_g = p.c_out / p.group;
  const index_t in_size = conv_detail::volume(p.in), out_size = conv_detail::volume(p.out);
  const index_t depth = cin_g * conv_detail::volume(p.kernel);  // GEMM k
  for (index_t n = 0; n < p.batch; ++n)
    for (index_t g = 0; g < p.group; ++g) {
      const float* xg = x + (n * p.c_in + g * cin_g) * in_size;
      float* yg = y + (n * p.c_out + g * cout_g) * out_size;
      for (index_t p0 = 0; p0 < out_size; p0 += p.tile) {
        const index_t nc = out_size - p0 < p.tile ? out_size - p0 : p.tile;
        conv_detail::im2col_tile(p, xg, p0, nc, col);
        const GemmParams gp = {cout_g, nc, depth, 0, 0, depth, nc, out_size, 1.0, 1.0, 1, 0};
        gemm<float>(gp, w + g * cout_g * depth, col, b ? b + g * cout_g : nullptr, yg + p0);
      }
    }
}

// Depthwise (c_in == group): each output channel filters one input plane. Each output row
// starts at the bias and accumulates one kernel tap at a time over the output positions where
// that tap is inside the input, so the inner loop has no bounds checks and vectorizes.
inline void f32_dwconv__generic(const ConvParams& p, const float* x, const float* w, const float* b,
                                float* y, void* /*scratch*/) {
  const index_t multiplier = p.c_out / p.group;  // output channels per input channel
  const index_t in_size = conv_detail::volume(p.in), out_size = conv_detail::volume(p.out);
  const index_t k_size = conv_detail::volume(p.kernel);
  const index_t sw = p.stride[2];
  for (index_t n = 0; n < p.batch; ++n)
    for (index_t oc = 0; oc < p.c_out; ++oc) {
      const float* xc = x + (n * p.c_in + oc / multiplier) * in_size;
      const float* wk = w + oc * k_size;
      const float bias = b ? b[oc] : 0.0f;
      for (index_t od = 0; od < p.out[0]; ++od)
        for (index_t oh = 0; oh < p.out[1]; ++oh) {
          float* __restrict yrow = y + (n * p.c_out + oc) * out_size + (od * p.out[1] + oh) * p.out[2];
          for (index_t ow = 0; ow < p.out[2]; ++ow) yrow[ow] = bias;
          for (index_t kd = 0; kd < p.kernel[0]; ++kd) {
            const index_t id = od * p.stride[0] - p.pad[0] + kd * p.dilation[0];
            if (id < 0 || id >= p.in[0]) continue;
            for (index_t kh = 0; kh < p.kernel[1]; ++kh) {
              const index_t ih = oh * p.stride[1] - p.pad[1] + kh * p.dilation[1];
              if (ih < 0 || ih >= p.in[1]) continue;
              const float* __restrict xrow = xc + (id * p.in[1] + ih) * p.in[2];
              const float* wrow = wk + (kd * p.kernel[1] + kh) * p.kernel[2];
              for (index_t kw = 0; kw < p.kernel[2]; ++kw) {
                const float wv = wrow[kw];
                const index_t off = kw * p.dilation[2] - p.pad[2];
                index_t lo, hi;
                conv_detail::valid_outputs(p.out[2], sw, off, p.in[2], &lo, &hi);
                if (sw == 1) {
                  for (index_t ow = lo; ow < hi; ++ow) yrow[ow] += wv * xrow[ow + off];
                } else {
                  for (index_t ow = lo; ow < hi; ++ow) yrow[ow] += wv * xrow[ow * sw + off];
                }
              }
            }
          }
        }
    }
}

// ---- ConvTranspose -----------------------------------------------------------------------------

// Gathers, per output position, the taps k whose input position (o + pad - k * dilation) /
// stride is whole and inside the input. w is [c_in, c_out / group, kernel...].
template <typename T>
inline void conv_transpose_ref(const ConvParams& p, const T* x, const T* w, const T* b, T* y,
                               void* /*scratch*/) {
  using C = conv_detail::compute_t<T>;
  using conv_detail::load;
  const index_t cin_g = p.c_in / p.group, cout_g = p.c_out / p.group;
  const index_t in_size = conv_detail::volume(p.in), out_size = conv_detail::volume(p.out);
  const index_t k_size = conv_detail::volume(p.kernel);
  index_t o[3], k[3], i[3];
  for (index_t n = 0; n < p.batch; ++n)
    for (index_t oc = 0; oc < p.c_out; ++oc) {
      const index_t g = oc / cout_g, m = oc % cout_g;
      for (index_t pos = 0; pos < out_size; ++pos) {
        o[0] = pos / (p.out[1] * p.out[2]), o[1] = pos / p.out[2] % p.out[1], o[2] = pos % p.out[2];
        C acc = b ? load(b[oc]) : C(0);
        for (index_t tap = 0; tap < k_size; ++tap) {
          k[0] = tap / (p.kernel[1] * p.kernel[2]), k[1] = tap / p.kernel[2] % p.kernel[1];
          k[2] = tap % p.kernel[2];
          bool inside = true;
          for (int d = 0; d < 3 && inside; ++d) {
            const index_t t = o[d] + p.pad[d] - k[d] * p.dilation[d];
            i[d] = t / p.stride[d];
            inside = t >= 0 && t % p.stride[d] == 0 && i[d] < p.in[d];
          }
          if (!inside) continue;
          const index_t at = (i[0] * p.in[1] + i[1]) * p.in[2] + i[2];
          for (index_t ic = 0; ic < cin_g; ++ic) {
            const index_t c = g * cin_g + ic;
            acc += load(x[(n * p.c_in + c) * in_size + at]) * load(w[(c * cout_g + m) * k_size + tap]);
          }
        }
        y[(n * p.c_out + oc) * out_size + pos] = conv_detail::store<T>(acc);
      }
    }
}

// Per image, group and tile of p.tile input positions: cols[(m, k) x positions] =
// W_g^T X_g (a GEMM with W read transposed in place), then each column is scattered into the
// output (col2im). Y starts at the bias.
inline void f32_conv_transpose__gemm(const ConvParams& p, const float* x, const float* w,
                                     const float* b, float* y, void* scratch) {
  float* cols = static_cast<float*>(scratch);
  const index_t cin_g = p.c_in / p.group, cout_g = p.c_out / p.group;
  const index_t in_size = conv_detail::volume(p.in), out_size = conv_detail::volume(p.out);
  const index_t k_size = conv_detail::volume(p.kernel), rows = cout_g * k_size;
  for (index_t n = 0; n < p.batch; ++n) {
    for (index_t oc = 0; oc < p.c_out; ++oc) {
      float* yc = y + (n * p.c_out + oc) * out_size;
      const float bias = b ? b[oc] : 0.0f;
      for (index_t j = 0; j < out_size; ++j) yc[j] = bias;
    }
    for (index_t g = 0; g < p.group; ++g) {
      const float* xg = x + (n * p.c_in + g * cin_g) * in_size;
      for (index_t p0 = 0; p0 < in_size; p0 += p.tile) {
        const index_t nc = in_size - p0 < p.tile ? in_size - p0 : p.tile;
        const GemmParams gp = {rows, nc, cin_g, 1, 0, rows, in_size, nc, 1.0, 0.0, 0, 0};
        gemm<float>(gp, w + g * cin_g * rows, xg + p0, static_cast<const float*>(nullptr), cols);
        for (index_t r = 0; r < rows; ++r) {
          const index_t m = r / k_size, tap = r % k_size;
          const index_t kd = tap / (p.kernel[1] * p.kernel[2]), kh = tap / p.kernel[2] % p.kernel[1];
          const index_t kw = tap % p.kernel[2];
          float* yc = y + (n * p.c_out + g * cout_g + m) * out_size;
          const float* src = cols + r * nc;
          index_t id = p0 / (p.in[1] * p.in[2]), ih = p0 / p.in[2] % p.in[1], iw = p0 % p.in[2];
          for (index_t j = 0; j < nc;) {  // runs along the last input dim
            const index_t run = nc - j < p.in[2] - iw ? nc - j : p.in[2] - iw;
            const index_t od = id * p.stride[0] + kd * p.dilation[0] - p.pad[0];
            const index_t oh = ih * p.stride[1] + kh * p.dilation[1] - p.pad[1];
            if (od >= 0 && od < p.out[0] && oh >= 0 && oh < p.out[1]) {
              float* yrow = yc + (od * p.out[1] + oh) * p.out[2];
              const index_t off = kw * p.dilation[2] - p.pad[2];
              index_t lo, hi;  // input positions in the run landing inside the output row
              conv_detail::valid_outputs(p.in[2], p.stride[2], off, p.out[2], &lo, &hi);
              if (lo < iw) lo = iw;
              if (hi > iw + run) hi = iw + run;
              const float* s = src + j - iw;
              for (index_t t = lo; t < hi; ++t) yrow[t * p.stride[2] + off] += s[t];
            }
            j += run;
            iw = 0;
            if (++ih == p.in[1]) ih = 0, ++id;
          }
        }
      }
    }
  }
}

}  // namespace onnxc

#endif  // ONNXC_CONV_H
