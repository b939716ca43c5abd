// Small helpers shared by the indexing op families (scatter_gather.cpp, scan_ops.cpp,
// misc_ops.cpp, bitwise.cpp): host types by element size, contiguous strides, params arrays.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "onnxc/base.h"
#include "onnxc/types.h"
#include "ops/op.h"
#include "ops/tensor/data_movement.h"

namespace onnxc::indexing {

// The element-size dispatch and input check are the data-movement family's.
using onnxc::check_movable;
using onnxc::visit_element_size;

inline std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
  return st;
}

inline int64_t product(const Shape& s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to && i < s.size(); ++i) p *= s[i];
  return p;
}

// "{a, b, ...}": the first n entries of a params array, as emit() writes them.
inline std::string array_literal(const index_t* v, int n) {
  return fmt::format("{{{}}}", fmt::join(v, v + n, ", "));
}

}  // namespace onnxc::indexing
