// Control flow: If, Loop and Scan. Their bodies are nested Graphs (graph-valued attributes); each
// handler binds the body's inputs to static shapes, infers the body (InferContext::infer_subgraph)
// and emits it inline (EmitContext::emit_subgraph) inside a C++ `if`/`for`. Every body value has
// its own arena buffer, live over the whole node (plan-memory), so loop-carried state is copied
// from the body's outputs back into its inputs between iterations and slices of scan inputs and
// outputs are copied in and out. No heap, static shapes throughout:
//   - If: a compile-time constant condition infers only the taken branch (the inline-if pass then
//     splices it into the parent graph; the other branch is dropped unseen). Otherwise both
//     branches must produce outputs of identical type and static shape.
//   - Scan (opset 8 with its batch axis, 9+ with any axis and direction): trip count from the
//     scan inputs' shape. opset 8's sequence_lens must be absent or a constant equal to it.
//   - Loop: any trip count and run-time condition when there are no scan outputs. Scan outputs
//     need a static size: a constant trip count and a condition that provably never ends the
//     loop early, or a bound, --max-trip-count NODE=B (kMaxTripCountAttribute). Bounded, each
//     scan output holds B rows, those past the iterations run are zeros, and the node gets one
//     more output, the graph output NODE.trip_count (int64[1]), the number of rows that count;
//     run() returns onnxc::kErrorTripCount before an iteration past B. Its scan outputs must be
//     graph outputs read by no other node (their length is a run-time fact no op could take).
//     Otherwise a compile error names the node and the flag.
#include "ops/containers.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

Graph* body_attr(InferContext& ctx, const char* name) {
  const Attribute* a = ctx.node().attr(name);
  return a && a->kind == Attribute::Kind::kGraph && a->g ? a->g.get() : nullptr;
}
const Graph& body_of(const Node& n, const char* name) {
  return *n.attr(name)->g;
}

void bind_input(Value* v, DataType dtype, Shape shape) {
  v->dtype = dtype;
  v->shape = std::move(shape);
  v->has_shape = true;
}

// Byte pointer expressions for generated code.
std::string bytes_of(const std::string& p) {
  return "reinterpret_cast<unsigned char*>(" + p + ")";
}
std::string cbytes_of(const std::string& p) {
  return "reinterpret_cast<const unsigned char*>(" + p + ")";
}

bool whole_bytes(InferContext& ctx, const Value* v) {
  if (v && dtype_info(v->dtype).bits < 8)
    return ctx.fail("'{}' of {}: sub-byte element types are not supported in control flow", v->name,
                    dtype_name(v->dtype));
  return true;
}

// ---- If --------------------------------------------------------------------------------------

struct IfState : OpState {
  int taken = -1;  // 0 then, 1 else when the condition is a compile-time constant; -1 otherwise
};

class IfOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, SIZE_MAX)) return false;
    Graph* then_g = body_attr(ctx, "then_branch");
    Graph* else_g = body_attr(ctx, "else_branch");
    if (!then_g || !else_g)
      return ctx.fail("attributes 'then_branch' and 'else_branch' are required");
    if (ctx.input(0)->numel() != 1) return ctx.fail("the condition must hold one element");
    auto& st = ctx.make_state<IfState>();
    if (const Tensor* c = ctx.constant_input(0)) {
      st.taken = c->int_at(0) ? 0 : 1;
      // The other branch is never run: drop it so no later pass looks at it (it need not even
      // be well-typed; exporters leave such branches behind).
      Attribute& dropped = ctx.node().attributes[st.taken == 0 ? "else_branch" : "then_branch"];
      auto empty = std::make_shared<Graph>();
      empty->name = dropped.g->name;
      dropped.g = empty;
    }
    std::vector<Graph*> run;
    if (st.taken != 1) run.push_back(then_g);
    if (st.taken != 0) run.push_back(else_g);
    for (Graph* g : run) {
      if (!ctx.infer_subgraph(*g)) return false;
      if (g->outputs.size() != ctx.num_outputs())
        return ctx.fail("branch '{}' has {} outputs, the node {}", g->name, g->outputs.size(),
                        ctx.num_outputs());
    }
    const Graph& first = *run[0];
    for (size_t i = 0; i < ctx.num_outputs(); ++i) {
      const Value* a = first.outputs[i];
      if (!whole_bytes(ctx, a)) return false;
      if (run.size() == 2) {
        const Value* b = run[1]->outputs[i];
        if (a->dtype != b->dtype || a->shape != b->shape)
          return ctx.fail(
              "output {}: then_branch gives {}[{}] but else_branch {}[{}]; a run-time "
              "condition needs branches of identical static type and shape",
              i, dtype_name(a->dtype), shape_str(a->shape), dtype_name(b->dtype),
              shape_str(b->shape));
      }
      if (!ctx.has_output(i)) continue;
      if (st.taken >= 0 && a->is_constant())
        ctx.set_output_constant(i, *a->constant);  // later shapes may depend on it
      else
        ctx.set_output(i, a->dtype, a->shape);
    }
    return true;
  }

  void emit(EmitContext& ctx) const override {
    const auto& st = ctx.node().state_as<IfState>();
    ctx.include("onnxc/base.h");
    auto branch = [&](const Graph& g) {
      ctx.emit_subgraph(g);
      for (size_t i = 0; i < g.outputs.size(); ++i)
        if (ctx.output(i))
          ctx.line("onnxc::copy_bytes({}, {}, {});", ctx.out(i), ctx.ref(g.outputs[i]),
                   ctx.output(i)->bytes());
    };
    const Graph& then_g = body_of(ctx.node(), "then_branch");
    const Graph& else_g = body_of(ctx.node(), "else_branch");
    if (st.taken >= 0) {  // the inline-if pass was disabled
      ctx.line("// condition known at compile time: only the {} branch",
               st.taken ? "else" : "then");
      branch(st.taken ? else_g : then_g);
      return;
    }
    ctx.line("if ({}[0]) {{", ctx.in(0));
    branch(then_g);
    ctx.line("}} else {{");
    branch(else_g);
    ctx.line("}}");
  }
};

// ---- Scan ------------------------------------------------------------------------------------

struct ScanState : OpState {
  size_t first = 0;      // index of the first state input (opset 8: 1, after sequence_lens)
  size_t num_state = 0;  // N
  int64_t batch = 1;     // opset 8: the body runs once per row of axis 0
  int64_t trips = 0;
  struct Slicing {
    int64_t outer = 1;  // product of the dims before the scan axis (per batch row)
    size_t inner = 0;   // bytes of the dims after it
    bool reverse = false;
  };
  std::vector<Slicing> ins, outs;
};

class ScanOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    Graph* body = body_attr(ctx, "body");
    if (!body) return ctx.fail("attribute 'body' (a graph) is required");
    const bool v8 = ctx.opset() < 9;
    auto& st = ctx.make_state<ScanState>();
    st.first = v8 ? 1 : 0;
    const int64_t m = ctx.attr_int("num_scan_inputs", -1);
    if (m < 1 || ctx.num_inputs() < st.first + static_cast<size_t>(m))
      return ctx.fail("'num_scan_inputs' must be at least 1 and at most the number of inputs");
    const size_t M = static_cast<size_t>(m);
    st.num_state = ctx.num_inputs() - st.first - M;
    const size_t N = st.num_state;
    if (body->inputs.size() != N + M)
      return ctx.fail("the body has {} inputs; {} state variables and {} scan inputs need {}",
                      body->inputs.size(), N, M, N + M);
    if (body->outputs.size() < N || ctx.num_outputs() != body->outputs.size())
      return ctx.fail("the node has {} outputs, the body {} (state variables first)",
                      ctx.num_outputs(), body->outputs.size());
    const size_t K = body->outputs.size() - N;
    for (size_t i = st.first; i < ctx.num_inputs(); ++i)
      if (!ctx.input(i) || !whole_bytes(ctx, ctx.input(i)))
        return ctx.input(i) ? false : ctx.fail("input {} is required", i);
    auto axes = ctx.attr_ints("scan_input_axes", std::vector<int64_t>(M, 0));
    auto dirs =
        ctx.attr_ints(v8 ? "directions" : "scan_input_directions", std::vector<int64_t>(M, 0));
    auto out_axes = ctx.attr_ints("scan_output_axes", std::vector<int64_t>(K, 0));
    auto out_dirs = ctx.attr_ints("scan_output_directions", std::vector<int64_t>(K, 0));
    if (axes.size() != M || dirs.size() != M || out_axes.size() != K || out_dirs.size() != K)
      return ctx.fail("scan axes/directions attributes must have one entry per scan input/output");
    // opset 8: axis 0 of every input is the batch, axis 1 the scan axis.
    if (v8) {
      const Value* any = ctx.input(st.first);
      if (any->shape.empty()) return ctx.fail("opset 8 inputs need a batch axis");
      st.batch = any->shape[0];
      for (size_t i = st.first; i < ctx.num_inputs(); ++i)
        if (ctx.input(i)->shape.empty() || ctx.input(i)->shape[0] != st.batch)
          return ctx.fail("every input needs the batch size {} on axis 0", st.batch);
    }
    st.trips = -1;
    for (size_t j = 0; j < M; ++j) {
      const Value* in = ctx.input(st.first + N + j);
      Shape s = in->shape;
      if (v8) s.erase(s.begin());
      int64_t axis = v8 ? 0 : axes[j];
      if (!ctx.normalize_axis(axis, static_cast<int64_t>(s.size()), "scan_input_axes"))
        return false;
      int64_t t = s[static_cast<size_t>(axis)];
      if (st.trips >= 0 && t != st.trips)
        return ctx.fail("scan inputs have different lengths ({} and {})", st.trips, t);
      st.trips = t;
      ScanState::Slicing sl;
      sl.outer = shape_numel(Shape(s.begin(), s.begin() + axis));
      sl.inner = dtype_bytes(in->dtype, shape_numel(Shape(s.begin() + axis + 1, s.end())));
      sl.reverse = dirs[j] != 0;
      st.ins.push_back(sl);
      s.erase(s.begin() + axis);
      bind_input(body->inputs[N + j], in->dtype, s);
    }
    if (v8 && ctx.has_input(0)) {
      const Tensor* lens = ctx.constant_input(0);
      bool all_full = lens != nullptr;
      for (int64_t b = 0; lens && b < lens->numel(); ++b) all_full &= lens->int_at(b) == st.trips;
      if (!all_full)
        return ctx.fail(
            "sequence_lens must be a constant equal to the scan length {} (shorter "
            "sequences are not supported)",
            st.trips);
    }
    for (size_t i = 0; i < N; ++i) {
      const Value* in = ctx.input(st.first + i);
      Shape s = in->shape;
      if (v8) s.erase(s.begin());
      bind_input(body->inputs[i], in->dtype, s);
    }
    if (!ctx.infer_subgraph(*body)) return false;
    for (size_t i = 0; i < N; ++i) {
      const Value *in = body->inputs[i], *out = body->outputs[i];
      if (out->dtype != in->dtype || out->shape != in->shape)
        return ctx.fail("state variable {} changes from {}[{}] to {}[{}] in the body", i,
                        dtype_name(in->dtype), shape_str(in->shape), dtype_name(out->dtype),
                        shape_str(out->shape));
      for (size_t j = 0; j < body->inputs.size(); ++j)
        if (j != i && out == body->inputs[j])
          return ctx.fail("state output {} is body input {} itself (a swap): not supported", i, j);
      Shape s = ctx.input(st.first + i)->shape;
      if (ctx.has_output(i)) ctx.set_output(i, out->dtype, s);
    }
    for (size_t k = 0; k < K; ++k) {
      const Value* out = body->outputs[N + k];
      if (!whole_bytes(ctx, out)) return false;
      Shape s = out->shape;
      int64_t axis = v8 ? 0 : out_axes[k];
      if (!ctx.normalize_axis(axis, static_cast<int64_t>(s.size()) + 1, "scan_output_axes"))
        return false;
      ScanState::Slicing sl;
      sl.outer = shape_numel(Shape(s.begin(), s.begin() + axis));
      sl.inner = dtype_bytes(out->dtype, shape_numel(Shape(s.begin() + axis, s.end())));
      sl.reverse = out_dirs[k] != 0;
      st.outs.push_back(sl);
      s.insert(s.begin() + axis, st.trips);
      if (v8) s.insert(s.begin(), st.batch);
      if (ctx.has_output(N + k)) ctx.set_output(N + k, out->dtype, s);
    }
    return true;
  }

  void emit(EmitContext& ctx) const override {
    const auto& st = ctx.node().state_as<ScanState>();
    const Graph& body = body_of(ctx.node(), "body");
    const size_t N = st.num_state;
    ctx.include("onnxc/base.h");
    const bool batched = st.batch != 1;
    if (batched) ctx.line("for (std::int64_t b = 0; b < {}; ++b) {{", st.batch);
    const std::string row = batched ? "b" : "0";
    // State variables in: the body's state inputs hold the current state.
    for (size_t i = 0; i < N; ++i) {
      size_t bytes = body.inputs[i]->bytes();
      ctx.line("onnxc::copy_bytes({}, {} + {} * {}, {});", ctx.ref(body.inputs[i]),
               cbytes_of(ctx.in(st.first + i)), row, bytes, bytes);
    }
    ctx.line("for (std::int64_t it = 0; it < {}; ++it) {{", st.trips);
    auto index = [&](bool reverse) {
      return reverse ? fmt::format("({} - it)", st.trips - 1) : std::string("it");
    };
    for (size_t j = 0; j < st.ins.size(); ++j) {
      const auto& sl = st.ins[j];
      ctx.line("for (std::int64_t o = 0; o < {}; ++o)", sl.outer);
      ctx.line("  onnxc::copy_bytes({} + o * {}, {} + (({} * {} + o) * {} + {}) * {}, {});",
               bytes_of(ctx.ref(body.inputs[N + j])), sl.inner, cbytes_of(ctx.in(st.first + N + j)),
               row, sl.outer, st.trips, index(sl.reverse), sl.inner, sl.inner);
    }
    ctx.emit_subgraph(body);
    for (size_t k = 0; k < st.outs.size(); ++k) {
      if (!ctx.output(N + k)) continue;
      const auto& sl = st.outs[k];
      ctx.line("for (std::int64_t o = 0; o < {}; ++o)", sl.outer);
      ctx.line("  onnxc::copy_bytes({} + (({} * {} + o) * {} + {}) * {}, {} + o * {}, {});",
               bytes_of(ctx.out(N + k)), row, sl.outer, st.trips, index(sl.reverse), sl.inner,
               cbytes_of(ctx.ref(body.outputs[N + k])), sl.inner, sl.inner);
    }
    for (size_t i = 0; i < N; ++i)
      ctx.line("onnxc::copy_bytes({}, {}, {});", ctx.ref(body.inputs[i]), ctx.ref(body.outputs[i]),
               body.inputs[i]->bytes());
    ctx.line("}}");
    for (size_t i = 0; i < N; ++i)
      if (ctx.output(i)) {
        size_t bytes = body.inputs[i]->bytes();
        ctx.line("onnxc::copy_bytes({} + {} * {}, {}, {});", bytes_of(ctx.out(i)), row, bytes,
                 ctx.ref(body.inputs[i]), bytes);
      }
    if (batched) ctx.line("}}");
  }
};

// ---- Loop ------------------------------------------------------------------------------------

struct LoopState : OpState {
  size_t num_carried = 0;
  int64_t trips = -1;    // static trip count (or the bound) when there are scan outputs
  bool bounded = false;  // trips is the --max-trip-count bound; the last output counts the rows
};

class LoopOp final : public OpHandler {
 private:
  static std::string trip_count_name(const Node& n) { return n.name + ".trip_count"; }
  static bool has_trip_count_output(const Node& n) {
    return !n.outputs.empty() && n.outputs.back() && n.attr(kMaxTripCountAttribute) &&
           n.outputs.back()->name == trip_count_name(n);
  }
  // Bounded scan outputs are graph outputs of the main graph that no node reads.
  static bool bounded_scan_outputs(InferContext& ctx, size_t N, size_t K) {
    if (!ctx.graph()) return ctx.fail("a bounded Loop can only be inferred in its graph");
    for (size_t k = 0; k < K; ++k) {
      const Value* out = ctx.node().output(N + k);
      if (!out || out->sequence_rows) continue;  // ops/control/sequence.cpp checks who reads those
      if (!out->is_graph_output || reads(*ctx.graph(), out) > 0)
        return ctx.fail(
            "scan output '{}' is bounded by --max-trip-count, so its length is known only at run "
            "time: it must be a graph output that no node reads",
            out->name);
    }
    return true;
  }
  // The graph output NODE.trip_count: how many rows of the bounded scan outputs hold values.
  static void add_trip_count_output(InferContext& ctx) {
    Graph& g = *ctx.graph();
    Value* v = g.add_value(trip_count_name(ctx.node()));
    v->producer = &ctx.node();
    v->is_graph_output = true;
    ctx.node().outputs.push_back(v);
    g.outputs.push_back(v);
  }

 public:
  bool infer(InferContext& ctx) const override {
    Graph* body = body_attr(ctx, "body");
    if (!body) return ctx.fail("attribute 'body' (a graph) is required");
    if (ctx.num_inputs() < 2) return ctx.fail("needs inputs M and cond (either may be empty)");
    auto& st = ctx.make_state<LoopState>();
    const size_t N = ctx.num_inputs() - 2;
    st.num_carried = N;
    if (body->inputs.size() != N + 2)
      return ctx.fail(
          "the body has {} inputs; iteration number, condition and {} loop-carried "
          "values need {}",
          body->inputs.size(), N, N + 2);
    const bool counted = has_trip_count_output(ctx.node());  // added by an earlier inference
    if (body->outputs.size() < N + 1 ||
        ctx.num_outputs() != body->outputs.size() - 1 + (counted ? 1 : 0))
      return ctx.fail("the node has {} outputs, the body {} (condition first)", ctx.num_outputs(),
                      body->outputs.size());
    const size_t K = body->outputs.size() - 1 - N;
    if (ctx.has_input(0) && ctx.input(0)->numel() != 1) return ctx.fail("M must be a scalar");
    if (ctx.has_input(1) && ctx.input(1)->numel() != 1) return ctx.fail("cond must be a scalar");
    bind_input(body->inputs[0], DataType::kInt64, {});
    bind_input(body->inputs[1], DataType::kBool, {});
    for (size_t i = 0; i < N; ++i) {
      const Value* in = ctx.input(2 + i);
      if (!in) return ctx.fail("loop-carried input {} is required", i);
      if (!whole_bytes(ctx, in)) return false;
      bind_input(body->inputs[2 + i], in->dtype, in->shape);
    }
    if (!ctx.infer_subgraph(*body)) return false;
    if (body->outputs[0]->numel() != 1) return ctx.fail("the body's condition must be a scalar");
    for (size_t i = 0; i < N; ++i) {
      const Value *in = body->inputs[2 + i], *out = body->outputs[1 + i];
      if (out->dtype != in->dtype || out->shape != in->shape)
        return ctx.fail("loop-carried value {} changes from {}[{}] to {}[{}] in the body", i,
                        dtype_name(in->dtype), shape_str(in->shape), dtype_name(out->dtype),
                        shape_str(out->shape));
      for (size_t j = 0; j < body->inputs.size(); ++j)
        if (j != 2 + i && out == body->inputs[j])
          return ctx.fail("loop-carried output {} is body input {} itself: not supported", i, j);
      if (ctx.has_output(i)) ctx.set_output(i, in->dtype, in->shape);
    }
    if (K > 0) {
      const Tensor* m = ctx.has_input(0) ? ctx.constant_input(0) : nullptr;
      const Tensor* c = ctx.has_input(1) ? ctx.constant_input(1) : nullptr;
      bool starts = !ctx.has_input(1) || (c && c->int_at(0) != 0);
      bool stopped = c && c->int_at(0) == 0;
      const Attribute* bound = ctx.node().attr(kMaxTripCountAttribute);
      if (m && (stopped || (starts && loop_condition_stays(*body)))) {
        st.trips = stopped ? 0 : std::max<int64_t>(m->int_at(0), 0);
      } else if (bound) {
        if (!bounded_scan_outputs(ctx, N, K)) return false;
        st.trips = bound->i;
        st.bounded = true;
      } else {
        return ctx.fail(
            "the trip count M must be a constant, and the condition must never end the "
            "loop early, for its {} scan output(s) to have a static size; otherwise bound it with "
            "--max-trip-count {}=N",
            K, ctx.node().name);
      }
      for (size_t k = 0; k < K; ++k) {
        const Value* out = body->outputs[1 + N + k];
        if (!whole_bytes(ctx, out)) return false;
        Shape s = out->shape;
        s.insert(s.begin(), st.trips);
        if (ctx.has_output(N + k)) ctx.set_output(N + k, out->dtype, s);
      }
      if (st.bounded && !counted) add_trip_count_output(ctx);
      if (st.bounded) ctx.set_output(N + K, DataType::kInt64, {1});
    }
    return true;
  }

  void emit(EmitContext& ctx) const override {
    const auto& st = ctx.node().state_as<LoopState>();
    const Graph& body = body_of(ctx.node(), "body");
    const size_t N = st.num_carried;
    ctx.include("onnxc/base.h");
    const std::string iter = ctx.ref(body.inputs[0]), cond = ctx.ref(body.inputs[1]);
    for (size_t i = 0; i < N; ++i)
      ctx.line("onnxc::copy_bytes({}, {}, {});", ctx.ref(body.inputs[2 + i]), ctx.in(2 + i),
               body.inputs[2 + i]->bytes());
    ctx.line("{}[0] = {};", cond, ctx.input(1) ? fmt::format("{}[0]", ctx.in(1)) : "true");
    std::string bound = ctx.input(0) ? fmt::format("it < {}[0] && ", ctx.in(0)) : "";
    if (st.bounded) {
      ctx.line("std::int64_t it = 0;");
      ctx.line("for (; {}{}[0]; ++it) {{", bound, cond);
      ctx.line("if (it == {}) return onnxc::kErrorTripCount;  // --max-trip-count {}={}", st.trips,
               ctx.node().name, st.trips);
    } else {
      ctx.line("for (std::int64_t it = 0; {}{}[0]; ++it) {{", bound, cond);
    }
    ctx.line("{}[0] = it;", iter);
    ctx.emit_subgraph(body);
    for (size_t k = 0; 1 + N + k < body.outputs.size(); ++k)
      if (ctx.output(N + k)) {
        size_t bytes = body.outputs[1 + N + k]->bytes();
        ctx.line("onnxc::copy_bytes({} + it * {}, {}, {});", bytes_of(ctx.out(N + k)), bytes,
                 ctx.ref(body.outputs[1 + N + k]), bytes);
      }
    for (size_t i = 0; i < N; ++i)
      ctx.line("onnxc::copy_bytes({}, {}, {});", ctx.ref(body.inputs[2 + i]),
               ctx.ref(body.outputs[1 + i]), body.inputs[2 + i]->bytes());
    ctx.line("{}[0] = {}[0];", cond, ctx.ref(body.outputs[0]));
    ctx.line("}}");
    if (st.bounded) {
      const size_t K = body.outputs.size() - 1 - N;
      for (size_t k = 0; k < K; ++k)
        if (ctx.output(N + k)) {
          size_t bytes = body.outputs[1 + N + k]->bytes();
          ctx.line("onnxc::zero_bytes({} + it * {}, static_cast<std::size_t>({} - it) * {});",
                   bytes_of(ctx.out(N + k)), bytes, st.trips, bytes);
        }
      ctx.line("{}[0] = it;", ctx.out(N + K));
    }
    for (size_t i = 0; i < N; ++i)
      if (ctx.output(i))
        ctx.line("onnxc::copy_bytes({}, {}, {});", ctx.out(i), ctx.ref(body.inputs[2 + i]),
                 body.inputs[2 + i]->bytes());
  }
};

const IfOp kIf;
const ScanOp kScan;
const LoopOp kLoop;

}  // namespace

bool loop_condition_stays(const Graph& body) {
  const Value* v = body.outputs[0];
  for (int guard = 0; guard < 64 && v; ++guard) {
    if (v == body.inputs[1]) return true;
    if (v->is_constant()) return v->constant->int_at(0) != 0;
    if (!v->producer || v->producer->op_type != "Identity") return false;
    v = v->producer->input(0);
  }
  return false;
}

std::vector<OpRegistration> control_flow_ops() {
  return {
      {"", "If", 1, kMaxOpset, &kIf},
      {"", "Loop", 1, kMaxOpset, &kLoop},
      {"", "Scan", 8, kMaxOpset, &kScan},
  };
}

}  // namespace onnxc
