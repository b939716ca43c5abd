// Elementwise kernels: binary_ref's fast paths and its general odometer against a brute-force
// broadcast over random shapes, where_ref likewise, clip_ref and dropout_ref edge cases, the
// numpy-compatible generator, half-type rounding, and functors against hand-computed values.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "onnxc/elementwise.h"
#include "ops/broadcast.h"

using namespace onnxc;

namespace {

// Element offset of output index `flat` in an operand of shape `in` broadcast to `out`.
index_t broadcast_offset(const Shape& out, const Shape& in, index_t flat) {
  index_t offset = 0, stride = 1;
  const size_t shift = out.size() - in.size();
  for (size_t d = out.size(); d-- > 0;) {
    const index_t i = flat % out[d];
    flat /= out[d];
    if (d < shift) continue;
    const int64_t dim = in[d - shift];
    if (dim != 1) offset += i * stride;
    stride *= dim;
  }
  return offset;
}

Shape random_shape(std::mt19937& rng, size_t rank) {
  Shape s(rank);
  for (auto& d : s) d = std::uniform_int_distribution<int>(1, 5)(rng);
  return s;
}

// A shape of `out`'s trailing `rank` dims with some of them set to 1.
Shape broadcastable(std::mt19937& rng, const Shape& out, size_t rank) {
  Shape s(out.end() - static_cast<std::ptrdiff_t>(rank), out.end());
  for (auto& d : s)
    if (rng() % 3 == 0) d = 1;
  return s;
}

std::vector<float> random_values(std::mt19937& rng, int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = std::uniform_real_distribution<float>(-4, 4)(rng);
  return v;
}

struct Sub3 {  // not commutative, so swapped operands show
  template <typename A, typename B>
  float operator()(A a, B b) const {
    return a - 3 * b;
  }
};

}  // namespace

TEST_CASE("binary_ref matches a brute-force broadcast, fast paths included",
          "[elementwise][kernels]") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const Shape out = random_shape(rng, rng() % 6);
    Shape a = broadcastable(rng, out, rng() % (out.size() + 1));
    Shape b = broadcastable(rng, out, rng() % (out.size() + 1));
    if (trial % 5 == 0) a = out;           // b broadcast into a full a
    if (trial % 7 == 0) b = Shape{};       // scalar b
    if (trial % 11 == 0) std::swap(a, b);  // scalar a
    if (trial % 13 == 0) b = a;            // same shapes
    Shape actual_out;
    REQUIRE(broadcast_shapes({a, b}, actual_out));
    const auto va = random_values(rng, shape_numel(a)), vb = random_values(rng, shape_numel(b));
    BroadcastParams p = make_broadcast_params(actual_out, a, b);
    std::vector<float> y(static_cast<size_t>(p.numel)), y_general(y.size());
    binary_ref(p, va.data(), vb.data(), y.data(), Sub3{});
    BroadcastParams general = p;
    general.kind = 0;  // the odometer must agree with whichever fast path p picked
    binary_ref(general, va.data(), vb.data(), y_general.data(), Sub3{});
    for (index_t i = 0; i < p.numel; ++i) {
      const float expect = va[static_cast<size_t>(broadcast_offset(actual_out, a, i))] -
                           3 * vb[static_cast<size_t>(broadcast_offset(actual_out, b, i))];
      REQUIRE(y[static_cast<size_t>(i)] == expect);
      REQUIRE(y_general[static_cast<size_t>(i)] == expect);
    }
  }
}

TEST_CASE("make_broadcast_params picks the fast path by shapes", "[elementwise][kernels]") {
  CHECK(make_broadcast_params({2, 3}, {2, 3}, {2, 3}).kind == 1);
  CHECK(make_broadcast_params({2, 3}, {2, 3}, {}).kind == 2);
  CHECK(make_broadcast_params({2, 3}, {2, 3}, {1, 1}).kind == 2);
  CHECK(make_broadcast_params({2, 3}, {1}, {2, 3}).kind == 3);
  const BroadcastParams p = make_broadcast_params({2, 3}, {2, 3}, {3});
  CHECK(p.kind == 0);
  CHECK(p.b_strides[0] == 0);
  CHECK(p.b_strides[1] == 1);
}

TEST_CASE("where_ref matches a brute-force three-way broadcast", "[elementwise][kernels]") {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    const Shape out = random_shape(rng, rng() % 5);
    const Shape c = broadcastable(rng, out, rng() % (out.size() + 1));
    const Shape a = broadcastable(rng, out, rng() % (out.size() + 1));
    const Shape b = broadcastable(rng, out, rng() % (out.size() + 1));
    Shape o;
    REQUIRE(broadcast_shapes({c, a, b}, o));
    std::vector<char> vc_storage(static_cast<size_t>(shape_numel(c)));
    for (auto& v : vc_storage) v = rng() % 2;
    std::unique_ptr<bool[]> vc(new bool[vc_storage.size() + 1]);
    for (size_t i = 0; i < vc_storage.size(); ++i) vc[i] = vc_storage[i] != 0;
    const auto va = random_values(rng, shape_numel(a)), vb = random_values(rng, shape_numel(b));
    const BroadcastParams p = make_broadcast_params(o, a, b, &c);
    std::vector<float> y(static_cast<size_t>(p.numel));
    where_ref(p, vc.get(), va.data(), vb.data(), y.data());
    for (index_t i = 0; i < p.numel; ++i) {
      const bool cond = vc[static_cast<size_t>(broadcast_offset(o, c, i))];
      const float expect = cond ? va[static_cast<size_t>(broadcast_offset(o, a, i))]
                                : vb[static_cast<size_t>(broadcast_offset(o, b, i))];
      REQUIRE(y[static_cast<size_t>(i)] == expect);
    }
  }
}

TEST_CASE("unary functors give hand-computed values", "[elementwise][kernels]") {
  CHECK(Relu{}(-2.0f) == 0.0f);
  CHECK(Relu{}(int8_t{5}) == 5);
  CHECK(LeakyRelu{0.1f, 0}(-2.0f) == Approx(-0.2f));
  CHECK(Sigmoid{}(0.0f) == 0.5f);
  CHECK(Sigmoid{}(-100.0f) == Approx(0.0f).margin(1e-30));
  CHECK(HardSigmoid{0.2f, 0.5f}(1.0f) == Approx(0.7f));
  CHECK(HardSigmoid{0.2f, 0.5f}(10.0f) == 1.0f);
  CHECK(HardSwish{}(3.0f) == 3.0f);
  CHECK(HardSwish{}(-1.0f) == Approx(-1.0f / 3));
  CHECK(Elu{2.0f, 0}(-1.0f) == Approx(2 * (std::exp(-1.0f) - 1)));
  CHECK(Selu{2.0f, 3.0f}(1.0f) == 3.0f);
  CHECK(Celu{1.0f, 0}(-1.0f) == Approx(std::exp(-1.0f) - 1));
  CHECK(ThresholdedRelu{1.0f, 0}(1.0f) == 0.0f);
  CHECK(Softplus{}(0.0f) == Approx(std::log(2.0f)));
  CHECK(Softplus{}(100.0f) == 100.0f);  // no overflow through exp
  CHECK(Softsign{}(-1.0f) == -0.5f);
  CHECK(Mish{}(1.0f) == Approx(0.8650984f));
  CHECK(GeluErf{}(1.0f) == Approx(0.8413447f));
  CHECK(GeluTanh{}(1.0f) == Approx(0.8411920f));
  CHECK(Round{}(2.5f) == 2.0f);  // halves to even
  CHECK(Round{}(-1.5f) == -2.0f);
  CHECK(Round{}(0.5000001f) == 1.0f);
  CHECK(Sign{}(-3.0f) == -1.0f);
  CHECK(Sign{}(uint8_t{0}) == 0);
  CHECK(Sign{}(uint8_t{9}) == 1);
  CHECK(Abs{}(int8_t{-128}) == -128);  // wraps, as numpy
  CHECK(Neg{}(int64_t{5}) == -5);
  CHECK(Neg{}(std::numeric_limits<int64_t>::min()) == std::numeric_limits<int64_t>::min());
  CHECK(IsInf{1, 0}(-INFINITY) == false);
  CHECK(IsInf{1, 0}(INFINITY) == true);
  CHECK(IsNaN{}(NAN) == true);
}

TEST_CASE("binary functors follow numpy's integer and NaN rules", "[elementwise][kernels]") {
  CHECK(Div{}(int32_t{-7}, int32_t{2}) == -3);  // truncates toward zero
  CHECK(Div{}(int32_t{7}, int32_t{-2}) == -3);
  CHECK(Div{}(int32_t{7}, int32_t{0}) == 0);
  CHECK(Div{}(std::numeric_limits<int64_t>::min(), int64_t{-1}) ==
        std::numeric_limits<int64_t>::min());
  CHECK(Div{}(uint8_t{250}, uint8_t{7}) == 35);
  CHECK(Mod<0>{}(int32_t{-7}, int32_t{3}) == 2);  // divisor's sign
  CHECK(Mod<0>{}(int32_t{7}, int32_t{-3}) == -2);
  CHECK(Mod<1>{}(int32_t{-7}, int32_t{3}) == -1);  // dividend's sign
  CHECK(Mod<1>{}(-7.5f, 2.0f) == -1.5f);
  CHECK(Mod<0>{}(int32_t{5}, int32_t{0}) == 0);
  CHECK(Pow{}(int32_t{3}, int64_t{4}) == 81);
  CHECK(Pow{}(int32_t{2}, int32_t{-1}) == 0);
  CHECK(Pow{}(int32_t{-1}, int32_t{-3}) == -1);
  CHECK(Pow{}(uint8_t{2}, uint8_t{9}) == 0);  // wraps
  CHECK(Pow{}(2.0f, int64_t{-2}) == 0.25f);
  CHECK(Pow{}(int64_t{9}, 0.5f) == 3);
  CHECK(Add{}(int32_t{2147483647}, int32_t{1}) == -2147483647 - 1);
  CHECK(Mul{}(uint16_t{65535}, uint16_t{65535}) == 1);  // no int promotion overflow
  CHECK(BitShift<true>{}(uint8_t{0x81}, uint8_t{1}) == 0x02);
  CHECK(BitShift<true>{}(uint32_t{1}, uint32_t{32}) == 0);
  CHECK(BitShift<false>{}(uint64_t{256}, uint64_t{4}) == 16);
  CHECK(std::isnan(MaxNaN{}(1.0f, NAN)));
  CHECK(std::isnan(MinNaN{}(NAN, 1.0f)));
  CHECK(MaxNaN{}(int8_t{-3}, int8_t{2}) == 2);
  CHECK(PRelu{}(-2.0f, 0.5f) == -1.0f);
  CHECK(PRelu{}(2.0f, 0.5f) == 2.0f);
}

TEST_CASE("clip_ref: optional bounds, lo > hi, NaN", "[elementwise][kernels]") {
  const float x[5] = {-3, -1, 0.5f, 2, NAN};
  float y[5];
  const float lo = -1.5f, hi = 1;
  clip_ref(x, y, 5, &lo, &hi);
  CHECK(y[0] == -1.5f);
  CHECK(y[1] == -1);
  CHECK(y[2] == 0.5f);
  CHECK(y[3] == 1);
  CHECK(std::isnan(y[4]));
  clip_ref<float>(x, y, 5, nullptr, &hi);
  CHECK(y[0] == -3);
  CHECK(y[3] == 1);
  const float big_lo = 5;
  clip_ref(x, y, 4, &big_lo, &hi);  // min(max(x, 5), 1) = 1
  for (int i = 0; i < 4; ++i) CHECK(y[i] == 1);
  const int64_t xi[3] = {-9, 4, 9}, loi = 0;
  int64_t yi[3];
  clip_ref<int64_t>(xi, yi, 3, &loi, nullptr);
  CHECK(yi[0] == 0);
  CHECK(yi[2] == 9);
}

TEST_CASE("Mt19937 draws numpy's RandomState(seed) sequence", "[elementwise][kernels]") {
  Mt19937 reference_seed(5489);  // the generator's published first output for its default seed
  CHECK(reference_seed.next() == 3499211612u);
  Mt19937 rng(0);  // numpy: RandomState(0).random_sample(3)
  CHECK(rng.uniform() == 0.5488135039273248);
  CHECK(rng.uniform() == 0.7151893663724195);
  CHECK(rng.uniform() == 0.6027633760716439);
}

TEST_CASE("dropout_ref: inference copies, training masks and scales", "[elementwise][kernels]") {
  const float x[5] = {1, 2, 3, 4, 5};
  float y[5];
  bool mask[5] = {};
  const bool no = false, yes = true;
  const float half = 0.5f, zero = 0;
  dropout_ref(x, y, mask, 5, &half, &no, 0u);
  for (int i = 0; i < 5; ++i) CHECK((y[i] == x[i] && mask[i]));
  dropout_ref(x, y, mask, 5, &zero, &yes, 0u);
  for (int i = 0; i < 5; ++i) CHECK((y[i] == x[i] && mask[i]));
  // Seed 0 draws 0.549, 0.715, 0.603, 0.545, 0.424: the last one falls below 0.5.
  dropout_ref(x, y, mask, 5, &half, &yes, 0u);
  const float expect[5] = {2, 4, 6, 8, 0};
  for (int i = 0; i < 5; ++i) {
    CHECK(y[i] == expect[i]);
    CHECK(mask[i] == (i < 4));
  }
  float mask_t[2];  // before opset 10 the mask has the data type
  dropout_ref<float, float, float>(x, y, mask_t, 2, nullptr, nullptr, 0u);
  CHECK(mask_t[0] == 1.0f);
}

TEST_CASE("half types compute in float and round once", "[elementwise][kernels]") {
  const float16 a[3] = {to_float16(1.0), to_float16(-2.5), to_float16(65504.0)};
  const float16 b[1] = {to_float16(0.5)};
  float16 y[3];
  unary_ref(a, y, 3, Relu{});
  CHECK(to_float(y[0]) == 1.0f);
  CHECK(to_float(y[1]) == 0.0f);
  BroadcastParams p = make_broadcast_params({3}, {3}, {1});
  binary_ref(p, a, b, y, Add{});
  CHECK(to_float(y[0]) == 1.5f);
  CHECK(to_float(y[1]) == -2.0f);
  CHECK(std::isinf(to_float(y[2])) == false);  // 65504.5 rounds back to 65504
  bool less[3];
  binary_ref(p, a, b, less, Less{});
  CHECK(!less[0]);
  CHECK(less[1]);
  const bfloat16 c[1] = {to_bfloat16(3.0)};
  bfloat16 z[1];
  unary_ref(c, z, 1, Sqrt{});
  CHECK(to_float(z[0]) == Approx(1.732f).epsilon(0.01));
}
