// RowPipeline (domain onnxc, version 1; only the patch-rows pass makes it, passes/patch_rows.cpp):
// a chain of row-local stages (convolutions, pools, elementwise ops) run one band of output rows
// per iteration, so that none of the chain's intermediate tensors is ever whole in memory.
//
//   input 0   X, the chain's input (N x C x H x W), whole
//   output 0  Y: the last stage's output, whole (mode "rows"), or the uint32 sums of its rows per
//             plane less `sum_offset` (mode "sums", read by the QLinearGlobalAveragePool that
//             ended the chain)
//   body      one node per stage; node k reads body input k, the window of its input rows
//             (N x C x window_rows[k] x W: the rows its band needs, its vertical pads turned into
//             padding rows), and writes the band of its output rows (N x C' x steps[k+1] x W')
//
// Per window k (ints, one entry per stage; entry L describes the last stage's band): `steps` the
// rows its producer adds per iteration, `delays` where they start (row t * step - delay at
// iteration t), `heights` the tensor's height, `window_rows`, and `pad_values` (floats) what rows
// outside the tensor hold; `active` pairs the first and last iteration at which each stage has an
// output row inside its tensor; `iterations` the first and last iteration of all. Between the
// body's nodes emit() slides the windows (onnxc/row_pipeline.h): so each node's output is needed
// only until the next node runs (Graph::node_outputs_transient), and the windows live throughout.
#include "ops/registry.h"

namespace onnxc {
namespace {

struct RowPipelineState : OpState {
  std::vector<int64_t> steps, delays, heights, window_rows, active, iterations;
  std::vector<float> pad_values;
  bool sums = false;
  int64_t sum_offset = 0;
};

class RowPipelineOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    auto& st = ctx.make_state<RowPipelineState>();
    const Attribute* a = ctx.node().attr("body");
    Graph* body = a && a->kind == Attribute::Kind::kGraph ? a->g.get() : nullptr;
    if (!body || !ctx.check_arity(1, 1, 1, 1))
      return ctx.fail("needs input X, output Y and a body");
    const size_t stages = body->nodes.size();
    st.steps = ctx.attr_ints("steps");
    st.delays = ctx.attr_ints("delays");
    st.heights = ctx.attr_ints("heights");
    st.window_rows = ctx.attr_ints("window_rows");
    st.active = ctx.attr_ints("active");
    st.iterations = ctx.attr_ints("iterations");
    st.pad_values = ctx.attr_floats("pad_values");
    st.sums = ctx.attr_string("mode", "rows") == "sums";
    st.sum_offset = ctx.attr_int("sum_offset", 0);
    const bool sized = st.steps.size() == stages + 1 && st.delays.size() == stages + 1 &&
                       st.heights.size() == stages + 1 && st.window_rows.size() == stages &&
                       st.pad_values.size() == stages && st.active.size() == 2 * stages &&
                       st.iterations.size() == 2;
    if (stages == 0 || !sized || body->inputs.size() != stages || body->outputs.size() != stages)
      return ctx.fail("inconsistent body and row attributes (an onnxc bug)");
    for (const Value* w : body->inputs)
      if (!w->has_shape || w->shape.size() != 4) return ctx.fail("body inputs must be 4-D windows");
    if (!ctx.infer_subgraph(*body)) return false;
    for (size_t k = 0; k < stages; ++k) {
      const Node& n = *body->nodes[k];
      const Value *band = n.output(0), *window = body->inputs[k];
      if (n.input(0) != window || body->outputs[k] != band || band->shape.size() != 4 ||
          band->shape[2] != st.steps[k + 1] || window->shape[2] != st.window_rows[k])
        return ctx.fail("stage {} ('{}') does not read its window or write its band", k, n.name);
      if (k + 1 < stages) {
        const Value* next = body->inputs[k + 1];
        if (next->dtype != band->dtype || next->shape[0] != band->shape[0] ||
            next->shape[1] != band->shape[1] || next->shape[3] != band->shape[3])
          return ctx.fail("stage {} writes {}[{}], its consumer's window is {}[{}]", k,
                          dtype_name(band->dtype), shape_str(band->shape), dtype_name(next->dtype),
                          shape_str(next->shape));
      }
    }
    const Value* last = body->outputs.back();
    if (st.sums)
      return ctx.set_output(0, DataType::kUint32, {last->shape[0], last->shape[1], 1, 1});
    return ctx.set_output(0, last->dtype,
                          {last->shape[0], last->shape[1], st.heights.back(), last->shape[3]});
  }

  void emit(EmitContext& ctx) const override {
    const auto& st = ctx.node().state_as<RowPipelineState>();
    const Graph& body = *ctx.node().attr("body")->g;
    const size_t stages = body.nodes.size();
    ctx.include("onnxc/row_pipeline.h");
    // Window k's geometry, and the last stage's band (k == stages).
    auto geometry = [&](size_t k) {
      const Value* v = k < stages ? body.inputs[k] : body.outputs.back();
      const int64_t rows = k < stages ? st.window_rows[k] : st.steps[k];
      return labeled({{"planes", cpp_int64(v->shape[0] * v->shape[1])},
                      {"width", cpp_int64(v->shape[3])},
                      {"rows", cpp_int64(rows)},
                      {"step", cpp_int64(st.steps[k])},
                      {"delay", cpp_int64(st.delays[k])},
                      {"valid_rows", cpp_int64(st.heights[k])}});
    };
    auto pad = [&](size_t k) { return cpp_scalar(body.inputs[k]->dtype, st.pad_values[k]); };
    auto type = [&](size_t k) { return dtype_cpp(body.inputs[k]->dtype); };
    for (size_t k = 0; k < stages; ++k) {
      ctx.line("constexpr onnxc::RowWindow window_{} = {};  // stage {}'s input rows", k,
               geometry(k), k);
      ctx.line("onnxc::rows_reset<{}>({}, window_{}, {});", type(k), ctx.ref(body.inputs[k]), k,
               pad(k));
    }
    ctx.line("constexpr onnxc::RowWindow band = {};  // the last stage's output rows",
             geometry(stages));
    if (st.sums) ctx.line("onnxc::zero_bytes({}, {});", ctx.out(0), ctx.output(0)->bytes());
    ctx.line("for (std::int32_t t = {}; t <= {}; ++t) {{", st.iterations[0], st.iterations[1]);
    ctx.line("onnxc::rows_advance_from<{}>({}, {}, window_0, t, {});", type(0),
             ctx.ref(body.inputs[0]), ctx.in(0), pad(0));
    for (size_t k = 0; k < stages; ++k) {
      const int64_t first = st.active[2 * k], last = st.active[2 * k + 1];
      ctx.line("if (t >= {} && t <= {}) {{  // stage {} has rows to compute", first, last, k);
      ctx.emit_subgraph_node(body, *body.nodes[k]);
      const std::string out = ctx.ref(body.outputs[k]);
      if (k + 1 < stages) {
        ctx.line("onnxc::rows_advance<{}>({}, {}, window_{}, t, {});", type(k + 1),
                 ctx.ref(body.inputs[k + 1]), out, k + 1, pad(k + 1));
        ctx.line("}} else {{");
        ctx.line("onnxc::rows_advance<{}>({}, nullptr, window_{}, t, {});", type(k + 1),
                 ctx.ref(body.inputs[k + 1]), k + 1, pad(k + 1));
      } else if (st.sums) {
        ctx.line("onnxc::rows_sum({}, {}, band, t, /*offset=*/{});", ctx.out(0), out,
                 st.sum_offset);
      } else {
        ctx.line("onnxc::rows_store({}, {}, band, t);", ctx.out(0), out);
      }
      ctx.line("}}");
    }
    ctx.line("}}");
  }
};

const RowPipelineOp kRowPipeline;

}  // namespace

std::vector<OpRegistration> row_pipeline_ops() {
  return {{kOnnxcDomain, "RowPipeline", 1, 1, &kRowPipeline}};
}

}  // namespace onnxc
