// Compile-time side of onnxc::ReduceParams, shared by the reduce ops and the normalizations that
// reduce over arbitrary axes (MeanVarianceNormalization).
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

#include "ir/ir.h"
#include "onnxc/reduce.h"

namespace onnxc {

// Params reducing `shape` over the dims flagged in `reduced` (same length as shape, <= kMaxRank).
inline ReduceParams reduce_params_for(const Shape& shape, const std::vector<bool>& reduced) {
  index_t dims[kMaxRank] = {};
  bool flags[kMaxRank] = {};
  for (size_t i = 0; i < shape.size(); ++i) {
    dims[i] = shape[i];
    flags[i] = reduced[i];
  }
  return make_reduce_params(static_cast<int>(shape.size()), dims, flags);
}

// The aggregate initializer of `p`, fields in declaration order.
inline std::string reduce_params_literal(const ReduceParams& p) {
  auto arr = [](const index_t* v, int n) {
    return fmt::format("{{{}}}", fmt::join(v, v + n, ", "));
  };
  return fmt::format("{{{}, {}, {}, {}, {}, {}, {}, {}, {}}}", p.outer_rank,
                     arr(p.outer_dims, p.outer_rank), arr(p.outer_strides, p.outer_rank),
                     p.red_rank, arr(p.red_dims, p.red_rank), arr(p.red_strides, p.red_rank),
                     p.outer_count, p.inner, p.red_count);
}

}  // namespace onnxc
