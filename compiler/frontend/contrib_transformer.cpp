// com.microsoft transformer fusions (ORT's transformer optimizer) and QEmbedLayerNormalization
// as standard ONNX nodes (see contrib_expander.cpp); the attention ops are in
// contrib_attention.cpp. Definitions: ORT docs/ContribOperators.md, version 1; the CPU kernels in
// onnxruntime/contrib_ops/cpu/bert and cpu/quantization decide where the text is silent.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "frontend/contrib_expand_util.h"

namespace onnxc::contrib {
namespace {

// ReduceMean over the last axis, keepdims=1 (axes an attribute before opset 18, an input after).
std::string reduce_mean_last(Expansion& e, const std::string& x) {
  if (e.opset >= 18) return e.emit1("ReduceMean", {x, e.const_i64({-1}, {1})});
  onnx::NodeProto* r = e.emit("ReduceMean", {x}, {""});
  set_attr(r, "axes", std::vector<int64_t>{-1});
  return r->output(0);
}

// LayerNormalization of `s` over the last axis, scaled by gamma and shifted by beta (may be ""),
// into outs[0], with the mean and inv_std_var into outs[1] and outs[2] where asked ("" not).
void layer_norm(Expansion& e, const std::string& s, const std::string& gamma,
                const std::string& beta, float eps, const std::vector<std::string>& outs) {
  if (e.opset >= 17) {
    onnx::NodeProto* ln = e.emit("LayerNormalization", {s, gamma}, {outs[0]});
    if (!beta.empty()) ln->add_input(beta);
    if (!outs[1].empty() || !outs[2].empty()) ln->add_output(outs[1]);
    if (!outs[2].empty()) ln->add_output(outs[2]);
    set_attr(ln, "axis", int64_t{-1});
    set_attr(ln, "epsilon", eps);
    return;
  }
  // LayerNormalization's function body, before opset 17.
  std::string mean = reduce_mean_last(e, s);
  if (!outs[1].empty()) e.emit("Identity", {mean}, {outs[1]});
  std::string d = e.emit1("Sub", {s, mean});
  std::string var = reduce_mean_last(e, e.emit1("Mul", {d, d}));
  std::string inv =
      e.emit1("Reciprocal", {e.emit1("Sqrt", {e.emit1("Add", {var, e.const_f({eps})})})});
  if (!outs[2].empty()) e.emit("Identity", {inv}, {outs[2]});
  std::string y = e.emit1("Mul", {e.emit1("Mul", {d, inv}), gamma});
  if (!beta.empty())
    e.emit("Add", {y, beta}, {outs[0]});
  else
    e.emit("Identity", {y}, {outs[0]});
}

// input + skip (+ bias), into output `sum_out` where the node asks for it.
std::string skip_sum(Expansion& e, int bias_input, int sum_output) {
  std::string s = e.emit1("Add", {e.in(0), e.in(1)});
  if (e.has_in(bias_input)) s = e.emit1("Add", {s, e.in(bias_input)});
  if (!e.out(sum_output).empty()) e.emit("Identity", {s}, {e.out(sum_output)});
  return s;
}

// SkipLayerNormalization (contrib_ops/cpu/skip_layer_norm.cc): s = input + skip (+ bias);
// output = LayerNormalization(s, gamma, beta, axis=-1, epsilon); mean and inv_std_var are
// LayerNormalization's; input_skip_bias_sum (output 3) is s. epsilon defaults to 1e-12.
bool skip_layer_norm(Expansion& e) {
  layer_norm(e, skip_sum(e, 4, 3), e.in(2), e.in(3), e.attr_f("epsilon", 1e-12f),
             {e.out(0), e.out(1), e.out(2)});
  return true;
}

// SkipSimplifiedLayerNormalization (contrib_ops/cpu/skip_layer_norm.cc, simplified): s = input +
// skip (+ bias, input 3); output = s / sqrt(mean(s^2, last axis) + epsilon) * gamma (RMS norm);
// output 1 (mean) is unused, output 2 is inv_std_var, output 3 is s.
bool skip_simplified_layer_norm(Expansion& e) {
  const float eps = e.attr_f("epsilon", 1e-12f);
  if (!e.out(1).empty()) return e.fail("output 1 (mean) is not produced by this op");
  const std::string s = skip_sum(e, 3, 3);
  std::string ms = reduce_mean_last(e, e.emit1("Mul", {s, s}));
  std::string inv =
      e.emit1("Reciprocal", {e.emit1("Sqrt", {e.emit1("Add", {ms, e.const_f({eps})})})});
  if (!e.out(2).empty()) e.emit("Identity", {inv}, {e.out(2)});
  e.emit("Mul", {e.emit1("Mul", {s, inv}), e.in(2)}, {e.out(0)});
  return true;
}

// The inputs of EmbedLayerNormalization and of its quantized form (tables already float).
struct EmbedInputs {
  std::string ids, segment_ids, word, position, segment, gamma, beta, mask, position_ids;
};

// EmbedLayerNormalization (contrib_ops/cpu/bert/embed_layer_norm.cc): inputs input_ids (B, S),
// segment_ids, word_embedding, position_embedding, segment_embedding, gamma, beta, mask,
// position_ids; s = word[input_ids] + position[position_ids or 0..S-1] (+ segment[segment_ids]);
// output = LayerNormalization(s) * gamma + beta; mask_index = the count of mask entries that are
// non-zero (`ones_only`: equal to 1, as QEmbedLayerNormalization counts) per sequence (int32,
// zeros without a mask); embedding_sum (output 2) is s.
bool embed_layer_norm_of(Expansion& e, const EmbedInputs& in, bool ones_only) {
  std::string s = e.emit1("Gather", {in.word, in.ids});
  std::string pos = in.position_ids;
  if (pos.empty()) {
    std::string len = e.emit1("Gather", {e.emit1("Shape", {in.ids}), e.const_i64({1}, {})});
    pos = e.emit1("Range", {e.const_i64({0}, {}), len, e.const_i64({1}, {})});
  }
  s = e.emit1("Add", {s, e.emit1("Gather", {in.position, pos})});
  if (!in.segment_ids.empty() && !in.segment.empty())
    s = e.emit1("Add", {s, e.emit1("Gather", {in.segment, in.segment_ids})});
  if (!e.out(2).empty()) e.emit("Identity", {s}, {e.out(2)});
  layer_norm(e, s, in.gamma, in.beta, e.attr_f("epsilon", 1e-12f), {e.out(0), "", ""});
  if (e.out(1).empty()) return true;
  if (in.mask.empty()) {  // no mask: zeros, one per sequence
    onnx::NodeProto* first = e.emit("Gather", {in.ids, e.const_i64({0}, {})}, {""});
    set_attr(first, "axis", int64_t{1});
    e.emit("Mul", {first->output(0), e.const_i32({0})}, {e.out(1)});
    return true;
  }
  std::string counted = ones_only ? e.emit1("Equal", {in.mask, e.const_i32({1})})
                                  : e.emit1("Not", {e.emit1("Equal", {in.mask, e.const_i32({0})})});
  onnx::NodeProto* nonzero = e.emit("Cast", {counted}, {""});
  set_attr(nonzero, "to", int64_t{onnx::TensorProto::INT32});
  onnx::NodeProto* count = e.emit("ReduceSum", {nonzero->output(0)}, {e.out(1)});
  if (e.opset >= 13)
    count->add_input(e.const_i64({1}, {1}));
  else
    set_attr(count, "axes", std::vector<int64_t>{1});
  set_attr(count, "keepdims", int64_t{0});
  return true;
}
bool embed_layer_norm(Expansion& e) {
  return embed_layer_norm_of(
      e, {e.in(0), e.in(1), e.in(2), e.in(3), e.in(4), e.in(5), e.in(6), e.in(7), e.in(8)}, false);
}

// QEmbedLayerNormalization (contrib_ops/cpu/quantization/qembed_layer_norm.cc): inputs
// input_ids, segment_ids, word_embedding, position_embedding, segment_embedding, gamma, beta,
// mask, then the scales (8-12) and zero points (13-17) of the five quantized tables (uint8 or
// int8, per tensor); no position_ids (positions 0..S-1). Each table is dequantized
// (DequantizeLinear: (q - zero_point) * scale), then EmbedLayerNormalization as above, with
// mask_index counting the mask entries equal to 1, as the kernel does. Outputs 0 and 1 only.
bool qembed_layer_norm(Expansion& e) {
  if (!e.out(2).empty()) return e.fail("output 2 (embedding_sum) does not exist in this op");
  auto table = [&](int k) {
    if (!e.has_in(k)) return std::string();
    if (!e.has_in(k + 6) || !e.has_in(k + 11)) return std::string("?");
    return e.emit1("DequantizeLinear", {e.in(k), e.in(k + 6), e.in(k + 11)});
  };
  EmbedInputs in{e.in(0),  e.in(1),  table(2), table(3), e.has_in(1) ? table(4) : std::string(),
                 table(5), table(6), e.in(7),  ""};
  for (const std::string* t : {&in.word, &in.position, &in.segment, &in.gamma, &in.beta})
    if (*t == "?") return e.fail("every quantized table needs its scale and zero point");
  if (in.word.empty() || in.position.empty() || in.gamma.empty() || in.beta.empty())
    return e.fail("word_embedding, position_embedding, gamma and beta are required");
  return embed_layer_norm_of(e, in, true);
}

// SimplifiedLayerNormalization (ORT's, registered in the ai.onnx domain;
// contrib_ops/cpu/layer_norm.cc, simplified): RMS normalization over the last axis,
// Y = X / sqrt(mean(X^2) + epsilon) * scale; output 1 is inv_std_var. epsilon defaults to 1e-5.
bool simplified_layer_norm(Expansion& e) {
  const int64_t axis = e.attr_i("axis", -1);
  if (axis != -1 && axis != e.rank(e.in(0)) - 1)
    return e.fail("axis {} is not supported (the last axis only)", axis);
  const float eps = e.attr_f("epsilon", 1e-5f);
  std::string ms = reduce_mean_last(e, e.emit1("Mul", {e.in(0), e.in(0)}));
  std::string inv =
      e.emit1("Reciprocal", {e.emit1("Sqrt", {e.emit1("Add", {ms, e.const_f({eps})})})});
  if (!e.out(1).empty()) e.emit("Identity", {inv}, {e.out(1)});
  e.emit("Mul", {e.emit1("Mul", {e.in(0), inv}), e.in(1)}, {e.out(0)});
  return true;
}

// RotaryEmbedding (contrib_ops/cpu/bert/rotary_embedding.cc): rotates the first R dims of each
// head by the angles cached for its position: cos = cos_cache[pos], sin = sin_cache[pos] (R/2
// each, R = twice cos_cache's dim 1); pairs (x_i, x_{i+R/2}), or (x_2i, x_2i+1) when
// interleaved, become (x1 cos - x2 sin, x2 cos + x1 sin); dims past R pass unchanged. input is
// (B, S, N*H) (N = num_heads; without it H = R) or (B, N, S, H); position_ids is (B, S), or (1)
// holding the first position of every sequence.
bool rotary_embedding(Expansion& e) {
  if (e.attr_i("is_packed_batching", 0)) return e.fail("is_packed_batching=1 is not supported");
  if (e.attr_f("scale", 1.0f) != 1.0f) return e.fail("scale other than 1 is not supported");
  const int rank = e.rank(e.in(0)), pos_rank = e.rank(e.in(1));
  if (rank != 3 && rank != 4) return e.fail("input must be 3-D or 4-D (its rank must be known)");
  if (pos_rank != 1 && pos_rank != 2) return e.fail("position_ids must be 1-D or 2-D");
  const int64_t heads = e.attr_i("num_heads", 0);
  if (rank == 3 && heads == 0 && e.attr_i("rotary_embedding_dim", 0) != 0)
    return e.fail("rotary_embedding_dim needs num_heads for 3-D input");
  // R/2 and R as 1-D [1] tensors (folded: shapes are static).
  const std::string half =
      e.emit1("Slice", {e.emit1("Shape", {e.in(2)}), e.const_i64({1}, {1}), e.const_i64({2}, {1})});
  const std::string rot = e.emit1("Add", {half, half});
  std::string x = e.in(0);
  if (rank == 3)  // (B, S, N, H)
    x = e.emit1("Reshape", {x, heads > 0 ? e.const_i64({0, 0, heads, -1}, {4})
                                         : e.emit1("Concat", {e.const_i64({0, 0, -1}, {3}), rot})});
  // Positions: (B, S), or (S) = first + 0..S-1; then cos/sin broadcast against x.
  std::string pos = e.in(1);
  if (pos_rank == 1) {
    std::string len =
        e.emit1("Gather", {e.emit1("Shape", {x}), e.const_i64({rank == 3 ? 1 : 2}, {})});
    pos =
        e.emit1("Add", {e.emit1("Range", {e.const_i64({0}, {}), len, e.const_i64({1}, {})}), pos});
  }
  auto angles = [&](const std::string& cache) {
    std::string a = e.emit1("Gather", {cache, pos});  // (B, S, R/2) or (S, R/2)
    if (rank == 3) return unsqueeze(e, a, -2);        // against (B, S, N, R/2)
    return pos_rank == 2 ? unsqueeze(e, a, 1) : a;    // against (B, N, S, R/2)
  };
  const std::string cos = angles(e.in(2)), sin = angles(e.in(3));
  const std::string zero = e.const_i64({0}, {1}), one = e.const_i64({1}, {1});
  const std::string last = e.const_i64({-1}, {1}), end = e.const_i64({INT64_MAX}, {1});
  const bool interleaved = e.attr_i("interleaved", 0) != 0;
  const std::string step = interleaved ? e.const_i64({2}, {1}) : one;
  std::string x1 = e.emit1("Slice", {x, zero, interleaved ? rot : half, last, step});
  std::string x2 = e.emit1("Slice", {x, interleaved ? one : half, rot, last, step});
  std::string y1 = e.emit1("Sub", {e.emit1("Mul", {x1, cos}), e.emit1("Mul", {x2, sin})});
  std::string y2 = e.emit1("Add", {e.emit1("Mul", {x2, cos}), e.emit1("Mul", {x1, sin})});
  std::string y;
  if (interleaved) {  // (..., R/2, 2) -> (..., R)
    onnx::NodeProto* pairs = e.emit("Concat", {unsqueeze(e, y1, -1), unsqueeze(e, y2, -1)}, {""});
    set_attr(pairs, "axis", int64_t{-1});
    y = e.emit1("Reshape", {pairs->output(0), e.const_i64({0, 0, 0, -1}, {4})});
  } else {
    onnx::NodeProto* c = e.emit("Concat", {y1, y2}, {""});
    set_attr(c, "axis", int64_t{-1});
    y = c->output(0);
  }
  onnx::NodeProto* with_rest = e.emit("Concat", {y, e.emit1("Slice", {x, rot, end, last})}, {""});
  set_attr(with_rest, "axis", int64_t{-1});
  if (rank == 3)
    e.emit("Reshape", {with_rest->output(0), e.const_i64({0, 0, -1}, {3})}, {e.out(0)});
  else
    e.emit("Identity", {with_rest->output(0)}, {e.out(0)});
  return true;
}

}  // namespace

std::vector<ExpandRule> transformer_rules() {
  return {{"SkipLayerNormalization", skip_layer_norm},
          {"SkipSimplifiedLayerNormalization", skip_simplified_layer_norm},
          {"EmbedLayerNormalization", embed_layer_norm},
          {"QEmbedLayerNormalization", qembed_layer_norm},
          {"RotaryEmbedding", rotary_embedding},
          {"SimplifiedLayerNormalization", simplified_layer_norm, ""}};
}

}  // namespace onnxc::contrib
