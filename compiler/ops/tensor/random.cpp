// Random ops: RandomUniform, RandomNormal (1, 22), RandomUniformLike, RandomNormalLike (1, 22),
// Bernoulli (15, 22) and Multinomial (7, 22); bfloat16 from 22.
//
// Determinism. Every node draws from a counter-based stream (runtime/onnxc/random.h):
// draw i is mix64(key + (i + 1) * golden), with no state kept anywhere, so the generated code is
// reentrant and every run of a model returns the same values. The node's 64-bit key is fixed at
// compile time (random_key()):
//   - with a `seed` attribute: mix64(0x5EED00000000 | the float's 32 bits), so equal seeds give
//     equal streams, whatever the node's name;
//   - without one: mix64(FNV-1a 64 of the node's name), a fixed per-node seed (importers name
//     every node, synthesizing a name when the model has none).
// Draw i feeds output element i (Normal: draws 2i and 2i+1; Multinomial: draw b * sample_size + s).
// These are not numpy's numbers, so conformance checks these ops on shape, type and range
// (`onnxc test` reports them as PASS-RANDOM, from random_range()).
// Random ops are never folded at compile time: their node stays in the graph.
#include "onnxc/random.h"

#include <cstring>

#include "ops/dispatch.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

uint64_t random_key(InferContext& ctx) {
  if (ctx.has_attr("seed")) {
    const float seed = ctx.attr_float("seed", 0);
    uint32_t bits;
    std::memcpy(&bits, &seed, sizeof bits);
    return random_mix64(0x5EED00000000ull | bits);
  }
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64
  for (unsigned char c : ctx.node().name) h = (h ^ c) * 0x100000001b3ull;
  return random_mix64(h);
}

bool is_float_type(DataType t, int opset) {
  return t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 ||
         (t == DataType::kBFloat16 && opset >= 22);
}

std::string float_types(int opset) {
  return opset >= 22 ? "float, double, float16, bfloat16" : "float, double, float16";
}

// The `dtype` attribute, or `def` when absent.
bool attr_dtype(InferContext& ctx, DataType def, DataType& out) {
  out = def;
  if (!ctx.has_attr("dtype")) return true;
  const int64_t raw = ctx.attr_int("dtype", 0);
  if (raw <= 0 || raw > 64) return ctx.fail("dtype {} is not a tensor element type", raw);
  out = static_cast<DataType>(raw);
  return true;
}

struct RandomState : OpState {
  uint64_t key = 0;
  double a = 0, b = 0;  // uniform: low, high; normal: mean, scale
  int64_t n = 0;
};

// kNormal: RandomNormal(Like), else RandomUniform(Like). kLike: shape (and default type) from
// the input.
template <bool kNormal, bool kLike>
class RandomOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(kLike ? 1 : 0, kLike ? 1 : 0, 1, 1)) return false;
    Shape shape;
    DataType def = DataType::kFloat;
    if (kLike) {
      shape = ctx.input(0)->shape;
      def = ctx.input(0)->dtype;
    } else {
      if (!ctx.has_attr("shape")) return ctx.fail("attribute 'shape' is required");
      shape = ctx.attr_ints("shape");
      for (int64_t d : shape)
        if (d < 0) return ctx.fail("shape {} has a negative dimension", shape_str(shape));
    }
    DataType t;
    if (!attr_dtype(ctx, def, t)) return false;
    if (!is_float_type(t, ctx.opset()))
      return ctx.fail("output type {} is not supported at opset {} ({})", dtype_name(t),
                      ctx.opset(), float_types(ctx.opset()));
    auto& s = ctx.make_state<RandomState>();
    s.key = random_key(ctx);
    s.a = kNormal ? ctx.attr_float("mean", 0) : ctx.attr_float("low", 0);
    s.b = kNormal ? ctx.attr_float("scale", 1) : ctx.attr_float("high", 1);
    if (!kNormal && !(s.a <= s.b)) return ctx.fail("low {} is greater than high {}", s.a, s.b);
    if (kNormal && !(s.b >= 0)) return ctx.fail("scale {} is negative", s.b);
    s.n = shape_numel(shape);
    ctx.set_output(0, t, shape);
    return true;
  }
  RandomRange random_range(const Node& n, size_t) const override {
    const auto& s = n.state_as<RandomState>();
    RandomRange r;
    r.random = true;
    if (!kNormal) r.low = s.a, r.high = s.b;
    return r;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<RandomState>();
    ctx.include("onnxc/random.h");
    ctx.line("onnxc::{}<{}>({}, {{/*key=*/{}ull, /*n=*/{}, /*{}=*/{}, /*{}=*/{}}});",
             kNormal ? "random_normal_ref" : "random_uniform_ref", dtype_cpp(ctx.output(0)->dtype),
             ctx.out(0), s.key, s.n, kNormal ? "mean" : "low", cpp_double(s.a),
             kNormal ? "scale" : "high", cpp_double(s.b));
  }
};

struct BernoulliState : OpState {
  uint64_t key = 0;
};

class BernoulliOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    const Value* x = ctx.input(0);
    if (!is_float_type(x->dtype, ctx.opset()))
      return ctx.fail("input type {} is not supported at opset {} ({})", dtype_name(x->dtype),
                      ctx.opset(), float_types(ctx.opset()));
    DataType t;
    if (!attr_dtype(ctx, x->dtype, t)) return false;
    if (!is_float_type(t, ctx.opset()) && !in_type_set(t, kIntTypes | kBoolType))
      return ctx.fail("output type {} is not supported at opset {} ({}, the integer types, bool)",
                      dtype_name(t), ctx.opset(), float_types(ctx.opset()));
    ctx.make_state<BernoulliState>().key = random_key(ctx);
    ctx.set_output(0, t, x->shape);
    return true;
  }
  RandomRange random_range(const Node&, size_t) const override {
    RandomRange r;
    r.random = true;
    r.low = 0, r.high = 1, r.integral = true;
    return r;
  }
  void emit(EmitContext& ctx) const override {
    ctx.include("onnxc/random.h");
    ctx.line("onnxc::bernoulli_ref<{}, {}>({}, {}, {{/*key=*/{}ull, /*n=*/{}}});",
             dtype_cpp(ctx.input(0)->dtype), dtype_cpp(ctx.output(0)->dtype), ctx.in(0), ctx.out(0),
             ctx.node().state_as<BernoulliState>().key, ctx.input(0)->numel());
  }
};

struct MultinomialState : OpState {
  uint64_t key = 0;
  int64_t batch = 0, classes = 0, samples = 0;
};

class MultinomialOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    const Value* x = ctx.input(0);
    if (!is_float_type(x->dtype, ctx.opset()))
      return ctx.fail("input type {} is not supported at opset {} ({})", dtype_name(x->dtype),
                      ctx.opset(), float_types(ctx.opset()));
    if (x->shape.size() != 2)
      return ctx.fail("input must be [batch_size, class_size], has shape {}", shape_str(x->shape));
    if (x->shape[1] < 1) return ctx.fail("class_size must be at least 1");
    DataType t;
    if (!attr_dtype(ctx, DataType::kInt32, t)) return false;
    if (t != DataType::kInt32 && t != DataType::kInt64)
      return ctx.fail("output type {} is not int32 or int64", dtype_name(t));
    auto& s = ctx.make_state<MultinomialState>();
    s.samples = ctx.attr_int("sample_size", 1);
    if (s.samples < 0) return ctx.fail("sample_size {} is negative", s.samples);
    s.key = random_key(ctx);
    s.batch = x->shape[0];
    s.classes = x->shape[1];
    ctx.set_output(0, t, {s.batch, s.samples});
    return true;
  }
  RandomRange random_range(const Node& n, size_t) const override {
    RandomRange r;
    r.random = true;
    r.low = 0, r.high = static_cast<double>(n.state_as<MultinomialState>().classes - 1);
    r.integral = true;
    return r;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<MultinomialState>();
    ctx.include("onnxc/random.h");
    ctx.line(
        "onnxc::multinomial_ref<{}, {}>({}, {}, {{/*key=*/{}ull, /*batch=*/{}, /*classes=*/{}, "
        "/*samples=*/{}}});",
        dtype_cpp(ctx.input(0)->dtype), dtype_cpp(ctx.output(0)->dtype), ctx.in(0), ctx.out(0),
        s.key, s.batch, s.classes, s.samples);
  }
};

const RandomOp<false, false> kRandomUniform;
const RandomOp<true, false> kRandomNormal;
const RandomOp<false, true> kRandomUniformLike;
const RandomOp<true, true> kRandomNormalLike;
const BernoulliOp kBernoulli;
const MultinomialOp kMultinomial;

}  // namespace

std::vector<OpRegistration> random_ops() {
  return {
      {"", "RandomUniform", 1, kMaxOpset, &kRandomUniform},
      {"", "RandomNormal", 1, kMaxOpset, &kRandomNormal},
      {"", "RandomUniformLike", 1, kMaxOpset, &kRandomUniformLike},
      {"", "RandomNormalLike", 1, kMaxOpset, &kRandomNormalLike},
      {"", "Bernoulli", 15, kMaxOpset, &kBernoulli},
      {"", "Multinomial", 7, kMaxOpset, &kMultinomial},
  };
}

}  // namespace onnxc
