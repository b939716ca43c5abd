// com.microsoft attention ops as standard ONNX nodes (see contrib_expander.cpp): Attention,
// QAttention and MultiHeadAttention. Definitions: ORT docs/ContribOperators.md, version 1; the
// CPU kernels in onnxruntime/contrib_ops/cpu/bert (attention.cc, multihead_attention.cc,
// attention_cpu_base.h, attention_helper.h) and cpu/quantization decide where the text is silent.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "frontend/contrib_expand_util.h"

namespace onnxc::contrib {
namespace {

// The additive mask (broadcastable to B x N x S x L) of a mask_index or key_padding_mask: 0 where
// a key is attended, mask_filter_value where it is not (contrib_ops/cpu/bert/attention_helper.h
// PrepareMask). Forms: 1-D (B) end positions, 2-D (B, L) and 3-D (B, S, L) raw masks (> 0
// keeps); `keys` is the B x L x ... tensor whose dim 1 counts the keys.
bool attention_mask(Expansion& e, const std::string& mask, const std::string& keys, float filter,
                    std::string* add) {
  const int r = e.rank(mask);
  const std::string zero = e.const_f({0.0f}), fill = e.const_f({filter});
  std::string keep;  // bool, true where attended
  if (r == 1) {
    // key position j < end[b]
    std::string len = e.emit1("Gather", {e.emit1("Shape", {keys}), e.const_i64({1}, {})});
    std::string pos = e.emit1("Range", {e.const_i64({0}, {}), len, e.const_i64({1}, {})});
    onnx::NodeProto* end = e.emit("Cast", {mask}, {""});
    set_attr(end, "to", int64_t{onnx::TensorProto::INT64});
    std::string end_col = e.emit1("Reshape", {end->output(0), e.const_i64({-1, 1}, {2})});
    keep = e.emit1("Less", {pos, end_col});
  } else if (r == 2 || r == 3) {
    onnx::NodeProto* f = e.emit("Cast", {mask}, {""});
    set_attr(f, "to", int64_t{onnx::TensorProto::FLOAT});
    keep = e.emit1("Greater", {f->output(0), zero});
  } else {
    return e.fail(
        "mask_index '{}' of rank {} is not supported (1-D end positions, 2-D or 3-D "
        "masks)",
        mask, r < 0 ? std::string("unknown") : std::to_string(r));
  }
  std::string m = e.emit1("Where", {keep, zero, fill});
  if (r == 3)
    *add = unsqueeze(e, m, 1);
  else
    *add = e.emit1("Reshape", {m, e.const_i64({0, 1, 1, -1}, {4})});
  return true;
}

// Scaled dot-product attention of B x S x (N*h) queries over B x L x (N*h) keys and
// B x L x (N*h_v) values, as ORT's CPU kernels compute it (attention_cpu_base.h): each split
// into N heads, P = Softmax(scale * Q K^T + mask + attention_bias), output (P V) back to
// B x S x (N*h_v). `scale` names a float scalar; `mask` and `bias` may be "".
struct Qkv {
  std::string q, k, v;
};
void attend(Expansion& e, int64_t heads, const Qkv& qkv, const std::string& scale,
            const std::string& mask, const std::string& bias, const std::string& out) {
  const std::string heads_shape = e.const_i64({0, 0, heads, -1}, {4});
  auto to_heads = [&](const std::string& x, std::vector<int64_t> perm) {
    onnx::NodeProto* t = e.emit("Transpose", {e.emit1("Reshape", {x, heads_shape})}, {""});
    set_attr(t, "perm", perm);
    return t->output(0);
  };
  std::string q = to_heads(qkv.q, {0, 2, 1, 3}), kt = to_heads(qkv.k, {0, 2, 3, 1});
  std::string v = to_heads(qkv.v, {0, 2, 1, 3});
  std::string s = e.emit1("Mul", {e.emit1("MatMul", {q, kt}), scale});
  if (!mask.empty()) s = e.emit1("Add", {s, mask});
  if (!bias.empty()) s = e.emit1("Add", {s, bias});
  onnx::NodeProto* sm = e.emit("Softmax", {s}, {""});
  set_attr(sm, "axis", int64_t{-1});
  onnx::NodeProto* back = e.emit("Transpose", {e.emit1("MatMul", {sm->output(0), v})}, {""});
  set_attr(back, "perm", std::vector<int64_t>{0, 2, 1, 3});
  e.emit("Reshape", {back->output(0), e.const_i64({0, 0, -1}, {3})}, {out});
}

// Attention's attributes shared with QAttention: the Q, K and V hidden sizes (qkv_hidden_sizes or
// thirds of the weights' last dim; empty when unknown) and the score scale (default 1/sqrt(h)).
bool attention_sizes(Expansion& e, std::vector<int64_t>* sizes, float* scale) {
  const int64_t heads = e.attr_i("num_heads", 0);
  if (heads <= 0) return e.fail("num_heads must be positive");
  if (e.attr_i("unidirectional", 0)) return e.fail("unidirectional=1 is not supported");
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

// Splits the packed projection `qkv` into Q, K and V of `sizes` (thirds when empty) and attends.
void split_and_attend(Expansion& e, const std::string& qkv, const std::vector<int64_t>& sizes,
                      float scale, const std::string& mask, const std::string& bias) {
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
  attend(e, e.attr_i("num_heads", 0), {split->output(0), split->output(1), split->output(2)},
         e.const_f({scale}), mask, bias, e.out(0));
}

// Attention (contrib_ops/cpu/bert/attention.cc), packed QKV weights:
//   QKV = input x weights + bias, split along the last axis into Q, K, V (qkv_hidden_sizes or
//   thirds); each B x S x (N*h) -> B x N x S x h; P = Softmax(scale * Q K^T + mask +
//   attention_bias); output = (P V) -> B x S x (N*h_v). scale defaults to 1/sqrt(h).
bool attention(Expansion& e) {
  std::vector<int64_t> sizes;
  float scale = 0.0f;
  if (!attention_sizes(e, &sizes, &scale)) return false;
  if (e.has_in(4) || !e.out(1).empty() || e.has_in(6))
    return e.fail("past/present state is not supported");
  std::string mask;
  if (e.has_in(3) &&
      !attention_mask(e, e.in(3), e.in(0), e.attr_f("mask_filter_value", -10000.0f), &mask))
    return false;
  std::string qkv = e.emit1("MatMul", {e.in(0), e.in(1)});
  if (e.has_in(2)) qkv = e.emit1("Add", {qkv, e.in(2)});
  split_and_attend(e, qkv, sizes, scale, mask, e.in(5));
  return true;
}

// QAttention (contrib_ops/cpu/quantization/attention_quant.cc): inputs input (uint8), weights
// (uint8 or int8, D x 3H), bias (float, 3H), input_scale, weight_scale (per tensor or per column
// of the 3H), mask_index, input_zero_point, weight_zero_point (per tensor or per column), past.
// The kernel's projection is exact in integers then scaled once, as emitted here:
//   QKV = float((input - izp) x (weights - wzp)) * (input_scale * weight_scale) + bias
// (MatMulInteger, Cast, Mul, Add); the rest is Attention's, Q, K and V thirds of 3H.
bool qattention(Expansion& e) {
  std::vector<int64_t> sizes;
  float scale = 0.0f;
  if (!attention_sizes(e, &sizes, &scale)) return false;
  if (e.has_in(8) || !e.out(1).empty()) return e.fail("past/present state is not supported");
  if (!e.has_in(2) || !e.has_in(3) || !e.has_in(4))
    return e.fail("bias, input_scale and weight_scale are required");
  if (sizes.size() == 3 && (sizes[0] != sizes[1] || sizes[1] != sizes[2]))
    return e.fail("unequal qkv_hidden_sizes are not supported (the kernel splits thirds)");
  std::string mask;
  if (e.has_in(5) &&
      !attention_mask(e, e.in(5), e.in(0), e.attr_f("mask_filter_value", -10000.0f), &mask))
    return false;
  onnx::NodeProto* mm = e.emit("MatMulInteger", {e.in(0), e.in(1)}, {""});
  if (e.has_in(6) || e.has_in(7)) mm->add_input(e.in(6));
  if (e.has_in(7)) mm->add_input(e.in(7));
  onnx::NodeProto* cast = e.emit("Cast", {mm->output(0)}, {""});
  set_attr(cast, "to", int64_t{onnx::TensorProto::FLOAT});
  std::string qkv = e.emit1("Mul", {cast->output(0), e.emit1("Mul", {e.in(3), e.in(4)})});
  split_and_attend(e, e.emit1("Add", {qkv, e.in(2)}), sizes, scale, mask, "");
  return true;
}

// MultiHeadAttention (contrib_ops/cpu/bert/multihead_attention.cc) with separate 3-D query
// (B, S, D), key (B, L, D) and value (B, L, D_v): the optional bias (D + D + D_v) is added to
// each, then attention as above; key_padding_mask (1-D lengths or 2-D (B, L)) and
// attention_bias (B or 1, N or 1, S, L) as in Attention. scale defaults to 1/sqrt(D / N).
bool multi_head_attention(Expansion& e) {
  const int64_t heads = e.attr_i("num_heads", 0);
  if (heads <= 0) return e.fail("num_heads must be positive");
  if (e.attr_i("unidirectional", 0)) return e.fail("unidirectional=1 is not supported");
  if (!e.has_in(1) || !e.has_in(2))
    return e.fail("packed QKV or KV (no separate key and value) is not supported");
  if (e.rank(e.in(1)) == 4 || e.rank(e.in(2)) == 4)
    return e.fail("4-D key/value (B, N, L, H) is not supported: give 3-D (B, L, N*H)");
  if (e.has_in(6) || e.has_in(7) || e.has_in(8) || e.has_in(9) || !e.out(1).empty() ||
      !e.out(2).empty() || !e.out(3).empty())
    return e.fail("past/present state and the qk output are not supported");
  std::string mask;
  if (e.has_in(4) &&
      !attention_mask(e, e.in(4), e.in(1), e.attr_f("mask_filter_value", -10000.0f), &mask))
    return false;
  Qkv qkv{e.in(0), e.in(1), e.in(2)};
  if (e.has_in(3)) {  // bias: D for Q, D for K, D_v for V, in one vector
    std::string d = e.emit1("Slice", {e.emit1("Shape", {e.in(0)}), e.const_i64({-1}, {1}),
                                      e.const_i64({INT64_MAX}, {1})});
    std::string two_d = e.emit1("Add", {d, d});
    auto part = [&](const std::string& x, const std::string& from, const std::string& to) {
      return e.emit1("Add", {x, e.emit1("Slice", {e.in(3), from, to})});
    };
    const std::string zero = e.const_i64({0}, {1}), end = e.const_i64({INT64_MAX}, {1});
    qkv = {part(qkv.q, zero, d), part(qkv.k, d, two_d), part(qkv.v, two_d, end)};
  }
  std::string scale;
  if (const float given = e.attr_f("scale", 0.0f); given != 0.0f) {
    scale = e.const_f({given});
  } else {  // 1 / sqrt(head size), the head size from Q's shape (folded: shapes are static)
    std::string d = e.emit1("Gather", {e.emit1("Shape", {e.in(0)}), e.const_i64({-1}, {})});
    onnx::NodeProto* h = e.emit("Cast", {e.emit1("Div", {d, e.const_i64({heads}, {})})}, {""});
    set_attr(h, "to", int64_t{onnx::TensorProto::FLOAT});
    scale = e.emit1("Reciprocal", {e.emit1("Sqrt", {h->output(0)})});
  }
  attend(e, heads, qkv, scale, mask, e.in(5), e.out(0));
  return true;
}

}  // namespace

std::vector<ExpandRule> attention_rules() {
  return {{"Attention", attention},
          {"QAttention", qattention},
          {"MultiHeadAttention", multi_head_attention}};
}

}  // namespace onnxc::contrib
