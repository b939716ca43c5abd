// Hostile sizes at the op level: every compile-time element count is checked before anything is
// allocated or wrapped (issue 17). The same models end to end: tests/driver/hostile_sizes_test.cpp.
#include <catch2/catch.hpp>
#include <limits>

#include "infer_harness.h"

using namespace onnxc;
using onnxc::testing::InferHarness;

namespace {
constexpr DataType F = DataType::kFloat;
constexpr DataType I64 = DataType::kInt64;
bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}
}  // namespace

TEST_CASE("ConstantOfShape [2^40] is refused before any allocation", "[ops][sizes]") {
  InferHarness h("ConstantOfShape", 20);
  h.constant<int64_t>(I64, {1}, {int64_t{1} << 40});
  CHECK_FALSE(h.infer());
  CHECK(has(h.error(),
            "node 'n' (ConstantOfShape): output 'out0' of shape 1099511627776 has "
            "1099511627776 elements, 4398046511104 bytes: a tensor may hold at most 2^40"));
}

TEST_CASE("ConstantOfShape of 4 GiB infers but is left unfolded", "[ops][sizes]") {
  InferHarness h("ConstantOfShape", 20);
  h.constant<int64_t>(I64, {1}, {int64_t{1} << 30});
  REQUIRE(h.infer());
  CHECK(h.out().bytes() == size_t{1} << 32);
  CHECK_FALSE(h.fold());  // larger than kMaxFoldBytes: filled at run time, nothing allocated
}

TEST_CASE("Expand to 2^32 x 2^32 is refused", "[ops][sizes]") {
  InferHarness h("Expand", 13);
  h.input(F, {1, 1});
  h.constant<int64_t>(I64, {2}, {int64_t{1} << 32, int64_t{1} << 32});
  CHECK_FALSE(h.infer());
  CHECK(has(h.error(),
            "node 'n' (Expand): output 'out0' of shape 4294967296x4294967296 has more "
            "elements than int64 can count"));
}

TEST_CASE("Tile by 2^50 is refused, also when the product overflows", "[ops][sizes]") {
  SECTION("too many bytes") {
    InferHarness h("Tile", 13);
    h.input(F, {8});
    h.constant<int64_t>(I64, {1}, {int64_t{1} << 50});
    CHECK_FALSE(h.infer());
    CHECK(has(h.error(), "node 'n' (Tile): output 'out0' of shape 9007199254740992 has"));
    CHECK(has(h.error(), "a tensor may hold at most 2^40 bytes"));
  }
  SECTION("dim overflow") {
    InferHarness h("Tile", 13);
    h.input(F, {1 << 20});
    h.constant<int64_t>(I64, {1}, {int64_t{1} << 50});
    CHECK_FALSE(h.infer());
    CHECK(has(h.error(),
              "node 'n' (Tile): repeats[0] = 1125899906842624 times dim 1048576: more "
              "elements than int64 can count"));
  }
}

TEST_CASE("Range from 0 to 1e30 is refused before the count is cast", "[ops][sizes]") {
  InferHarness h("Range", 11);
  h.constant<float>(F, {}, {0.0f});
  h.constant<float>(F, {}, {1e30f});
  h.constant<float>(F, {}, {1.0f});
  CHECK_FALSE(h.infer());
  CHECK(has(h.error(), "node 'n' (Range): the range from 0 to 1"));
  CHECK(has(h.error(), "e+30 by 1 has 1e+30 elements, more than int64 can count"));
}

TEST_CASE("integer Range whose length overflows int64 is refused", "[ops][sizes]") {
  InferHarness h("Range", 11);
  h.constant<int64_t>(I64, {}, {std::numeric_limits<int64_t>::min()});
  h.constant<int64_t>(I64, {}, {std::numeric_limits<int64_t>::max()});
  h.constant<int64_t>(I64, {}, {1});
  CHECK_FALSE(h.infer());
  CHECK(has(h.error(), "node 'n' (Range): the length of the range"));
  CHECK(has(h.error(), "overflows int64"));
}

TEST_CASE("Reshape to 2^62 x 4 is not '0 elements'", "[ops][sizes]") {
  SECTION("explicit dims") {
    InferHarness h("Reshape", 13);
    h.input(F, {2, 3});
    h.constant<int64_t>(I64, {2}, {int64_t{1} << 62, 4});
    CHECK_FALSE(h.infer());
    CHECK(has(h.error(),
              "node 'n' (Reshape): shape {4611686018427387904, 4} has more elements than "
              "int64 can count"));
    CHECK_FALSE(has(h.error(), "0 elements)"));
  }
  SECTION("with a -1") {
    InferHarness h("Reshape", 13);
    h.input(F, {2, 3});
    h.constant<int64_t>(I64, {3}, {int64_t{1} << 62, 4, -1});
    CHECK_FALSE(h.infer());
    CHECK(has(h.error(),
              "node 'n' (Reshape): shape {4611686018427387904, 4, -1} has more elements "
              "than int64 can count"));
  }
}
