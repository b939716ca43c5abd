// Signal processing: DFT (forward, inverse, one-sided RFFT and IRFFT, zero-padding or truncation
// to dft_length), STFT (framed, optionally windowed DFTs), and the window generators HannWindow,
// HammingWindow, BlackmanWindow and MelWeightMatrix.
//   dft_ref<T>, stft_ref<T>: the direct O(n^2) transform over a table of n twiddles in the
//       caller's scratch. Twiddles are reduced to the first quadrant, so cos/sin at multiples of
//       pi/2 are exact (a real signal's Nyquist bin has an exactly zero imaginary part). Products
//       and sums are accumulated in double even for float tensors: an inverse transform that
//       reconstructs an exact zero from spectra of magnitude ~1e3 needs ~1e-10 relative accuracy,
//       which float twiddles cannot give (numpy, which the conformance data comes from, also
//       promotes real float32 input to double).
//       Complex float input (full transforms of lengths 2^a 3^b 5^c) instead runs a float
//       mixed-radix FFT, O(n log n), which rounds as numpy's single-precision complex64 FFT.
//   hann_window_ref<T>, hamming_window_ref<T>, blackman_window_ref<T>,
//   mel_weight_matrix_ref<T>: computed in double and converted once to T (as numpy's astype).
#ifndef ONNXC_SIGNAL_H
#define ONNXC_SIGNAL_H

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "onnxc/base.h"

namespace onnxc {

// Doubles of scratch the DFT and STFT kernels need for a transform of length n.
constexpr index_t dft_scratch_doubles(index_t n) {
  return 2 * n;
}

namespace signal_detail {

constexpr double kPi = 3.14159265358979323846;

// tw[2j], tw[2j + 1] = cos, sin of 2 pi j / n, for j < n.
inline void twiddles(double* tw, index_t n) {
  for (index_t j = 0; j < n; ++j) {
    // 2 pi j / n = q * (pi / 2) + pi * rem / (2 n), with 4 j = q n + rem and 0 <= rem < n.
    const index_t q = (4 * j) / n, rem = 4 * j - q * n;
    double c = 1.0, s = 0.0;
    if (rem != 0) {
      const double a = kPi * static_cast<double>(rem) / (2.0 * static_cast<double>(n));
      c = std::cos(a);
      s = std::sin(a);
    }
    double rc = c, rs = s;  // rotated by q quarter turns
    switch (q & 3) {
      case 1:
        rc = -s;
        rs = c;
        break;
      case 2:
        rc = -c;
        rs = -s;
        break;
      case 3:
        rc = s;
        rs = -c;
        break;
      default:
        break;
    }
    tw[2 * j] = rc;
    tw[2 * j + 1] = rs;
  }
}

// One transform along a line: samples x[m * x_stride] (real part; imaginary part at +1 when
// x_complex), m < x_len, times window[m] when given, zero beyond x_len up to n. hermitian: the
// samples are bins 0..n/2 of a one-sided spectrum, extended by X[n - m] = conj(X[m]), and only
// the real part of the result is written. Writes out_len bins y[k * y_stride] (+1 imaginary when
// y_complex), divided by n when inverse.
template <typename T>
inline void dft_line(const T* x, index_t x_stride, int x_complex, index_t x_len, const T* window,
                     const double* tw, index_t n, int inverse, int hermitian, T* y,
                     index_t y_stride, int y_complex, index_t out_len) {
  const double sign = inverse ? 1.0 : -1.0;
  auto sample = [&](index_t m, double& re, double& im) {
    bool conj = false;
    if (hermitian && m > n / 2) {
      m = n - m;
      conj = true;
    }
    re = im = 0.0;
    if (m >= x_len) return;
    re = static_cast<double>(x[m * x_stride]);
    im = x_complex ? static_cast<double>(x[m * x_stride + 1]) : 0.0;
    if (window) {
      const double wv = static_cast<double>(window[m]);
      re *= wv;
      im *= wv;
    }
    if (conj) im = -im;
  };
  const index_t used = hermitian ? n : (x_len < n ? x_len : n);  // nonzero samples
  for (index_t k = 0; k < out_len; ++k) {
    double sr = 0.0, si = 0.0;
    index_t j = 0;  // (k * m) mod n, advanced by k each step
    for (index_t m = 0; m < used; ++m) {
      double re, im;
      sample(m, re, im);
      const double c = tw[2 * j], s = sign * tw[2 * j + 1];
      sr += re * c - im * s;
      si += re * s + im * c;
      j += k;
      if (j >= n) j %= n;
    }
    if (inverse) {
      sr /= static_cast<double>(n);
      si /= static_cast<double>(n);
    }
    y[k * y_stride] = static_cast<T>(sr);
    if (y_complex) y[k * y_stride + 1] = static_cast<T>(si);
  }
}

}  // namespace signal_detail

struct DftParams {
  index_t outer;    // product of the dims before the axis
  index_t in_len;   // input length along the axis
  index_t inner;    // product of the dims between the axis and the last (real/imaginary) dim
  int in_complex;   // the input's last dim is 2 (else 1)
  index_t n;        // dft_length
  index_t out_len;  // output length along the axis: n, or n / 2 + 1 (RFFT)
  int out_complex;  // 0 for IRFFT (real output)
  int inverse;      // 1: inverse transform (1/n, e^{+2 pi i k m / n})
  int hermitian;    // IRFFT: the input is a one-sided spectrum
};

namespace signal_detail {

struct Cf {
  float r, i;
};
inline Cf operator+(Cf a, Cf b) {
  return {a.r + b.r, a.i + b.i};
}
inline Cf operator-(Cf a, Cf b) {
  return {a.r - b.r, a.i - b.i};
}
// a * w (inverse) or a * conj(w) (forward).
inline Cf twiddle_mul(Cf a, Cf w, bool inverse) {
  return inverse ? Cf{a.r * w.r - a.i * w.i, a.r * w.i + a.i * w.r}
                 : Cf{a.r * w.r + a.i * w.i, a.i * w.r - a.r * w.i};
}

// The radices of the float FFT in pass order (4s, then one 2 moved to the front, then 3s and 5s),
// or 0 when n has a prime factor above 5. Returns the number of passes.
inline int fft_factors(index_t n, unsigned char* f) {  // f: 64 entries
  int count = 0;
  if (n < 1) return 0;
  while (n % 4 == 0) {
    f[count++] = 4;
    n /= 4;
  }
  if (n % 2 == 0) {
    n /= 2;
    f[count++] = 2;
    const unsigned char first = f[0];
    f[0] = 2;
    f[count - 1] = first;
  }
  for (index_t p = 3; p <= 5; p += 2)
    while (n % p == 0) {
      f[count++] = static_cast<unsigned char>(p);
      n /= p;
    }
  return n == 1 ? count : 0;
}

// One Cooley-Tukey pass (Stockham order, as FFTPACK's cfftp): ip-point butterflies over
// l1 groups of ido elements, from cc [ido, ip, l1] to ch [ido, l1, ip], with the twiddles
// e^{2 pi i j l1 k / n} read from the double table tw.
inline void fft_pass(index_t ip, index_t ido, index_t l1, const Cf* cc, Cf* ch, const double* tw,
                     bool inv) {
  const float s = inv ? 1.0f : -1.0f;
  auto CC = [&](index_t a, index_t b, index_t c) { return cc[a + ido * (b + ip * c)]; };
  auto CH = [&](index_t a, index_t b, index_t c) -> Cf& { return ch[a + ido * (b + l1 * c)]; };
  auto W = [&](index_t j, index_t i) {
    const index_t idx = j * l1 * i;
    return Cf{static_cast<float>(tw[2 * idx]), static_cast<float>(tw[2 * idx + 1])};
  };
  auto out = [&](index_t i, index_t k, index_t j, Cf v) {
    CH(i, k, j) = i == 0 ? v : twiddle_mul(v, W(j, i), inv);
  };
  for (index_t k = 0; k < l1; ++k)
    for (index_t i = 0; i < ido; ++i) {
      if (ip == 2) {
        const Cf a = CC(i, 0, k), b = CC(i, 1, k);
        out(i, k, 0, a + b);
        out(i, k, 1, a - b);
      } else if (ip == 3) {
        const float w1r = -0.5f, w1i = s * 0.8660254037844386468f;
        const Cf t0 = CC(i, 0, k), t1 = CC(i, 1, k) + CC(i, 2, k), t2 = CC(i, 1, k) - CC(i, 2, k);
        out(i, k, 0, t0 + t1);
        const Cf ca = {t0.r + t1.r * w1r, t0.i + t1.i * w1r};
        const Cf cb = {-(t2.i * w1i), t2.r * w1i};  // i * w1i * t2
        out(i, k, 1, ca + cb);
        out(i, k, 2, ca - cb);
      } else if (ip == 4) {
        const Cf t2 = CC(i, 0, k) + CC(i, 2, k), t1 = CC(i, 0, k) - CC(i, 2, k);
        const Cf t3 = CC(i, 1, k) + CC(i, 3, k);
        Cf t4 = CC(i, 1, k) - CC(i, 3, k);
        t4 = inv ? Cf{-t4.i, t4.r} : Cf{t4.i, -t4.r};  // times +i (inverse) or -i
        out(i, k, 0, t2 + t3);
        out(i, k, 2, t2 - t3);
        out(i, k, 1, t1 + t4);
        out(i, k, 3, t1 - t4);
      } else {  // 5
        const float w1r = 0.3090169943749474241f, w1i = s * 0.9510565162951535721f;
        const float w2r = -0.8090169943749474241f, w2i = s * 0.5877852522924731292f;
        const Cf t0 = CC(i, 0, k);
        const Cf t1 = CC(i, 1, k) + CC(i, 4, k), t4 = CC(i, 1, k) - CC(i, 4, k);
        const Cf t2 = CC(i, 2, k) + CC(i, 3, k), t3 = CC(i, 2, k) - CC(i, 3, k);
        out(i, k, 0, Cf{t0.r + t1.r + t2.r, t0.i + t1.i + t2.i});
        auto pair = [&](index_t u1, index_t u2, float ar, float br, float ai, float bi) {
          const Cf ca = {t0.r + ar * t1.r + br * t2.r, t0.i + ar * t1.i + br * t2.i};
          const Cf cb = {-(ai * t4.i + bi * t3.i), ai * t4.r + bi * t3.r};
          out(i, k, u1, ca + cb);
          out(i, k, u2, ca - cb);
        };
        pair(1, 4, w1r, w2r, w1i, w2i);
        pair(2, 3, w2r, w1r, w2i, -w1i);
      }
    }
}

// The float FFT of one line (complex in, complex out, length n = its radices' product), in
// place in a, with b as the second buffer of the passes.
inline void fft_line(Cf* a, Cf* b, index_t n, const unsigned char* factors, int count,
                     const double* tw, bool inverse) {
  Cf *p1 = a, *p2 = b;
  index_t l1 = 1;
  for (int f = 0; f < count; ++f) {
    const index_t ip = factors[f], ido = n / (l1 * ip);
    fft_pass(ip, ido, l1, p1, p2, tw, inverse);
    Cf* t = p1;
    p1 = p2;
    p2 = t;
    l1 *= ip;
  }
  const float scale = inverse ? static_cast<float>(1.0 / static_cast<double>(n)) : 1.0f;
  for (index_t i = 0; i < n; ++i) {
    Cf v = p1[i];
    if (inverse) v = {v.r * scale, v.i * scale};
    a[i] = v;
  }
}

}  // namespace signal_detail

// Doubles of scratch dft_ref needs for a transform of length n (the twiddle table, and two
// buffers of n complex floats for the float FFT).
constexpr index_t dft_ref_scratch_doubles(index_t n) {
  return dft_scratch_doubles(n) + 2 * n;
}

// y = DFT of x along the axis of an [outer, in_len, inner, 1|2] view; y is [outer, out_len,
// inner, 1|2]. scratch: dft_ref_scratch_doubles(p.n) doubles. Full (two-sided) transforms of
// complex float tensors whose length has no prime factor above 5 run a float mixed-radix FFT
// (radix 2, 3, 4, 5 passes in FFTPACK's Stockham order), as numpy transforms complex64 data in
// single precision; real inputs, one-sided transforms and other lengths use the direct double
// transform, as numpy promotes real float32 input to double.
template <typename T>
inline void dft_ref(const DftParams& p, const T* x, T* y, double* scratch) {
  using namespace signal_detail;
  twiddles(scratch, p.n);
  const index_t xc = p.in_complex ? 2 : 1, yc = p.out_complex ? 2 : 1;
  unsigned char factors[64];
  const int count = fft_factors(p.n, factors);
  const bool fast = std::is_same<T, float>::value && p.in_complex && !p.hermitian &&
                    p.out_len == p.n && count > 0;
  Cf* a = reinterpret_cast<Cf*>(scratch + dft_scratch_doubles(p.n));
  Cf* b = a + p.n;
  for (index_t o = 0; o < p.outer; ++o)
    for (index_t i = 0; i < p.inner; ++i) {
      const T* xl = x + (o * p.in_len * p.inner + i) * xc;
      T* yl = y + (o * p.out_len * p.inner + i) * yc;
      if (!fast) {
        dft_line(xl, p.inner * xc, p.in_complex, p.in_len, static_cast<const T*>(nullptr), scratch,
                 p.n, p.inverse, p.hermitian, yl, p.inner * yc, p.out_complex, p.out_len);
        continue;
      }
      for (index_t m = 0; m < p.n; ++m) {
        const T* v = xl + m * p.inner * xc;
        a[m] = m < p.in_len
                   ? Cf{static_cast<float>(v[0]), p.in_complex ? static_cast<float>(v[1]) : 0.0f}
                   : Cf{0.0f, 0.0f};
      }
      fft_line(a, b, p.n, factors, count, scratch, p.inverse != 0);
      for (index_t k = 0; k < p.n; ++k) {
        yl[k * p.inner * 2] = static_cast<T>(a[k].r);
        yl[k * p.inner * 2 + 1] = static_cast<T>(a[k].i);
      }
    }
}

struct StftParams {
  index_t batch, signal_length;
  int in_complex;  // the signal's last dim is 2 (else 1)
  index_t frame_step, frame_length, frames;
  index_t bins;  // frame_length, or frame_length / 2 + 1 when onesided
};

// y[b, f, k, :] = sum_m x[b, f * step + m] * window[m] * e^{-2 pi i k m / frame_length};
// window may be null (all ones). scratch: dft_scratch_doubles(p.frame_length) doubles.
template <typename T>
inline void stft_ref(const StftParams& p, const T* x, const T* window, T* y, double* scratch) {
  signal_detail::twiddles(scratch, p.frame_length);
  const index_t xc = p.in_complex ? 2 : 1;
  for (index_t b = 0; b < p.batch; ++b)
    for (index_t f = 0; f < p.frames; ++f)
      signal_detail::dft_line(x + (b * p.signal_length + f * p.frame_step) * xc, xc, p.in_complex,
                              p.frame_length, window, scratch, p.frame_length, 0, 0,
                              y + (b * p.frames + f) * p.bins * 2, 2, 1, p.bins);
}

// ---- windows ----------------------------------------------------------------------------------

namespace signal_detail {

// w[i] = a0 - a1 cos(2 pi i / N) + a2 cos(4 pi i / N), N = size (periodic) or size - 1.
template <typename T>
inline void cosine_window(T* y, index_t size, int periodic, double a0, double a1, double a2) {
  const double den = static_cast<double>(periodic ? size : size - 1);
  for (index_t i = 0; i < size; ++i) {
    const double t = den > 0 ? 2.0 * kPi * static_cast<double>(i) / den : 0.0;
    y[i] = static_cast<T>(a0 - a1 * std::cos(t) + a2 * std::cos(2.0 * t));
  }
}

}  // namespace signal_detail

template <typename T>
inline void hann_window_ref(T* y, index_t size, int periodic) {
  signal_detail::cosine_window(y, size, periodic, 0.5, 0.5, 0.0);
}

template <typename T>
inline void hamming_window_ref(T* y, index_t size, int periodic) {
  signal_detail::cosine_window(y, size, periodic, 25.0 / 46.0, 21.0 / 46.0, 0.0);
}

template <typename T>
inline void blackman_window_ref(T* y, index_t size, int periodic) {
  signal_detail::cosine_window(y, size, periodic, 0.42, 0.5, 0.08);
}

// y [dft_length / 2 + 1, num_mel_bins]: triangular filters between num_mel_bins + 2 points
// spaced evenly on the mel scale (mel = 2595 log10(1 + hz / 700)) from lower_hz to upper_hz, each
// point snapped to the spectrogram bin floor((dft_length + 1) * hz / sample_rate). The mel step
// divides the range by num_mel_bins + 2 (as the ONNX reference does). A filter whose left and
// center bins coincide is 1 at the center.
template <typename T>
inline void mel_weight_matrix_ref(T* y, index_t num_mel_bins, index_t dft_length,
                                  double sample_rate, double lower_hz, double upper_hz,
                                  index_t* points /* num_mel_bins + 2 */) {
  const index_t bins = dft_length / 2 + 1;
  const double low_mel = 2595.0 * std::log10(1.0 + lower_hz / 700.0);
  const double high_mel = 2595.0 * std::log10(1.0 + upper_hz / 700.0);
  const double step = (high_mel - low_mel) / static_cast<double>(num_mel_bins + 2);
  for (index_t i = 0; i < num_mel_bins + 2; ++i) {
    const double hz =
        700.0 * (std::pow(10.0, (static_cast<double>(i) * step + low_mel) / 2595.0) - 1.0);
    points[i] =
        static_cast<index_t>(std::floor(static_cast<double>(dft_length + 1) * hz / sample_rate));
  }
  for (index_t i = 0; i < bins * num_mel_bins; ++i) y[i] = T(0);
  auto put = [&](index_t row, index_t col, double v) {
    if (row >= 0 && row < bins) y[row * num_mel_bins + col] = static_cast<T>(v);
  };
  for (index_t m = 0; m < num_mel_bins; ++m) {
    const index_t left = points[m], center = points[m + 1], right = points[m + 2];
    if (center == left) {
      put(center, m, 1.0);
    } else {
      for (index_t j = left; j <= center; ++j)
        put(j, m, static_cast<double>(j - left) / static_cast<double>(center - left));
    }
    for (index_t j = center; j < right; ++j)
      put(j, m, static_cast<double>(right - j) / static_cast<double>(right - center));
  }
}

}  // namespace onnxc

#endif  // ONNXC_SIGNAL_H
