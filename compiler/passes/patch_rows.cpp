// patch-rows: under a RAM budget (--max-arena BYTES), runs the first stages of a CNN in bands of
// output rows, so that their intermediate tensors are never whole in memory (patch-based
// inference, as in MCUNetV2, with the halo rows kept from band to band instead of recomputed).
//
// When the layer-by-layer bound of the plan (the most bytes live at one node) exceeds the budget,
// it looks for chains of row-local nodes, each the sole reader of the one before: Conv and
// QLinearConv with two spatial dims, MaxPool, AveragePool without vertical padding, and
// elementwise ops of one run-time input with scalar constants (QuantizeLinear, Relu, Clip ...),
// optionally ending in a QLinearGlobalAveragePool, which then reads sums added band by band. For
// each chain and band height it predicts the bound (the windows, the largest band, the chain's
// input and output, and what else is live), keeps the candidates within the budget, and takes the
// one with the fewest kernel calls (iterations x stages); with none within it, the lowest bound.
// The chain becomes one RowPipeline node (ops/control/row_pipeline.cpp) whose body holds the
// stages with their vertical pads turned into padding rows of their windows.
//
// Each stage's window holds the input rows its next band needs; its producer adds `step` rows per
// iteration, `delay` rows late, so that the window is complete when the stage runs:
//   step[L] = band rows, step[l] = step[l+1] * stride[l]
//   delay[L] = 0,        delay[l] = delay[l+1] * stride[l] + stride[l] + pad_top[l] - extent[l]
//   window_rows[l] = (step[l+1] - 1) * stride[l] + extent[l]   (extent: the dilated kernel height)
// A stage runs only at the iterations where its band has a row inside its tensor, so the only
// extra work is a band's rows past the tensor's edge (counted in --stats and `inspect --memory`).
//
// It does NOT: patch along the width (bands span whole rows), fuse a chain with branches
// (residual connections end it), count kernel scratch in its prediction (select-kernels sizes
// that later; plan-memory refuses an arena over the budget), or run without --max-arena.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <string>

#include "ops/op.h"
#include "ops/spatial.h"
#include "passes/fusion_util.h"
#include "passes/passes.h"

namespace onnxc {
namespace {

// The vertical geometry of one stage, and what its window pads with.
struct Stage {
  Node* node = nullptr;
  int64_t extent = 1, stride = 1, pad_top = 0;
  int64_t height_in = 0, height_out = 0;
  double pad_value = 0;
  std::vector<int64_t> pads;  // the body's pads: vertical ones 0 (empty: the op has none)
  int64_t macs_per_row = 0;   // multiply-adds per output row (convolutions only)
};

bool is_4d(const Value* v) {
  return v && v->has_shape && v->shape.size() == 4 && !v->is_constant();
}

// One run-time input (input 0) and one 4-D output; every other input constant or absent.
bool single_stream(const Node& n) {
  if (n.outputs.size() != 1 || !is_4d(n.output(0)) || !is_4d(n.input(0))) return false;
  for (size_t i = 1; i < n.inputs.size(); ++i)
    if (n.inputs[i] && !n.inputs[i]->is_constant()) return false;
  return subgraphs_of(n).empty();
}

double lowest_of(DataType t) {
  switch (t) {
    case DataType::kInt8:
      return -128;
    case DataType::kUint8:
      return 0;
    default:
      return -std::numeric_limits<double>::infinity();
  }
}

// The window geometry of a Conv, QLinearConv or pool node, through its handler's own reading of
// the attributes (auto_pad included).
bool spatial_stage(Node& n, const std::vector<int64_t>& kernel, bool ceil_mode, Stage& s,
                   const Target& target) {
  Diagnostics quiet;
  InferContext ctx(n, quiet, target);
  const Shape &in = n.input(0)->shape, &out = n.output(0)->shape;
  WindowGeometry g;
  if (!window_geometry(ctx, {in[2], in[3]}, kernel, ceil_mode, g)) return false;
  s.extent = (g.kernel[0] - 1) * g.dilation[0] + 1;
  s.stride = g.stride[0];
  s.pad_top = g.pad_begin[0];
  s.height_in = in[2];
  s.height_out = out[2];
  s.pads = {0, g.pad_begin[1], 0, g.pad_end[1]};
  return g.out[0] == out[2];
}

// Whether `n` can be a stage, and its geometry.
bool describe_stage(Node& n, const Target& target, Stage& s) {
  if (!n.handler || !single_stream(n)) return false;
  s = Stage{};
  s.node = &n;
  const Shape& x = n.input(0)->shape;
  const bool conv = n.domain.empty() && (n.op_type == "Conv" || n.op_type == "QLinearConv");
  if (conv) {
    const Value* w = n.input(n.op_type == "Conv" ? 1 : 3);
    if (!w || !w->is_constant() || w->shape.size() != 4) return false;
    if (!spatial_stage(n, {w->shape[2], w->shape[3]}, false, s, target)) return false;
    const Value* zero_point = n.op_type == "QLinearConv" ? n.input(2) : nullptr;
    s.pad_value = zero_point ? zero_point->constant->double_at(0) : 0;
    s.macs_per_row = w->shape[0] * w->shape[1] * w->shape[2] * w->shape[3] * n.output(0)->shape[3];
    return true;
  }
  const bool max_pool = n.domain.empty() && n.op_type == "MaxPool";
  if (max_pool || (n.domain.empty() && n.op_type == "AveragePool")) {
    const Attribute* k = n.attr("kernel_shape");
    if (!k || k->ints.size() != 2 || n.outputs.size() != 1) return false;
    const bool ceil_mode = fusion::int_attr(n, "ceil_mode", 0) != 0;
    if (!spatial_stage(n, k->ints, ceil_mode, s, target)) return false;
    if (!max_pool && (ceil_mode || s.pad_top != 0 ||
                      s.height_out * s.stride + s.extent - s.stride > s.height_in))
      return false;  // an average over a window cut by the edge divides by what it covers
    s.pad_value = max_pool ? lowest_of(n.input(0)->dtype) : 0;
    return true;
  }
  // Elementwise: the handler may write the output over its input (or it converts between types
  // element by element), and its constants are single values (per-tensor quantization).
  static const std::set<std::string> kConversions = {"QuantizeLinear", "DequantizeLinear"};
  const bool conversion = n.domain.empty() && kConversions.count(n.op_type);
  if ((!conversion && n.handler->alias(n).kind != AliasKind::kInPlace) || n.output(0)->shape != x)
    return false;
  for (size_t i = 1; i < n.inputs.size(); ++i)
    if (n.inputs[i] && n.inputs[i]->numel() != 1) return false;
  s.height_in = s.height_out = x[2];
  return true;
}

bool is_sums_end(const Node* n) {
  return n && n->domain == "com.microsoft" && n->op_type == "QLinearGlobalAveragePool" &&
         is_4d(n->input(0)) && n->input(2) && n->input(2)->is_constant() &&
         !n->attr(kMeanOfSumsAttribute);
}

int64_t floor_div(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

// One way to run a chain: its stages [0, L), the band height, and what follows from them.
struct Plan {
  std::vector<Stage> stages;
  Node* sums_end = nullptr;  // the QLinearGlobalAveragePool that reads the sums, if any
  int64_t band = 1;
  std::vector<int64_t> steps, delays, heights, window_rows, active;
  int64_t first = 0, last = 0;
  size_t bound = 0;  // predicted layer-by-layer bound of the whole graph
  int64_t calls = 0, extra_macs = 0, chain_macs = 0;
};

void derive(Plan& p) {
  const size_t L = p.stages.size();
  p.steps.assign(L + 1, p.band);
  p.delays.assign(L + 1, 0);
  p.heights.assign(L + 1, 0);
  p.window_rows.assign(L, 0);
  for (size_t l = L; l-- > 0;) {
    const Stage& s = p.stages[l];
    p.steps[l] = p.steps[l + 1] * s.stride;
    p.delays[l] = p.delays[l + 1] * s.stride + s.stride + s.pad_top - s.extent;
    p.window_rows[l] = (p.steps[l + 1] - 1) * s.stride + s.extent;
    p.heights[l] = s.height_in;
    p.heights[l + 1] = s.height_out;
  }
  // Iteration t adds rows [t * step - delay, + step) of a tensor: the first and last t at which
  // one of them lies in [0, height).
  auto first_of = [&](size_t k) { return floor_div(p.delays[k] - p.steps[k], p.steps[k]) + 1; };
  auto last_of = [&](size_t k) { return floor_div(p.heights[k] + p.delays[k] - 1, p.steps[k]); };
  p.active.clear();
  p.first = first_of(0);  // the input's rows fill the first window before stage 0 runs
  p.last = last_of(0);
  p.calls = 0;
  p.extra_macs = p.chain_macs = 0;
  for (size_t l = 0; l < L; ++l) {
    const int64_t a = first_of(l + 1), z = last_of(l + 1);
    p.active.push_back(a);
    p.active.push_back(z);
    p.first = std::min(p.first, a);
    p.last = std::max(p.last, z);
    p.calls += z - a + 1;
    const int64_t rows = (z - a + 1) * p.steps[l + 1];
    p.chain_macs += p.stages[l].macs_per_row * p.heights[l + 1];
    p.extra_macs += p.stages[l].macs_per_row * (rows - p.heights[l + 1]);
  }
}

size_t window_bytes(const Value* v, int64_t rows) {
  return dtype_bytes(v->dtype, v->shape[0] * v->shape[1] * rows * v->shape[3]);
}

bool in_arena(const Value* v) {
  return v && !v->is_constant() && !v->is_graph_input && !v->is_graph_output;
}

// The most bytes live at one node, with nodes [begin, end) of g.nodes replaced by one that writes
// `out` and holds `held` bytes more while it runs (begin == end: the graph as it is).
size_t predicted_bound(const Graph& g, size_t begin, size_t end, const Value* out, size_t held) {
  std::map<const Value*, std::pair<size_t, size_t>> span;  // value -> [def, last] node index
  std::vector<size_t> live(g.nodes.size() + 1, 0);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = *g.nodes[n];
    const bool replaced = n >= begin && n < end;
    const size_t at = replaced ? begin : n;
    std::vector<const Value*> reads(node.inputs.begin(), node.inputs.end());
    for (const Value* v : implicit_inputs(node)) reads.push_back(v);
    for (const Value* v : reads)
      if (span.count(v)) span[v].second = std::max(span[v].second, at);
    for (const Value* v : node.outputs)
      if (in_arena(v) && (!replaced || v == out)) span[v] = {at, at};
    if (!replaced) live[at] += node.scratch_bytes;
  }
  for (const auto& [v, s] : span)
    for (size_t n = s.first; n <= s.second; ++n) live[n] += v->bytes();
  if (begin < end) live[begin] += held;
  return *std::max_element(live.begin(), live.end());
}

// The chain's nodes are consecutive in g.nodes (a CNN's stem is): [begin, begin + L).
bool plan_bound(const Graph& g, size_t begin, Plan& p) {
  derive(p);
  const size_t L = p.stages.size();
  // The windows, and the largest of a stage's band and scratch (its whole-tensor scratch: the
  // band's is rarely smaller).
  size_t held = 0, largest_stage = 0;
  for (size_t l = 0; l < L; ++l) {
    const Node& n = *p.stages[l].node;
    held += window_bytes(n.input(0), p.window_rows[l]);
    largest_stage =
        std::max(largest_stage, window_bytes(n.output(0), p.steps[l + 1]) + n.scratch_bytes);
  }
  held += largest_stage;
  const Value* out = p.stages.back().node->output(0);
  if (p.sums_end) {
    held += 4 * static_cast<size_t>(out->shape[0] * out->shape[1]);
    out = nullptr;
  }
  p.bound = predicted_bound(g, begin, begin + L, out, held);
  return true;
}

// Candidates: every chain [i, j] of consecutive stage nodes each read only by the next, and every
// band height; the best plan by the rules in the banner.
bool best_plan(const Graph& g, const Target& target, size_t budget, Plan& best, size_t& begin) {
  bool found = false;
  auto better = [&](const Plan& p) {
    if (!found) return true;
    const bool fits = p.bound <= budget, best_fits = best.bound <= budget;
    if (fits != best_fits) return fits;
    if (!fits) return p.bound < best.bound;
    return p.calls != best.calls ? p.calls < best.calls : p.bound < best.bound;
  };
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    std::vector<Stage> chain;
    for (size_t j = i; j < g.nodes.size(); ++j) {
      Stage s;
      Node& n = *g.nodes[j];
      if (!describe_stage(n, target, s)) break;
      if (!chain.empty() && n.input(0) != chain.back().node->output(0)) break;
      chain.push_back(s);
      Node* reader = fusion::sole_user(g, n.output(0));
      for (bool sums : {false, true}) {
        if (sums && !(is_sums_end(reader) &&
                      reader == (j + 1 < g.nodes.size() ? g.nodes[j + 1].get() : nullptr)))
          continue;
        for (int64_t band = 1; band <= chain.back().height_out; band *= 2) {
          Plan p;
          p.stages = chain;
          p.sums_end = sums ? reader : nullptr;
          p.band = band;
          plan_bound(g, i, p);
          if (better(p)) best = p, begin = i, found = true;
        }
      }
      if (!reader || reader != (j + 1 < g.nodes.size() ? g.nodes[j + 1].get() : nullptr)) break;
    }
  }
  return found;
}

// ---- Rewrite ------------------------------------------------------------------------------------

std::unique_ptr<Node> body_node(const Stage& s, Value* window, Value* band) {
  std::unique_ptr<Node> c = fusion::clone_op(*s.node);
  if (!s.pads.empty()) {
    c->attributes.erase("auto_pad");
    Attribute pads;
    pads.kind = Attribute::Kind::kInts;
    pads.ints = s.pads;
    c->attributes["pads"] = pads;
  }
  c->inputs[0] = window;
  c->outputs = {band};
  band->producer = c.get();
  return c;
}

Attribute ints_attr(std::vector<int64_t> v) {
  Attribute a;
  a.kind = Attribute::Kind::kInts;
  a.ints = std::move(v);
  return a;
}

bool rewrite(Graph& g, size_t begin, const Plan& p, const Target& target, Diagnostics& diag) {
  const size_t L = p.stages.size();
  auto body = std::make_shared<Graph>();
  body->name = "rows of " + p.stages[0].node->name;
  body->node_outputs_transient = true;
  std::vector<float> pad_values;
  std::vector<bool> selected;  // select-kernels chose the stage's variant: choose the band's too
  for (size_t l = 0; l < L; ++l) {
    const Stage& s = p.stages[l];
    const Value* x = s.node->input(0);
    Value* window = body->add_value(x->name + "_window");
    window->dtype = x->dtype;
    window->shape = {x->shape[0], x->shape[1], p.window_rows[l], x->shape[3]};
    window->has_shape = true;
    body->inputs.push_back(window);
    const Value* y = s.node->output(0);
    Value* band = body->add_value(y->name + "_band");
    body->outputs.push_back(band);
    body->add_node(body_node(s, window, band));
    pad_values.push_back(static_cast<float>(s.pad_value));
    selected.push_back(!s.node->kernel.empty());
  }
  auto pipe = std::make_unique<Node>();
  pipe->name = "row_pipeline_" + p.stages[0].node->name;
  pipe->inputs = {p.stages[0].node->input(0)};
  Node* last = p.stages.back().node;
  Value* out = last->output(0);
  if (p.sums_end) {
    out = fusion::add_value(g, out->name + "_sums");
    p.sums_end->inputs[0] = out;
    const Shape& full = last->output(0)->shape;
    Attribute count;
    count.kind = Attribute::Kind::kInt;
    count.i = full[2] * full[3];
    p.sums_end->attributes[kMeanOfSumsAttribute] = count;
  }
  pipe->outputs = {out};
  out->producer = pipe.get();
  Attribute graph;
  graph.kind = Attribute::Kind::kGraph;
  graph.g = body;
  pipe->attributes["body"] = graph;
  pipe->attributes["steps"] = ints_attr(p.steps);
  pipe->attributes["delays"] = ints_attr(p.delays);
  pipe->attributes["heights"] = ints_attr(p.heights);
  pipe->attributes["window_rows"] = ints_attr(p.window_rows);
  pipe->attributes["active"] = ints_attr(p.active);
  pipe->attributes["iterations"] = ints_attr({p.first, p.last});
  Attribute pads;
  pads.kind = Attribute::Kind::kFloats;
  pads.floats = pad_values;
  pipe->attributes["pad_values"] = pads;
  Attribute mode;
  mode.kind = Attribute::Kind::kString;
  mode.s = p.sums_end ? "sums" : "rows";
  pipe->attributes["mode"] = mode;
  if (p.sums_end) {
    Attribute offset;
    offset.kind = Attribute::Kind::kInt;
    offset.i = static_cast<int64_t>(p.sums_end->input(2)->constant->double_at(0));
    pipe->attributes["sum_offset"] = offset;
  }
  Node* node = pipe.get();
  std::vector<const Node*> chain;
  for (const Stage& s : p.stages) chain.push_back(s.node);
  g.nodes.insert(g.nodes.begin() + static_cast<long>(begin), std::move(pipe));
  fusion::erase_nodes(g, chain);
  if (!fusion::retarget(*node, "RowPipeline", 1, kOnnxcDomain) ||
      !fusion::reinfer(*node, target, diag, "patch-rows"))
    return false;
  for (size_t l = 0; l < L; ++l)
    if (selected[l]) select_node_kernel(*body->nodes[l], target);
  return !p.sums_end || fusion::reinfer(*p.sums_end, target, diag, "patch-rows");
}

}  // namespace

bool run_patch_rows(Module& module, PassContext& ctx) {
  if (!module.max_arena) return false;
  Graph& g = *module.graph;
  const size_t budget = module.max_arena;
  module.rows.bound_before = predicted_bound(g, 0, 0, nullptr, 0);
  module.rows.bound_after = module.rows.bound_before;
  if (module.rows.bound_before <= budget) return false;
  Plan p;
  size_t begin = 0;
  if (!best_plan(g, *module.target, budget, p, begin) || p.bound >= module.rows.bound_before)
    return false;
  std::string stages;
  for (const Stage& s : p.stages) stages += (stages.empty() ? "" : ", ") + s.node->name;
  module.rows.applied = true;
  module.rows.bound_after = p.bound;
  module.rows.stages = stages;
  module.rows.band_rows = p.band;
  module.rows.iterations = p.last - p.first + 1;
  module.rows.extra_macs = p.extra_macs;
  module.rows.chain_macs = p.chain_macs;
  if (!rewrite(g, begin, p, *module.target, ctx.diag())) return false;
  ctx.count("row pipelines");
  ctx.count("stages in bands", static_cast<int64_t>(p.stages.size()));
  ctx.count("extra MACs", p.extra_macs);
  return true;
}

}  // namespace onnxc
