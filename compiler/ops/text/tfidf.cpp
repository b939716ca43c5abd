// TfIdfVectorizer (ai.onnx 9+) over int32/int64 inputs with an int64 pool (pool_int64s). The pool
// is checked and split into its n-grams here; emit() writes the n-grams of the counted lengths
// (min_gram_length..max_gram_length) as static constexpr arrays and one tfidf_ref call. String
// pools (pool_strings) are refused: onnxc has no string tensors.
#include "onnxc/tfidf.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>

#include "ops/registry.h"

namespace onnxc {
namespace {

struct TfIdfState : OpState {
  int64_t rows = 1, cols = 0, out_size = 0;
  int64_t min_n = 1, max_n = 1, max_skip = 0;
  int mode = 0;                        // 0 TF, 1 IDF, 2 TFIDF
  std::vector<int64_t> items;          // counted grams' items end to end
  std::vector<index_t> len, off, out;  // per counted gram
  std::vector<float> weights;          // per output coordinate; empty: all ones
  TfIdfParams params() const {
    return TfIdfParams{rows,
                       cols,
                       out_size,
                       min_n,
                       max_n,
                       max_skip,
                       mode,
                       static_cast<index_t>(len.size()),
                       items.data(),
                       len.data(),
                       off.data(),
                       out.data(),
                       weights.empty() ? nullptr : weights.data()};
  }
};

template <typename V, typename F>
std::string join_literals(const std::vector<V>& v, F f) {
  if (v.empty()) return "{0}";  // arrays may not be empty; the count says 0
  std::string s = "{";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + f(v[i]);
  return s + "}";
}

class TfIdfOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    if (ctx.has_attr("pool_strings"))
      return ctx.fail(
          "pool_strings is not supported (onnxc has no string tensors); use pool_int64s");
    const Value* x = ctx.input(0);
    if (x->dtype != DataType::kInt32 && x->dtype != DataType::kInt64)
      return ctx.fail("input type {} is not supported (int32 or int64 with pool_int64s)",
                      dtype_name(x->dtype));
    if (!ctx.has_attr("pool_int64s")) return ctx.fail("pool_int64s is required");
    for (const char* a : {"max_gram_length", "min_gram_length", "max_skip_count", "mode",
                          "ngram_counts", "ngram_indexes"})
      if (!ctx.has_attr(a)) return ctx.fail("attribute {} is required", a);
    auto& s = ctx.make_state<TfIdfState>();
    s.min_n = ctx.attr_int("min_gram_length", 1);
    s.max_n = ctx.attr_int("max_gram_length", 1);
    s.max_skip = ctx.attr_int("max_skip_count", 0);
    const std::string mode = ctx.attr_string("mode", "TF");
    const std::vector<int64_t> counts = ctx.attr_ints("ngram_counts");
    const std::vector<int64_t> indexes = ctx.attr_ints("ngram_indexes");
    const std::vector<int64_t> pool = ctx.attr_ints("pool_int64s");
    s.weights = ctx.attr_floats("weights");
    if (s.min_n < 1 || s.max_n < s.min_n)
      return ctx.fail("gram lengths must satisfy 1 <= min_gram_length ({}) <= max_gram_length ({})",
                      s.min_n, s.max_n);
    if (s.max_skip < 0) return ctx.fail("max_skip_count must be >= 0, is {}", s.max_skip);
    if (mode == "TF")
      s.mode = 0;
    else if (mode == "IDF")
      s.mode = 1;
    else if (mode == "TFIDF")
      s.mode = 2;
    else
      return ctx.fail("mode '{}' is not one of TF, IDF, TFIDF", mode);

    // ngram_counts[k]: first pool item of the (k+1)-grams; each level's items form whole grams.
    const int64_t pool_size = static_cast<int64_t>(pool.size());
    int64_t grams = 0;
    for (size_t k = 0; k < counts.size(); ++k) {
      const int64_t begin = counts[k];
      const int64_t end = k + 1 < counts.size() ? counts[k + 1] : pool_size;
      if (begin < 0 || begin > end || end > pool_size)
        return ctx.fail(
            "ngram_counts must be non-decreasing offsets into the pool (size {}): "
            "entry {} spans [{}, {})",
            pool_size, k, begin, end);
      const int64_t n = static_cast<int64_t>(k) + 1;
      if ((end - begin) % n != 0)
        return ctx.fail(
            "the {} pool items of {}-grams (from ngram_counts[{}]) are not a whole "
            "number of grams",
            end - begin, n, k);
      std::set<std::vector<int64_t>> seen;
      for (int64_t at = begin; at < end; at += n, ++grams) {
        std::vector<int64_t> gram(pool.begin() + at, pool.begin() + at + n);
        if (static_cast<size_t>(grams) >= indexes.size()) continue;  // reported below
        if (n < s.min_n || n > s.max_n) continue;                    // never counted
        if (!seen.insert(gram).second)
          return ctx.fail("pool n-gram {} (a {}-gram) appears more than once", grams, n);
        s.len.push_back(n);
        s.off.push_back(static_cast<index_t>(s.items.size()));
        s.out.push_back(indexes[static_cast<size_t>(grams)]);
        s.items.insert(s.items.end(), gram.begin(), gram.end());
      }
    }
    if (!counts.empty() && counts[0] != 0)
      return ctx.fail("ngram_counts[0] must be 0 (the pool starts with its shortest grams), is {}",
                      counts[0]);
    if (counts.empty() && pool_size != 0)
      return ctx.fail("ngram_counts is empty but the pool has {} items", pool_size);
    if (static_cast<int64_t>(indexes.size()) != grams)
      return ctx.fail("ngram_indexes has {} entries, the pool has {} n-grams", indexes.size(),
                      grams);
    if (indexes.empty()) return ctx.fail("ngram_indexes is empty (the output size is undefined)");
    for (int64_t i : indexes)
      if (i < 0) return ctx.fail("ngram_indexes holds a negative coordinate {}", i);
    s.out_size = *std::max_element(indexes.begin(), indexes.end()) + 1;
    if (!s.weights.empty() && static_cast<int64_t>(s.weights.size()) < s.out_size)
      return ctx.fail("weights has {} entries, fewer than the {} output coordinates",
                      s.weights.size(), s.out_size);
    s.weights.resize(s.weights.empty() ? 0 : static_cast<size_t>(s.out_size));

    const Shape& xs = x->shape;
    Shape ys;
    if (xs.size() == 0) {
      s.rows = 1, s.cols = 1;
      ys = {s.out_size};
    } else if (xs.size() == 1) {
      s.rows = 1, s.cols = xs[0];
      ys = {s.out_size};
    } else if (xs.size() == 2) {
      s.rows = xs[0], s.cols = xs[1];
      ys = {xs[0], s.out_size};
    } else {
      return ctx.fail("input must be 1-D [C] or 2-D [N, C], has rank {}", xs.size());
    }
    return ctx.set_output(0, DataType::kFloat, ys);
  }

  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<TfIdfState>();
    const TfIdfParams p = s.params();
    if (in[0]->dtype == DataType::kInt32)
      tfidf_ref<int32_t>(p, in[0]->as<int32_t>(), out[0].as<float>());
    else
      tfidf_ref<int64_t>(p, in[0]->as<int64_t>(), out[0].as<float>());
    return true;
  }

  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<TfIdfState>();
    ctx.include("onnxc/tfidf.h");
    auto idx = [](index_t v) { return std::to_string(v); };
    const size_t n_items = std::max<size_t>(1, s.items.size());
    const size_t n_grams = std::max<size_t>(1, s.len.size());
    ctx.line("static constexpr int64_t tfidf_items[{}] = {};", n_items,
             join_literals(s.items, cpp_int64));
    ctx.line("static constexpr onnxc::index_t tfidf_len[{}] = {};", n_grams,
             join_literals(s.len, idx));
    ctx.line("static constexpr onnxc::index_t tfidf_off[{}] = {};", n_grams,
             join_literals(s.off, idx));
    ctx.line("static constexpr onnxc::index_t tfidf_out[{}] = {};", n_grams,
             join_literals(s.out, idx));
    if (!s.weights.empty())
      ctx.line("static constexpr float tfidf_weights[{}] = {};", s.weights.size(),
               join_literals(s.weights, [](float v) { return cpp_float(v); }));
    ctx.line("static constexpr onnxc::TfIdfParams p = {};",
             labeled({{"rows", std::to_string(s.rows)},
                      {"cols", std::to_string(s.cols)},
                      {"out_size", std::to_string(s.out_size)},
                      {"min_n", std::to_string(s.min_n)},
                      {"max_n", std::to_string(s.max_n)},
                      {"max_skip", std::to_string(s.max_skip)},
                      {"mode", std::to_string(s.mode)},
                      {"num_grams", std::to_string(s.len.size())},
                      {"items", "tfidf_items"},
                      {"gram_len", "tfidf_len"},
                      {"gram_off", "tfidf_off"},
                      {"gram_out", "tfidf_out"},
                      {"weights", s.weights.empty() ? "nullptr" : "tfidf_weights"}}));
    ctx.line("onnxc::tfidf_ref<{}>(p, {}, {});", dtype_cpp(ctx.input(0)->dtype), ctx.in(0),
             ctx.out(0));
  }
};

const TfIdfOp kTfIdf;

}  // namespace

std::vector<OpRegistration> tfidf_ops() {
  return {{"", "TfIdfVectorizer", 9, kMaxOpset, &kTfIdf}};
}

}  // namespace onnxc
