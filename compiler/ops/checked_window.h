// Overflow-checked window arithmetic for the ops whose attributes size a sliding window (Col2Im,
// DeformConv): their pads, kernels and dilations are model attributes, and hostile ones are any
// int64, so the padded extent and the dilated window are computed with base/checked_math.h.
#pragma once

#include <cstdint>
#include <optional>

#include "base/checked_math.h"

namespace onnxc {

// in + pad_begin + pad_end - ((kernel - 1) * dilation + 1): how far a window's start can move
// along a padded axis (negative when the window does not fit); nullopt on int64 overflow.
inline std::optional<int64_t> checked_window_span(int64_t in, int64_t pad_begin, int64_t pad_end,
                                                  int64_t kernel, int64_t dilation) {
  int64_t padded, window, span;
  if (!checked_add(in, pad_begin, &padded) || !checked_add(padded, pad_end, &padded) ||
      !checked_sub(kernel, int64_t{1}, &window) || !checked_mul(window, dilation, &window) ||
      !checked_sub(padded, window, &span) || !checked_sub(span, int64_t{1}, &span))
    return std::nullopt;
  return span;
}

}  // namespace onnxc
