// DFT / STFT / window / MelWeightMatrix handlers: output shapes (opset 17 axis attribute, opset
// 20 axis input, RFFT and IRFFT), compile-time inputs, errors, and the folded window values.
#include <catch2/catch.hpp>
#include <cmath>

#include "ops/infer_harness.h"

using namespace onnxc;
using onnxc::testing::InferHarness;

namespace {
const DataType F = DataType::kFloat;
const DataType I64 = DataType::kInt64;
}  // namespace

TEST_CASE("DFT shapes: axis attribute (17) and input (20), RFFT, IRFFT, dft_length", "[signal]") {
  InferHarness a("DFT", 17);
  a.input(F, {2, 10, 6, 1});
  a.attr_int("axis", 1);
  a.attr_int("onesided", 1);
  REQUIRE(a.infer());
  CHECK(a.out().shape == Shape{2, 6, 6, 2});
  CHECK(
      a.emit().find("onnxc::dft_ref<float>(p, x0, y0, reinterpret_cast<double*>(nullptr + 0));") !=
      std::string::npos);

  InferHarness b("DFT", 20);  // axis defaults to -2, the last signal axis
  b.input(F, {2, 10, 6, 2});
  b.constant<int64_t>(I64, {}, {16});
  REQUIRE(b.infer());
  CHECK(b.out().shape == Shape{2, 10, 16, 2});

  InferHarness c("DFT", 20);  // IRFFT: default length 2 * (bins - 1), real output
  c.input(F, {1, 6, 10, 2});
  c.absent_input();
  c.constant<int64_t>(I64, {}, {1});
  c.attr_int("onesided", 1);
  c.attr_int("inverse", 1);
  REQUIRE(c.infer());
  CHECK(c.out().shape == Shape{1, 10, 10, 1});
  CHECK(c.emit().find("/*hermitian*/ 1") != std::string::npos);
}

TEST_CASE("DFT errors: axis range, run-time dft_length, input layout", "[signal]") {
  InferHarness a("DFT", 17);
  a.input(F, {1, 8, 2});
  a.attr_int("axis", 2);
  CHECK_FALSE(a.infer());
  CHECK(a.error().find("axis 2 is out of range [-3, -2] U [0, 1]") != std::string::npos);
  InferHarness b("DFT", 20);
  b.input(F, {1, 8, 1});
  b.input(I64, {});
  CHECK_FALSE(b.infer());
  CHECK(b.error().find("dft_length input must be a constant") != std::string::npos);
  InferHarness c("DFT", 20);
  c.input(F, {1, 8, 3});
  CHECK_FALSE(c.infer());
  CHECK(c.error().find("input must be [..., 1] (real) or [..., 2] (complex)") != std::string::npos);
}

TEST_CASE("DFT folds constants", "[signal]") {
  InferHarness h("DFT", 17);
  h.constant<float>(F, {1, 4, 1}, {1, 2, 3, 4});
  REQUIRE(h.infer());
  REQUIRE(h.fold());
  const float* y = h.folded().as<float>();
  // [10, -2+2i, -2, -2-2i]
  CHECK(std::vector<float>(y, y + 8) == std::vector<float>{10, 0, -2, 2, -2, 0, -2, -2});
}

TEST_CASE("STFT shapes and errors", "[signal]") {
  InferHarness a("STFT", 17);
  a.input(F, {2, 128, 1});
  a.constant<int64_t>(I64, {}, {8});
  a.input(F, {16});
  REQUIRE(a.infer());
  CHECK(a.out().shape == Shape{2, 15, 9, 2});
  CHECK(a.emit().find("onnxc::stft_ref<float>(p, x0, x2, y0,") != std::string::npos);

  InferHarness b("STFT", 17);
  b.input(F, {1, 64, 2});
  b.constant<int64_t>(I64, {}, {4});
  b.absent_input();
  b.constant<int64_t>(I64, {}, {16});
  b.attr_int("onesided", 0);
  REQUIRE(b.infer());
  CHECK(b.out().shape == Shape{1, 13, 16, 2});

  InferHarness c("STFT", 17);
  c.input(F, {1, 64, 1});
  c.constant<int64_t>(I64, {}, {4});
  c.input(F, {16});
  c.constant<int64_t>(I64, {}, {8});
  CHECK_FALSE(c.infer());
  CHECK(c.error().find("frame_length 8 differs from the window length 16") != std::string::npos);

  InferHarness d("STFT", 17);
  d.input(F, {1, 64, 1});
  d.input(I64, {});
  CHECK_FALSE(d.infer());
  CHECK(d.error().find("frame_step input must be a constant") != std::string::npos);
}

TEST_CASE("Windows fold in infer, output_datatype and periodic", "[signal]") {
  InferHarness h("HannWindow", 17);
  h.constant<int64_t>(DataType::kInt32, {}, {4});
  REQUIRE(h.infer());
  REQUIRE(h.out().is_constant());
  const float* y = h.out().constant->as<float>();
  CHECK(y[0] == 0.0f);
  CHECK(y[1] == Approx(0.5));
  CHECK(y[2] == Approx(1.0));

  InferHarness d("BlackmanWindow", 17);
  d.constant<int64_t>(I64, {}, {3});
  d.attr_int("periodic", 0);
  d.attr_int("output_datatype", static_cast<int64_t>(DataType::kDouble));
  REQUIRE(d.infer());
  CHECK(d.out().dtype == DataType::kDouble);
  CHECK(d.out().constant->as<double>()[1] == Approx(1.0));  // the symmetric window's center

  InferHarness bad("HammingWindow", 17);
  bad.input(I64, {});
  CHECK_FALSE(bad.infer());
  CHECK(bad.error().find("size input must be a constant") != std::string::npos);
}

TEST_CASE("MelWeightMatrix folds in infer", "[signal]") {
  InferHarness h("MelWeightMatrix", 17);
  h.constant<int64_t>(I64, {}, {8});
  h.constant<int64_t>(I64, {}, {16});
  h.constant<int64_t>(I64, {}, {8192});
  h.constant<float>(F, {}, {0});
  h.constant<float>(F, {}, {4096});
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{9, 8});
  REQUIRE(h.out().is_constant());
}
