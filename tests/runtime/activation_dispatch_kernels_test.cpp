// onnxc/activation_dispatch.h: an epilogue whose polynomial activation is wrapped as
// Dispatched<Act> runs its rows in the AVX-512 or AVX2 copy this CPU has (this test binary is
// built for the x86-64 baseline, so it takes the run-time dispatch), and gives every value of the
// plain Epilogue<Act> bit for bit: odd row lengths (vector tails), a residual, the special values.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "onnxc/activation_dispatch.h"

using namespace onnxc;

namespace {

std::vector<float> row_values(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-20.0f, 20.0f);
  std::vector<float> v(n);
  for (float& f : v) f = dist(rng);
  const float specials[] = {0.0f,
                            -0.0f,
                            1e-30f,
                            -88.5f,
                            90.0f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN()};
  for (size_t i = 0; i < n && i < 8; ++i) v[i * 5 % n] = specials[i];
  return v;
}

template <class Act>
void check_dispatched(const Act& act, const char* name) {
  std::mt19937 rng(3);
  for (const size_t n : {1, 7, 16, 33, 67, 1000})
    for (const int residual : {0, 1}) {
      const std::vector<float> x = row_values(n, rng), res = row_values(n, rng);
      std::vector<float> want = x, got = x;
      apply_epilogue(Epilogue<Act>{act, residual}, want.data(), res.data(),
                     static_cast<index_t>(n));
      apply_epilogue(Epilogue<Dispatched<Act>>{{act}, residual}, got.data(), res.data(),
                     static_cast<index_t>(n));
      INFO(name << " n=" << n << " residual=" << residual);
      CHECK(std::memcmp(got.data(), want.data(), n * sizeof(float)) == 0);
    }
  // Doubles take the plain loop.
  std::vector<double> xd = {-3.0, 0.5, 7.0}, want = xd;
  apply_epilogue(Epilogue<Act>{act, 0}, want.data(), static_cast<const double*>(nullptr), 3);
  apply_epilogue(Epilogue<Dispatched<Act>>{{act}, 0}, xd.data(),
                 static_cast<const double*>(nullptr), 3);
  CHECK(xd == want);
}

}  // namespace

TEST_CASE("dispatched polynomial activations match the plain epilogue bit for bit",
          "[activation-dispatch]") {
  check_dispatched(Sigmoid{0.0f, 0.0f}, "Sigmoid");
  check_dispatched(Swish{1.0f, 0.0f}, "Swish");
  check_dispatched(Swish{0.5f, 0.0f}, "Swish alpha 0.5");
  check_dispatched(Tanh{0.0f, 0.0f}, "Tanh");
  check_dispatched(GeluErf{0.0f, 0.0f}, "GeluErf");
  check_dispatched(GeluTanh{0.0f, 0.0f}, "GeluTanh");
}
