// The dtype table (ONNXC_DTYPES) against the ONNX schema: every id and name agrees with
// TensorProto.DataType, and the visitors generated from the table hand out a C++ type of the
// row's size for exactly the members of a set.
#include <catch2/catch.hpp>
#include <cctype>
#include <string>

#include "onnx.pb.h"
#include "ops/dispatch.h"

using namespace onnxc;

TEST_CASE("every dtype row matches TensorProto.DataType's id and name", "[dtype]") {
  for (int id = 1; id <= kMaxDataType; ++id) {
    INFO("id " << id);
    REQUIRE(onnx::TensorProto_DataType_IsValid(id));
    std::string onnx_name = onnx::TensorProto_DataType_Name(id);
    for (char& c : onnx_name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    CHECK(onnx_name == dtype_name(static_cast<DataType>(id)));
  }
  CHECK_FALSE(onnx::TensorProto_DataType_IsValid(kMaxDataType + 1));
}

TEST_CASE("visit_dtype visits exactly the set's members with a type of the row's size", "[dtype]") {
  for (int id = 1; id <= kMaxDataType; ++id) {
    const auto t = static_cast<DataType>(id);
    INFO(dtype_name(t));
    size_t host_bits = 0;
    const bool visited =
        visit_dtype<kCastTypes>(t, [&](auto tag) { host_bits = 8 * sizeof(decltype(tag)); });
    CHECK(visited == in_type_set(t, kCastTypes));
    if (!visited) continue;
    const int bits = dtype_info(t).bits;
    // Packed types are visited as their storage byte (two 4-bit or four 2-bit elements).
    CHECK(host_bits == static_cast<size_t>(bits < 8 ? 8 : bits));
  }
  CHECK_FALSE(in_type_set(DataType::kString, kCastTypes));
  CHECK_FALSE(in_type_set(DataType::kComplex64, kCastTypes));
  CHECK_FALSE(in_type_set(DataType::kUndefined, kAllPlain));
}

TEST_CASE("the since column gives the opset each type entered ONNX", "[dtype]") {
  CHECK(dtype_info(DataType::kFloat).since == 1);
  CHECK(dtype_info(DataType::kBFloat16).since == 13);
  CHECK(dtype_info(DataType::kFloat8E5M2).since == 19);
  CHECK(dtype_info(DataType::kInt4).since == 21);
  CHECK(dtype_info(DataType::kFloat4E2M1).since == 23);
  CHECK(dtype_info(DataType::kFloat8E8M0).since == 24);
  CHECK(dtype_info(DataType::kUint2).since == 25);
}
