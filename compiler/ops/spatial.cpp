#include "ops/spatial.h"

#include <fmt/format.h>

namespace onnxc {

namespace {
constexpr int64_t kMaxWindowAttribute = (int64_t{1} << 31) - 1;
}  // namespace

bool window_geometry(InferContext& ctx, const std::vector<int64_t>& in,
                     const std::vector<int64_t>& kernel, bool ceil_mode, WindowGeometry& g) {
  const size_t n = in.size();
  if (n < 1 || n > 3) return ctx.fail("{} spatial dims; 1 to 3 are supported", n);
  g.kernel = kernel;
  if (g.kernel.size() != n)
    return ctx.fail("kernel_shape has {} dims, input has {} spatial dims", g.kernel.size(), n);
  g.stride = ctx.attr_ints("strides", std::vector<int64_t>(n, 1));
  g.dilation = ctx.attr_ints("dilations", std::vector<int64_t>(n, 1));
  std::vector<int64_t> pads = ctx.attr_ints("pads", std::vector<int64_t>(2 * n, 0));
  if (g.stride.size() != n || g.dilation.size() != n || pads.size() != 2 * n)
    return ctx.fail("strides, dilations and pads must have {}, {} and {} values", n, n, 2 * n);
  for (size_t i = 0; i < n; ++i) {
    if (g.kernel[i] < 1 || g.stride[i] < 1 || g.dilation[i] < 1)
      return ctx.fail("kernel, strides and dilations must be positive");
    if (pads[i] < 0 || pads[i + n] < 0) return ctx.fail("pads must be non-negative");
  }
  // Bounded so that the window (kernel - 1) * dilation + 1 and the padded input cannot overflow
  // int64; a window or padding that large is nonsense anyway (it is larger than any input).
  const std::pair<const char*, const std::vector<int64_t>*> bounded[] = {
      {"kernel_shape", &g.kernel},
      {"strides", &g.stride},
      {"dilations", &g.dilation},
      {"pads", &pads}};
  for (const auto& [name, values] : bounded)
    for (int64_t v : *values)
      if (v > kMaxWindowAttribute)
        return ctx.fail("{} value {} is larger than {} (2^31 - 1)", name, v, kMaxWindowAttribute);
  std::string auto_pad = ctx.attr_string("auto_pad", "NOTSET");
  g.pad_begin.assign(pads.begin(), pads.begin() + static_cast<long>(n));
  g.pad_end.assign(pads.begin() + static_cast<long>(n), pads.end());
  g.out.resize(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t window = (g.kernel[i] - 1) * g.dilation[i] + 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      g.out[i] = (in[i] + g.stride[i] - 1) / g.stride[i];
      int64_t total = std::max<int64_t>(0, (g.out[i] - 1) * g.stride[i] + window - in[i]);
      int64_t small = total / 2;
      g.pad_begin[i] = auto_pad == "SAME_UPPER" ? small : total - small;
      g.pad_end[i] = total - g.pad_begin[i];
      continue;
    }
    if (auto_pad == "VALID") {
      g.pad_begin[i] = g.pad_end[i] = 0;
    } else if (auto_pad != "NOTSET") {
      return ctx.fail("auto_pad '{}' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID",
                      auto_pad);
    }
    int64_t span = in[i] + g.pad_begin[i] + g.pad_end[i] - window;
    if (span < 0)
      return ctx.fail("window {} is larger than the padded input {}", window,
                      in[i] + g.pad_begin[i] + g.pad_end[i]);
    g.out[i] = (ceil_mode ? (span + g.stride[i] - 1) / g.stride[i] : span / g.stride[i]) + 1;
    // With ceil_mode the last window must start inside the input or the leading padding.
    if (ceil_mode && (g.out[i] - 1) * g.stride[i] >= in[i] + g.pad_begin[i]) --g.out[i];
  }
  return true;
}

std::string spatial3(const std::vector<int64_t>& v, int64_t fill) {
  std::vector<int64_t> p(3 - v.size(), fill);
  p.insert(p.end(), v.begin(), v.end());
  return fmt::format("{{{}}}", fmt::join(p, ", "));
}

}  // namespace onnxc
