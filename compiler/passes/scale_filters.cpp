// scale-filters: a per-channel scale computed at run time (squeeze-and-excitation's
// x * s, s of shape [1, C, 1, 1]) read only by a Conv (group 1) scales the Conv's filters instead
// of its input:
//   x -+
//   s -+-> Mul -> y -> Conv(y, W, b)        becomes        W -+
//                                                           s -+-> Mul -> W' ; Conv(x, W', b)
// since Conv(s * x, W) = Conv(x, W * s) with s broadcast along W's input-channel axis. The Mul
// then touches cout * C * kernel values in place of C * H * W (EfficientNet's 96 x 56 x 56 input
// against 24 x 96 filters: 300k multiplies and a pass over 1.2 MB become 2.3k).
//
// It does NOT fold: when the filters hold as many values as the input or more (the late, 7x7
// blocks: scaling the filters would cost more); batches of more than one image (a scale per
// image); grouped or depthwise Convs; y read by anything else, or as the Conv's filters or
// bias; filters computed after the Mul; s varying along any other axis; non-float tensors;
// patterns inside If/Loop/Scan bodies.
// It runs after fold-batchnorm, which needs the filters constant. The scaled filters take arena
// space where x * s could have overwritten x in place: at most the filters' bytes, below x's
// (in efficientnet_b0 and mobilenet_v3_small the arena's peak lies elsewhere and is unchanged).
#include "passes/fusion_util.h"
#include "passes/passes.h"

namespace onnxc {
namespace {

constexpr const char* kPass = "scale-filters";

// Whether s, broadcast against `x` (rank 4 or more, batch 1), varies along axis 1 only, and
// broadcasts against filters of x's rank the same way ([C, 1, ...] right-aligned).
bool channel_scale(const Value* s, const Value* x) {
  const Shape& out = x->shape;
  if (s->dtype != DataType::kFloat || out.size() < 3 || out[0] != 1 || s->shape.size() < 2 ||
      s->shape.size() > out.size())
    return false;
  const size_t lead = out.size() - s->shape.size();
  for (size_t d = 0; d < s->shape.size(); ++d)
    if (s->shape[d] != (d + lead == 1 ? out[1] : 1)) return false;
  return true;
}

// Rewrites Mul(x, s) -> y -> Conv(y, W, ...) into Mul(W, s) -> W' -> Conv(x, W', ...).
bool rewrite(Graph& g, Node& mul, Node& conv, Value* x, Value* s, const Target& target,
             PassContext& stats) {
  Value* w = conv.input(1);
  Value* scaled = fusion::add_value(g, w->name + "_scaled");
  Value* y = mul.output(0);
  mul.inputs = {w, s};
  fusion::take_output(mul, y, scaled);
  conv.inputs[0] = x;
  conv.inputs[1] = scaled;
  stats.count("channel scale folded into Conv filters");
  return fusion::reinfer(mul, target, stats.diag(), kPass) &&
         fusion::reinfer(conv, target, stats.diag(), kPass);
}

}  // namespace

bool run_scale_filters(Module& module, PassContext& stats) {
  Graph& g = *module.graph;
  bool changed = false;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& mul = *g.nodes[i];
    Value* y = mul.output(0);
    if (!fusion::is_op(&mul, "Mul") || mul.inputs.size() != 2 || !y || y->dtype != DataType::kFloat)
      continue;
    Node* conv = fusion::sole_user(g, y);
    if (!fusion::is_op(conv, "Conv") || conv->input(0) != y || conv->input(1) == y ||
        conv->input(2) == y || fusion::int_attr(*conv, "group", 1) != 1)
      continue;
    const Value* w = conv->input(1);
    // The Mul, moved onto W, stays where it is: W must be computed before it.
    if (!w || (w->producer && fusion::position(g, w->producer) > i)) continue;
    for (int k = 0; k < 2; ++k) {
      Value* x = mul.input(static_cast<size_t>(k));
      Value* s = mul.input(static_cast<size_t>(1 - k));
      if (!x || !s || x == s || x->shape != y->shape || !channel_scale(s, x) ||
          w->dtype != DataType::kFloat || w->shape.size() != x->shape.size() ||
          w->shape[1] != x->shape[1] || w->numel() >= x->numel())
        continue;
      if (!rewrite(g, mul, *conv, x, s, *module.target, stats)) return changed;
      changed = true;
      break;
    }
  }
  return changed;
}

}  // namespace onnxc
