// Ops along one axis: CumSum (11, 14), CumProd (26), TopK (1, 10, 11), and the ops whose output
// shape depends on input values: Compress (9, 11), NonZero (9, 13), Unique (11).
// Compress compiles when its condition is a constant (it is then a gather of the selected
// positions); NonZero and Unique, and Compress of constants, fold at compile time. With run-time
// values deciding the output shape they are refused: onnxc's shapes are static.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "onnxc/scan_ops.h"
#include "ops/dispatch.h"
#include "ops/half_compute.h"
#include "ops/registry.h"
#include "ops/tensor/indexing_util.h"

namespace onnxc {
namespace {

using indexing::check_movable;
using indexing::product;
using indexing::visit_element_size;

// The axis input (CumSum, CumProd) or attribute, normalized.
bool constant_axis(InferContext& ctx, size_t input, int64_t rank, int64_t& axis) {
  const Tensor* t = ctx.constant_input(input);
  if (!t)
    return ctx.fail(
        "axis input must be a constant (run-time axes are not supported: the loop nest is fixed "
        "at compile time)");
  if (!is_integer(t->dtype) || t->numel() != 1) return ctx.fail("axis must be an integer scalar");
  axis = t->int_at(0);
  return ctx.normalize_axis(axis, rank);
}

// ---- CumSum and CumProd ------------------------------------------------------------------------

struct CumState : OpState {
  int64_t outer = 1, n = 1, inner = 1;
  bool exclusive = false, reverse = false;
  HalfPlan half;
};

template <bool kProd>
class CumulativeOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 2, 1, 1)) return false;
    const Value* x = ctx.input(0);
    const DataType t = x->dtype;
    const bool half_ok = kProd || ctx.opset() >= 14;
    const bool ok = t == DataType::kFloat || t == DataType::kDouble || t == DataType::kInt32 ||
                    t == DataType::kInt64 || t == DataType::kUint32 || t == DataType::kUint64 ||
                    (half_ok && is_half(t));
    if (!ok) return ctx.fail("type {} is not supported at opset {}", dtype_name(t), ctx.opset());
    const int64_t rank = static_cast<int64_t>(x->shape.size());
    if (rank < 1) return ctx.fail("input must have rank >= 1");
    int64_t axis = 0;
    if (!constant_axis(ctx, 1, rank, axis)) return false;
    auto& s = ctx.make_state<CumState>();
    const size_t a = static_cast<size_t>(axis);
    s.outer = product(x->shape, 0, a);
    s.n = x->shape[a];
    s.inner = product(x->shape, a + 1, x->shape.size());
    s.exclusive = ctx.attr_int("exclusive", 0) != 0;
    s.reverse = ctx.attr_int("reverse", 0) != 0;
    ctx.set_output(0, t, x->shape);
    s.half = plan_half(ctx, {0}, {0});
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<CumState>();
    return visit_dtype<kNumeric>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (kProd)
        cumprod_ref(in[0]->as<T>(), out[0].as<T>(), s.outer, s.n, s.inner, s.exclusive, s.reverse);
      else
        cumsum_ref(in[0]->as<T>(), out[0].as<T>(), s.outer, s.n, s.inner, s.exclusive, s.reverse);
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<CumState>();
    ctx.include("onnxc/scan_ops.h");
    const HalfNames names = emit_widen(ctx, s.half);
    ctx.line(
        "onnxc::{}({}, {}, /*outer=*/{}, /*n=*/{}, /*inner=*/{}, /*exclusive=*/{}, "
        "/*reverse=*/{});",
        kProd ? "cumprod_ref" : "cumsum_ref", names.in(0), names.out(0), s.outer, s.n, s.inner,
        s.exclusive, s.reverse);
    emit_narrow(ctx, s.half, names);
  }
};

// ---- TopK
// ----------------------------------------------------------------------------------------

struct TopKState : OpState {
  TopKParams p{};
  HalfPlan half;
  size_t order_offset = 0;  // scratch offset of the n sort positions
};

class TopKOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    const bool k_input = ctx.opset() >= 10;
    if (!ctx.check_arity(k_input ? 2 : 1, k_input ? 2 : 1, 2, 2)) return false;
    if (!ctx.has_output(0) || !ctx.has_output(1))
      return ctx.fail("both outputs (Values, Indices) are required");
    const Value* x = ctx.input(0);
    if (!in_type_set(x->dtype, kNumeric) && !is_half(x->dtype))
      return ctx.fail("type {} is not supported", dtype_name(x->dtype));
    const int64_t rank = static_cast<int64_t>(x->shape.size());
    if (rank < 1) return ctx.fail("input must have rank >= 1");
    int64_t axis = ctx.attr_int("axis", -1);
    if (!ctx.normalize_axis(axis, rank)) return false;
    int64_t k = 0;
    if (k_input) {
      const Tensor* kt = ctx.constant_input(1);
      if (!kt)
        return ctx.fail(
            "K input must be a constant (it decides the output shape; run-time K is not "
            "supported)");
      if (kt->dtype != DataType::kInt64 || kt->numel() != 1)
        return ctx.fail("K must be a single int64");
      k = kt->int_at(0);
    } else {
      if (!ctx.has_attr("k")) return ctx.fail("attribute k is required");
      k = ctx.attr_int("k", 0);
    }
    const size_t a = static_cast<size_t>(axis);
    if (k < 0 || k > x->shape[a])
      return ctx.fail("K = {} must be in [0, {}] (the axis length)", k, x->shape[a]);
    auto& s = ctx.make_state<TopKState>();
    TopKParams& p = s.p;
    p.outer = product(x->shape, 0, a);
    p.n = x->shape[a];
    p.inner = product(x->shape, a + 1, x->shape.size());
    p.k = k;
    p.largest = ctx.opset() >= 11 ? (ctx.attr_int("largest", 1) != 0) : 1;
    ctx.attr_int("sorted", 1);  // unsorted output may be in any order: sorted is one of them
    Shape out = x->shape;
    out[a] = k;
    ctx.set_output(0, x->dtype, out);
    ctx.set_output(1, DataType::kInt64, out);
    s.half = plan_half(ctx, {0}, {0});
    s.order_offset = (s.half.bytes + 63) / 64 * 64;
    ctx.request_scratch(s.order_offset + static_cast<size_t>(p.n) * sizeof(index_t));
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& p = n.state_as<TopKState>().p;
    std::vector<index_t> order(static_cast<size_t>(p.n));
    return visit_dtype<kNumeric>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      topk_ref(p, in[0]->as<T>(), out[0].as<T>(), out[1].as<int64_t>(), order.data());
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<TopKState>();
    const TopKParams& p = s.p;
    ctx.include("onnxc/scan_ops.h");
    const HalfNames names = emit_widen(ctx, s.half);
    ctx.line(
        "static constexpr onnxc::TopKParams p = {{/*outer=*/{}, /*n=*/{}, /*inner=*/{}, "
        "/*k=*/{}, /*largest=*/{}}};",
        p.outer, p.n, p.inner, p.k, p.largest);
    ctx.line("onnxc::topk_ref(p, {}, {}, {}, reinterpret_cast<onnxc::index_t*>({} + {}));",
             names.in(0), names.out(0), ctx.out(1), ctx.scratch(), s.order_offset);
    emit_narrow(ctx, s.half, names);
  }
};

// ---- Compress ----------------------------------------------------------------------------------

struct CompressState : OpState {
  int64_t outer = 1, n = 1, inner = 1;
  std::vector<int64_t> selected;  // positions along the axis whose condition is true
};

class CompressOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 2, 1, 1) || !check_movable(ctx, 0) ||
        !ctx.check_dtype(1, {DataType::kBool}))
      return false;
    const Value *x = ctx.input(0), *cond = ctx.input(1);
    if (cond->shape.size() != 1) return ctx.fail("condition must be 1-D");
    const Tensor* c = ctx.constant_input(1);
    if (!c)
      return ctx.fail(
          "condition input must be a constant: it decides the output shape (a run-time condition "
          "is not supported)");
    auto& s = ctx.make_state<CompressState>();
    Shape out;
    int64_t axis = -1;
    if (ctx.has_attr("axis")) {
      axis = ctx.attr_int("axis", 0);
      const int64_t rank = static_cast<int64_t>(x->shape.size());
      if (axis < 0 && ctx.opset() < 11) return ctx.fail("negative axis needs opset 11");
      if (!ctx.normalize_axis(axis, rank)) return false;
      const size_t a = static_cast<size_t>(axis);
      s.outer = product(x->shape, 0, a);
      s.n = x->shape[a];
      s.inner = product(x->shape, a + 1, x->shape.size());
      out = x->shape;
    } else {
      s.n = x->numel();
      out = {0};
    }
    for (int64_t i = 0; i < c->numel(); ++i) {
      if (!c->int_at(i)) continue;
      if (i >= s.n)
        return ctx.fail("condition selects position {}, past the {} along the axis", i, s.n);
      s.selected.push_back(i);
    }
    out[axis < 0 ? 0 : static_cast<size_t>(axis)] = static_cast<int64_t>(s.selected.size());
    ctx.set_output(0, x->dtype, out);
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<CompressState>();
    return visit_element_size(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      compress_ref(in[0]->as<T>(), out[0].as<T>(), s.outer, s.n, s.inner, s.selected.data(),
                   static_cast<index_t>(s.selected.size()));
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<CompressState>();
    if (s.selected.empty()) {
      ctx.line("// nothing selected: the output is empty");
      return;
    }
    ctx.include("onnxc/scan_ops.h");
    ctx.line("static constexpr std::int64_t selected[] = {};", cpp_ints(s.selected));
    ctx.line("onnxc::compress_ref({}, {}, /*outer=*/{}, /*n=*/{}, /*inner=*/{}, selected, {});",
             ctx.in(0), ctx.out(0), s.outer, s.n, s.inner, s.selected.size());
  }
};

// ---- NonZero and Unique (folded only) -------------------------------------------------------

const char* kNeedsConstant =
    "input must be a constant: its values decide the output shape (run-time data is not "
    "supported)";

class NonZeroOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    const Value* x = ctx.input(0);
    if (!in_type_set(x->dtype, kAllPlain))
      return ctx.fail("type {} is not supported", dtype_name(x->dtype));
    if (x->shape.size() > static_cast<size_t>(kMaxRank))
      return ctx.fail("rank {} exceeds {}", x->shape.size(), kMaxRank);
    const Tensor* t = ctx.constant_input(0);
    if (!t) return ctx.fail("{}", kNeedsConstant);
    const int rank = static_cast<int>(x->shape.size());
    index_t dims[kMaxRank] = {};
    std::copy(x->shape.begin(), x->shape.end(), dims);
    Tensor y;
    visit_dtype<kAllPlain>(x->dtype, [&](auto tag) {
      using T = decltype(tag);
      const index_t count = nonzero_count(t->as<T>(), t->numel());
      y = Tensor::zeros(DataType::kInt64, {rank, count});
      nonzero_ref(t->as<T>(), dims, rank, t->numel(), count, y.as<int64_t>());
    });
    ctx.set_output_constant(0, std::move(y));
    return true;
  }
  void emit(EmitContext&) const override {}  // always folded
};

class UniqueOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 4)) return false;
    const Value* x = ctx.input(0);
    if (!in_type_set(x->dtype, kAllPlain))
      return ctx.fail("type {} is not supported", dtype_name(x->dtype));
    const bool sorted = ctx.attr_int("sorted", 1) != 0;
    int64_t outer = 1, n = x->numel(), inner = 1;
    int64_t axis = -1;
    if (ctx.has_attr("axis")) {
      axis = ctx.attr_int("axis", 0);
      if (!ctx.normalize_axis(axis, static_cast<int64_t>(x->shape.size()))) return false;
      const size_t a = static_cast<size_t>(axis);
      outer = product(x->shape, 0, a);
      n = x->shape[a];
      inner = product(x->shape, a + 1, x->shape.size());
    }
    const Tensor* t = ctx.constant_input(0);
    if (!t) return ctx.fail("{}", kNeedsConstant);
    std::vector<int64_t> first(static_cast<size_t>(n)), inverse(static_cast<size_t>(n)),
        counts(static_cast<size_t>(n));
    Tensor y;
    visit_dtype<kAllPlain>(x->dtype, [&](auto tag) {
      using T = decltype(tag);
      const index_t u = unique_ref(t->as<T>(), outer, n, inner, sorted, first.data(),
                                   inverse.data(), counts.data());
      first.resize(static_cast<size_t>(u));
      counts.resize(static_cast<size_t>(u));
      Shape ys = axis < 0 ? Shape{u} : x->shape;
      if (axis >= 0) ys[static_cast<size_t>(axis)] = u;
      y = Tensor::zeros(x->dtype, ys);
      compress_ref(t->as<T>(), y.as<T>(), outer, n, inner, first.data(), u);
    });
    auto ints = [](const std::vector<int64_t>& v) {
      Tensor r = Tensor::zeros(DataType::kInt64, {static_cast<int64_t>(v.size())});
      std::copy(v.begin(), v.end(), r.as<int64_t>());
      return r;
    };
    ctx.set_output_constant(0, std::move(y));
    ctx.set_output_constant(1, ints(first));
    ctx.set_output_constant(2, ints(inverse));
    ctx.set_output_constant(3, ints(counts));
    return true;
  }
  void emit(EmitContext&) const override {}  // always folded
};

const CumulativeOp<false> kCumSum;
const CumulativeOp<true> kCumProd;
const TopKOp kTopK;
const CompressOp kCompress;
const NonZeroOp kNonZero;
const UniqueOp kUnique;

}  // namespace

std::vector<OpRegistration> scan_ops() {
  return {{"", "CumSum", 11, kMaxOpset, &kCumSum},  {"", "CumProd", 26, kMaxOpset, &kCumProd},
          {"", "TopK", 1, kMaxOpset, &kTopK},       {"", "Compress", 9, kMaxOpset, &kCompress},
          {"", "NonZero", 9, kMaxOpset, &kNonZero}, {"", "Unique", 11, kMaxOpset, &kUnique}};
}

}  // namespace onnxc
