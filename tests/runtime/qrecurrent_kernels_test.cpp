// DynamicQuantizeLSTM's kernel (onnxc/qrecurrent.h) against a reference written independently
// here from ORT's algorithm (see the header's banner): one time step of all batch entries at a
// time, weights indexed per gate and column, X's quantization over the rows the steps read,
// each step's hidden states quantized over the batch, the sigmoid and tanh from std::exp. The
// contrib_ort cases check both against onnxruntime-node itself; this covers what they leave
// out: input_forget, a row of length 0, int8 weights with per-direction scales bidirectionally.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "onnxc/qrecurrent.h"

using namespace onnxc;

namespace {

struct Quantized {
  std::vector<int> q;
  float scale;
  int zp;
};

// DynamicQuantizeLinear: range including 0, scale (max - min) / 255, round half to even.
Quantized quantize(const float* v, size_t n) {
  float lo = 0, hi = 0;
  for (size_t i = 0; i < n; ++i) lo = std::min(lo, v[i]), hi = std::max(hi, v[i]);
  Quantized r{{}, hi == lo ? 1.0f : (hi - lo) / 255.0f, 0};
  r.zp = static_cast<int>(std::nearbyint(std::clamp(-lo / r.scale, 0.0f, 255.0f)));
  for (size_t i = 0; i < n; ++i)
    r.q.push_back(std::clamp(static_cast<int>(std::nearbyint(v[i] / r.scale)) + r.zp, 0, 255));
  return r;
}

float sigmoid(float v) {
  return static_cast<float>(1 / (1 + std::exp(-double(v))));
}
float tanh_ref(float v) {
  return static_cast<float>(std::tanh(double(v)));
}

struct Problem {
  int S = 5, B = 3, I = 4, H = 3, D = 2;
  std::vector<float> x, bias, h0, c0, peep, w_scale, r_scale;
  std::vector<std::int8_t> w, r, w_zp, r_zp;  // W [D, I, 4H], R [D, H, 4H]; scales per direction
  std::vector<std::int32_t> lens = {5, 0, 3};
  float clip = 1.5f;
};

// Y [S, D, B, H], then Y_h and Y_c [D, B, H], as ORT computes them with Y an output.
std::vector<float> reference(const Problem& p) {
  const int S = p.S, B = p.B, I = p.I, H = p.H, D = p.D;
  std::vector<float> y(size_t(S * D * B * H)), yh(size_t(D * B * H)), yc(yh.size());
  const int steps = *std::max_element(p.lens.begin(), p.lens.end());
  for (int d = 0; d < D; ++d) {
    const Quantized xq = quantize(p.x.data(), size_t(steps * B * I));
    std::vector<float> h(p.h0.begin() + d * B * H, p.h0.begin() + (d + 1) * B * H);
    std::vector<float> c(p.c0.begin() + d * B * H, p.c0.begin() + (d + 1) * B * H);
    for (int s = 0; s < steps; ++s) {
      const Quantized hq = quantize(h.data(), h.size());
      std::vector<float> h_next(h.size(), 0.0f);
      for (int b = 0; b < B; ++b) {
        if (s >= p.lens[b]) continue;  // Y's zeros feed the next step
        const int t = d == 1 ? p.lens[b] - 1 - s : s;
        auto pre = [&](int gate, int j) {
          const int col = gate * H + j;
          int xacc = 0, hacc = 0;
          for (int k = 0; k < I; ++k)
            xacc += (xq.q[size_t((t * B + b) * I + k)] - xq.zp) *
                    (p.w[size_t((d * I + k) * 4 * H + col)] - p.w_zp[size_t(d)]);
          for (int k = 0; k < H; ++k)
            hacc += (hq.q[size_t(b * H + k)] - hq.zp) *
                    (p.r[size_t((d * H + k) * 4 * H + col)] - p.r_zp[size_t(d)]);
          const float xw = float(xacc) * (xq.scale * p.w_scale[size_t(d)]);
          return float(hacc) * (hq.scale * p.r_scale[size_t(d)]) + xw;
        };
        auto bias = [&](int gate, int j) {
          const size_t o = size_t(d * 8 * H + gate * H + j);
          return p.bias[o] + p.bias[o + size_t(4 * H)];
        };
        auto clipped = [&](float v) { return std::clamp(v, -p.clip, p.clip); };
        for (int j = 0; j < H; ++j) {
          float& cj = c[size_t(b * H + j)];
          const float* pp = &p.peep[size_t(d * 3 * H)];
          const float it = sigmoid(clipped(pre(0, j) + cj * pp[j] + bias(0, j)));
          const float ft = 1.0f - it;  // input_forget
          const float gt = tanh_ref(clipped(pre(3, j) + bias(3, j)));
          cj = cj * ft + it * gt;
          const float ot = sigmoid(clipped(pre(1, j) + cj * pp[H + j] + bias(1, j)));
          h_next[size_t(b * H + j)] = tanh_ref(cj) * ot;
          y[size_t(((t * D + d) * B + b) * H + j)] = h_next[size_t(b * H + j)];
          if (s == p.lens[b] - 1) yh[size_t((d * B + b) * H + j)] = h_next[size_t(b * H + j)];
        }
      }
      h = h_next;
    }
    for (int b = 0; b < B; ++b)
      for (int j = 0; j < H; ++j)
        if (p.lens[b]) yc[size_t((d * B + b) * H + j)] = c[size_t(b * H + j)];
  }
  y.insert(y.end(), yh.begin(), yh.end());
  y.insert(y.end(), yc.begin(), yc.end());
  return y;
}

}  // namespace

TEST_CASE("DynamicQuantizeLSTM kernel: int8, bidirectional, input_forget, a row of length 0",
          "[recurrent-kernels]") {
  Problem p;
  std::mt19937 gen(35);
  std::normal_distribution<float> normal;
  std::uniform_int_distribution<int> byte(-128, 127);
  auto fill = [&](std::vector<float>& v, size_t n, float k) {
    for (size_t i = 0; i < n; ++i) v.push_back(k * normal(gen));
  };
  const size_t S = size_t(p.S), B = size_t(p.B), I = size_t(p.I), H = size_t(p.H);
  const size_t D = size_t(p.D);
  fill(p.x, S * B * I, 1.0f);
  fill(p.bias, D * 8 * H, 0.1f);
  fill(p.h0, D * B * H, 0.5f);
  fill(p.c0, D * B * H, 0.5f);
  fill(p.peep, D * 3 * H, 0.3f);
  for (size_t i = 0; i < D * (I + H) * 4 * H; ++i)
    (i < D * I * 4 * H ? p.w : p.r).push_back(static_cast<std::int8_t>(byte(gen)));
  p.w_scale = {0.004f, 0.003f};
  p.r_scale = {0.005f, 0.002f};
  p.w_zp = p.r_zp = {0, 0};
  QuantLstmParams q{};
  q.p.cell = kCellLstm;
  q.p.seq_length = p.S, q.p.batch = p.B, q.p.input_size = p.I, q.p.hidden = p.H;
  q.p.num_directions = p.D;
  q.p.clip = p.clip;
  q.p.input_forget = 1;
  for (int d = 0; d < 2; ++d)
    q.p.act[d * 3] = {kRecSigmoid, 0, 0},
                q.p.act[d * 3 + 1] = q.p.act[d * 3 + 2] = {kRecTanh, 0, 0};
  q.w_scales = q.r_scales = 1;
  q.y_is_output = 1;
  std::vector<float> y(S * D * B * H, -7.0f), yh(D * B * H, -7.0f), yc(yh.size(), -7.0f);
  std::vector<unsigned char> scratch(static_cast<size_t>(quant_lstm_scratch_bytes(q)), 0xAB);
  dynamic_quantize_lstm_ref<std::int8_t, std::int8_t>(
      q, p.x.data(), p.w.data(), p.r.data(), p.bias.data(), p.lens.data(), p.h0.data(), p.c0.data(),
      p.peep.data(), p.w_scale.data(), p.w_zp.data(), p.r_scale.data(), p.r_zp.data(), y.data(),
      yh.data(), yc.data(), scratch.data());
  std::vector<float> got = y;
  got.insert(got.end(), yh.begin(), yh.end());
  got.insert(got.end(), yc.begin(), yc.end());
  const std::vector<float> want = reference(p);
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("output element " << i);
    REQUIRE(got[i] == Approx(want[i]).margin(1e-6));
  }
}
