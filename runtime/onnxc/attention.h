// The attention family of ai.onnx: scaled dot-product attention (Attention 23+), rotary position
// embeddings (RotaryEmbedding 23), the SwiGLU gate (28) and KV-cache updates (TensorScatter 24).
//   attention_ref<T, M>         float/double; M is the mask element type (bool or T)
//   flex_attention_ref<T>       float/double, with ModProgram score/prob modifiers
//   rotary_embedding_ref<T>     float/double
//   swiglu_ref<T>               float/double
//   tensor_scatter_ref          any element type, copied as bytes
//   causal_conv_with_state_ref<T>, linear_attention_ref<T>  float/double (CausalConvWithState
//                               and LinearAttention, 27)
// Half types run the float kernels on widened copies (see compiler/ops/half_compute.h).
#ifndef ONNXC_ATTENTION_H
#define ONNXC_ATTENTION_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "onnxc/base.h"

namespace onnxc {

// ---- Attention ---------------------------------------------------------------------------------

// Q, K and V are read through strides so 3-D (batch, seq, heads * head_size) and 4-D
// (batch, heads, seq, head_size) layouts share one kernel; the innermost (head) dim is contiguous.
// past/present key/value and the qk output are always 4-D and contiguous.
struct AttentionParams {
  index_t batch, q_heads, kv_heads;  // q_heads is a multiple of kv_heads (GQA/MQA)
  index_t q_len, kv_len, past_len;   // keys: past_len cached ones, then kv_len new ones
  index_t head_size, v_head_size;
  index_t q_strides[3], k_strides[3], v_strides[3], y_strides[3];  // batch, head, sequence
  index_t mask_strides[3];  // batch, head, query (0 on broadcast dims); keys are contiguous
  index_t mask_len;         // mask columns: keys at or past it are masked out
  int mask_kind;            // 0: none, 1: boolean (false masks out), 2: added to the scores
  int is_causal;            // key j visible to query i iff j <= i + offset
  int has_nonpad;           // nonpad_kv_seqlen[b]: keys at or past it are padding
  index_t left_window, right_window;  // |window| around offset + i; -1: unbounded
  double sqrt_scale;                  // Q and K are each multiplied by sqrt(scale)
  double softcap;                     // > 0: scores become softcap * tanh(scores / softcap)
  int qk_mode;  // qk output: 0 raw, 1 softcapped, 2 plus the bias, 3 probabilities
};

// One query row at a time: the scores of its keys go to `scratch` (total keys T's), then the
// softmax, then the weighted sum of values. A row whose keys are all masked out gives zeros.
template <typename T, typename M>
inline void attention_ref(const AttentionParams& p, const T* q, const T* k, const T* v,
                          const M* mask, const T* past_k, const T* past_v,
                          const std::int64_t* nonpad, T* y, T* present_k, T* present_v, T* qk,
                          T* scratch) {
  const index_t total = p.past_len + p.kv_len, group = p.q_heads / p.kv_heads;
  const T ss = static_cast<T>(p.sqrt_scale), cap = static_cast<T>(p.softcap);
  const T neg_inf = -std::numeric_limits<T>::infinity();
  auto key_row = [&](index_t b, index_t h, index_t j) -> const T* {
    if (j < p.past_len) return past_k + ((b * p.kv_heads + h) * p.past_len + j) * p.head_size;
    return k + b * p.k_strides[0] + h * p.k_strides[1] + (j - p.past_len) * p.k_strides[2];
  };
  auto value_row = [&](index_t b, index_t h, index_t j) -> const T* {
    if (j < p.past_len) return past_v + ((b * p.kv_heads + h) * p.past_len + j) * p.v_head_size;
    return v + b * p.v_strides[0] + h * p.v_strides[1] + (j - p.past_len) * p.v_strides[2];
  };
  // The caches: past keys/values followed by the new ones, per (batch, kv head).
  for (index_t b = 0; b < p.batch; ++b)
    for (index_t h = 0; h < p.kv_heads; ++h)
      for (index_t j = 0; j < total; ++j) {
        const index_t row = (b * p.kv_heads + h) * total + j;
        if (present_k)
          std::memcpy(present_k + row * p.head_size, key_row(b, h, j), sizeof(T) * p.head_size);
        if (present_v)
          std::memcpy(present_v + row * p.v_head_size, value_row(b, h, j),
                      sizeof(T) * p.v_head_size);
      }
  T* s = scratch;
  for (index_t b = 0; b < p.batch; ++b) {
    const index_t valid = p.has_nonpad ? static_cast<index_t>(nonpad[b]) : total;
    const index_t offset =
        p.past_len > 0 ? p.past_len : (p.has_nonpad ? valid - p.q_len : index_t(0));
    for (index_t h = 0; h < p.q_heads; ++h) {
      const index_t kvh = h / group;
      for (index_t i = 0; i < p.q_len; ++i) {
        const T* qi = q + b * p.q_strides[0] + h * p.q_strides[1] + i * p.q_strides[2];
        T* qk_row = qk ? qk + ((b * p.q_heads + h) * p.q_len + i) * total : nullptr;
        const M* mrow =
            mask ? mask + b * p.mask_strides[0] + h * p.mask_strides[1] + i * p.mask_strides[2]
                 : nullptr;
        const index_t pos = offset + i;
        for (index_t j = 0; j < total; ++j) {
          const T* kj = key_row(b, kvh, j);
          T dot = T(0);
          for (index_t d = 0; d < p.head_size; ++d) dot += (qi[d] * ss) * (kj[d] * ss);
          if (qk_row && p.qk_mode == 0) qk_row[j] = dot;
          if (cap > T(0)) dot = cap * std::tanh(dot / cap);
          if (qk_row && p.qk_mode == 1) qk_row[j] = dot;
          bool allowed = j < valid;
          if (p.is_causal && j > pos) allowed = false;
          if (p.left_window >= 0 && j < pos - p.left_window) allowed = false;
          if (p.right_window >= 0 && j > pos + p.right_window) allowed = false;
          if (p.mask_kind != 0 && j >= p.mask_len) allowed = false;
          if (allowed && p.mask_kind == 1 && !static_cast<bool>(mrow[j])) allowed = false;
          if (!allowed)
            dot = neg_inf;
          else if (p.mask_kind == 2)
            dot += static_cast<T>(mrow[j]);
          if (qk_row && p.qk_mode == 2) qk_row[j] = dot;
          s[j] = dot;
        }
        T mx = neg_inf;
        for (index_t j = 0; j < total; ++j) mx = s[j] > mx ? s[j] : mx;
        if (mx == neg_inf) {  // fully masked (or no keys): zero probabilities
          for (index_t j = 0; j < total; ++j) s[j] = T(0);
        } else {
          T sum = T(0);
          for (index_t j = 0; j < total; ++j) {
            s[j] = std::exp(s[j] - mx);
            sum += s[j];
          }
          for (index_t j = 0; j < total; ++j) s[j] /= sum;
        }
        if (qk_row && p.qk_mode == 3)
          for (index_t j = 0; j < total; ++j) qk_row[j] = s[j];
        T* yi = y + b * p.y_strides[0] + h * p.y_strides[1] + i * p.y_strides[2];
        for (index_t d = 0; d < p.v_head_size; ++d) yi[d] = T(0);
        for (index_t j = 0; j < total; ++j) {
          if (s[j] == T(0)) continue;  // masked-out values (even NaN or inf) never reach Y
          const T* vj = value_row(b, kvh, j);
          for (index_t d = 0; d < p.v_head_size; ++d) yi[d] += s[j] * vj[d];
        }
      }
    }
  }
}

// ---- FlexAttention -----------------------------------------------------------------------------

// An elementwise modifier (FlexAttention's score_mod / prob_mod subgraph after the compiler folded
// everything not depending on the scores): a straight-line program over slots
//   0: the element, 1..n_consts: the constants (one value, or one per element), then one slot
//   per instruction result; `result` is the output slot.
constexpr int kMaxModConsts = 8, kMaxModInstrs = 16;
enum ModOp : int {
  kModAdd,
  kModSub,
  kModMul,
  kModDiv,
  kModNeg,
  kModTanh,
  kModExp,
  kModWhere,
  kModIdentity,
  kModAbs,
  kModMax,
  kModMin,
  kModSqrt,
  kModRelu
};
struct ModInstr {
  int op, a, b, c;  // operand slots (b, c unused by unary ops; Where: a ? b : c)
};
struct ModProgram {
  int n_consts, n_instrs;
  int const_full[kMaxModConsts];  // 1: the constant has one value per element, 0: a scalar
  ModInstr instrs[kMaxModInstrs];
  int result;
};

// The program on element `e` (its flat index in the [batch, q_heads, q_len, keys] tensor) of
// value x; consts[k] points at constant k.
template <typename T>
inline T run_mod_program(const ModProgram& p, const T* const* consts, index_t e, T x) {
  T slot[1 + kMaxModConsts + kMaxModInstrs];
  slot[0] = x;
  for (int c = 0; c < p.n_consts; ++c) slot[1 + c] = consts[c][p.const_full[c] ? e : 0];
  for (int i = 0; i < p.n_instrs; ++i) {
    const ModInstr& in = p.instrs[i];
    const T a = slot[in.a], b = slot[in.b];
    T r = a;
    switch (in.op) {
      case kModAdd:
        r = a + b;
        break;
      case kModSub:
        r = a - b;
        break;
      case kModMul:
        r = a * b;
        break;
      case kModDiv:
        r = a / b;
        break;
      case kModNeg:
        r = -a;
        break;
      case kModTanh:
        r = std::tanh(a);
        break;
      case kModExp:
        r = std::exp(a);
        break;
      case kModWhere:
        r = a != T(0) ? b : slot[in.c];
        break;
      case kModAbs:
        r = std::fabs(a);
        break;
      case kModMax:
        r = a > b ? a : b;
        break;
      case kModMin:
        r = a < b ? a : b;
        break;
      case kModSqrt:
        r = std::sqrt(a);
        break;
      case kModRelu:
        r = a > T(0) ? a : T(0);
        break;
      default:
        break;  // kModIdentity
    }
    slot[1 + p.n_consts + i] = r;
  }
  return slot[p.result];
}

// softmax(score_mod(Q K^T * scale)), then prob_mod, times V; 4-D contiguous Q/K/V/Y (only the
// shape fields and strides of `p` are used). Modifiers may be null. scratch: one row of keys.
template <typename T>
inline void flex_attention_ref(const AttentionParams& p, const T* q, const T* k, const T* v,
                               const ModProgram* score_mod, const T* const* score_consts,
                               const ModProgram* prob_mod, const T* const* prob_consts, T* y,
                               T* scratch) {
  const index_t group = p.q_heads / p.kv_heads, S = p.kv_len;
  const T ss = static_cast<T>(p.sqrt_scale), neg_inf = -std::numeric_limits<T>::infinity();
  T* s = scratch;
  for (index_t b = 0; b < p.batch; ++b)
    for (index_t h = 0; h < p.q_heads; ++h) {
      const index_t kvh = h / group;
      for (index_t i = 0; i < p.q_len; ++i) {
        const index_t row = ((b * p.q_heads + h) * p.q_len + i) * S;  // flat index of key 0
        const T* qi = q + b * p.q_strides[0] + h * p.q_strides[1] + i * p.q_strides[2];
        for (index_t j = 0; j < S; ++j) {
          const T* kj = k + b * p.k_strides[0] + kvh * p.k_strides[1] + j * p.k_strides[2];
          T dot = T(0);
          for (index_t d = 0; d < p.head_size; ++d) dot += (qi[d] * ss) * (kj[d] * ss);
          s[j] = score_mod ? run_mod_program(*score_mod, score_consts, row + j, dot) : dot;
        }
        T mx = neg_inf;
        for (index_t j = 0; j < S; ++j) mx = s[j] > mx ? s[j] : mx;
        if (mx == neg_inf) {
          for (index_t j = 0; j < S; ++j) s[j] = T(0);
        } else {
          T sum = T(0);
          for (index_t j = 0; j < S; ++j) {
            s[j] = std::exp(s[j] - mx);
            sum += s[j];
          }
          for (index_t j = 0; j < S; ++j) s[j] /= sum;
        }
        if (prob_mod)
          for (index_t j = 0; j < S; ++j)
            s[j] = run_mod_program(*prob_mod, prob_consts, row + j, s[j]);
        T* yi = y + b * p.y_strides[0] + h * p.y_strides[1] + i * p.y_strides[2];
        for (index_t d = 0; d < p.v_head_size; ++d) yi[d] = T(0);
        for (index_t j = 0; j < S; ++j) {
          const T* vj = v + b * p.v_strides[0] + kvh * p.v_strides[1] + j * p.v_strides[2];
          for (index_t d = 0; d < p.v_head_size; ++d) yi[d] += s[j] * vj[d];
        }
      }
    }
}

// ---- RotaryEmbedding ---------------------------------------------------------------------------

// X and Y share a layout read through strides: 4-D (batch, heads, seq, head_size) or 3-D
// (batch, seq, heads * head_size); the head dim is contiguous.
struct RotaryParams {
  index_t batch, seq, heads, head_size;
  index_t rot_dim;     // the first rot_dim elements of each head rotate; the rest are copied
  index_t strides[3];  // batch, sequence, head
  int interleaved;     // pairs (2i, 2i+1) instead of halves (i, i + rot_dim / 2)
  int has_positions;   // cos/sin rows by position_ids[b, s]; else the caches are [b, s, .]
  index_t cache_rows;  // rows of the 2-D caches (positions outside give the input back)
};

template <typename T>
inline void rotary_embedding_ref(const RotaryParams& p, const T* x, const T* cos_cache,
                                 const T* sin_cache, const std::int64_t* positions, T* y) {
  const index_t half = p.rot_dim / 2;
  for (index_t b = 0; b < p.batch; ++b)
    for (index_t s = 0; s < p.seq; ++s) {
      index_t row = b * p.seq + s;
      bool rotate = true;
      if (p.has_positions) {
        row = static_cast<index_t>(positions[b * p.seq + s]);
        rotate = row >= 0 && row < p.cache_rows;
      }
      const T* c = cos_cache + row * half;
      const T* sn = sin_cache + row * half;
      for (index_t h = 0; h < p.heads; ++h) {
        const index_t at = b * p.strides[0] + s * p.strides[1] + h * p.strides[2];
        const T* xi = x + at;
        T* yi = y + at;
        index_t first = 0;
        if (rotate) {
          for (index_t i = 0; i < half; ++i) {
            const index_t a = p.interleaved ? 2 * i : i, e = p.interleaved ? 2 * i + 1 : i + half;
            const T x1 = xi[a], x2 = xi[e];
            yi[a] = c[i] * x1 - sn[i] * x2;
            yi[e] = sn[i] * x1 + c[i] * x2;
          }
          first = p.rot_dim;
        }
        for (index_t d = first; d < p.head_size; ++d) yi[d] = xi[d];
      }
    }
}

// ---- SwiGLU ------------------------------------------------------------------------------------

// y = a * sigmoid(alpha * a) * b.
template <typename T>
inline void swiglu_ref(const T* a, const T* b, T* y, index_t n, double alpha) {
  const T al = static_cast<T>(alpha);
  for (index_t i = 0; i < n; ++i) {
    const T z = al * a[i];
    const T sig = z >= T(0) ? T(1) / (T(1) + std::exp(-z)) : std::exp(z) / (T(1) + std::exp(z));
    y[i] = a[i] * sig * b[i];
  }
}

// ---- TensorScatter -----------------------------------------------------------------------------

// The cache viewed as [outer, max_seq, inner] and the update as [outer, seq, inner] (sizes in
// bytes for inner); the batch index of an outer row is outer_index / per_batch.
struct TensorScatterParams {
  index_t outer, per_batch, max_seq, seq, inner_bytes;
  int circular;  // write index modulo max_seq; linear writes past the end are dropped
};

inline void tensor_scatter_ref(const TensorScatterParams& p, const void* past, const void* update,
                               const std::int64_t* write_indices, void* present) {
  const unsigned char* src = static_cast<const unsigned char*>(update);
  unsigned char* dst = static_cast<unsigned char*>(present);
  copy_bytes(dst, past, static_cast<std::size_t>(p.outer * p.max_seq * p.inner_bytes));
  for (index_t o = 0; o < p.outer; ++o) {
    const index_t start = write_indices ? static_cast<index_t>(write_indices[o / p.per_batch]) : 0;
    for (index_t s = 0; s < p.seq; ++s) {
      index_t at = start + s;
      if (p.circular) at = ((at % p.max_seq) + p.max_seq) % p.max_seq;
      if (at < 0 || at >= p.max_seq) continue;
      std::memcpy(dst + (o * p.max_seq + at) * p.inner_bytes, src + (o * p.seq + s) * p.inner_bytes,
                  static_cast<std::size_t>(p.inner_bytes));
    }
  }
}

// ---- CausalConvWithState -----------------------------------------------------------------------

// Depthwise causal 1-D convolution over [batch, channels, length]: each channel's sequence is
// prefixed by its k - 1 carried values (past_state, or zeros), so
//   y[t] = bias + sum_i w[i] * padded[t + i],  present_state = the last k - 1 padded values.
struct CausalConvParams {
  index_t batch, channels, length, kernel;
  int silu;  // fused y * sigmoid(y)
};

template <typename T>
inline void causal_conv_with_state_ref(const CausalConvParams& p, const T* x, const T* w,
                                       const T* bias, const T* past, T* y, T* present) {
  const index_t carry = p.kernel - 1, L = p.length;
  for (index_t b = 0; b < p.batch; ++b)
    for (index_t c = 0; c < p.channels; ++c) {
      const index_t row = b * p.channels + c;
      const T* xs = x + row * L;
      const T* ps = past ? past + row * carry : nullptr;
      const T* wc = w + c * p.kernel;
      // padded[n] for n in [0, carry + L): the carry, then the input.
      auto padded = [&](index_t n) -> T {
        if (n >= carry) return xs[n - carry];
        return ps ? ps[n] : T(0);
      };
      for (index_t t = 0; t < L; ++t) {
        T acc = bias ? bias[c] : T(0);
        for (index_t i = 0; i < p.kernel; ++i) acc += wc[i] * padded(t + i);
        if (p.silu) {
          const T sig =
              acc >= T(0) ? T(1) / (T(1) + std::exp(-acc)) : std::exp(acc) / (T(1) + std::exp(acc));
          acc *= sig;
        }
        y[row * L + t] = acc;
      }
      if (present)
        for (index_t n = 0; n < carry; ++n) present[row * carry + n] = padded(L + n);
    }
}

// ---- LinearAttention ---------------------------------------------------------------------------

// Recurrent linear attention over packed [batch, seq, heads * d] inputs; the state of each
// (batch, kv head) is a d_k x d_v matrix S, updated token by token:
//   linear       S = S + k v^T
//   gated        S = e^g S + k v^T                      (g per key dim or per head)
//   delta        S = S + beta k (v - S^T k)^T
//   gated_delta  S = e^g S, then as delta
// and each query head reads o = scale * q^T S from its kv head's state.
struct LinearAttentionParams {
  index_t batch, seq, q_heads, kv_heads, dk, dv;
  int rule;           // 0: linear, 1: gated, 2: delta, 3: gated_delta
  int decay_per_key;  // decay is [b, t, kv_heads * dk] (else [b, t, kv_heads])
  int beta_per_head;  // beta is [b, t, kv_heads] (else [b, t, 1])
  double scale;
};

// `state` (batch * kv_heads * dk * dv) holds S: the present_state output, or scratch memory.
template <typename T>
inline void linear_attention_ref(const LinearAttentionParams& p, const T* q, const T* k, const T* v,
                                 const T* past, const T* decay, const T* beta, T* y, T* state) {
  const index_t group = p.q_heads / p.kv_heads, dk = p.dk, dv = p.dv;
  const index_t per_state = dk * dv;
  const bool gated = p.rule == 1 || p.rule == 3, delta = p.rule == 2 || p.rule == 3;
  const T scale = static_cast<T>(p.scale);
  for (index_t n = 0; n < p.batch * p.kv_heads * per_state; ++n) state[n] = past ? past[n] : T(0);
  for (index_t b = 0; b < p.batch; ++b)
    for (index_t t = 0; t < p.seq; ++t) {
      const index_t bt = b * p.seq + t;
      for (index_t h = 0; h < p.kv_heads; ++h) {
        T* S = state + (b * p.kv_heads + h) * per_state;
        const T* kt = k + (bt * p.kv_heads + h) * dk;
        const T* vt = v + (bt * p.kv_heads + h) * dv;
        if (gated) {
          for (index_t i = 0; i < dk; ++i) {
            const T g = p.decay_per_key ? decay[(bt * p.kv_heads + h) * dk + i]
                                        : decay[bt * p.kv_heads + h];
            const T e = std::exp(g);
            for (index_t j = 0; j < dv; ++j) S[i * dv + j] *= e;
          }
        }
        if (delta) {
          const T bt_rate = p.beta_per_head ? beta[bt * p.kv_heads + h] : beta[bt];
          for (index_t j = 0; j < dv; ++j) {  // one column of S at a time
            T pred = T(0);
            for (index_t i = 0; i < dk; ++i) pred += S[i * dv + j] * kt[i];
            const T u = bt_rate * (vt[j] - pred);
            for (index_t i = 0; i < dk; ++i) S[i * dv + j] += kt[i] * u;
          }
        } else {
          for (index_t i = 0; i < dk; ++i)
            for (index_t j = 0; j < dv; ++j) S[i * dv + j] += kt[i] * vt[j];
        }
      }
      for (index_t hq = 0; hq < p.q_heads; ++hq) {
        const T* S = state + (b * p.kv_heads + hq / group) * per_state;
        const T* qt = q + (bt * p.q_heads + hq) * dk;
        T* yt = y + (bt * p.q_heads + hq) * dv;
        for (index_t j = 0; j < dv; ++j) yt[j] = T(0);
        for (index_t i = 0; i < dk; ++i)
          for (index_t j = 0; j < dv; ++j) yt[j] += qt[i] * S[i * dv + j];
        for (index_t j = 0; j < dv; ++j) yt[j] *= scale;
      }
    }
}

}  // namespace onnxc

#endif  // ONNXC_ATTENTION_H
