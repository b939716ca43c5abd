// Compile-time side of onnxc::ReduceParams, shared by the reduce ops and the normalizations that
// reduce over arbitrary axes (MeanVarianceNormalization).
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

#include "ir/ir.h"
#include "onnxc/reduce.h"
#include "ops/op.h"  // labeled()

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

// The aggregate initializer of `p`, fields in declaration order, each labeled.
inline std::string reduce_params_literal(const ReduceParams& p) {
  auto arr = [](const index_t* v, int n) {
    return fmt::format("{{{}}}", fmt::join(v, v + n, ", "));
  };
  auto num = [](index_t v) { return fmt::format("{}", v); };
  return labeled({{"outer_rank", num(p.outer_rank)},
                  {"outer_dims", arr(p.outer_dims, p.outer_rank)},
                  {"outer_strides", arr(p.outer_strides, p.outer_rank)},
                  {"red_rank", num(p.red_rank)},
                  {"red_dims", arr(p.red_dims, p.red_rank)},
                  {"red_strides", arr(p.red_strides, p.red_rank)},
                  {"outer_count", num(p.outer_count)},
                  {"inner", num(p.inner)},
                  {"red_count", num(p.red_count)}});
}

}  // namespace onnxc
