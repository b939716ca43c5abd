// Type sets and type visitors, generated from the dtype table (ONNXC_DTYPES in ir/dtype.h).
// visit_dtype calls a generic lambda with a value of the C++ type of a runtime dtype, so
// evaluate() can run a templated runtime kernel on host tensors:
//   visit_dtype<kNumeric>(t, [&](auto tag) { using T = decltype(tag); ... });
// Returns false when `t` is outside the set (nothing is called then).
#pragma once

#include <cstdint>
#include <initializer_list>

#include "ir/dtype.h"
#include "onnxc/types.h"

namespace onnxc {

// The host type of a string element (the CppType of ONNXC_DTYPES' string row).
using cstring = const char*;

// A set of element types: bit `id` for each member.
using TypeSet = unsigned;
static_assert(kMaxDataType < 32, "a TypeSet has one bit per dtype");

constexpr TypeSet type_set(std::initializer_list<DataType> types) {
  TypeSet s = 0;
  for (DataType t : types) s |= 1u << static_cast<int>(t);
  return s;
}

// The sets ops accept; also used by infer() to check inputs.
constexpr TypeSet kFloatTypes = type_set({DataType::kFloat, DataType::kDouble});
constexpr TypeSet kHalfTypes = type_set({DataType::kFloat16, DataType::kBFloat16});
constexpr TypeSet kSignedInts =
    type_set({DataType::kInt8, DataType::kInt16, DataType::kInt32, DataType::kInt64});
constexpr TypeSet kUnsignedInts =
    type_set({DataType::kUint8, DataType::kUint16, DataType::kUint32, DataType::kUint64});
constexpr TypeSet kBoolType = type_set({DataType::kBool});
constexpr TypeSet kIntTypes = kSignedInts | kUnsignedInts;
constexpr TypeSet kNumeric = kFloatTypes | kIntTypes;
constexpr TypeSet kSignedNumeric = kFloatTypes | kSignedInts;
constexpr TypeSet kAllPlain = kNumeric | kBoolType;  // every type with a plain C++ arithmetic type
constexpr TypeSet kFloat8Types = type_set({DataType::kFloat8E4M3FN, DataType::kFloat8E4M3FNUZ,
                                           DataType::kFloat8E5M2, DataType::kFloat8E5M2FNUZ});
// The sub-byte types, several elements per byte.
constexpr TypeSet kPackedTypes = type_set(
    {DataType::kInt4, DataType::kUint4, DataType::kFloat4E2M1, DataType::kInt2, DataType::kUint2});
// Every type but strings and complex numbers: what Cast converts between.
constexpr TypeSet kCastTypes =
    kAllPlain | kHalfTypes | kFloat8Types | kPackedTypes | type_set({DataType::kFloat8E8M0});

constexpr bool in_type_set(DataType t, TypeSet set) {
  const int id = static_cast<int>(t);
  return id > 0 && id <= kMaxDataType && ((set >> id) & 1u) != 0;
}

template <TypeSet kSet, typename F>
bool visit_dtype(DataType t, F&& f) {
  // Each row instantiates `f` only for a type the set contains.
  bool visited = false;
#define ONNXC_VISIT_DTYPE(E, id, name, cpp, T, ...)              \
  if constexpr (((kSet >> id) & 1u) != 0) {                      \
    if (!visited && t == DataType::k##E) f(T{}), visited = true; \
  }
  ONNXC_DTYPES(ONNXC_VISIT_DTYPE)
#undef ONNXC_VISIT_DTYPE
  return visited;
}

}  // namespace onnxc
