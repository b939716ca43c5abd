// Convolution over 1-3 spatial dims (lower ranks are padded with unit dims to 3-D), NCHW layout,
// grouped (depthwise included), with strides, dilations and begin paddings.
#ifndef ONNXC_CONV_H
#define ONNXC_CONV_H

#include "onnxc/base.h"

namespace onnxc {

struct ConvParams {
  index_t batch, c_in, c_out, group;
  index_t in[3], out[3], kernel[3], stride[3], dilation[3], pad[3];  // pad: leading padding
};

// y[n, oc, o...] = b[oc] + sum over ic in oc's group and kernel taps of x * w.
template <typename T>
inline void conv_ref(const ConvParams& p, const T* x, const T* w, const T* b, T* y) {
  const index_t cin_g = p.c_in / p.group, cout_g = p.c_out / p.group;
  const index_t in_size = p.in[0] * p.in[1] * p.in[2];
  const index_t out_size = p.out[0] * p.out[1] * p.out[2];
  const index_t k_size = p.kernel[0] * p.kernel[1] * p.kernel[2];
  for (index_t n = 0; n < p.batch; ++n)
    for (index_t oc = 0; oc < p.c_out; ++oc) {
      const index_t g = oc / cout_g;
      T* yc = y + (n * p.c_out + oc) * out_size;
      for (index_t od = 0; od < p.out[0]; ++od)
        for (index_t oh = 0; oh < p.out[1]; ++oh)
          for (index_t ow = 0; ow < p.out[2]; ++ow) {
            T acc = b ? b[oc] : T(0);
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
                    acc += xrow[iw] * wrow[kw];
                  }
                }
              }
            }
            yc[(od * p.out[1] + oh) * p.out[2] + ow] = acc;
          }
    }
}

}  // namespace onnxc

#endif  // ONNXC_CONV_H
