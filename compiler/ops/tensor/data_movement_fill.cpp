// Data-movement ops that fill: Pad, Trilu and OneHot (see data_movement.cpp for the family).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>

#include "onnxc/transform.h"
#include "ops/broadcast.h"
#include "ops/dispatch.h"
#include "ops/registry.h"
#include "ops/tensor/data_movement.h"

namespace onnxc {
namespace {

// ---- Pad ----------------------------------------------------------------------------------------

struct PadState : OpState {
  PadParams p{};
  bool value_from_input = false;  // constant_value is input 2 (read at run time)
  double value = 0;               // otherwise: the `value` attribute (0 from opset 11 on)
  Tensor value_bytes;             // `value` as one element of the data type, for folding
};

class PadOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    const int v = ctx.opset();
    // Opset 1: attribute `paddings`; 2: `pads`; 11: inputs pads, constant_value; 18: axes input.
    if (!ctx.check_arity(v < 11 ? 1 : 2, v < 11 ? 1 : (v < 18 ? 3 : 4), 1, 1) ||
        !check_movable(ctx, 0))
      return false;
    const Value* x = ctx.input(0);
    const Shape& in = x->shape;
    const int64_t rank = static_cast<int64_t>(in.size());
    auto& s = ctx.make_state<PadState>();
    std::vector<int64_t> pads, axes;
    if (v < 11) {
      const char* name = v < 2 ? "paddings" : "pads";
      if (!ctx.has_attr(name)) return ctx.fail("attribute '{}' is required", name);
      pads = ctx.attr_ints(name);
      s.value = ctx.attr_float("value", 0.0f);
    } else if (!constant_ints(ctx, 1, "pads", pads)) {
      return false;
    }
    if (ctx.has_input(3)) {
      if (!constant_ints(ctx, 3, "axes", axes)) return false;
    } else {
      for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
    }
    if (pads.size() != 2 * axes.size())
      return ctx.fail("pads has {} entries; expected 2 per padded axis ({})", pads.size(),
                      2 * axes.size());
    const std::string mode = ctx.attr_string("mode", "constant");
    const char* modes[] = {"constant", "reflect", "edge", "wrap"};
    auto it = std::find(std::begin(modes), std::end(modes), mode);
    if (it == std::end(modes) || (mode == "wrap" && v < 19))
      return ctx.fail("mode '{}' is not one of constant, reflect, edge{}", mode,
                      v >= 19 ? ", wrap" : " (wrap needs opset 19)");
    s.p.mode = static_cast<int>(it - std::begin(modes));
    s.p.rank = static_cast<int>(rank);
    Shape out = in;
    std::vector<bool> seen(in.size(), false);
    for (size_t i = 0; i < axes.size(); ++i) {
      int64_t a = axes[i];
      if (!ctx.normalize_axis(a, rank, "axes entry")) return false;
      const size_t ax = static_cast<size_t>(a);
      if (seen[ax]) return ctx.fail("axis {} is repeated", a);
      seen[ax] = true;
      const int64_t begin = pads[i], end = pads[i + axes.size()];
      out[ax] = in[ax] + begin + end;
      if (out[ax] < 0)
        return ctx.fail("pads {}, {} remove more than the {} elements of axis {}", begin, end,
                        in[ax], a);
      if (in[ax] == 0 && out[ax] > 0 && s.p.mode != kPadConstant)
        return ctx.fail("mode '{}' cannot pad the empty axis {}", mode, a);
      s.p.begin[ax] = begin;
    }
    std::copy(in.begin(), in.end(), s.p.in_dims);
    std::copy(out.begin(), out.end(), s.p.out_dims);
    s.p.numel = shape_numel(out);
    // constant_value: an optional input of the data type (an empty tensor means absent).
    if (ctx.has_input(2) && ctx.input(2)->numel() > 0) {
      if (ctx.input(2)->dtype != x->dtype)
        return ctx.fail("constant_value has type {}, the data {}", dtype_name(ctx.input(2)->dtype),
                        dtype_name(x->dtype));
      s.value_from_input = true;
    }
    s.value_bytes = Tensor::zeros(x->dtype, {});
    const bool plain = visit_dtype<kAllPlain>(x->dtype, [&](auto tag) {
      using T = decltype(tag);
      s.value_bytes.template as<T>()[0] = static_cast<T>(s.value);
    });
    if (!plain && s.value != 0)
      return ctx.fail("a non-zero 'value' attribute is not supported for type {}",
                      dtype_name(x->dtype));
    ctx.set_output(0, x->dtype, out);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<PadState>();
    const Tensor& value = s.value_from_input ? *in[2] : s.value_bytes;
    return visit_element_size(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      T v;
      std::memcpy(&v, value.data.data(), sizeof(T));
      pad_ref(s.p, in[0]->as<T>(), out[0].as<T>(), v);
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<PadState>();
    const auto& p = s.p;
    const DataType t = ctx.input(0)->dtype;
    auto arr = [&](const index_t* v) { return index_array(v, p.rank); };
    std::string value = s.value_from_input          ? fmt::format("{}[0]", ctx.in(2))
                        : in_type_set(t, kAllPlain) ? cpp_scalar(t, s.value)
                                                    : fmt::format("{}{{}}", dtype_cpp(t));
    ctx.include("onnxc/transform.h");
    ctx.line("static constexpr onnxc::PadParams p = {};",
             labeled({{"rank", fmt::format("{}", p.rank)},
                      {"mode", fmt::format("{}", p.mode)},
                      {"out_dims", arr(p.out_dims)},
                      {"in_dims", arr(p.in_dims)},
                      {"begin", arr(p.begin)},
                      {"numel", fmt::format("{}", p.numel)}}));
    ctx.line("onnxc::pad_ref(p, {}, {}, {});", ctx.in(0), ctx.out(0), value);
  }
};

// ---- Trilu, OneHot -----------------------------------------------------------------------------

struct TriluState : OpState {
  int64_t batch = 1, rows = 1, cols = 1;
  bool upper = true;
};

class TriluOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 2, 1, 1) || !check_movable(ctx, 0)) return false;
    if (ctx.has_input(1) && (ctx.input(1)->dtype != DataType::kInt64 || ctx.input(1)->numel() != 1))
      return ctx.fail("k must be an int64 scalar");
    const Shape& in = ctx.input(0)->shape;
    if (in.size() < 2) return ctx.fail("input must have rank >= 2, got {}", shape_str(in));
    auto& s = ctx.make_state<TriluState>();
    s.rows = in[in.size() - 2];
    s.cols = in.back();
    s.batch = dims_product(in, 0, in.size() - 2);
    s.upper = ctx.attr_int("upper", 1) != 0;
    ctx.set_output(0, ctx.input(0)->dtype, in);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<TriluState>();
    const index_t k = in.size() > 1 && in[1] ? in[1]->int_at(0) : 0;
    return visit_element_size(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      trilu_ref(in[0]->as<T>(), out[0].as<T>(), s.batch, s.rows, s.cols, k, s.upper);
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<TriluState>();
    ctx.include("onnxc/transform.h");
    // k is read at run time, so a k that is a graph input works too.
    std::string k =
        ctx.input(1) ? fmt::format("static_cast<onnxc::index_t>({}[0])", ctx.in(1)) : "0";
    ctx.line(
        "onnxc::trilu_ref({}, {}, /*batch=*/{}, /*rows=*/{}, /*cols=*/{}, /*k=*/{}, "
        "/*upper=*/{});",
        ctx.in(0), ctx.out(0), s.batch, s.rows, s.cols, k, s.upper ? "true" : "false");
  }
};

struct OneHotState : OpState {
  int64_t outer = 1, depth = 1, inner = 1;
};

class OneHotOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(3, 3, 1, 1) || !check_movable(ctx, 2)) return false;
    const Value *idx = ctx.input(0), *values = ctx.input(2);
    if (!in_type_set(idx->dtype, kNumeric)) return ctx.fail("indices must be a numeric tensor");
    if (values->numel() != 2) return ctx.fail("values must hold [off_value, on_value]");
    const Tensor* depth = ctx.constant_input(1);
    if (!depth) return ctx.fail("depth input must be a constant (it decides the output shape)");
    if (depth->numel() != 1 || !in_type_set(depth->dtype, kNumeric))
      return ctx.fail("depth must be a numeric scalar");
    const int64_t rank = static_cast<int64_t>(idx->shape.size());
    int64_t axis = ctx.attr_int("axis", -1);
    if (!ctx.normalize_axis(axis, rank + 1)) return false;
    auto& s = ctx.make_state<OneHotState>();
    s.depth = static_cast<int64_t>(depth->double_at(0));
    if (s.depth < 1) return ctx.fail("depth must be positive, got {}", s.depth);
    s.outer = dims_product(idx->shape, 0, static_cast<size_t>(axis));
    s.inner = dims_product(idx->shape, static_cast<size_t>(axis), idx->shape.size());
    Shape out = idx->shape;
    out.insert(out.begin() + axis, s.depth);
    if (out.size() > kMaxRank) return ctx.fail("output rank {} exceeds {}", out.size(), kMaxRank);
    ctx.set_output(0, values->dtype, out);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<OneHotState>();
    return visit_element_size(in[2]->dtype, [&](auto tag) {
      using T = decltype(tag);
      visit_dtype<kNumeric>(in[0]->dtype, [&](auto itag) {
        using I = decltype(itag);
        one_hot_ref(in[0]->as<I>(), in[2]->as<T>(), out[0].as<T>(), s.outer, s.depth, s.inner);
      });
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<OneHotState>();
    ctx.include("onnxc/transform.h");
    ctx.line("onnxc::one_hot_ref({}, {}, {}, /*outer=*/{}, /*depth=*/{}, /*inner=*/{});", ctx.in(0),
             ctx.in(2), ctx.out(0), s.outer, s.depth, s.inner);
  }
};

const PadOp kPad;
const TriluOp kTrilu;
const OneHotOp kOneHot;

}  // namespace

std::vector<OpRegistration> data_movement_fill_ops() {
  return {{"", "Pad", 1, kMaxOpset, &kPad},
          {"", "Trilu", 14, kMaxOpset, &kTrilu},
          {"", "OneHot", 9, kMaxOpset, &kOneHot}};
}

}  // namespace onnxc
