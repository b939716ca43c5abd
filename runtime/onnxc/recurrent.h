// RNN, GRU and LSTM (ai.onnx, every opset): one layer, forward / reverse / bidirectional,
// layout 0 (X [seq, batch, input]) and 1 (X [batch, seq, input]), sequence_lens, initial states,
// clip, per-direction activations with alpha/beta, LSTM peepholes and input_forget, GRU
// linear_before_reset; every output optional.
//   rnn_ref<T>   Ht = f(Xt Wi^T + Ht-1 Ri^T + Wbi + Rbi)
//   gru_ref<T>   gates z, r, h in W/R/B order; f = gate activation, g = candidate activation
//   lstm_ref<T>  gates i, o, f, c in W/R/B order; peepholes P in order i, o, f
// The input projections X W^T + Wb of every time step are computed by one GEMM per direction;
// each step then runs a GEMM of the previous hidden states by R^T (+ Rb) and the gate math.
// Working memory (gate pre-activations and states) is the caller's scratch buffer of
// recurrent_scratch_elems(p) elements of T. Batch entries whose sequence_lens is shorter than
// seq_length produce zeros in Y past their length; Y_h / Y_c hold the state after their last
// step (the initial state when the length is 0). The reverse direction walks each batch entry
// from its own last valid step down to step 0.
#ifndef ONNXC_RECURRENT_H
#define ONNXC_RECURRENT_H

#include <cmath>
#include <cstdint>

#include "onnxc/base.h"
#include "onnxc/gemm.h"
#include "onnxc/vmath.h"

namespace onnxc {

// The activation functions the recurrent ops accept (the spec's list).
enum RecurrentActivation : int {
  kRecRelu = 0,
  kRecTanh,
  kRecSigmoid,
  kRecAffine,           // alpha * x + beta
  kRecLeakyRelu,        // x >= 0 ? x : alpha * x
  kRecThresholdedRelu,  // x >= alpha ? x : 0
  kRecScaledTanh,       // alpha * tanh(beta * x)
  kRecHardSigmoid,      // min(max(alpha * x + beta, 0), 1)
  kRecElu,              // x >= 0 ? x : alpha * (e^x - 1)
  kRecSoftsign,         // x / (1 + |x|)
  kRecSoftplus,         // log(1 + e^x)
};

struct RecurrentAct {
  int kind;  // a RecurrentActivation
  float alpha, beta;
};

enum RecurrentCell : int { kCellRnn = 0, kCellGru = 1, kCellLstm = 2 };

struct RecurrentParams {
  int cell;  // a RecurrentCell
  index_t seq_length, batch, input_size, hidden;
  int num_directions;       // 1 or 2 (bidirectional: direction 0 forward, 1 reverse)
  int reverse;              // num_directions 1: the only direction runs backward in time
  int layout;               // 0: [seq, batch, ...], [dir, batch, hidden]; 1: batch first
  float clip;               // > 0: pre-activations are clipped to [-clip, clip]
  int input_forget;         // LSTM: forget gate = 1 - input gate
  int linear_before_reset;  // GRU: r * (Ht-1 Rh^T + Rbh) instead of (r * Ht-1) Rh^T + Rbh
  // Per direction: RNN f; GRU f, g; LSTM f, g, h. Direction d's start at act[d * count].
  RecurrentAct act[6];
};

// The number of gates: 1 (RNN), 3 (GRU), 4 (LSTM).
constexpr index_t recurrent_gates(int cell) {
  return cell == kCellRnn ? 1 : cell == kCellGru ? 3 : 4;
}

// Elements of the GEMMs' packed B panels (see gemm_workspace_bytes), as deep as the larger of
// the two projections' depths allows.
constexpr index_t recurrent_panel_elems(const RecurrentParams& p) {
  const index_t depth = p.input_size > p.hidden ? p.input_size : p.hidden;
  return (depth < 256 ? depth : 256) * 32;
}

// Elements of T the kernels need as scratch: the input projections of every step, the
// recurrent projections of one step, the hidden (and cell / reset-gated) states and the GEMM
// panels.
constexpr index_t recurrent_scratch_elems(const RecurrentParams& p) {
  const index_t gh = recurrent_gates(p.cell) * p.hidden;
  return p.seq_length * p.batch * gh + p.batch * gh + 3 * p.batch * p.hidden +
         recurrent_panel_elems(p);
}

template <typename T>
inline T recurrent_activate(const RecurrentAct& a, T x) {
  const T alpha = static_cast<T>(a.alpha), beta = static_cast<T>(a.beta);
  switch (a.kind) {
    case kRecRelu:
      return x > T(0) ? x : T(0);
    case kRecTanh:  // tanh_of and sigmoid_of: as the Tanh and Sigmoid ops compute them
      return tanh_of(x);
    case kRecSigmoid:
      return sigmoid_of(x);
    case kRecAffine:
      return alpha * x + beta;
    case kRecLeakyRelu:
      return x >= T(0) ? x : alpha * x;
    case kRecThresholdedRelu:
      return x >= alpha ? x : T(0);
    case kRecScaledTanh:
      return alpha * tanh_of(beta * x);
    case kRecHardSigmoid: {
      const T v = alpha * x + beta;
      return v < T(0) ? T(0) : (v > T(1) ? T(1) : v);
    }
    case kRecElu:
      return x >= T(0) ? x : alpha * (std::exp(x) - T(1));
    case kRecSoftsign:
      return x / (T(1) + std::fabs(x));
    case kRecSoftplus:  // log(1 + e^x) = max(x, 0) + log1p(e^-|x|), without overflow
      return (x > T(0) ? x : T(0)) + std::log1p(std::exp(-std::fabs(x)));
    default:
      return x;
  }
}

// x[0..n) = a(x[0..n)), the activation chosen once for the span: a loop per kind, which
// compilers vectorize for the polynomial Sigmoid and Tanh (per element, the switch kept an LSTM
// step's gates scalar: half of its time on Zen 3).
template <typename T>
inline void recurrent_activate_loops(const RecurrentAct& a, T* x, index_t n) {
  switch (a.kind) {
    case kRecTanh:
      for (index_t i = 0; i < n; ++i) x[i] = tanh_of(x[i]);
      return;
    case kRecSigmoid:
      for (index_t i = 0; i < n; ++i) x[i] = sigmoid_of(x[i]);
      return;
    case kRecRelu:
      for (index_t i = 0; i < n; ++i) x[i] = x[i] > T(0) ? x[i] : T(0);
      return;
    default:
      for (index_t i = 0; i < n; ++i) x[i] = recurrent_activate(a, x[i]);
  }
}
// The loops in the CPU's ISA copy (in_isa_copy, onnxc/base.h): at the x86-64 baseline and -O2
// they stayed scalar, 29% of the default target's lstm model against 3% at native on Zen 3.
template <typename T>
inline void recurrent_activate_span(const RecurrentAct& a, T* x, index_t n) {
  ONNXC_IN_ISA_COPY(recurrent_activate_loops(a, x, n));
}

namespace recurrent_detail {

template <typename T>
inline T clip(T v, T c) {
  if (c > T(0)) v = v < -c ? -c : (v > c ? c : v);
  return v;
}

// Offsets (in elements) of [t, dir, b, :] in Y and of [dir, b, :] in Y_h, Y_c and the initial
// states, by layout.
inline index_t y_offset(const RecurrentParams& p, index_t t, index_t d, index_t b) {
  return (p.layout == 0 ? (t * p.num_directions + d) * p.batch + b
                        : (b * p.seq_length + t) * p.num_directions + d) *
         p.hidden;
}
inline index_t state_offset(const RecurrentParams& p, index_t d, index_t b) {
  return (p.layout == 0 ? d * p.batch + b : b * p.num_directions + d) * p.hidden;
}

// Batch entry b's sequence length, clamped to [0, seq_length].
inline index_t length(const std::int32_t* seq_lens, index_t b, index_t seq_length) {
  if (!seq_lens) return seq_length;
  const index_t len = seq_lens[b];
  return len < 0 ? 0 : (len > seq_length ? seq_length : len);
}

// x[0..n) clipped to [-cl, cl] where cl > 0 (the ops' clip attribute; 0: none).
template <typename T>
inline void clip_span(T* x, index_t n, T cl) {
  if (cl > T(0))
    for (index_t j = 0; j < n; ++j) x[j] = clip(x[j], cl);
}

// x[0..n) = a(clip(x[0..n) + xg[0..n))): a cell's gates from the two products, span by span.
template <typename T>
inline void gates_span(const RecurrentAct& a, const T* xg, T* x, index_t n, T cl) {
  for (index_t j = 0; j < n; ++j) x[j] = xg[j] + x[j];
  clip_span(x, n, cl);
  recurrent_activate_span(a, x, n);
}

// One LSTM step for one batch entry, gate by gate over the hidden units so that each loop
// vectorizes: hg [i, o, f, c] (ONNX's gate order) holds Ht-1 R^T + Rb and becomes the activated
// gates. Peepholes pd [i, o, f] (or null) add P times the cell state to a gate before its clip:
// the old state to i and f, the new one to o (so o is activated last).
template <typename T>
inline void lstm_cell(const RecurrentAct* act, const T* xg, T* hg, const T* pd, T* cb, T* hb, T* yo,
                      index_t H, T cl, bool input_forget) {
  T* const it = hg;
  T* const ot = hg + H;
  T* const ft = hg + 2 * H;
  T* const ct = hg + 3 * H;
  for (index_t j = 0; j < 4 * H; ++j) hg[j] = xg[j] + hg[j];
  if (pd) {
    for (index_t j = 0; j < H; ++j) {
      it[j] += pd[j] * cb[j];
      ft[j] += pd[2 * H + j] * cb[j];
    }
    clip_span(it, H, cl);
    clip_span(ft, 2 * H, cl);  // f and c
  } else {
    clip_span(hg, 4 * H, cl);
  }
  // i, with o and f where they are ready, in one span (f is 1 - i with input_forget).
  recurrent_activate_span(act[0], hg, pd ? H : input_forget ? 2 * H : 3 * H);
  if (pd && !input_forget) recurrent_activate_span(act[0], ft, H);
  recurrent_activate_span(act[1], ct, H);
  if (input_forget)
    for (index_t j = 0; j < H; ++j) ft[j] = T(1) - it[j];
  for (index_t j = 0; j < H; ++j) {
    const T c_new = ft[j] * cb[j] + it[j] * ct[j];
    cb[j] = c_new;
    hb[j] = c_new;
  }
  if (pd) {
    for (index_t j = 0; j < H; ++j) ot[j] = clip(ot[j] + pd[H + j] * cb[j], cl);
    recurrent_activate_span(act[0], ot, H);
  }
  recurrent_activate_span(act[2], hb, H);
  for (index_t j = 0; j < H; ++j) hb[j] = ot[j] * hb[j];
  if (yo)
    for (index_t j = 0; j < H; ++j) yo[j] = hb[j];
}

// Computes the per-step products (states times R^T) whole; with --threads,
// onnxc/kernels_parallel.h's SplitProduct computes them in parts.
template <class Tile>
struct WholeProduct {
  template <typename T>
  void operator()(const GemmParams& p, const T* a, const T* b, const T* c, T* y,
                  const Workspace& ws) const {
    gemm<Tile>(p, a, b, c, y, ws);
  }
};

}  // namespace recurrent_detail

// All three cells. Shapes (layout 0; layout 1 swaps the seq/dir axis with batch as the spec
// says): x [seq, batch, input], w [dirs, G*hidden, input], r [dirs, G*hidden, hidden],
// b [dirs, 2*G*hidden] or null, seq_lens [batch] or null, init_h / init_c [dirs, batch, hidden]
// or null, peep [dirs, 3*hidden] or null; outputs y [seq, dirs, batch, hidden], y_h / y_c
// [dirs, batch, hidden], each may be null. `product` computes each step's product by R^T.
template <typename T, class Tile, class Product = recurrent_detail::WholeProduct<Tile>>
inline void recurrent_ref(const RecurrentParams& p, const T* x, const T* w, const T* r,
                          const T* bias, const std::int32_t* seq_lens, const T* init_h,
                          const T* init_c, const T* peep, T* y, T* y_h, T* y_c, T* scratch,
                          const Product& product = Product{}) {
  using recurrent_detail::clip;
  const index_t H = p.hidden, B = p.batch, S = p.seq_length;
  const index_t G = recurrent_gates(p.cell), GH = G * H;
  const int acts = p.cell == kCellRnn ? 1 : p.cell == kCellGru ? 2 : 3;
  const T cl = static_cast<T>(p.clip);
  T* const xw = scratch;          // [rows of x, GH]: X W^T + Wb
  T* const hr = xw + S * B * GH;  // [B, GH]: Ht-1 R^T + Rb
  T* const h = hr + B * GH;       // [B, H]
  T* const c = h + B * H;         // [B, H] LSTM cell state
  T* const rh = c + B * H;        // [B, H] GRU r * Ht-1
  const Workspace ws = {rh + B * H, recurrent_panel_elems(p) * static_cast<index_t>(sizeof(T))};
  if (y)
    for (index_t i = 0; i < S * p.num_directions * B * H; ++i) y[i] = T(0);
  for (int d = 0; d < p.num_directions; ++d) {
    const bool reverse = p.num_directions == 2 ? d == 1 : p.reverse != 0;
    const RecurrentAct* act = p.act + d * acts;
    const T* wd = w + d * GH * p.input_size;
    const T* rd = r + d * GH * H;
    const T* wb = bias ? bias + d * 2 * GH : nullptr;
    const T* rb = bias ? wb + GH : nullptr;
    const T* pd = peep ? peep + d * 3 * H : nullptr;
    // Input projections of all steps; rows follow x's own (t, b) or (b, t) order.
    const GemmParams xp = {S * B,        GH, p.input_size, 0,   1, p.input_size,
                           p.input_size, GH, 1.0,          1.0, 0, 1};
    gemm<Tile>(xp, x, wd, wb, xw, ws);
    for (index_t b = 0; b < B; ++b)
      for (index_t j = 0; j < H; ++j) {
        const index_t so = recurrent_detail::state_offset(p, d, b) + j;
        h[b * H + j] = init_h ? init_h[so] : T(0);
        c[b * H + j] = init_c ? init_c[so] : T(0);
        rh[b * H + j] = T(0);
      }
    // GRU without linear_before_reset multiplies Rh by the reset-gated state: the first GEMM
    // covers the z and r gates only.
    const bool gru_split = p.cell == kCellGru && !p.linear_before_reset;
    const GemmParams rp = {B, gru_split ? 2 * H : GH, H, 0, 1, H, H, GH, 1.0f, 1.0f, 0, 1};
    for (index_t s = 0; s < S; ++s) {
      product(rp, h, rd, rb, hr, ws);
      for (index_t b = 0; b < B; ++b) {
        const index_t len = recurrent_detail::length(seq_lens, b, S);
        if (s >= len) continue;
        const index_t t = reverse ? len - 1 - s : s;
        const T* xg = xw + (p.layout == 0 ? t * B + b : b * S + t) * GH;
        T* hg = hr + b * GH;
        T* hb = h + b * H;
        T* cb = c + b * H;
        T* yo = y ? y + recurrent_detail::y_offset(p, t, d, b) : nullptr;
        if (p.cell == kCellRnn) {
          for (index_t j = 0; j < H; ++j) hb[j] = hg[j];
          recurrent_detail::gates_span(act[0], xg, hb, H, cl);
          if (yo)
            for (index_t j = 0; j < H; ++j) yo[j] = hb[j];
        } else if (p.cell == kCellLstm) {
          recurrent_detail::lstm_cell(act, xg, hg, pd, cb, hb, yo, H, cl, p.input_forget != 0);
        } else {  // GRU: z and r now, the candidate after the reset-gated GEMM below
          recurrent_detail::gates_span(act[0], xg, hg, 2 * H, cl);
          if (gru_split)
            for (index_t j = 0; j < H; ++j) rh[b * H + j] = hg[H + j] * hb[j];
        }
      }
      if (p.cell != kCellGru) continue;
      if (gru_split) {  // hr[:, 2H:3H] = (r * Ht-1) Rh^T + Rbh
        const GemmParams cp = {B, H, H, 0, 1, H, H, GH, 1.0f, 1.0f, 0, 1};
        product(cp, rh, rd + 2 * H * H, rb ? rb + 2 * H : nullptr, hr + 2 * H, ws);
      }
      for (index_t b = 0; b < B; ++b) {
        const index_t len = recurrent_detail::length(seq_lens, b, S);
        if (s >= len) continue;
        const index_t t = reverse ? len - 1 - s : s;
        const T* xg = xw + (p.layout == 0 ? t * B + b : b * S + t) * GH;
        const T* hg = hr + b * GH;
        T* hb = h + b * H;
        T* yo = y ? y + recurrent_detail::y_offset(p, t, d, b) : nullptr;
        for (index_t j = 0; j < H; ++j) {
          const T zt = hg[j], rt = hg[H + j];
          // Without a bias the GEMM's C is null; with linear_before_reset Rbh sits inside.
          const T cand =
              gru_split ? xg[2 * H + j] + hg[2 * H + j] : xg[2 * H + j] + rt * hg[2 * H + j];
          const T ht = recurrent_activate(act[1], clip(cand, cl));
          hb[j] = (T(1) - zt) * ht + zt * hb[j];
          if (yo) yo[j] = hb[j];
        }
      }
    }
    for (index_t b = 0; b < B; ++b)
      for (index_t j = 0; j < H; ++j) {
        const index_t so = recurrent_detail::state_offset(p, d, b) + j;
        if (y_h) y_h[so] = h[b * H + j];
        if (y_c) y_c[so] = c[b * H + j];
      }
  }
}

template <typename T, class Tile>
inline void rnn_ref(const RecurrentParams& p, const T* x, const T* w, const T* r, const T* b,
                    const std::int32_t* seq_lens, const T* init_h, T* y, T* y_h, T* scratch) {
  recurrent_ref<T, Tile>(p, x, w, r, b, seq_lens, init_h, nullptr, nullptr, y, y_h, nullptr,
                         scratch);
}

template <typename T, class Tile>
inline void gru_ref(const RecurrentParams& p, const T* x, const T* w, const T* r, const T* b,
                    const std::int32_t* seq_lens, const T* init_h, T* y, T* y_h, T* scratch) {
  recurrent_ref<T, Tile>(p, x, w, r, b, seq_lens, init_h, nullptr, nullptr, y, y_h, nullptr,
                         scratch);
}

template <typename T, class Tile>
inline void lstm_ref(const RecurrentParams& p, const T* x, const T* w, const T* r, const T* b,
                     const std::int32_t* seq_lens, const T* init_h, const T* init_c, const T* peep,
                     T* y, T* y_h, T* y_c, T* scratch) {
  recurrent_ref<T, Tile>(p, x, w, r, b, seq_lens, init_h, init_c, peep, y, y_h, y_c, scratch);
}

// The f32_recurrent row of the kernel-variant table (onnxc/variants.h): the float kernel under
// the table's name, plain or (with onnxc/kernels_parallel.h) with each step's product in parts.
template <class Tile, class... Args>
inline void f32_recurrent_ref__scalar(const RecurrentParams& p, Args&&... args) {
  recurrent_ref<float, Tile>(p, static_cast<Args&&>(args)...);
}

}  // namespace onnxc

#endif  // ONNXC_RECURRENT_H
