// DFT / STFT / window / MelWeightMatrix kernels against independent references: a direct DFT
// with std::complex and std::polar, the hermitian extension written out for IRFFT, closed forms
// of the windows (Hann = sin^2) and a hand-worked mel filter bank.
#include <catch2/catch.hpp>
#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "onnxc/signal.h"

using namespace onnxc;
using cd = std::complex<double>;

namespace {

const double kPi = 3.14159265358979323846;

// X[k] = sum_m x[m] e^{-+2 pi i k m / n} (1/n when inverse), x zero-padded/truncated to n.
std::vector<cd> naive_dft(const std::vector<cd>& x, size_t n, bool inverse) {
  std::vector<cd> y(n);
  for (size_t k = 0; k < n; ++k) {
    cd s = 0;
    for (size_t m = 0; m < n && m < x.size(); ++m)
      s += x[m] * std::polar(1.0, (inverse ? 2 : -2) * kPi * double(k * m % n) / double(n));
    y[k] = inverse ? s / double(n) : s;
  }
  return y;
}

// Runs dft_ref on lines stored [outer=2, len, inner=3, c] and returns line (o, i).
template <typename T>
std::vector<std::vector<T>> run_dft(const DftParams& p, const std::vector<T>& x) {
  std::vector<T> y(static_cast<size_t>(p.outer * p.out_len * p.inner * (p.out_complex ? 2 : 1)));
  std::vector<double> scratch(static_cast<size_t>(dft_ref_scratch_doubles(p.n)));
  dft_ref<T>(p, x.data(), y.data(), scratch.data());
  return {y};
}

}  // namespace

TEST_CASE("dft_ref: forward/inverse, real/complex, padding and truncation, along a middle axis",
          "[signal-kernels]") {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  const index_t outer = 2, inner = 3;
  for (index_t len : {1, 5, 8, 10, 12, 7})
    for (index_t n : {len, len + 3, len > 2 ? len - 2 : len})
      for (int in_complex : {0, 1})
        for (int inverse : {0, 1})
          for (int onesided : {0, 1}) {
            const index_t c = in_complex ? 2 : 1;
            std::vector<double> xd(static_cast<size_t>(outer * len * inner * c));
            for (auto& v : xd) v = u(rng);
            DftParams p{outer, len,     inner, in_complex, n, onesided && !inverse ? n / 2 + 1 : n,
                        1,     inverse, 0};
            if (onesided && inverse) continue;  // IRFFT: below
            std::vector<float> xf(xd.begin(), xd.end());
            const std::vector<double> yd = run_dft<double>(p, xd)[0];
            const std::vector<float> yf = run_dft<float>(p, xf)[0];
            for (index_t o = 0; o < outer; ++o)
              for (index_t i = 0; i < inner; ++i) {
                std::vector<cd> line(static_cast<size_t>(len));
                for (index_t m = 0; m < len; ++m) {
                  const size_t at = static_cast<size_t>(((o * len + m) * inner + i) * c);
                  line[m] = cd(xd[at], in_complex ? xd[at + 1] : 0.0);
                }
                const std::vector<cd> want = naive_dft(line, static_cast<size_t>(n), inverse);
                INFO("len " << len << " n " << n << " complex " << in_complex << " inverse "
                            << inverse << " onesided " << onesided);
                for (index_t k = 0; k < p.out_len; ++k) {
                  const size_t at = static_cast<size_t>(((o * p.out_len + k) * inner + i) * 2);
                  REQUIRE(yd[at] == Approx(want[k].real()).margin(1e-12));
                  REQUIRE(yd[at + 1] == Approx(want[k].imag()).margin(1e-12));
                  REQUIRE(yf[at] == Approx(want[k].real()).margin(2e-5));
                  REQUIRE(yf[at + 1] == Approx(want[k].imag()).margin(2e-5));
                }
              }
          }
}

TEST_CASE("dft_ref: the float FFT agrees with the direct transform for lengths 1..120",
          "[signal-kernels]") {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1, 1);
  for (index_t n = 1; n <= 120; ++n)
    for (int inverse : {0, 1}) {
      std::vector<float> x(static_cast<size_t>(2 * n));
      for (auto& v : x) v = u(rng);
      const DftParams p{1, n, 1, 1, n, n, 1, inverse, 0};
      const std::vector<float> y = run_dft<float>(p, x)[0];
      std::vector<cd> line(static_cast<size_t>(n));
      for (index_t m = 0; m < n; ++m) line[m] = cd(x[2 * m], x[2 * m + 1]);
      const std::vector<cd> want = naive_dft(line, static_cast<size_t>(n), inverse);
      const double scale = inverse ? 1.0 / std::sqrt(double(n)) : std::sqrt(double(n));
      INFO("n " << n << " inverse " << inverse);
      for (index_t k = 0; k < n; ++k) {
        REQUIRE(y[2 * k] == Approx(want[k].real()).margin(3e-6 * scale));
        REQUIRE(y[2 * k + 1] == Approx(want[k].imag()).margin(3e-6 * scale));
      }
    }
}

TEST_CASE("dft_ref: IRFFT inverts a one-sided spectrum", "[signal-kernels]") {
  for (index_t n : {8, 9, 10}) {
    // A real signal, its full spectrum, and the first n/2 + 1 bins as the input.
    std::vector<cd> sig(static_cast<size_t>(n));
    for (index_t m = 0; m < n; ++m) sig[m] = cd(std::sin(0.7 * double(m)) + 0.1 * double(m), 0);
    const std::vector<cd> spec = naive_dft(sig, static_cast<size_t>(n), false);
    const index_t bins = n / 2 + 1;
    std::vector<double> x(static_cast<size_t>(2 * bins));
    for (index_t k = 0; k < bins; ++k) {
      x[2 * k] = spec[k].real();
      x[2 * k + 1] = spec[k].imag();
    }
    const DftParams p{1, bins, 1, 1, n, n, 0, 1, 1};
    const std::vector<double> y = run_dft<double>(p, x)[0];
    for (index_t m = 0; m < n; ++m) REQUIRE(y[m] == Approx(sig[m].real()).margin(1e-12));
  }
  // Exact zeros stay exact: the spectrum of 0..9 gives back 0 at m = 0.
  std::vector<cd> ramp(10);
  for (int m = 0; m < 10; ++m) ramp[m] = m;
  const std::vector<cd> spec = naive_dft(ramp, 10, false);
  std::vector<float> x(12);
  for (int k = 0; k < 6; ++k) {
    x[2 * k] = float(spec[k].real());
    x[2 * k + 1] = float(spec[k].imag());
  }
  const std::vector<float> y = run_dft<float>(DftParams{1, 6, 1, 1, 10, 10, 0, 1, 1}, x)[0];
  CHECK(std::fabs(y[0]) < 1e-7f);
  CHECK(y[9] == Approx(9).epsilon(1e-6));
}

TEST_CASE("stft_ref frames, windows and one-sided bins", "[signal-kernels]") {
  const index_t len = 20, step = 3, fl = 6, frames = (len - fl) / step + 1;
  std::vector<double> x(static_cast<size_t>(2 * len)), window(static_cast<size_t>(fl));
  for (index_t m = 0; m < len; ++m) x[m] = std::cos(0.3 * double(m)) + double(m % 4);
  for (index_t m = 0; m < len; ++m) x[len + m] = double(m) * 0.1;  // batch 1
  for (index_t m = 0; m < fl; ++m) window[m] = 0.5 + 0.1 * double(m);
  for (int use_window : {0, 1})
    for (int onesided : {0, 1}) {
      const index_t bins = onesided ? fl / 2 + 1 : fl;
      const StftParams p{2, len, 0, step, fl, frames, bins};
      std::vector<double> y(static_cast<size_t>(2 * frames * bins * 2));
      std::vector<double> scratch(static_cast<size_t>(dft_scratch_doubles(fl)));
      stft_ref<double>(p, x.data(), use_window ? window.data() : nullptr, y.data(), scratch.data());
      for (index_t b = 0; b < 2; ++b)
        for (index_t f = 0; f < frames; ++f) {
          std::vector<cd> frame(static_cast<size_t>(fl));
          for (index_t m = 0; m < fl; ++m)
            frame[m] = x[b * len + f * step + m] * (use_window ? window[m] : 1.0);
          const std::vector<cd> want = naive_dft(frame, static_cast<size_t>(fl), false);
          for (index_t k = 0; k < bins; ++k) {
            const size_t at = static_cast<size_t>(((b * frames + f) * bins + k) * 2);
            REQUIRE(y[at] == Approx(want[k].real()).margin(1e-12));
            REQUIRE(y[at + 1] == Approx(want[k].imag()).margin(1e-12));
          }
        }
    }
}

TEST_CASE("window kernels: closed forms, periodic and symmetric", "[signal-kernels]") {
  for (int periodic : {0, 1}) {
    const index_t size = 9;
    const double den = periodic ? 9 : 8;
    double hann[9], hamming[9], blackman[9];
    hann_window_ref(hann, size, periodic);
    hamming_window_ref(hamming, size, periodic);
    blackman_window_ref(blackman, size, periodic);
    for (index_t i = 0; i < size; ++i) {
      const double s = std::sin(kPi * double(i) / den);
      CHECK(hann[i] == Approx(s * s).margin(1e-15));
      CHECK(hamming[i] == Approx(25.0 / 46 - 21.0 / 46 * (1 - 2 * s * s)).margin(1e-15));
      const double c = std::cos(2 * kPi * double(i) / den);
      CHECK(blackman[i] == Approx(0.42 - 0.5 * c + 0.08 * (2 * c * c - 1)).margin(1e-15));
    }
    if (!periodic) CHECK(hann[8] == Approx(0).margin(1e-15));  // symmetric ends
  }
  std::int32_t ints[4];
  hann_window_ref(ints, 4, 0);  // 0, 0.75, 0.75, 0 truncated
  CHECK(std::vector<std::int32_t>(ints, ints + 4) == std::vector<std::int32_t>{0, 0, 0, 0});
}

TEST_CASE("mel_weight_matrix_ref: a hand-worked filter bank", "[signal-kernels]") {
  // 2 mel bins over 0..4000 Hz, dft_length 16 (9 bins), 8000 Hz. Mel points at i/4 of
  // 2595 log10(1 + 4000/700) = 2146.06: 0, 536.5, 1073.0, 1609.5 mel = 0, 426.8, 1113.8,
  // 2219.8 Hz, i.e. bins floor(17 hz / 8000) = 0, 0, 2, 4.
  float y[9 * 2];
  index_t points[4];
  mel_weight_matrix_ref(y, 2, 16, 8000.0, 0.0, 4000.0, points);
  CHECK(std::vector<index_t>(points, points + 4) == std::vector<index_t>{0, 0, 2, 4});
  // Filter 0: left = center = 0 -> 1 at bin 0, then down to bin 2: 1, 0.5.
  // Filter 1: up from 0 to 2 (0, 0.5, 1), down to 4 (1, 0.5).
  const std::vector<float> want = {1, 0, 0.5f, 0.5f, 0, 1, 0, 0.5f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  CHECK(std::vector<float>(y, y + 18) == want);
}
