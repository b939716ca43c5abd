// com.microsoft DynamicQuantizeLSTM as ONNX Runtime's CPU kernel computes it
// (contrib_ops/cpu/quantization/dynamic_quantize_lstm.cc on providers/cpu/rnn's
// UniDirectionalLstm and rnn_helpers' quantized ComputeGemm), in integers:
//   - per direction, the rows of X the steps read (the first max(sequence_lens) steps, all of X
//     without sequence_lens) are quantized together to uint8 as DynamicQuantizeLinear does
//     (one scale and zero point over them: min/max including 0, scale (max - min) / 255,
//     round half to even), and multiplied by W (uint8 or int8, [K, 4H] per direction) with int32
//     accumulation: iofc = float(acc) * (x_scale * w_scale[col]);
//   - at every step the batch's previous hidden states are quantized the same way, all rows
//     together (ORT with one intra-op thread: more threads split the batch), and
//     iofc = float(acc) * (h_scale * r_scale[col]) + iofc, a product and then a sum as MLAS's
//     output processor rounds them;
//   - the gates in float in ORT's order: (iofc [+ P * c]) + (Wb + Rb), clip, activation;
//     c = c_prev * f + i * g; h = o * h_act(c).
// Weight zero points: ORT uses the direction's first value for all columns (it requires int8
// ones to be 0 and uint8 ones to be equal); scales are per direction or per column (4H).
// sequence_lens as ORT: rows past their length give zeros in Y; Y_h / Y_c of a row of length
// 0 are zeros. A finished row's hidden state still enters the step's quantization range: as the
// zeros ORT writes into Y when Y is an output, else as its last state (ORT then computes in
// Y_h's buffer; for a row of length 0 that buffer holds whatever was there, here the initial
// state). The reverse direction reads each row backward from its own last step.
// A kernel rather than an expansion into DynamicQuantizeLinear, MatMulInteger, Cast, Mul and an
// unrolled recurrence: that needs a copy of the step (some 20 nodes) per time step and
// direction, and ORT's sequence_lens rules above would need slicing and masking at run time.
// The kernel runs the QDQ path's own integer pieces (dynamic_quantize_linear_ref,
// matmul_integer_ref) in one loop. Checked against onnxruntime-node by CTest contrib_ort.
#ifndef ONNXC_QRECURRENT_H
#define ONNXC_QRECURRENT_H

#include <cstdint>

#include "onnxc/quantize.h"
#include "onnxc/recurrent.h"

namespace onnxc {

struct QuantLstmParams {
  RecurrentParams p;  // cell kCellLstm, layout 0
  index_t w_scales;   // per direction: 1 or 4 * hidden
  index_t r_scales;
  int y_is_output;  // whether Y is written (finished rows then hold zeros, see above)
};

// Bytes of the kernel's working memory: the quantized X rows and hidden states, the int32
// products, the gate pre-activations of every step, the states, the scale multipliers and the
// fused bias.
constexpr index_t quant_lstm_scratch_bytes(const QuantLstmParams& q) {
  const RecurrentParams& p = q.p;
  const index_t rows = p.seq_length * p.batch, gh = 4 * p.hidden;
  const index_t bytes = rows * p.input_size + p.batch * p.hidden;  // uint8
  return (bytes + 15) / 16 * 16 + rows * gh * 8 + 3 * p.batch * p.hidden * 4 + 2 * gh * 4;
}

namespace qlstm_detail {

struct Scratch {
  std::uint8_t* xq;   // [rows, input]
  std::uint8_t* hq;   // [batch, hidden]
  std::int32_t* acc;  // [rows, 4H]
  float* iofc;        // [rows, 4H]: X's rows (time, batch entry)
  float* h;           // [batch, hidden]: the states the next step quantizes
  float* h_last;      // [batch, hidden]: each row's latest state (Y_h)
  float* c;           // [batch, hidden]
  float* mult;        // [4H]: a_scale * w_scale
  float* fused_bias;  // [4H]: Wb + Rb, summed once as ORT does
};

inline Scratch carve(const QuantLstmParams& q, void* scratch) {
  const RecurrentParams& p = q.p;
  const index_t rows = p.seq_length * p.batch, gh = 4 * p.hidden, bh = p.batch * p.hidden;
  Scratch s{};
  auto* bytes = static_cast<std::uint8_t*>(scratch);
  s.xq = bytes;
  s.hq = bytes + rows * p.input_size;
  bytes += (rows * p.input_size + bh + 15) / 16 * 16;
  s.acc = reinterpret_cast<std::int32_t*>(bytes);
  s.iofc = reinterpret_cast<float*>(s.acc + rows * gh);
  s.h = s.iofc + rows * gh;
  s.h_last = s.h + bh;
  s.c = s.h_last + bh;
  s.mult = s.c + bh;
  s.fused_bias = s.mult + gh;
  return s;
}

// Quantizes a ([m, k] floats) as DynamicQuantizeLinear into q and multiplies it by w ([k, n],
// one zero point) through MatMulInteger's kernel: s.acc = (q - q_zp) (w - w_zp) in int32,
// s.mult[col] = a_scale * scale[col] (scales: 1 or n).
template <typename W>
inline void quantized_product(const float* a, index_t m, index_t k, const W* w, W w_zp,
                              const float* scale, index_t scales, index_t n, std::uint8_t* q,
                              const Scratch& s) {
  float a_scale = 1.0f;
  std::uint8_t a_zp = 0;
  dynamic_quantize_linear_ref(a, q, &a_scale, &a_zp, m * k);
  QuantMatMulParams mp{};
  mp.mm.batch_count = 1;
  mp.mm.m = m, mp.mm.n = n, mp.mm.k = k;
  mp.a_axis = mp.b_axis = mp.y_axis = QuantAxis::kTensor;
  matmul_integer_ref(mp, q, w, &a_zp, &w_zp, s.acc);
  for (index_t j = 0; j < n; ++j) s.mult[j] = a_scale * scale[scales == 1 ? 0 : j];
}

// One row's gates: g holds the row's iofc (i, o, f, c pre-activations), bias the fused Wb + Rb
// (or null), peep P's i, o, f (or null); updates c and writes h.
inline void lstm_gates(const RecurrentParams& p, const RecurrentAct* act, const float* g,
                       const float* bias, const float* peep, float* c, float* h) {
  using recurrent_detail::clip;
  const index_t H = p.hidden;
  // gate: 0 i, 1 o, 2 f, 3 c in iofc; peep_row: P's row (i 0, o 1, f 2), -1 without a peephole.
  auto pre = [&](int gate, int peep_row, index_t j) {
    float v = g[gate * H + j];
    if (peep && peep_row >= 0) v += c[j] * peep[peep_row * H + j];
    if (bias) v = v + bias[gate * H + j];
    return clip(v, p.clip);
  };
  for (index_t j = 0; j < H; ++j) {
    const float it = recurrent_activate(act[0], pre(0, 0, j));
    const float ft = p.input_forget ? 1.0f - it : recurrent_activate(act[0], pre(2, 2, j));
    const float gt = recurrent_activate(act[1], pre(3, -1, j));
    c[j] = c[j] * ft + it * gt;
  }
  for (index_t j = 0; j < H; ++j) {  // the output gate's peephole reads the new cell state
    const float ot = recurrent_activate(act[0], pre(1, 1, j));
    h[j] = recurrent_activate(act[2], c[j]) * ot;
  }
}

}  // namespace qlstm_detail

// x [seq, batch, input] float; w [dirs, input, 4H] and r [dirs, hidden, 4H] (uint8 or int8);
// bias [dirs, 8H] or null; seq_lens [batch] or null; init_h / init_c [dirs, batch, hidden] or
// null; peep [dirs, 3H] or null; w_scale / w_zp [dirs, w_scales], r_scale / r_zp
// [dirs, r_scales]; outputs y [seq, dirs, batch, hidden], y_h / y_c [dirs, batch, hidden], each
// may be null; scratch of quant_lstm_scratch_bytes(q) bytes.
template <typename W, typename R>
inline void dynamic_quantize_lstm_ref(const QuantLstmParams& q, const float* x, const W* w,
                                      const R* r, const float* bias, const std::int32_t* seq_lens,
                                      const float* init_h, const float* init_c, const float* peep,
                                      const float* w_scale, const W* w_zp, const float* r_scale,
                                      const R* r_zp, float* y, float* y_h, float* y_c,
                                      void* scratch) {
  using namespace qlstm_detail;
  const RecurrentParams& p = q.p;
  const index_t H = p.hidden, B = p.batch, S = p.seq_length, I = p.input_size, GH = 4 * H;
  const Scratch s = carve(q, scratch);
  auto len = [&](index_t b) { return recurrent_detail::length(seq_lens, b, S); };
  index_t steps = 0;  // ORT runs max(sequence_lens) steps and quantizes X's rows up to there
  for (index_t b = 0; b < B; ++b) steps = len(b) > steps ? len(b) : steps;
  if (y)
    for (index_t i = 0; i < S * p.num_directions * B * H; ++i) y[i] = 0.0f;
  for (int d = 0; d < p.num_directions; ++d) {
    const bool reverse = p.num_directions == 2 ? d == 1 : p.reverse != 0;
    const float* fused_bias = bias ? s.fused_bias : nullptr;
    for (index_t j = 0; bias && j < GH; ++j)
      s.fused_bias[j] = bias[d * 2 * GH + j] + bias[d * 2 * GH + GH + j];
    // X's rows in X's order: ORT's reversed copy holds the same rows (so the same range), and
    // each row's product depends on that row and the shared quantization only.
    quantized_product(x, steps * B, I, w + d * I * GH, w_zp[d * q.w_scales],
                      w_scale + d * q.w_scales, q.w_scales, GH, s.xq, s);
    for (index_t i = 0; i < steps * B * GH; ++i)
      s.iofc[i] = static_cast<float>(s.acc[i]) * s.mult[i % GH];
    for (index_t i = 0; i < B * H; ++i) {
      s.h[i] = s.h_last[i] = init_h ? init_h[d * B * H + i] : 0.0f;
      s.c[i] = init_c ? init_c[d * B * H + i] : 0.0f;
    }
    for (index_t step = 0; step < steps; ++step) {
      quantized_product(s.h, B, H, r + d * H * GH, r_zp[d * q.r_scales], r_scale + d * q.r_scales,
                        q.r_scales, GH, s.hq, s);
      for (index_t b = 0; b < B; ++b) {
        float* hb = s.h + b * H;
        if (step >= len(b)) {  // finished: Y's zeros, or the last state, feed the next step
          if (q.y_is_output)
            for (index_t j = 0; j < H; ++j) hb[j] = 0.0f;
          continue;
        }
        const index_t t = reverse ? len(b) - 1 - step : step;
        float* g = s.iofc + (t * B + b) * GH;
        for (index_t j = 0; j < GH; ++j)  // MLAS: the product rounded, then the sum
          g[j] = static_cast<float>(s.acc[b * GH + j]) * s.mult[j] + g[j];
        lstm_gates(p, p.act + d * 3, g, fused_bias, peep ? peep + d * 3 * H : nullptr, s.c + b * H,
                   hb);
        for (index_t j = 0; j < H; ++j) s.h_last[b * H + j] = hb[j];
        if (y)
          for (index_t j = 0; j < H; ++j) y[((t * p.num_directions + d) * B + b) * H + j] = hb[j];
      }
    }
    for (index_t b = 0; b < B; ++b)  // a row of length 0 ends in zeros, as in ORT
      for (index_t j = 0; j < H; ++j) {
        const index_t o = (d * B + b) * H + j;
        if (y_h) y_h[o] = len(b) ? s.h_last[b * H + j] : 0.0f;
        if (y_c) y_c[o] = len(b) ? s.c[b * H + j] : 0.0f;
      }
  }
}

}  // namespace onnxc

#endif  // ONNXC_QRECURRENT_H
