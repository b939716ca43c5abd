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

namespace onnxc::indexing {

// Calls f with a host type as wide as one element of `t`; false for strings and packed types.
template <typename F>
bool visit_bytes(DataType t, F&& f) {
  if (t == DataType::kString) return false;
  switch (dtype_info(t).bits) {
    case 8:
      return f(uint8_t{}), true;
    case 16:
      return f(uint16_t{}), true;
    case 32:
      return f(uint32_t{}), true;
    case 64:
      return f(uint64_t{}), true;
    case 128:
      return f(complex128{}), true;
    default:
      return false;
  }
}

// Input i must be addressable element by element and within the kernels' rank limit.
inline bool check_addressable(InferContext& ctx, size_t i) {
  const Value* v = ctx.input(i);
  if (v->dtype == DataType::kString) return ctx.fail("string tensors are not supported");
  if (dtype_info(v->dtype).bits < 8)
    return ctx.fail("packed {}-bit type {} is not supported", dtype_info(v->dtype).bits,
                    dtype_name(v->dtype));
  if (v->shape.size() > static_cast<size_t>(kMaxRank))
    return ctx.fail("input {} has rank {}, more than the supported {}", i, v->shape.size(),
                    kMaxRank);
  return true;
}

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
