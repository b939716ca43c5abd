// com.microsoft attention ops as standard ONNX nodes (see contrib_expander.cpp): Attention,
// QAttention and MultiHeadAttention. Definitions: ORT docs/ContribOperators.md, version 1; the
// CPU kernels in onnxruntime/contrib_ops/cpu/bert (attention.cc, multihead_attention.cc,
// attention_cpu_base.h, attention_helper.h) and cpu/quantization decide where the text is silent.
// Where ORT's CPU kernel refuses a form (a 4-D Megatron mask_index, packed QKV or KV in
// MultiHeadAttention), so does this file, with the rule.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "frontend/contrib_expand_util.h"

namespace onnxc::contrib {
namespace {

// ---- small emitters ---------------------------------------------------------------------------

std::string cast(Expansion& e, const std::string& x, onnx::TensorProto::DataType to) {
  onnx::NodeProto* c = e.emit("Cast", {x}, {""});
  set_attr(c, "to", int64_t{to});
  return c->output(0);
}

std::string transpose(Expansion& e, const std::string& x, std::vector<int64_t> perm) {
  onnx::NodeProto* t = e.emit("Transpose", {x}, {""});
  set_attr(t, "perm", perm);
  return t->output(0);
}

// Concat of `xs` along `axis` into `to` (a fresh name when "").
std::string concat(Expansion& e, std::vector<std::string> xs, int64_t axis,
                   const std::string& to = "") {
  onnx::NodeProto* c = e.emit("Concat", std::move(xs), {to});
  set_attr(c, "axis", axis);
  return c->output(0);
}

// The length of axis `axis` of x, an int64 scalar (folded: shapes are static).
std::string dim_of(Expansion& e, const std::string& x, int64_t axis) {
  return e.emit1("Gather", {e.emit1("Shape", {x}), e.const_i64({axis}, {})});
}

// B x S x (N*h) -> B x S x N x h, then `perm`: {0, 2, 1, 3} gives B x N x S x h (Q, K, V) and
// {0, 2, 3, 1} B x N x h x S (K transposed for Q K^T).
std::string to_heads(Expansion& e, const std::string& x, std::vector<int64_t> perm) {
  const int64_t heads = e.attr_i("num_heads", 0);
  return transpose(e, e.emit1("Reshape", {x, e.const_i64({0, 0, heads, -1}, {4})}),
                   std::move(perm));
}

// ---- masks (contrib_ops/cpu/bert/attention_helper.h PrepareMask) -------------------------------

// The lengths the masks of B x N x S x T scores need, as int64 scalars: S queries, T keys (the
// past included), P past keys ("" for none), and B where a 1-D mask may hold start positions
// after the end positions ("" where 1-D is end positions only).
struct MaskSizes {
  std::string s, t, p, batch;
};

// 1-D mask_index: key j is kept where j < end[b], and, for the (2B) form, j >= start[b] (the
// second half). The mask is padded with B zeros, so that [B, 2B) holds the starts, or zeros.
std::string keep_of_positions(Expansion& e, const std::string& mask, const MaskSizes& n) {
  const std::string m = cast(e, mask, onnx::TensorProto::INT64);
  const std::string pos = e.emit1("Range", {e.const_i64({0}, {}), n.t, e.const_i64({1}, {})});
  const std::string col = e.const_i64({-1, 1}, {2});
  if (n.batch.empty()) return e.emit1("Less", {pos, e.emit1("Reshape", {m, col})});
  const std::string b = e.emit1("Reshape", {n.batch, e.const_i64({1}, {1})});
  const std::string zeros = e.emit1("Expand", {e.const_i64({0}, {1}), b});
  const std::string padded = concat(e, {m, zeros}, 0);
  const std::string end = e.emit1("Slice", {padded, e.const_i64({0}, {1}), b});
  const std::string start = e.emit1("Slice", {padded, b, e.emit1("Add", {b, b})});
  const std::string before_start = e.emit1("Less", {pos, e.emit1("Reshape", {start, col})});
  return e.emit1("And", {e.emit1("Less", {pos, e.emit1("Reshape", {end, col})}),
                         e.emit1("Not", {before_start})});
}

// The padding mask of a mask_index or key_padding_mask, broadcastable to B x N x S x T: 0 where a
// key is attended, mask_filter_value where it is not. Forms: 1-D end positions (B) or end then
// start positions (2B), 2-D (B, T) and 3-D (B, S, T) raw masks (> 0 keeps).
bool padding_mask(Expansion& e, const std::string& mask, const MaskSizes& n, std::string* add) {
  const int r = e.rank(mask);
  const std::string zero = e.const_f({0.0f});
  std::string keep;  // bool, true where attended
  if (r == 1) {
    keep = keep_of_positions(e, mask, n);
  } else if (r == 2 || r == 3) {
    keep = e.emit1("Greater", {cast(e, mask, onnx::TensorProto::FLOAT), zero});
  } else if (r == 4) {
    return e.fail(
        "4-D mask_index '{}' (Megatron's (B, 1, max, max)) is not supported: ORT's CPU kernel "
        "does not implement it either",
        mask);
  } else {
    return e.fail(
        "mask_index '{}' of rank {} is not supported (1-D end or end and start positions, 2-D or "
        "3-D masks)",
        mask, r < 0 ? std::string("unknown") : std::to_string(r));
  }
  const std::string m =
      e.emit1("Where", {keep, zero, e.const_f({e.attr_f("mask_filter_value", -10000.0f)})});
  *add = r == 3 ? unsqueeze(e, m, 1) : e.emit1("Reshape", {m, e.const_i64({0, 1, 1, -1}, {4})});
  return true;
}

// unidirectional=1: bool S x T, true where query i may not see key j, j > P + i. As ORT's
// PrepareMask loops, the last query is never masked (none when S = 1; the last query of a cross
// attention sees every key).
std::string causal_future(Expansion& e, const MaskSizes& n) {
  const std::string zero = e.const_i64({0}, {}), one = e.const_i64({1}, {});
  const std::string i = unsqueeze(e, e.emit1("Range", {zero, n.s, one}), 1);  // S x 1
  const std::string j = e.emit1("Range", {zero, n.t, one});                   // T
  const std::string beyond = e.emit1("Greater", {j, n.p.empty() ? i : e.emit1("Add", {i, n.p})});
  return e.emit1("And", {beyond, e.emit1("Less", {i, e.emit1("Sub", {n.s, one})})});
}

// The additive mask of the scores: the padding mask of `mask` (may be ""), with the causal
// mask's keys set to the lowest float over it (PrepareMask), or "" when there is neither.
bool score_mask(Expansion& e, const std::string& mask, const MaskSizes& n, std::string* add) {
  std::string pad;
  if (!mask.empty() && !padding_mask(e, mask, n, &pad)) return false;
  *add = pad;
  if (e.attr_i("unidirectional", 0)) {
    const std::string lowest = e.const_f({std::numeric_limits<float>::lowest()});
    *add = e.emit1("Where", {causal_future(e, n), lowest, pad.empty() ? e.const_f({0.0f}) : pad});
  }
  return true;
}

// ---- attention --------------------------------------------------------------------------------

// Scaled dot-product attention of queries B x N x S x h over keys given transposed, B x N x h x T,
// and values B x N x T x h_v, as ORT's CPU kernels compute it (attention_cpu_base.h):
// P = Softmax(scale * Q K^T + mask + attention_bias), output (P V) back to B x S x (N*h_v).
// `scale` names a float scalar; `mask` and `bias` may be "".
struct Heads {
  std::string q, kt, v;
};
void attend(Expansion& e, const Heads& h, const std::string& scale, const std::string& mask,
            const std::string& bias, const std::string& out) {
  std::string s = e.emit1("Mul", {e.emit1("MatMul", {h.q, h.kt}), scale});
  if (!mask.empty()) s = e.emit1("Add", {s, mask});
  if (!bias.empty()) s = e.emit1("Add", {s, bias});
  onnx::NodeProto* sm = e.emit("Softmax", {s}, {""});
  set_attr(sm, "axis", int64_t{-1});
  const std::string back = transpose(e, e.emit1("MatMul", {sm->output(0), h.v}), {0, 2, 1, 3});
  e.emit("Reshape", {back, e.const_i64({0, 0, -1}, {3})}, {out});
}

// Attention's attributes shared with QAttention: the Q, K and V hidden sizes (qkv_hidden_sizes or
// thirds of the weights' last dim; empty when unknown) and the score scale (default 1/sqrt(h)).
bool attention_sizes(Expansion& e, std::vector<int64_t>* sizes, float* scale) {
  const int64_t heads = e.attr_i("num_heads", 0);
  if (heads <= 0) return e.fail("num_heads must be positive");
  if (e.attr_i("do_rotary", 0)) return e.fail("do_rotary=1 is not supported");
  *sizes = e.attr_ints("qkv_hidden_sizes");
  if (!sizes->empty() && sizes->size() != 3) return e.fail("qkv_hidden_sizes must have 3 values");
  if (sizes->empty()) {
    if (const onnx::TensorProto* w = e.initializer(e.in(1)); w && w->dims_size() == 2) {
      if (w->dims(1) % 3) return e.fail("weights' last dim {} is not 3 hidden sizes", w->dims(1));
      sizes->assign(3, w->dims(1) / 3);
    }
  }
  *scale = e.attr_f("scale", 0.0f);
  if (*scale == 0.0f) {
    if (sizes->empty())
      return e.fail("the head size is unknown (weights not an initializer, no qkv_hidden_sizes)");
    if ((*sizes)[0] % heads)
      return e.fail("hidden size {} is not a multiple of num_heads", (*sizes)[0]);
    *scale = 1.0f / std::sqrt(static_cast<float>((*sizes)[0] / heads));
  }
  return true;
}

// The inputs and outputs of Attention and QAttention beyond the packed projection: the
// mask_index, whether a 1-D one may hold start positions after the end positions, the past
// (2, B, N, P, h) and present (2, B, N, P + S, h) state (may be ""), and the attention_bias.
struct AttentionState {
  std::string mask;
  bool start_end = false;
  std::string past, present, bias;
};

// Splits the packed projection `qkv` (B x S x 3H) into Q, K and V of `sizes` (thirds when empty).
onnx::NodeProto* split_qkv(Expansion& e, const std::string& qkv,
                           const std::vector<int64_t>& sizes) {
  onnx::NodeProto* split = e.emit("Split", {qkv}, {"", "", ""});
  set_attr(split, "axis", int64_t{-1});
  if (!sizes.empty()) {
    if (e.opset >= 13)
      split->add_input(e.const_i64(sizes, {3}));
    else
      set_attr(split, "split", sizes);
  } else if (e.opset >= 18) {
    set_attr(split, "num_outputs", int64_t{3});
  }
  return split;
}

// Attention of the packed projection `qkv` (B x S x 3H): Q, K and V split into heads; with state,
// K and V follow the past's (concatenated along the keys, P + S of them) and are stacked into the
// present; then the padding and causal masks over P + S keys, and attention.
bool attend_packed(Expansion& e, const std::string& qkv, const std::vector<int64_t>& sizes,
                   float scale, const AttentionState& st) {
  onnx::NodeProto* split = split_qkv(e, qkv, sizes);
  Heads h{to_heads(e, split->output(0), {0, 2, 1, 3}), "", ""};
  MaskSizes n{dim_of(e, qkv, 1), "", "", st.start_end ? dim_of(e, qkv, 0) : ""};
  n.t = n.s;
  if (st.present.empty()) {  // K^T straight from the projection
    h.kt = to_heads(e, split->output(1), {0, 2, 3, 1});
    h.v = to_heads(e, split->output(2), {0, 2, 1, 3});
  } else {
    std::string k = to_heads(e, split->output(1), {0, 2, 1, 3});
    h.v = to_heads(e, split->output(2), {0, 2, 1, 3});
    if (!st.past.empty()) {
      k = concat(e, {e.emit1("Gather", {st.past, e.const_i64({0}, {})}), k}, 2);
      h.v = concat(e, {e.emit1("Gather", {st.past, e.const_i64({1}, {})}), h.v}, 2);
      n.p = dim_of(e, st.past, 3);
      n.t = e.emit1("Add", {n.p, n.s});
    }
    concat(e, {unsqueeze(e, k, 0), unsqueeze(e, h.v, 0)}, 0, st.present);
    h.kt = transpose(e, k, {0, 1, 3, 2});
  }
  std::string mask;
  if (!score_mask(e, st.mask, n, &mask)) return false;
  attend(e, h, e.const_f({scale}), mask, st.bias, e.out(0));
  return true;
}

// Attention (contrib_ops/cpu/bert/attention.cc), packed QKV weights:
//   QKV = input x weights + bias, split along the last axis into Q, K, V (qkv_hidden_sizes or
//   thirds); each B x S x (N*h) -> B x N x S x h; with past (2, B, N, P, h), K and V follow the
//   past's and present = (K, V) stacked; P = Softmax(scale * Q K^T + mask + attention_bias);
//   output = (P V) -> B x S x (N*h_v). scale defaults to 1/sqrt(h). The mask: mask_index (1-D end
//   or end and start positions, 2-D, 3-D) and, with unidirectional=1, the causal mask.
bool attention(Expansion& e) {
  std::vector<int64_t> sizes;
  float scale = 0.0f;
  if (!attention_sizes(e, &sizes, &scale)) return false;
  if (e.has_in(6))
    return e.fail("past_sequence_length (a past/present buffer shared in place) is not supported");
  if (e.has_in(4) && e.out(1).empty())
    return e.fail("past without the present output (ORT's kernel refuses it too)");
  if (e.has_in(4) && e.has_in(5))
    return e.fail("past with attention_bias (ORT's kernel refuses both at once)");
  if (!e.out(1).empty() && sizes.size() == 3 && sizes[1] != sizes[2])
    return e.fail("present with K and V hidden sizes that differ (one tensor holds both)");
  std::string qkv = e.emit1("MatMul", {e.in(0), e.in(1)});
  if (e.has_in(2)) qkv = e.emit1("Add", {qkv, e.in(2)});
  return attend_packed(e, qkv, sizes, scale, {e.in(3), true, e.in(4), e.out(1), e.in(5)});
}

// QAttention (contrib_ops/cpu/quantization/attention_quant.cc): inputs input (uint8), weights
// (uint8 or int8, D x 3H), bias (float, 3H), input_scale, weight_scale (per tensor or per column
// of the 3H), mask_index, input_zero_point, weight_zero_point (per tensor or per column), past;
// output 1 the present. The kernel's projection is exact in integers then scaled once, as here:
//   QKV = float((input - izp) x (weights - wzp)) * (input_scale * weight_scale) + bias
// (MatMulInteger, Cast, Mul, Add); the rest is Attention's (the same AttentionCPUBase in ORT):
// Q, K and V thirds of 3H, past/present, every mask_index form and unidirectional=1.
bool qattention(Expansion& e) {
  std::vector<int64_t> sizes;
  float scale = 0.0f;
  if (!attention_sizes(e, &sizes, &scale)) return false;
  if (e.has_in(8) && e.out(1).empty())
    return e.fail("past without the present output (ORT's kernel refuses it too)");
  if (!e.has_in(2) || !e.has_in(3) || !e.has_in(4))
    return e.fail("bias, input_scale and weight_scale are required");
  if (sizes.size() == 3 && (sizes[0] != sizes[1] || sizes[1] != sizes[2]))
    return e.fail("unequal qkv_hidden_sizes are not supported (the kernel splits thirds)");
  onnx::NodeProto* mm = e.emit("MatMulInteger", {e.in(0), e.in(1)}, {""});
  if (e.has_in(6) || e.has_in(7)) mm->add_input(e.in(6));
  if (e.has_in(7)) mm->add_input(e.in(7));
  std::string qkv = e.emit1("Mul", {cast(e, mm->output(0), onnx::TensorProto::FLOAT),
                                    e.emit1("Mul", {e.in(3), e.in(4)})});
  return attend_packed(e, e.emit1("Add", {qkv, e.in(2)}), sizes, scale,
                       {e.in(5), true, e.in(8), e.out(1), ""});
}

// ---- MultiHeadAttention ----------------------------------------------------------------------

// The MultiHeadAttention forms ORT's CPU kernel refuses, and the decoding forms not expanded.
bool mha_form_supported(Expansion& e) {
  if (e.attr_i("num_heads", 0) <= 0) return e.fail("num_heads must be positive");
  if (e.rank(e.in(0)) == 5 || !e.has_in(1))
    return e.fail(
        "packed QKV (query (B, S, N, 3, H), no key and value) is not supported: ORT's CPU kernel "
        "does not implement it either");
  if (e.rank(e.in(1)) == 5 || !e.has_in(2))
    return e.fail(
        "packed KV (key (B, L, N, 2, H), no value) is not supported: ORT's CPU kernel does not "
        "implement it either");
  if ((e.rank(e.in(1)) == 4) != (e.rank(e.in(2)) == 4))
    return e.fail("key and value must both be 3-D (B, L, D) or both 4-D (B, N, L, H)");
  if (e.has_in(8) || e.has_in(9) || !e.out(3).empty())
    return e.fail(
        "past_sequence_length, cache_indirection and the qk output (decoding with a shared "
        "buffer and beams) are not supported");
  if (e.has_in(6) != e.has_in(7)) return e.fail("past_key and past_value go together");
  if (e.has_in(6) && (e.out(1).empty() || e.out(2).empty()))
    return e.fail(
        "past_key/past_value need the present_key and present_value outputs (ORT's CPU kernel "
        "ignores the past without them)");
  if (e.has_in(4) && e.rank(e.in(4)) == 4)
    return e.fail("key_padding_mask of rank 4 is not supported (1-D lengths, 2-D or 3-D masks)");
  return true;
}

// MultiHeadAttention's query, key and value with the optional bias (D + D + D_v) added, in heads
// B x N x S x h (query), B x N x L x h (key), B x N x L x h_v (value). 4-D key and value
// (B, N, L, H) are heads already and take no bias (the kernel assumes their bias is 0).
void mha_heads(Expansion& e, std::string* q, std::string* k, std::string* v) {
  *q = e.in(0), *k = e.in(1), *v = e.in(2);
  const bool bnsh = e.rank(*k) == 4;
  if (e.has_in(3)) {  // bias: D for Q, D for K, D_v for V, in one vector
    const std::string d = e.emit1(
        "Slice", {e.emit1("Shape", {*q}), e.const_i64({-1}, {1}), e.const_i64({INT64_MAX}, {1})});
    const std::string two_d = e.emit1("Add", {d, d});
    auto part = [&](const std::string& x, const std::string& from, const std::string& to) {
      return e.emit1("Add", {x, e.emit1("Slice", {e.in(3), from, to})});
    };
    *q = part(*q, e.const_i64({0}, {1}), d);
    if (!bnsh) {
      *k = part(*k, d, two_d);
      *v = part(*v, two_d, e.const_i64({INT64_MAX}, {1}));
    }
  }
  *q = to_heads(e, *q, {0, 2, 1, 3});
  if (!bnsh) {
    *k = to_heads(e, *k, {0, 2, 1, 3});
    *v = to_heads(e, *v, {0, 2, 1, 3});
  }
}

// 1 / sqrt(head size) unless `scale` is given; the head size from Q's shape (D / N).
std::string mha_scale(Expansion& e) {
  if (const float given = e.attr_f("scale", 0.0f); given != 0.0f) return e.const_f({given});
  const int64_t heads = e.attr_i("num_heads", 0);
  const std::string d = dim_of(e, e.in(0), -1);
  const std::string h =
      cast(e, e.emit1("Div", {d, e.const_i64({heads}, {})}), onnx::TensorProto::FLOAT);
  return e.emit1("Reciprocal", {e.emit1("Sqrt", {h})});
}

// MultiHeadAttention (contrib_ops/cpu/bert/multihead_attention.cc): query (B, S, D); key and
// value (B, L, D) and (B, L, D_v), or 4-D (B, N, L, H) (cross attention, no bias); the optional
// bias (D + D + D_v) added to each 3-D one; with past_key/past_value (B, N, P, H), K and V follow
// them along the keys, and present_key/present_value are the K and V attended (B, N, P + L, H);
// then attention as Attention's: key_padding_mask (1-D lengths, 2-D (B, P + L), 3-D
// (B, S, P + L)), attention_bias (B or 1, N or 1, S, P + L), the causal mask with
// unidirectional=1. scale defaults to 1/sqrt(D / N).
bool multi_head_attention(Expansion& e) {
  if (!mha_form_supported(e)) return false;
  std::string q, k, v;
  mha_heads(e, &q, &k, &v);
  MaskSizes n{dim_of(e, e.in(0), 1), "", "", ""};
  if (e.has_in(6)) {  // present_key and present_value are required here
    k = concat(e, {e.in(6), k}, 2, e.out(1));
    v = concat(e, {e.in(7), v}, 2, e.out(2));
    n.p = dim_of(e, e.in(6), 2);
  } else {
    if (!e.out(1).empty()) k = e.emit1("Identity", {k}, e.out(1));
    if (!e.out(2).empty()) v = e.emit1("Identity", {v}, e.out(2));
  }
  n.t = dim_of(e, k, 2);
  std::string mask;
  if (!score_mask(e, e.in(4), n, &mask)) return false;
  attend(e, {q, transpose(e, k, {0, 1, 3, 2}), v}, mha_scale(e), mask, e.in(5), e.out(0));
  return true;
}

}  // namespace

std::vector<ExpandRule> attention_rules() {
  return {{"Attention", attention},
          {"QAttention", qattention},
          {"MultiHeadAttention", multi_head_attention}};
}

}  // namespace onnxc::contrib
