// Einsum (12): the equation is parsed at compile time into one loop nest (onnxc/einsum.h).
// Supported: up to 4 operands, letters a-z A-Z, one "..." per term (broadcast across operands
// as numpy does), repeated labels within a term (diagonals), explicit ("->") and implicit output
// (the ellipsis dims, then the labels used once, in alphabetical order).
#include "onnxc/einsum.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <string>

#include "ops/dispatch.h"
#include "ops/half_compute.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

// One term of the equation: its labels in axis order; kEllipsis marks where "..." stands.
constexpr int kEllipsis = -1;
struct Term {
  std::vector<int> labels;  // letters as chars, kEllipsis once at most
  bool has_ellipsis = false;
};

bool parse_term(const std::string& s, Term& t, std::string& error) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 3, "...") == 0) {
      if (t.has_ellipsis) return error = "a term has two ellipses", false;
      t.has_ellipsis = true;
      t.labels.push_back(kEllipsis);
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(s[i]))) {
      t.labels.push_back(s[i]);
    } else {
      return error = fmt::format("unexpected character '{}'", s[i]), false;
    }
  }
  return true;
}

struct EinsumState : OpState {
  EinsumParams p{};
  HalfPlan half;
};

// The terms of the equation's left side, one per input.
bool parse_lhs(InferContext& ctx, const std::string& eq, const std::string& lhs,
               std::vector<Term>& terms) {
  std::string error;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    Term term;
    if (!parse_term(lhs.substr(start, comma - start), term, error))
      return ctx.fail("equation '{}': {}", eq, error);
    terms.push_back(term);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != ctx.num_inputs())
    return ctx.fail("equation '{}' has {} terms for {} inputs", eq, terms.size(), ctx.num_inputs());
  return true;
}

// Each letter's size and how many terms use it; the ellipsis dims broadcast, right-aligned, into
// `ell`.
struct LabelSizes {
  std::map<int, int64_t> size;
  std::map<int, int> uses;
  std::vector<int64_t> ell;
};

bool label_sizes(InferContext& ctx, const std::string& eq, const std::vector<Term>& terms,
                 LabelSizes& ls) {
  for (size_t i = 0; i < terms.size(); ++i) {
    const Shape& s = ctx.input(i)->shape;
    const int64_t letters =
        static_cast<int64_t>(terms[i].labels.size()) - (terms[i].has_ellipsis ? 1 : 0);
    const int64_t ell_rank = static_cast<int64_t>(s.size()) - letters;
    if (ell_rank < 0 || (!terms[i].has_ellipsis && ell_rank != 0))
      return ctx.fail("term {} of '{}' has {} labels for an input of rank {}", i, eq, letters,
                      s.size());
    if (ell_rank > static_cast<int64_t>(ls.ell.size()))
      ls.ell.insert(ls.ell.begin(), static_cast<size_t>(ell_rank) - ls.ell.size(), 1);
    size_t axis = 0;
    for (int l : terms[i].labels) {
      if (l == kEllipsis) {
        for (int64_t e = 0; e < ell_rank; ++e) {
          int64_t& d =
              ls.ell[ls.ell.size() - static_cast<size_t>(ell_rank) + static_cast<size_t>(e)];
          const int64_t v = s[axis++];
          if (v != d && v != 1 && d != 1)
            return ctx.fail("the '...' dims of '{}' do not broadcast", eq);
          if (v != 1) d = v;
        }
        continue;
      }
      const int64_t v = s[axis++];
      auto it = ls.size.find(l);
      if (it != ls.size.end() && it->second != v)
        return ctx.fail("label '{}' of '{}' has sizes {} and {}", static_cast<char>(l), eq,
                        it->second, v);
      ls.size[l] = v;
      ++ls.uses[l];
    }
  }
  return true;
}

// The output labels: ids -2, -3, ... stand for the ellipsis dims, letters keep their char codes.
// Without "->", the ellipsis dims then the letters used once, in alphabetical (ASCII) order.
bool output_labels(InferContext& ctx, const std::string& eq, size_t arrow, const LabelSizes& ls,
                   std::vector<int>& out) {
  auto ellipsis_ids = [&] {
    for (size_t e = 0; e < ls.ell.size(); ++e) out.push_back(-2 - static_cast<int>(e));
  };
  if (arrow == std::string::npos) {
    ellipsis_ids();
    for (const auto& [l, n] : ls.uses)
      if (n == 1) out.push_back(l);
    return true;
  }
  Term rhs;
  std::string error;
  if (!parse_term(eq.substr(arrow + 2), rhs, error))
    return ctx.fail("equation '{}': {}", eq, error);
  if (!ls.ell.empty() && !rhs.has_ellipsis)
    return ctx.fail("equation '{}': summing over '...' dims is not supported", eq);
  for (int l : rhs.labels) {
    if (l == kEllipsis) {
      ellipsis_ids();
      continue;
    }
    if (!ls.size.count(l) || std::count(out.begin(), out.end(), l))
      return ctx.fail("output label '{}' of '{}' is unknown or repeated", static_cast<char>(l), eq);
    out.push_back(l);
  }
  return true;
}

// Each input's stride along every label (the output's first, then the summed ones): what the
// kernel walks; a broadcast ellipsis dim of size 1 adds no stride.
void label_strides(InferContext& ctx, const std::vector<Term>& terms,
                   const std::vector<int>& labels, const LabelSizes& ls, EinsumParams& p) {
  auto slot = [&](int l) {
    return static_cast<size_t>(std::find(labels.begin(), labels.end(), l) - labels.begin());
  };
  for (size_t i = 0; i < terms.size(); ++i) {
    const Shape& sh = ctx.input(i)->shape;
    std::vector<int64_t> stride(sh.size(), 1);
    for (size_t a = sh.size(); a-- > 1;) stride[a - 1] = stride[a] * sh[a];
    const size_t ell_rank = sh.size() + (terms[i].has_ellipsis ? 1 : 0) - terms[i].labels.size();
    size_t axis = 0;
    for (int l : terms[i].labels) {
      if (l == kEllipsis) {
        for (size_t e = 0; e < ell_rank; ++e, ++axis) {
          const size_t id = ls.ell.size() - ell_rank + e;
          if (sh[axis] != 1) p.strides[i][slot(-2 - static_cast<int>(id))] += stride[axis];
        }
        continue;
      }
      p.strides[i][slot(l)] += stride[axis++];
    }
  }
}

class EinsumOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, kEinsumMaxInputs, 1, 1)) return false;
    const DataType t = ctx.input(0)->dtype;
    if (!in_type_set(t, kNumeric) && !is_half(t))
      return ctx.fail("type {} is not supported", dtype_name(t));
    for (size_t i = 1; i < ctx.num_inputs(); ++i)
      if (!ctx.input(i) || ctx.input(i)->dtype != t)
        return ctx.fail("input {} must be present and of type {}", i, dtype_name(t));
    std::string eq;
    for (char c : ctx.attr_string("equation", ""))
      if (c != ' ') eq += c;
    if (!ctx.has_attr("equation")) return ctx.fail("attribute 'equation' is required");
    const size_t arrow = eq.find("->");
    std::vector<Term> terms;
    LabelSizes ls;
    std::vector<int> out;
    if (!parse_lhs(ctx, eq, eq.substr(0, arrow), terms) || !label_sizes(ctx, eq, terms, ls) ||
        !output_labels(ctx, eq, arrow, ls, out))
      return false;
    std::vector<int> labels = out;
    for (const auto& [l, n] : ls.size)
      if (!std::count(out.begin(), out.end(), l)) labels.push_back(l);
    if (labels.size() > static_cast<size_t>(kEinsumMaxLabels))
      return ctx.fail("equation '{}' has {} labels, more than the supported {}", eq, labels.size(),
                      kEinsumMaxLabels);
    if (out.size() > static_cast<size_t>(kMaxRank))
      return ctx.fail("output rank {} exceeds {}", out.size(), kMaxRank);

    auto& s = ctx.make_state<EinsumState>();
    EinsumParams& p = s.p;
    p.num_inputs = static_cast<int>(terms.size());
    p.num_out = static_cast<int>(out.size());
    p.num_labels = static_cast<int>(labels.size());
    for (size_t k = 0; k < labels.size(); ++k) {
      const int l = labels[k];
      p.sizes[k] = l <= -2 ? ls.ell[static_cast<size_t>(-2 - l)] : ls.size.at(l);
    }
    label_strides(ctx, terms, labels, ls, p);
    Shape out_shape;
    p.out_numel = 1;
    p.sum_numel = 1;
    for (int k = 0; k < p.num_labels; ++k) {
      if (k < p.num_out) {
        out_shape.push_back(p.sizes[k]);
        p.out_numel *= p.sizes[k];
      } else {
        p.sum_numel *= p.sizes[k];
      }
    }
    ctx.set_output(0, t, out_shape);
    std::vector<size_t> all_inputs;
    for (size_t i = 0; i < terms.size(); ++i) all_inputs.push_back(i);
    s.half = plan_half(ctx, all_inputs, {0});
    return true;
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& p = n.state_as<EinsumState>().p;
    return visit_dtype<kNumeric>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      const T* x[kEinsumMaxInputs] = {};
      for (int i = 0; i < p.num_inputs; ++i) x[i] = in[static_cast<size_t>(i)]->as<T>();
      einsum_ref(p, x, out[0].as<T>());
    });
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<EinsumState>();
    const EinsumParams& p = s.p;
    ctx.include("onnxc/einsum.h");
    const HalfNames names = emit_widen(ctx, s.half);
    std::vector<std::string> strides, ins;
    for (int i = 0; i < p.num_inputs; ++i) {
      strides.push_back(
          fmt::format("{{{}}}", fmt::join(p.strides[i], p.strides[i] + p.num_labels, ", ")));
      ins.push_back(names.in(static_cast<size_t>(i)));
    }
    ctx.line(
        "static constexpr onnxc::EinsumParams p = {{/*num_inputs=*/{}, /*num_out=*/{}, "
        "/*num_labels=*/{}, /*sizes=*/{{{}}}, /*strides=*/{{{}}}, /*out_numel=*/{}, "
        "/*sum_numel=*/{}}};",
        p.num_inputs, p.num_out, p.num_labels, fmt::join(p.sizes, p.sizes + p.num_labels, ", "),
        fmt::join(strides, ", "), p.out_numel, p.sum_numel);
    ctx.line("const {}* const operands[] = {{{}}};", kernel_cpp_type(ctx.input(0)->dtype),
             fmt::join(ins, ", "));
    ctx.line("onnxc::einsum_ref(p, operands, {});", names.out(0));
    emit_narrow(ctx, s.half, names);
  }
};

const EinsumOp kEinsum;

}  // namespace

std::vector<OpRegistration> einsum_ops() {
  return {{"", "Einsum", 12, kMaxOpset, &kEinsum}};
}

}  // namespace onnxc
