// Window geometry shared by Conv and the pools: kernel, strides, dilations and pads from the
// attributes (auto_pad included), and the output spatial size.
#pragma once

#include <vector>

#include "ops/op.h"

namespace onnxc {

struct WindowGeometry {
  std::vector<int64_t> kernel, stride, dilation, pad_begin, pad_end, out;
};

// Reads strides/dilations/pads/auto_pad for a window of `kernel` over `in` (spatial dims only).
// ceil_mode applies to pools. Reports errors through ctx and returns false.
bool window_geometry(InferContext& ctx, const std::vector<int64_t>& in,
                     const std::vector<int64_t>& kernel, bool ceil_mode, WindowGeometry& g);

// Pads a spatial vector to 3 entries with `fill` in front (1-D and 2-D run as 3-D kernels).
std::string spatial3(const std::vector<int64_t>& v, int64_t fill);

}  // namespace onnxc
