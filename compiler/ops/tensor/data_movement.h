// Shared by the data-movement op files (compiler/ops/data_movement*.cpp): element-size dispatch
// for folding, input checks, and the row functions of each sub-family.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <vector>

#include "onnxc/base.h"
#include "ops/op.h"
#include "ops/registry.h"

namespace onnxc {

// Calls f with a host type as wide as one element of `t`; false for strings and packed types.
template <typename F>
inline bool visit_element_size(DataType t, F&& f) {
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
inline bool check_movable(InferContext& ctx, size_t i) {
  const Value* v = ctx.input(i);
  if (v->dtype == DataType::kString) return ctx.fail("string tensors are not supported");
  if (dtype_info(v->dtype).bits < 8)
    return ctx.fail("packed {}-bit type {} is not supported", dtype_info(v->dtype).bits,
                    dtype_name(v->dtype));
  if (v->shape.size() > kMaxRank)
    return ctx.fail("input {} has rank {}, more than the supported {}", i, v->shape.size(),
                    kMaxRank);
  return true;
}

inline int64_t dims_product(const Shape& s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to && i < s.size(); ++i) p *= s[i];
  return p;
}

inline std::vector<int64_t> contiguous_strides(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
  return st;
}

// "{a, b, ...}": the first n entries of a params array, as emit() writes them.
inline std::string index_array(const index_t* v, int n) {
  return fmt::format("{{{}}}", fmt::join(v, v + n, ", "));
}

// Reads a constant integer input, failing with "<what> input must be a constant" otherwise.
inline bool constant_ints(InferContext& ctx, size_t i, const char* what,
                          std::vector<int64_t>& out) {
  const Tensor* t = ctx.constant_input(i);
  if (!t) return ctx.fail("{} input must be a constant (its value decides the output shape)", what);
  if (!is_integer(t->dtype)) return ctx.fail("{} input must be an integer tensor", what);
  out = t->to_ints();
  return true;
}

}  // namespace onnxc
