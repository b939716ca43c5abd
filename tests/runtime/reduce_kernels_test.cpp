// Reduce kernels: make_reduce_params canonicalization, reduce_ref for every functor against a
// brute-force reduction over random shapes and axis sets (including size-0 and unit dims),
// hand-computed values, and ArgMax/ArgMin.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "onnxc/reduce.h"

using namespace onnxc;

namespace {

ReduceParams params_for(std::vector<index_t> dims, std::vector<bool> reduced) {
  bool flags[kMaxRank] = {};
  for (size_t i = 0; i < reduced.size(); ++i) flags[i] = reduced[i];
  return make_reduce_params(static_cast<int>(dims.size()), dims.data(), flags);
}

// Brute force: every output gathers its elements in row-major order, then folds them with
// the functor; the output layout is the kept dims in order.
template <template <typename> class Op, typename T>
std::vector<T> naive_reduce(const std::vector<index_t>& dims, const std::vector<bool>& reduced,
                            const std::vector<T>& x) {
  index_t out_count = 1;
  for (size_t d = 0; d < dims.size(); ++d)
    if (!reduced[d]) out_count *= dims[d];
  std::vector<typename Op<T>::Acc> acc(static_cast<size_t>(out_count), Op<T>::init());
  index_t red_count = 1;
  for (size_t d = 0; d < dims.size(); ++d)
    if (reduced[d]) red_count *= dims[d];
  std::vector<index_t> idx(dims.size(), 0);
  for (size_t i = 0; i < x.size(); ++i) {
    index_t o = 0;
    for (size_t d = 0; d < dims.size(); ++d)
      if (!reduced[d]) o = o * dims[d] + idx[d];
    acc[static_cast<size_t>(o)] = Op<T>::step(acc[static_cast<size_t>(o)], x[i]);
    for (size_t d = dims.size(); d-- > 0;) {
      if (++idx[d] < dims[d]) break;
      idx[d] = 0;
    }
  }
  std::vector<T> y;
  for (auto& a : acc) y.push_back(Op<T>::finish(a, red_count));
  return y;
}

template <template <typename> class Op>
void check_against_naive(std::mt19937& rng, bool positive) {
  std::uniform_int_distribution<int> rank_dist(0, 5), dim_dist(0, 6), coin(0, 1);
  std::uniform_real_distribution<float> val(positive ? 0.1f : -2.0f, 2.0f);
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = rank_dist(rng);
    std::vector<index_t> dims;
    std::vector<bool> reduced;
    index_t numel = 1;
    for (int d = 0; d < rank; ++d) {
      int size = dim_dist(rng);
      if (size == 6) size = 70;              // wider than the 64-output chunk
      if (size == 0 && coin(rng)) size = 1;  // keep empty tensors rarer than unit dims
      dims.push_back(size);
      reduced.push_back(coin(rng) != 0);
      numel *= size;
    }
    std::vector<float> x(static_cast<size_t>(numel));
    for (auto& v : x) v = val(rng);
    const ReduceParams p = params_for(dims, reduced);
    const std::vector<float> want = naive_reduce<Op>(dims, reduced, x);
    std::vector<float> got(want.size(), -123.0f);
    REQUIRE(p.outer_count * p.inner == static_cast<index_t>(want.size()));
    reduce_ref<Op>(p, x.data(), got.data());
    for (size_t i = 0; i < want.size(); ++i) {
      INFO("trial " << trial << " rank " << rank << " output " << i);
      if (std::isnan(want[i]))
        REQUIRE(std::isnan(got[i]));  // the mean of nothing
      else if (std::isinf(want[i]))
        REQUIRE(got[i] == want[i]);
      else
        REQUIRE(got[i] == Approx(want[i]).epsilon(1e-4).margin(1e-5));
    }
  }
}

}  // namespace

TEST_CASE("make_reduce_params drops unit dims and merges runs", "[reduce-kernels]") {
  // [2, 1, 3, 4, 5] reducing dims 2 and 3 (and the unit dim 1): outer [2], reduced [12], inner 5.
  ReduceParams p = params_for({2, 1, 3, 4, 5}, {false, true, true, true, false});
  CHECK(p.outer_rank == 1);
  CHECK(p.outer_dims[0] == 2);
  CHECK(p.outer_strides[0] == 60);
  CHECK(p.red_rank == 1);
  CHECK(p.red_dims[0] == 12);
  CHECK(p.red_strides[0] == 5);
  CHECK(p.inner == 5);
  CHECK(p.red_count == 12);
  // Reducing nothing: one unit reduced dim, every element its own output.
  p = params_for({3, 4}, {false, false});
  CHECK(p.red_rank == 1);
  CHECK(p.red_dims[0] == 1);
  CHECK(p.inner == 12);
  CHECK(p.red_count == 1);
  // Alternating kinds stay separate: [2, 3, 4, 5] reducing dims 0 and 2.
  p = params_for({2, 3, 4, 5}, {true, false, true, false});
  CHECK(p.outer_rank == 1);
  CHECK(p.outer_dims[0] == 3);
  CHECK(p.red_rank == 2);
  CHECK(p.red_strides[0] == 60);
  CHECK(p.red_strides[1] == 5);
  CHECK(p.inner == 5);
}

TEST_CASE("reduce_ref computes hand-checked values", "[reduce-kernels]") {
  // x = [[1, 2, 3], [4, 5, 6]]
  const float x[] = {1, 2, 3, 4, 5, 6};
  const ReduceParams rows = params_for({2, 3}, {false, true}),
                     cols = params_for({2, 3}, {true, false});
  float y[3];
  reduce_ref<ReduceSumOp>(rows, x, y);
  CHECK(y[0] == 6);
  CHECK(y[1] == 15);
  reduce_ref<ReduceMeanOp>(cols, x, y);
  CHECK(std::vector<float>(y, y + 3) == std::vector<float>{2.5f, 3.5f, 4.5f});
  reduce_ref<ReduceProdOp>(rows, x, y);
  CHECK(y[1] == 120);
  reduce_ref<ReduceL2Op>(cols, x, y);
  CHECK(y[0] == Approx(std::sqrt(17.0)));
  reduce_ref<ReduceLogSumExpOp>(rows, x, y);
  CHECK(y[0] == Approx(std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0))));
  // Large values: the running maximum keeps exp from overflowing.
  const float big[] = {1000, 1000};
  reduce_ref<ReduceLogSumExpOp>(params_for({2}, {true}), big, y);
  CHECK(y[0] == Approx(1000 + std::log(2.0)));
  // Reducing over an empty set yields each functor's identity.
  const ReduceParams empty = params_for({0, 2}, {true, false});
  reduce_ref<ReduceSumOp>(empty, x, y);
  CHECK(y[0] == 0);
  reduce_ref<ReduceProdOp>(empty, x, y);
  CHECK(y[0] == 1);
  reduce_ref<ReduceMaxOp>(empty, x, y);
  CHECK(y[0] == -std::numeric_limits<float>::infinity());
  reduce_ref<ReduceLogSumExpOp>(empty, x, y);
  CHECK(y[0] == -std::numeric_limits<float>::infinity());
}

TEST_CASE("reduce_ref on integers and bool", "[reduce-kernels]") {
  const int32_t xi[] = {INT32_MIN, 5, -7};
  int32_t yi[1];
  const ReduceParams all = params_for({3}, {true});
  reduce_ref<ReduceMaxOp>(all, xi, yi);
  CHECK(yi[0] == 5);
  reduce_ref<ReduceMinOp>(all, xi, yi);
  CHECK(yi[0] == INT32_MIN);
  reduce_ref<ReduceL1Op>(params_for({2}, {true}), xi + 1, yi);
  CHECK(yi[0] == 12);
  const int64_t xl[] = {3, 4};
  int64_t yl[1];
  reduce_ref<ReduceMeanOp>(params_for({2}, {true}), xl, yl);
  CHECK(yl[0] == 3);  // 3.5 truncates
  const bool xb[] = {false, true, false, false};
  bool yb[2];
  reduce_ref<ReduceMaxOp>(params_for({2, 2}, {false, true}), xb, yb);
  CHECK(yb[0]);
  CHECK_FALSE(yb[1]);
  reduce_ref<ReduceMinOp>(params_for({2, 2}, {false, true}), xb, yb);
  CHECK_FALSE(yb[0]);
}

TEST_CASE("reduce_ref matches a brute-force reduction for every functor", "[reduce-kernels]") {
  std::mt19937 rng(11);
  check_against_naive<ReduceSumOp>(rng, false);
  check_against_naive<ReduceMeanOp>(rng, false);
  check_against_naive<ReduceMaxOp>(rng, false);
  check_against_naive<ReduceMinOp>(rng, false);
  check_against_naive<ReduceL1Op>(rng, false);
  check_against_naive<ReduceL2Op>(rng, false);
  check_against_naive<ReduceSumSquareOp>(rng, false);
  check_against_naive<ReduceLogSumOp>(rng, true);
  check_against_naive<ReduceLogSumExpOp>(rng, false);
  check_against_naive<ReduceProdOp>(rng, true);
}

TEST_CASE("arg_reduce_ref picks first or last extreme along the axis", "[reduce-kernels]") {
  // x[2, 3, 2]: along the middle axis.
  const float x[] = {1,  9, 3,  9, 3,  2,  // o = 0: columns (1, 3, 3) and (9, 9, 2)
                     -1, 0, -5, 0, -1, 7};
  int64_t y[4];
  arg_reduce_ref<true>(x, y, 2, 3, 2, false);
  CHECK(std::vector<int64_t>(y, y + 4) == std::vector<int64_t>{1, 0, 0, 2});
  arg_reduce_ref<true>(x, y, 2, 3, 2, true);
  CHECK(std::vector<int64_t>(y, y + 4) == std::vector<int64_t>{2, 1, 2, 2});
  arg_reduce_ref<false>(x, y, 2, 3, 2, false);
  CHECK(std::vector<int64_t>(y, y + 4) == std::vector<int64_t>{0, 2, 1, 0});
  const float with_nan[] = {1, std::numeric_limits<float>::quiet_NaN(), 5};
  arg_reduce_ref<true>(with_nan, y, 1, 3, 1, false);
  CHECK(y[0] == 1);
}
