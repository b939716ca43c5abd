// String op handlers (ops/text/strings.cpp, ops/text/strings_regex.cpp): planned slot capacities,
// the refusals (unknown locale, unsupported regex, data-dependent shapes of run-time inputs) and
// the compile-time folds of StringSplit and StringNormalizer with stopwords, against the spec's
// examples.
#include <catch2/catch.hpp>

#include "ops/infer_harness.h"

using namespace onnxc;
using onnxc::testing::InferHarness;

namespace {
Value* string_input(InferHarness& h, Shape shape, int64_t capacity) {
  Value* v = h.input(DataType::kString, std::move(shape));
  v->string_capacity = capacity;
  return v;
}
Value* string_constant(InferHarness& h, Shape shape, std::vector<std::string> strs) {
  Value* v = h.input(DataType::kString, shape);
  v->is_graph_input = false;
  Tensor t = Tensor::zeros(DataType::kString, shape);
  t.strings = std::move(strs);
  v->constant = std::make_shared<const Tensor>(std::move(t));
  return v;
}
void attr_strings(InferHarness& h, const std::string& name, std::vector<std::string> v) {
  Attribute& a = h.node().attributes[name];
  a.kind = Attribute::Kind::kStrings;
  a.strings = std::move(v);
}
}  // namespace

TEST_CASE("StringConcat: broadcast shape, capacity is the sum", "[strings]") {
  InferHarness h("StringConcat", 20);
  string_input(h, {3}, 5);
  string_input(h, {1}, 1);
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{3});
  CHECK(h.out().string_capacity == 6);
  CHECK(h.out().bytes() == 3 * 7);
}

TEST_CASE("Equal on strings gives bool, Identity keeps the capacity", "[strings]") {
  InferHarness eq("Equal", 19);
  string_input(eq, {2}, 7);
  string_input(eq, {1}, 3);
  REQUIRE(eq.infer());
  CHECK(eq.out().dtype == DataType::kBool);
  InferHarness id("Identity", 21);
  string_input(id, {4}, 9);
  REQUIRE(id.infer());
  CHECK(id.out().string_slot() == 10);
}

TEST_CASE("StringNormalizer: locale refused, stopwords need a constant and fold", "[strings]") {
  {
    InferHarness h("StringNormalizer", 10);
    string_input(h, {4}, 8);
    h.attr_string("locale", "tr_TR");
    CHECK_FALSE(h.infer());
    CHECK(h.error().find("locale 'tr_TR' is not supported") != std::string::npos);
  }
  {
    InferHarness h("StringNormalizer", 10);
    string_input(h, {4}, 8);
    attr_strings(h, "stopwords", {"monday"});
    CHECK_FALSE(h.infer());
    CHECK(h.error().find("must be a constant") != std::string::npos);
  }
  InferHarness h("StringNormalizer", 10);  // the spec's example, case-insensitive stopwords
  string_constant(h, {1, 6}, {"Monday", "tuesday", "wednesday", "Monday", "tuesday", "wednesday"});
  attr_strings(h, "stopwords", {"monday"});
  h.attr_string("case_change_action", "UPPER");
  REQUIRE(h.infer());
  REQUIRE(h.out().is_constant());
  CHECK(h.out().shape == Shape{1, 4});
  CHECK(h.out().constant->strings ==
        std::vector<std::string>{"TUESDAY", "WEDNESDAY", "TUESDAY", "WEDNESDAY"});
}

TEST_CASE("StringSplit folds: padded parts and counts", "[strings]") {
  InferHarness h("StringSplit", 20);
  string_constant(h, {2}, {"o-n-n--x-", "o-n----nx"});
  h.attr_string("delimiter", "-");
  h.outputs(2);
  REQUIRE(h.infer());
  CHECK(h.out(0).shape == Shape{2, 6});
  CHECK(h.out(0).constant->strings[5] == "");
  CHECK(h.out(0).constant->strings[11] == "nx");
  CHECK(h.out(1).constant->to_ints() == std::vector<int64_t>{6, 6});
}

TEST_CASE("RegexFullMatch: unsupported syntax is a compile error naming the node", "[strings]") {
  InferHarness h("RegexFullMatch", 20);
  string_input(h, {2}, 16);
  h.attr_string("pattern", "(?i)abc");
  CHECK_FALSE(h.infer());
  CHECK(h.error().find("'n'") != std::string::npos);
  CHECK(h.error().find("not supported") != std::string::npos);
  InferHarness ok("RegexFullMatch", 20);
  string_input(ok, {2}, 16);
  ok.attr_string("pattern", "a+b");
  REQUIRE(ok.infer());
  CHECK(ok.node().scratch_bytes > 0);
}
