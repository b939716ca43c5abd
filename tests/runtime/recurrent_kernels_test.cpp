// RNN / GRU / LSTM kernels against a per-timestep reference written independently in this file:
// double precision, one batch entry and one time step at a time, weights indexed per gate, each
// activation written from the spec's formula in a different form than the kernel's. Covers the
// options the conformance cases leave out: reverse and bidirectional, layout 1, clip,
// sequence_lens (including 0 and reverse walks of short sequences), initial_c, peepholes,
// input_forget, linear_before_reset 0 and 1, every activation with alpha/beta, absent outputs.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "onnxc/recurrent.h"

using namespace onnxc;

namespace {

double act_ref(const RecurrentAct& a, double x) {
  const double al = a.alpha, be = a.beta;
  switch (a.kind) {
    case kRecRelu:
      return std::max(0.0, x);
    case kRecTanh:
      return (1 - std::exp(-2 * x)) / (1 + std::exp(-2 * x));
    case kRecSigmoid:
      return 0.5 * (1 + std::tanh(x / 2));
    case kRecAffine:
      return al * x + be;
    case kRecLeakyRelu:
      return x < 0 ? al * x : x;
    case kRecThresholdedRelu:
      return x < al ? 0.0 : x;
    case kRecScaledTanh:
      return al * std::tanh(be * x);
    case kRecHardSigmoid:
      return std::min(1.0, std::max(0.0, al * x + be));
    case kRecElu:
      return x < 0 ? al * std::expm1(x) : x;
    case kRecSoftsign:
      return x / (1 + std::fabs(x));
    case kRecSoftplus:
      return std::log(1 + std::exp(x));
  }
  return NAN;
}

struct Problem {
  RecurrentParams p{};
  std::vector<double> x, w, r, b, h0, c0, peep;
  std::vector<std::int32_t> lens;
  bool has_b = true, has_h0 = true, has_c0 = true, has_peep = true, has_lens = true;
};

// Element (t, b, k) of X, (d, b, j) of a state, (t, d, b, j) of Y, by layout.
size_t xi(const RecurrentParams& p, int64_t t, int64_t b, int64_t k) {
  return static_cast<size_t>((p.layout ? b * p.seq_length + t : t * p.batch + b) * p.input_size +
                             k);
}
size_t si(const RecurrentParams& p, int64_t d, int64_t b, int64_t j) {
  return static_cast<size_t>((p.layout ? b * p.num_directions + d : d * p.batch + b) * p.hidden +
                             j);
}
size_t yi(const RecurrentParams& p, int64_t t, int64_t d, int64_t b, int64_t j) {
  return static_cast<size_t>((p.layout ? (b * p.seq_length + t) * p.num_directions + d
                                       : (t * p.num_directions + d) * p.batch + b) *
                                 p.hidden +
                             j);
}

struct Outputs {
  std::vector<double> y, y_h, y_c;
};

Outputs reference(const Problem& pr) {
  const RecurrentParams& p = pr.p;
  const int64_t H = p.hidden, I = p.input_size, G = recurrent_gates(p.cell);
  const int na = p.cell == kCellRnn ? 1 : p.cell == kCellGru ? 2 : 3;
  Outputs o;
  o.y.assign(static_cast<size_t>(p.seq_length * p.num_directions * p.batch * H), 0.0);
  o.y_h.assign(static_cast<size_t>(p.num_directions * p.batch * H), 0.0);
  o.y_c = o.y_h;
  auto clipv = [&](double v) {
    return p.clip > 0 ? std::max(-double(p.clip), std::min(double(p.clip), v)) : v;
  };
  for (int d = 0; d < p.num_directions; ++d) {
    const bool rev = p.num_directions == 2 ? d == 1 : p.reverse;
    const RecurrentAct* f = p.act + d * na;
    // W x + Wb for gate g, unit j, and R h + Rb (h any vector).
    auto wx = [&](int64_t t, int64_t b, int64_t g, int64_t j) {
      double s = pr.has_b ? pr.b[static_cast<size_t>(d * 2 * G * H + g * H + j)] : 0.0;
      for (int64_t k = 0; k < I; ++k)
        s += pr.x[xi(p, t, b, k)] * pr.w[static_cast<size_t>((d * G * H + g * H + j) * I + k)];
      return s;
    };
    auto rh = [&](const std::vector<double>& h, int64_t g, int64_t j) {
      double s = pr.has_b ? pr.b[static_cast<size_t>(d * 2 * G * H + G * H + g * H + j)] : 0.0;
      for (int64_t k = 0; k < H; ++k)
        s += h[static_cast<size_t>(k)] * pr.r[static_cast<size_t>((d * G * H + g * H + j) * H + k)];
      return s;
    };
    for (int64_t b = 0; b < p.batch; ++b) {
      std::vector<double> h(static_cast<size_t>(H)), c(static_cast<size_t>(H));
      for (int64_t j = 0; j < H; ++j) {
        h[j] = pr.has_h0 ? pr.h0[si(p, d, b, j)] : 0.0;
        c[j] = pr.has_c0 && p.cell == kCellLstm ? pr.c0[si(p, d, b, j)] : 0.0;
      }
      const int64_t len = pr.has_lens ? pr.lens[static_cast<size_t>(b)] : p.seq_length;
      std::vector<int64_t> order;
      for (int64_t s = 0; s < len; ++s) order.push_back(rev ? len - 1 - s : s);
      for (int64_t t : order) {
        std::vector<double> hn(static_cast<size_t>(H)), cn(static_cast<size_t>(H));
        for (int64_t j = 0; j < H; ++j) {
          if (p.cell == kCellRnn) {
            hn[j] = act_ref(f[0], clipv(wx(t, b, 0, j) + rh(h, 0, j)));
          } else if (p.cell == kCellGru) {
            const double z = act_ref(f[0], clipv(wx(t, b, 0, j) + rh(h, 0, j)));
            double cand;
            if (p.linear_before_reset) {
              const double r = act_ref(f[0], clipv(wx(t, b, 1, j) + rh(h, 1, j)));
              cand = wx(t, b, 2, j) + r * rh(h, 2, j);
            } else {
              std::vector<double> rhv(static_cast<size_t>(H));
              for (int64_t k = 0; k < H; ++k)
                rhv[k] = act_ref(f[0], clipv(wx(t, b, 1, k) + rh(h, 1, k))) * h[k];
              cand = wx(t, b, 2, j) + rh(rhv, 2, j);
            }
            hn[j] = z * h[j] + (1 - z) * act_ref(f[1], clipv(cand));
          } else {
            auto pe = [&](int64_t g) {  // peephole weight of gate g (0: i, 1: o, 2: f)
              return pr.has_peep ? pr.peep[static_cast<size_t>(d * 3 * H + g * H + j)] : 0.0;
            };
            const double i = act_ref(f[0], clipv(wx(t, b, 0, j) + rh(h, 0, j) + pe(0) * c[j]));
            const double fg =
                p.input_forget ? 1 - i
                               : act_ref(f[0], clipv(wx(t, b, 2, j) + rh(h, 2, j) + pe(2) * c[j]));
            const double g = act_ref(f[1], clipv(wx(t, b, 3, j) + rh(h, 3, j)));
            cn[j] = fg * c[j] + i * g;
            const double og = act_ref(f[0], clipv(wx(t, b, 1, j) + rh(h, 1, j) + pe(1) * cn[j]));
            hn[j] = og * act_ref(f[2], cn[j]);
          }
        }
        h = hn;
        if (p.cell == kCellLstm) c = cn;
        for (int64_t j = 0; j < H; ++j) o.y[yi(p, t, d, b, j)] = h[j];
      }
      for (int64_t j = 0; j < H; ++j) {
        o.y_h[si(p, d, b, j)] = h[j];
        o.y_c[si(p, d, b, j)] = c[j];
      }
    }
  }
  return o;
}

Problem make_problem(int cell, int dirs, int reverse, int layout, unsigned seed) {
  Problem pr;
  RecurrentParams& p = pr.p;
  p.cell = cell;
  p.seq_length = 5;
  p.batch = 3;
  p.input_size = 4;
  p.hidden = 3;
  p.num_directions = dirs;
  p.reverse = reverse;
  p.layout = layout;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-0.6, 0.6);
  auto fill = [&](std::vector<double>& v, int64_t n) {
    v.resize(static_cast<size_t>(n));
    for (auto& e : v) e = u(rng);
  };
  const int64_t G = recurrent_gates(cell), H = p.hidden;
  fill(pr.x, p.seq_length * p.batch * p.input_size);
  fill(pr.w, dirs * G * H * p.input_size);
  fill(pr.r, dirs * G * H * H);
  fill(pr.b, dirs * 2 * G * H);
  fill(pr.h0, dirs * p.batch * H);
  fill(pr.c0, dirs * p.batch * H);
  fill(pr.peep, dirs * 3 * H);
  pr.lens = {5, 2, 0};
  for (auto& a : p.act) a = {kRecTanh, 0, 0};
  return pr;
}

template <typename T>
std::vector<T> cast(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

// Runs the kernel on pr (in T) and compares every requested output with the reference.
template <typename T>
void check(const Problem& pr, bool want_y = true, bool want_h = true, bool want_c = true) {
  const RecurrentParams& p = pr.p;
  const Outputs want = reference(pr);
  const auto x = cast<T>(pr.x), w = cast<T>(pr.w), r = cast<T>(pr.r), b = cast<T>(pr.b);
  const auto h0 = cast<T>(pr.h0), c0 = cast<T>(pr.c0), peep = cast<T>(pr.peep);
  std::vector<T> y(want.y.size(), T(-7)), y_h(want.y_h.size(), T(-7)), y_c(want.y_c.size(), T(-7));
  std::vector<T> scratch(static_cast<size_t>(recurrent_scratch_elems(p)), T(12345));
  const bool lstm = p.cell == kCellLstm;
  recurrent_ref<T, GemmTile<6, 16>>(
      p, x.data(), w.data(), r.data(), pr.has_b ? b.data() : nullptr,
      pr.has_lens ? pr.lens.data() : nullptr, pr.has_h0 ? h0.data() : nullptr,
      lstm && pr.has_c0 ? c0.data() : nullptr, lstm && pr.has_peep ? peep.data() : nullptr,
      want_y ? y.data() : nullptr, want_h ? y_h.data() : nullptr,
      lstm && want_c ? y_c.data() : nullptr, scratch.data());
  const double tol = std::is_same<T, float>::value ? 2e-5 : 1e-12;
  if (want_y)
    for (size_t i = 0; i < y.size(); ++i) REQUIRE(double(y[i]) == Approx(want.y[i]).margin(tol));
  if (want_h)
    for (size_t i = 0; i < y_h.size(); ++i)
      REQUIRE(double(y_h[i]) == Approx(want.y_h[i]).margin(tol));
  if (lstm && want_c)
    for (size_t i = 0; i < y_c.size(); ++i)
      REQUIRE(double(y_c[i]) == Approx(want.y_c[i]).margin(tol));
}

const char* kCells[] = {"RNN", "GRU", "LSTM"};

}  // namespace

TEST_CASE("recurrent kernels: every direction and layout, with and without sequence_lens",
          "[recurrent-kernels]") {
  for (int cell : {kCellRnn, kCellGru, kCellLstm})
    for (int dirs_rev : {0, 1, 2})  // forward, reverse, bidirectional
      for (int layout : {0, 1})
        for (int lens : {0, 1})
          for (int lbr : {0, 1}) {
            if (cell != kCellGru && lbr) continue;
            Problem pr = make_problem(cell, dirs_rev == 2 ? 2 : 1, dirs_rev == 1, layout,
                                      static_cast<unsigned>(cell * 100 + dirs_rev * 10 + layout));
            pr.has_lens = lens;
            pr.p.linear_before_reset = lbr;
            if (cell == kCellGru) {
              pr.p.act[0] = pr.p.act[2] = {kRecSigmoid, 0, 0};
            } else if (cell == kCellLstm) {
              pr.p.act[0] = pr.p.act[3] = {kRecSigmoid, 0, 0};
            }
            INFO(kCells[cell] << " direction " << dirs_rev << " layout " << layout << " lens "
                              << lens << " lbr " << lbr);
            check<float>(pr);
            check<double>(pr);
          }
}

TEST_CASE("recurrent kernels: every activation with alpha and beta, and clip",
          "[recurrent-kernels]") {
  const RecurrentAct acts[] = {{kRecRelu, 0, 0},
                               {kRecTanh, 0, 0},
                               {kRecSigmoid, 0, 0},
                               {kRecAffine, 0.7f, 0.1f},
                               {kRecLeakyRelu, 0.2f, 0},
                               {kRecThresholdedRelu, 0.1f, 0},
                               {kRecScaledTanh, 1.3f, 0.8f},
                               {kRecHardSigmoid, 0.3f, 0.4f},
                               {kRecElu, 0.9f, 0},
                               {kRecSoftsign, 0, 0},
                               {kRecSoftplus, 0, 0}};
  const int n = sizeof(acts) / sizeof(acts[0]);
  for (int cell : {kCellRnn, kCellGru, kCellLstm})
    for (int k = 0; k < n; ++k)
      for (float clip : {0.0f, 0.5f}) {
        Problem pr = make_problem(cell, 2, 0, k % 2, static_cast<unsigned>(k + 7 * cell));
        for (int i = 0; i < 6; ++i) pr.p.act[i] = acts[(k + i) % n];
        pr.p.clip = clip;
        INFO(kCells[cell] << " activations from " << k << " clip " << clip);
        check<double>(pr);
        check<float>(pr);
      }
}

TEST_CASE("LSTM kernel: peepholes, input_forget, initial states optional", "[recurrent-kernels]") {
  for (int input_forget : {0, 1})
    for (int peep : {0, 1})
      for (int init : {0, 1}) {
        Problem pr = make_problem(kCellLstm, 2, 0, 0,
                                  static_cast<unsigned>(input_forget * 4 + peep * 2 + init));
        pr.p.act[0] = pr.p.act[3] = {kRecSigmoid, 0, 0};
        pr.p.input_forget = input_forget;
        pr.has_peep = peep;
        pr.has_h0 = pr.has_c0 = init;
        pr.has_b = init;
        INFO("input_forget " << input_forget << " peepholes " << peep << " initial states "
                             << init);
        check<double>(pr);
        check<float>(pr);
      }
}

TEST_CASE("recurrent kernels: any subset of outputs", "[recurrent-kernels]") {
  for (int cell : {kCellRnn, kCellGru, kCellLstm})
    for (int mask = 0; mask < 8; ++mask) {
      Problem pr = make_problem(cell, 1, 1, 1, static_cast<unsigned>(mask));
      check<float>(pr, mask & 1, mask & 2, mask & 4);
    }
}

TEST_CASE("recurrent kernels: hand-computed RNN steps and sequence_lens semantics",
          "[recurrent-kernels]") {
  // Hidden 1, input 1, Relu: h_t = relu(2 x_t + 0.5 h_{t-1} + 1); lens {3, 1}, reverse.
  RecurrentParams p{};
  p.cell = kCellRnn;
  p.seq_length = 3;
  p.batch = 2;
  p.input_size = 1;
  p.hidden = 1;
  p.num_directions = 1;
  p.reverse = 1;
  p.act[0] = {kRecRelu, 0, 0};
  const float x[] = {1, 10, 2, 20, 3, 30};  // [t, b]
  const float w[] = {2}, r[] = {0.5f}, b[] = {1, 0};
  const std::int32_t lens[] = {3, 1};
  float y[6], y_h[2];
  std::vector<float> scratch(static_cast<size_t>(recurrent_scratch_elems(p)));
  rnn_ref<float, GemmTile<6, 16>>(p, x, w, r, b, lens, static_cast<const float*>(nullptr), y, y_h,
                                  scratch.data());
  // Batch 0 walks t = 2, 1, 0: h = 7, then 2*2 + 3.5 + 1 = 8.5, then 2 + 4.25 + 1 = 7.25.
  // Batch 1 has one step (t = 0): h = 21; its t = 1, 2 outputs are zero.
  CHECK(std::vector<float>(y, y + 6) == std::vector<float>{7.25f, 21, 8.5f, 0, 7, 0});
  CHECK(std::vector<float>(y_h, y_h + 2) == std::vector<float>{7.25f, 21});
}
