// Random op handlers: shapes and types from attributes or the input, the seed rule (equal seeds
// give equal keys, seedless nodes a key from their name), the ranges `onnxc test` checks, errors.
#include <catch2/catch.hpp>

#include "driver/compare.h"
#include "ops/infer_harness.h"

using namespace onnxc;
using onnxc::testing::InferHarness;

namespace {
const DataType F = DataType::kFloat;
const DataType D = DataType::kDouble;

// The key literal in the emitted call.
std::string key_of(InferHarness& h) {
  const std::string e = h.emit();
  const size_t at = e.find("/*key=*/");
  return at == std::string::npos ? "" : e.substr(at, e.find("ull", at) - at);
}
}  // namespace

TEST_CASE("RandomUniform and RandomNormal take shape and dtype from attributes", "[random]") {
  InferHarness h("RandomUniform", 22);
  h.attr_ints("shape", {2, 3});
  h.attr_int("dtype", 11);  // double
  h.attr_float("low", -2);
  h.attr_float("high", 5);
  REQUIRE(h.infer());
  CHECK(h.out().dtype == D);
  CHECK(h.out().shape == Shape{2, 3});
  CHECK(h.emit().find("onnxc::random_uniform_ref<double>(y0, {/*key=*/") != std::string::npos);
  const RandomRange r = h.node().handler->random_range(h.node(), 0);
  CHECK(r.random);
  CHECK(r.low == -2);
  CHECK(r.high == 5);

  InferHarness n("RandomNormal", 1);
  n.attr_ints("shape", {4});
  REQUIRE(n.infer());
  CHECK(n.out().dtype == F);
  CHECK(n.node().handler->random_range(n.node(), 0).random);
  CHECK(std::isinf(n.node().handler->random_range(n.node(), 0).high));
}

TEST_CASE("The Like forms copy the input's shape and, without dtype, its type", "[random]") {
  InferHarness h("RandomNormalLike", 22);
  h.input(D, {3, 1, 2});
  REQUIRE(h.infer());
  CHECK(h.out().dtype == D);
  CHECK(h.out().shape == Shape{3, 1, 2});
  InferHarness i("RandomUniformLike", 22);
  i.input(DataType::kInt64, {5});
  CHECK_FALSE(i.infer());  // an int64 output is not a valid type
  CHECK(i.error().find("output type int64 is not supported") != std::string::npos);
  InferHarness j("RandomUniformLike", 22);
  j.input(DataType::kInt64, {5});
  j.attr_int("dtype", 1);
  REQUIRE(j.infer());
  CHECK(j.out().dtype == F);
}

TEST_CASE("Equal seeds give equal streams, seedless nodes are keyed by their name", "[random]") {
  auto make = [](const char* name, bool seeded, float seed) {
    auto h = std::make_unique<InferHarness>("Bernoulli", 22);
    h->node().name = name;
    h->input(F, {4});
    if (seeded) h->attr_float("seed", seed);
    REQUIRE(h->infer());
    return h;
  };
  auto a = make("a", true, 3), b = make("b", true, 3), c = make("a", true, 4);
  CHECK(key_of(*a) == key_of(*b));
  CHECK(key_of(*a) != key_of(*c));
  auto u = make("u", false, 0), u2 = make("u", false, 0), v = make("v", false, 0);
  CHECK(key_of(*u) == key_of(*u2));
  CHECK(key_of(*u) != key_of(*v));
}

TEST_CASE("Bernoulli outputs 0/1 of the dtype attribute or the input's type", "[random]") {
  InferHarness h("Bernoulli", 15);
  h.input(D, {2, 2});
  h.attr_int("dtype", 9);  // bool
  REQUIRE(h.infer());
  CHECK(h.out().dtype == DataType::kBool);
  CHECK(h.emit().find("onnxc::bernoulli_ref<double, bool>(x0, y0, {/*key=*/") != std::string::npos);
  const RandomRange r = h.node().handler->random_range(h.node(), 0);
  CHECK((r.random && r.integral && r.low == 0 && r.high == 1));
  InferHarness bf("Bernoulli", 15);
  bf.input(DataType::kBFloat16, {2});
  CHECK_FALSE(bf.infer());  // bfloat16 from opset 22
}

TEST_CASE("Multinomial draws [batch, sample_size] class indices", "[random]") {
  InferHarness h("Multinomial", 7);
  h.input(F, {3, 5});
  h.attr_int("sample_size", 4);
  h.attr_int("dtype", 7);
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{3, 4});
  CHECK(h.out().dtype == DataType::kInt64);
  CHECK(h.node().handler->random_range(h.node(), 0).high == 4);
  InferHarness bad("Multinomial", 7);
  bad.input(F, {5});
  CHECK_FALSE(bad.infer());
  CHECK(bad.error().find("[batch_size, class_size]") != std::string::npos);
  InferHarness badt("Multinomial", 7);
  badt.input(F, {1, 5});
  badt.attr_int("dtype", 1);
  CHECK_FALSE(badt.infer());
}

TEST_CASE("Random ops are not folded and ordinary ops are not random", "[random]") {
  InferHarness h("RandomUniform", 22);
  h.attr_ints("shape", {2});
  REQUIRE(h.infer());
  CHECK_FALSE(h.fold());
  InferHarness s("Softmax", 13);
  s.input(F, {2});
  REQUIRE(s.infer());
  CHECK_FALSE(s.node().handler->random_range(s.node(), 0).random);
}

TEST_CASE("onnxc test's range check for random outputs", "[random]") {
  Tensor bits = Tensor::zeros(F, {3});
  bits.as<float>()[1] = 1;
  const Tensor expected = Tensor::zeros(F, {3});
  CHECK(compare_random(bits, expected, ValueRange{0, 1, true}).ok);
  bits.as<float>()[2] = 0.5f;  // not a whole number
  CHECK_FALSE(compare_random(bits, expected, ValueRange{0, 1, true}).ok);
  CHECK(compare_random(bits, expected, ValueRange{0, 1, false}).ok);
  bits.as<float>()[0] = INFINITY;  // unbounded ranges still require finite values
  CHECK_FALSE(compare_random(bits, expected, ValueRange{}).ok);
  const Tensor other = Tensor::zeros(D, {3});
  CHECK_FALSE(compare_random(expected, other, ValueRange{}).ok);  // the type must match
  const Tensor longer = Tensor::zeros(F, {4});
  CHECK_FALSE(compare_random(expected, longer, ValueRange{}).ok);  // and the shape
}
