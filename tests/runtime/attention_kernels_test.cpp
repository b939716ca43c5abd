// Attention-family kernels against independent formulations: attention as explicit
// exp-weighted averages in double, 3-D layouts against 4-D on transposed data, rotary embedding
// as complex multiplication, linear attention as its non-recurrent (causal sum) form, and
// hand-computed cases for the rest.
#include <catch2/catch.hpp>
#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "onnxc/attention.h"

using namespace onnxc;

namespace {

std::vector<float> random_vec(size_t n, unsigned seed, float lo = -1, float hi = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

AttentionParams params_4d(index_t b, index_t hq, index_t hkv, index_t lq, index_t lk, index_t d,
                          index_t dv) {
  AttentionParams p{};
  p.batch = b;
  p.q_heads = hq;
  p.kv_heads = hkv;
  p.q_len = lq;
  p.kv_len = lk;
  p.head_size = d;
  p.v_head_size = dv;
  const index_t q[3] = {hq * lq * d, lq * d, d}, k[3] = {hkv * lk * d, lk * d, d},
                v[3] = {hkv * lk * dv, lk * dv, dv}, y[3] = {hq * lq * dv, lq * dv, dv};
  for (int i = 0; i < 3; ++i) {
    p.q_strides[i] = q[i];
    p.k_strides[i] = k[i];
    p.v_strides[i] = v[i];
    p.y_strides[i] = y[i];
  }
  p.left_window = p.right_window = -1;
  p.sqrt_scale = std::sqrt(1.0 / std::sqrt(static_cast<double>(d)));
  return p;
}

// Y[b,h,i] = sum_j w_j V[j] / sum_j w_j with w_j = exp(score_j) over the allowed keys, in double;
// kv head of query head h is h * hkv / hq. allowed(b, h, i, j) decides masking.
template <typename Allowed>
std::vector<double> brute_attention(const AttentionParams& p, const std::vector<float>& q,
                                    const std::vector<float>& k, const std::vector<float>& v,
                                    Allowed allowed) {
  std::vector<double> y(static_cast<size_t>(p.batch * p.q_heads * p.q_len * p.v_head_size), 0.0);
  const double scale = p.sqrt_scale * p.sqrt_scale;
  for (index_t b = 0; b < p.batch; ++b)
    for (index_t h = 0; h < p.q_heads; ++h) {
      const index_t g = h * p.kv_heads / p.q_heads;
      for (index_t i = 0; i < p.q_len; ++i) {
        std::vector<double> w(static_cast<size_t>(p.kv_len), 0.0);
        double total = 0;
        for (index_t j = 0; j < p.kv_len; ++j) {
          if (!allowed(b, h, i, j)) continue;
          double dot = 0;
          for (index_t d = 0; d < p.head_size; ++d)
            dot += double(q[((b * p.q_heads + h) * p.q_len + i) * p.head_size + d]) *
                   k[((b * p.kv_heads + g) * p.kv_len + j) * p.head_size + d];
          w[j] = std::exp(dot * scale);
          total += w[j];
        }
        for (index_t j = 0; j < p.kv_len; ++j)
          for (index_t d = 0; d < p.v_head_size; ++d)
            y[((b * p.q_heads + h) * p.q_len + i) * p.v_head_size + d] +=
                total > 0
                    ? w[j] / total * v[((b * p.kv_heads + g) * p.kv_len + j) * p.v_head_size + d]
                    : 0.0;
      }
    }
  return y;
}

}  // namespace

TEST_CASE("attention_ref: MHA and GQA against exp-weighted averages", "[attention-kernels]") {
  for (index_t hkv : {3, 1}) {  // 3 kv heads (MHA), then MQA
    const AttentionParams p = params_4d(2, 3, hkv, 4, 5, 6, 7);
    const auto q = random_vec(2 * 3 * 4 * 6, 1), k = random_vec(2 * hkv * 5 * 6, 2),
               v = random_vec(2 * hkv * 5 * 7, 3);
    std::vector<float> y(2 * 3 * 4 * 7), scratch(5);
    attention_ref<float, float>(p, q.data(), k.data(), v.data(), nullptr, nullptr, nullptr, nullptr,
                                y.data(), nullptr, nullptr, nullptr, scratch.data());
    const auto want =
        brute_attention(p, q, k, v, [](index_t, index_t, index_t, index_t) { return true; });
    for (size_t i = 0; i < y.size(); ++i) REQUIRE(y[i] == Approx(want[i]).margin(1e-5));
  }
}

TEST_CASE("attention_ref: causal, boolean mask, fully-masked rows give zeros",
          "[attention-kernels]") {
  AttentionParams p = params_4d(1, 2, 2, 3, 4, 4, 2);
  p.is_causal = 1;
  p.mask_kind = 1;
  p.mask_len = 4;
  p.mask_strides[0] = 0;
  p.mask_strides[1] = 0;
  p.mask_strides[2] = 4;                          // [q_len, kv_len] broadcast over batch and heads
  const bool mask[] = {false, true,  true, true,  // row 0: causal keeps key 0 only -> empty
                       true,  false, true, true, true, true, false, true};
  const auto q = random_vec(2 * 3 * 4, 4), k = random_vec(2 * 4 * 4, 5),
             v = random_vec(2 * 4 * 2, 6);
  std::vector<float> y(2 * 3 * 2, -1.0f), qk(2 * 3 * 4), scratch(4);
  p.qk_mode = 3;
  attention_ref<float, bool>(p, q.data(), k.data(), v.data(), mask, nullptr, nullptr, nullptr,
                             y.data(), nullptr, nullptr, qk.data(), scratch.data());
  const auto want = brute_attention(p, q, k, v, [&](index_t, index_t, index_t i, index_t j) {
    return j <= i && mask[i * 4 + j];
  });
  for (size_t i = 0; i < y.size(); ++i) REQUIRE(y[i] == Approx(want[i]).margin(1e-5));
  CHECK(y[0] == 0.0f);  // query 0: no key left
  CHECK(qk[0] == 0.0f);
  CHECK(qk[4 + 0] + qk[4 + 1] == Approx(1.0f));  // query 1 keeps keys 0 (mask) ... and not 1
  CHECK(qk[4 + 1] == 0.0f);
}

TEST_CASE("attention_ref: 3-D layout and past keys match 4-D on transposed data",
          "[attention-kernels]") {
  // Q [1, L=2, H=2 * D=3], K/V new [1, 2, 2 * 3], past [1, 2, P=2, 3]: the concatenated 4-D
  // problem with 4 keys, the causal frontier offset by the 2 cached keys.
  const index_t H = 2, L = 2, D = 3, P = 2;
  const auto q3 = random_vec(L * H * D, 7), k3 = random_vec(L * H * D, 8),
             v3 = random_vec(L * H * D, 9), pk = random_vec(H * P * D, 10),
             pv = random_vec(H * P * D, 11);
  AttentionParams p = params_4d(1, H, H, L, L, D, D);
  const index_t s3[3] = {L * H * D, D, H * D};
  for (int i = 0; i < 3; ++i)
    p.q_strides[i] = p.k_strides[i] = p.v_strides[i] = p.y_strides[i] = s3[i];
  p.past_len = P;
  p.is_causal = 1;
  std::vector<float> y(L * H * D), present_k(H * (P + L) * D), present_v(present_k.size()),
      scratch(P + L);
  attention_ref<float, float>(p, q3.data(), k3.data(), v3.data(), nullptr, pk.data(), pv.data(),
                              nullptr, y.data(), present_k.data(), present_v.data(), nullptr,
                              scratch.data());
  // The 4-D inputs by hand: q4[h, i, d] = q3[i, h * D + d]; keys = past then new.
  std::vector<float> q4(H * L * D), k4(H * (P + L) * D), v4(k4.size());
  for (index_t h = 0; h < H; ++h) {
    for (index_t i = 0; i < L; ++i)
      for (index_t d = 0; d < D; ++d) q4[(h * L + i) * D + d] = q3[i * H * D + h * D + d];
    for (index_t j = 0; j < P + L; ++j)
      for (index_t d = 0; d < D; ++d) {
        const bool past = j < P;
        k4[(h * (P + L) + j) * D + d] =
            past ? pk[(h * P + j) * D + d] : k3[(j - P) * H * D + h * D + d];
        v4[(h * (P + L) + j) * D + d] =
            past ? pv[(h * P + j) * D + d] : v3[(j - P) * H * D + h * D + d];
      }
  }
  CHECK(present_k == k4);
  CHECK(present_v == v4);
  const AttentionParams p4 = params_4d(1, H, H, L, P + L, D, D);
  const auto want = brute_attention(
      p4, q4, k4, v4, [&](index_t, index_t, index_t i, index_t j) { return j <= i + P; });
  for (index_t h = 0; h < H; ++h)
    for (index_t i = 0; i < L; ++i)
      for (index_t d = 0; d < D; ++d)
        REQUIRE(y[i * H * D + h * D + d] == Approx(want[(h * L + i) * D + d]).margin(1e-5));
}

TEST_CASE("attention_ref: additive mask, softcap and the qk output modes", "[attention-kernels]") {
  AttentionParams p = params_4d(1, 1, 1, 1, 2, 1, 1);
  p.sqrt_scale = 1.0;
  p.softcap = 2.0;
  p.mask_kind = 2;
  p.mask_len = 2;
  const double q[] = {1.0}, k[] = {1.0, 3.0}, v[] = {10.0, 20.0}, mask[] = {0.5, -1.0};
  double y[1], qk[2], scratch[2];
  const double s0 = 2 * std::tanh(0.5) + 0.5, s1 = 2 * std::tanh(1.5) - 1.0;
  for (int mode = 0; mode < 4; ++mode) {
    p.qk_mode = mode;
    attention_ref<double, double>(p, q, k, v, mask, nullptr, nullptr, nullptr, y, nullptr, nullptr,
                                  qk, scratch);
    const double w0 = std::exp(s0) / (std::exp(s0) + std::exp(s1));
    CHECK(y[0] == Approx(10 * w0 + 20 * (1 - w0)));
    const double want0[] = {1.0, 2 * std::tanh(0.5), s0, w0};
    CHECK(qk[0] == Approx(want0[mode]));
  }
}

TEST_CASE("rotary_embedding_ref rotates pairs as complex numbers", "[attention-kernels]") {
  // One token, one head of size 6, rotary dim 4: pairs (x0, x2), (x1, x3) for halves and
  // (x0, x1), (x2, x3) interleaved; x4, x5 pass through. Angles 0.3 and 1.1 at position 2.
  const float x[] = {1, 2, 3, 4, 5, 6};
  float cos_c[3 * 2], sin_c[3 * 2];
  for (int r = 0; r < 3; ++r)
    for (int i = 0; i < 2; ++i) {
      const double a = r == 2 ? (i == 0 ? 0.3 : 1.1) : 9.0;
      cos_c[r * 2 + i] = static_cast<float>(std::cos(a));
      sin_c[r * 2 + i] = static_cast<float>(std::sin(a));
    }
  const int64_t pos[] = {2};
  for (int interleaved : {0, 1}) {
    RotaryParams p{1, 1, 1, 6, 4, {6, 6, 6}, interleaved, 1, 3};
    float y[6];
    rotary_embedding_ref(p, x, cos_c, sin_c, pos, y);
    const int a0 = 0, b0 = interleaved ? 1 : 2, a1 = interleaved ? 2 : 1, b1 = 3;
    const auto r0 = std::complex<double>(x[a0], x[b0]) * std::polar(1.0, 0.3);
    const auto r1 = std::complex<double>(x[a1], x[b1]) * std::polar(1.0, 1.1);
    CHECK(y[a0] == Approx(r0.real()));
    CHECK(y[b0] == Approx(r0.imag()));
    CHECK(y[a1] == Approx(r1.real()));
    CHECK(y[b1] == Approx(r1.imag()));
    CHECK(y[4] == 5);
    CHECK(y[5] == 6);
  }
}

TEST_CASE("swiglu_ref is swish(a) * b", "[attention-kernels]") {
  const float a[] = {1.0f, -2.0f, 3.0f, 0.0f}, b[] = {0.5f, 1.0f, -1.0f, 2.0f};
  float y[4];
  swiglu_ref(a, b, y, 4, 0.5);
  for (int i = 0; i < 4; ++i) CHECK(y[i] == Approx(a[i] / (1 + std::exp(-0.5 * a[i])) * b[i]));
}

TEST_CASE("tensor_scatter_ref: linear writes drop overflow, circular writes wrap",
          "[attention-kernels]") {
  // past [2, 1, 4, 2] viewed as outer 2 x max_seq 4 x inner 2 floats; update [2, 1, 2, 2].
  std::vector<float> past(16);
  for (size_t i = 0; i < past.size(); ++i) past[i] = static_cast<float>(i);
  const float update[] = {-1, -2, -3, -4, -5, -6, -7, -8};
  const int64_t wi[] = {1, 3};
  std::vector<float> out(16);
  TensorScatterParams p{2, 1, 4, 2, 2 * sizeof(float), 0};
  tensor_scatter_ref(p, past.data(), update, wi, out.data());
  // batch 0 writes rows 1, 2; batch 1 writes row 3 and drops the row past the end.
  CHECK(out == std::vector<float>{0, 1, -1, -2, -3, -4, 6, 7, 8, 9, 10, 11, 12, 13, -5, -6});
  p.circular = 1;
  tensor_scatter_ref(p, past.data(), update, wi, out.data());
  CHECK(out == std::vector<float>{0, 1, -1, -2, -3, -4, 6, 7, -7, -8, 10, 11, 12, 13, -5, -6});
}

TEST_CASE("causal_conv_with_state_ref: sliding dot products over carry + input",
          "[attention-kernels]") {
  // One channel, k = 3, carry {7, 8}, input {1, 2, 3}, weights {1, 10, 100}, bias 0.5.
  const float x[] = {1, 2, 3}, w[] = {1, 10, 100}, bias[] = {0.5f}, past[] = {7, 8};
  float y[3], present[2];
  causal_conv_with_state_ref(CausalConvParams{1, 1, 3, 3, 0}, x, w, bias, past, y, present);
  CHECK(y[0] == 7 + 80 + 100 + 0.5f);
  CHECK(y[1] == 8 + 10 + 200 + 0.5f);
  CHECK(y[2] == 1 + 20 + 300 + 0.5f);
  CHECK(present[0] == 2);
  CHECK(present[1] == 3);
  causal_conv_with_state_ref(CausalConvParams{1, 1, 3, 3, 1}, x, w, bias,
                             static_cast<const float*>(nullptr), y, present);
  const double z0 = 100 + 0.5;  // zero carry
  CHECK(y[0] == Approx(z0 / (1 + std::exp(-z0))));
}

TEST_CASE("linear_attention_ref matches the causal-sum form", "[attention-kernels]") {
  // linear: o_t = scale * sum_{s<=t} (q_t . k_s) v_s; gated (per-head decay g):
  // weights exp(g_{s+1} + ... + g_t). B=1, T=4, 2 query heads sharing 1 kv head, dk=3, dv=2.
  const index_t T = 4, HQ = 2, DK = 3, DV = 2;
  const auto q = random_vec(T * HQ * DK, 12), k = random_vec(T * DK, 13),
             v = random_vec(T * DV, 14);
  const auto g = random_vec(T, 15, -0.5f, 0.0f);
  for (int rule : {0, 1}) {
    LinearAttentionParams p{1, T, HQ, 1, DK, DV, rule, 0, 1, 0.5};
    std::vector<float> y(T * HQ * DV), state(DK * DV);
    linear_attention_ref<float>(p, q.data(), k.data(), v.data(), nullptr, g.data(), nullptr,
                                y.data(), state.data());
    for (index_t t = 0; t < T; ++t)
      for (index_t h = 0; h < HQ; ++h)
        for (index_t j = 0; j < DV; ++j) {
          double want = 0;
          for (index_t s = 0; s <= t; ++s) {
            double decay = 0, dot = 0;
            for (index_t r = s + 1; r <= t; ++r) decay += rule ? g[r] : 0.0;
            for (index_t i = 0; i < DK; ++i)
              dot += double(q[(t * HQ + h) * DK + i]) * k[s * DK + i];
            want += 0.5 * std::exp(decay) * dot * v[s * DV + j];
          }
          REQUIRE(y[(t * HQ + h) * DV + j] == Approx(want).margin(1e-5));
        }
  }
}

TEST_CASE("linear_attention_ref delta rule: one step by hand", "[attention-kernels]") {
  // dk = dv = 1, past S = 2, k = 1, v = 5, beta = 0.5: S' = 2 + 0.5 * (5 - 2) = 3.5; o = q S'.
  const float q[] = {2}, k[] = {1}, v[] = {5}, past[] = {2}, beta[] = {0.5f};
  float y[1], state[1];
  LinearAttentionParams p{1, 1, 1, 1, 1, 1, 2, 0, 0, 1.0};
  linear_attention_ref<float>(p, q, k, v, past, nullptr, beta, y, state);
  CHECK(state[0] == Approx(3.5f));
  CHECK(y[0] == Approx(7.0f));
}

TEST_CASE("run_mod_program: softcap and a per-element Where", "[attention-kernels]") {
  // cap * tanh(x / cap) with cap = 2 (constant 0, scalar), then Where(mask, y, -5) with the mask
  // (constant 1) given per element.
  ModProgram p{};
  p.n_consts = 3;
  p.const_full[0] = 0;
  p.const_full[1] = 1;
  p.const_full[2] = 0;
  p.n_instrs = 4;
  p.instrs[0] = {kModDiv, 0, 1, 0};    // slot 4 = x / cap
  p.instrs[1] = {kModTanh, 4, 0, 0};   // slot 5
  p.instrs[2] = {kModMul, 5, 1, 0};    // slot 6 = tanh * cap
  p.instrs[3] = {kModWhere, 2, 6, 3};  // slot 7 = mask ? slot 6 : -5
  p.result = 7;
  const double cap[] = {2.0}, mask[] = {1.0, 0.0}, fill[] = {-5.0};
  const double* consts[] = {cap, mask, fill};
  CHECK(run_mod_program(p, consts, 0, 3.0) == Approx(2 * std::tanh(1.5)));
  CHECK(run_mod_program(p, consts, 1, 3.0) == -5.0);
}

TEST_CASE("flex_attention_ref: a causal score_mod and a scaling prob_mod", "[attention-kernels]") {
  // score_mod: Where(j <= i, x, -inf) from a per-element constant; prob_mod: x * 2. Against
  // the causal brute force, doubled.
  const AttentionParams p = params_4d(1, 2, 1, 3, 3, 4, 2);
  const auto q = random_vec(2 * 3 * 4, 16), k = random_vec(3 * 4, 17), v = random_vec(3 * 2, 18);
  std::vector<float> causal(2 * 3 * 3);
  for (index_t h = 0; h < 2; ++h)
    for (index_t i = 0; i < 3; ++i)
      for (index_t j = 0; j < 3; ++j) causal[(h * 3 + i) * 3 + j] = j <= i ? 1.0f : 0.0f;
  const float neg_inf[] = {-INFINITY}, two[] = {2.0f};
  ModProgram score{}, prob{};
  score.n_consts = 2;
  score.const_full[0] = 1;
  score.n_instrs = 1;
  score.instrs[0] = {kModWhere, 1, 0, 2};
  score.result = 3;
  prob.n_consts = 1;
  prob.n_instrs = 1;
  prob.instrs[0] = {kModMul, 0, 1, 0};
  prob.result = 2;
  const float* score_consts[] = {causal.data(), neg_inf};
  const float* prob_consts[] = {two};
  std::vector<float> y(2 * 3 * 2), scratch(3);
  flex_attention_ref<float>(p, q.data(), k.data(), v.data(), &score, score_consts, &prob,
                            prob_consts, y.data(), scratch.data());
  const auto want =
      brute_attention(p, q, k, v, [](index_t, index_t, index_t i, index_t j) { return j <= i; });
  for (size_t i = 0; i < y.size(); ++i) REQUIRE(y[i] == Approx(2 * want[i]).margin(1e-5));
}
