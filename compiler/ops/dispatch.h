// Calls a generic lambda with a value of the C++ type of a runtime dtype, so evaluate() can run a
// templated runtime_support kernel on host tensors:
//   visit_dtype<kNumeric>(t, [&](auto tag) { using T = decltype(tag); ... });
// Returns false when `t` is outside `types` (nothing is called then).
#pragma once

#include <cstdint>
#include <initializer_list>

#include "ir/dtype.h"

namespace onnxc {

// Sets of element types an op accepts; also used by infer() to check inputs.
enum TypeSet : unsigned {
  kFloatTypes = 1u << 0,    // float, double
  kSignedInts = 1u << 1,    // int8..int64
  kUnsignedInts = 1u << 2,  // uint8..uint64
  kBoolType = 1u << 3,
  kIntTypes = kSignedInts | kUnsignedInts,
  kNumeric = kFloatTypes | kIntTypes,
  kSignedNumeric = kFloatTypes | kSignedInts,
  kAllPlain = kNumeric | kBoolType,  // every type with a plain C++ arithmetic type
};

inline bool in_type_set(DataType t, unsigned set) {
  switch (t) {
    case DataType::kFloat:
    case DataType::kDouble:
      return set & kFloatTypes;
    case DataType::kInt8:
    case DataType::kInt16:
    case DataType::kInt32:
    case DataType::kInt64:
      return set & kSignedInts;
    case DataType::kUint8:
    case DataType::kUint16:
    case DataType::kUint32:
    case DataType::kUint64:
      return set & kUnsignedInts;
    case DataType::kBool:
      return set & kBoolType;
    default:
      return false;
  }
}

template <unsigned kSet, typename F>
bool visit_dtype(DataType t, F&& f) {
  // Each branch only instantiates `f` for types the set can contain.
  if constexpr ((kSet & kFloatTypes) != 0) {
    if (t == DataType::kFloat) return f(float{}), true;
    if (t == DataType::kDouble) return f(double{}), true;
  }
  if constexpr ((kSet & kSignedInts) != 0) {
    if (t == DataType::kInt8) return f(int8_t{}), true;
    if (t == DataType::kInt16) return f(int16_t{}), true;
    if (t == DataType::kInt32) return f(int32_t{}), true;
    if (t == DataType::kInt64) return f(int64_t{}), true;
  }
  if constexpr ((kSet & kUnsignedInts) != 0) {
    if (t == DataType::kUint8) return f(uint8_t{}), true;
    if (t == DataType::kUint16) return f(uint16_t{}), true;
    if (t == DataType::kUint32) return f(uint32_t{}), true;
    if (t == DataType::kUint64) return f(uint64_t{}), true;
  }
  if constexpr ((kSet & kBoolType) != 0) {
    if (t == DataType::kBool) return f(bool{}), true;
  }
  return false;
}

}  // namespace onnxc
