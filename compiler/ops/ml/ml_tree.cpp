// Tree ensembles of ai.onnx.ml: TreeEnsemble (opset 5, float/double), TreeEnsembleRegressor and
// TreeEnsembleClassifier (opsets 1-4; deprecated at 5; float scores). Both encodings are checked
// here and flattened into the one layout of onnxc/ml_tree.h: interior nodes with successor links
// (>= 0 node, < 0 leaf ~k) and leaves with their votes. Every tree is checked to be finite (no
// successor cycle) so the generated loop ends. The classifier's two-class labels and scores follow
// onnxruntime (the spec leaves them open; onnxc/ml_tree.h lists the rules). Not done: string class
// labels, float16 input, PROBIT post transform: each is refused with a message.
#include "onnxc/ml_tree.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "ops/ml/ml_util.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

struct TreeState : OpState {
  DataType type = DataType::kFloat;  // thresholds, weights and output
  int64_t rows = 0, features = 0, n_targets = 0;
  std::vector<index_t> roots, feature, member_off, member_count, vote_off, vote_count, vote_target;
  std::vector<uint8_t> modes, missing_true;
  std::vector<int32_t> true_next, false_next;
  std::vector<double> split, members, vote_weight, base_values;
  int aggregate = kAggSum, post = kPostNone;

  template <typename T>
  struct Typed {
    std::vector<T> split, members, weight, base;
  };
  template <typename T>
  TreeEnsembleParams<T> params(const Typed<T>& t) const {
    return TreeEnsembleParams<T>{
        rows,
        features,
        n_targets,
        static_cast<index_t>(roots.size()),
        roots.data(),
        modes.data(),
        feature.data(),
        t.split.data(),
        true_next.data(),
        false_next.data(),
        missing_true.empty() ? nullptr : missing_true.data(),
        member_off.empty() ? nullptr : member_off.data(),
        member_count.empty() ? nullptr : member_count.data(),
        t.members.data(),
        vote_off.data(),
        vote_count.data(),
        vote_target.data(),
        t.weight.data(),
        t.base.empty() ? nullptr : t.base.data(),
        aggregate,
        post,
    };
  }
  template <typename X, typename T>
  void run(const X* x, T* y) const {
    Typed<T> t{{split.begin(), split.end()},
               {members.begin(), members.end()},
               {vote_weight.begin(), vote_weight.end()},
               {base_values.begin(), base_values.end()}};
    std::vector<uint8_t> voted(static_cast<size_t>(n_targets));
    tree_ensemble_ref<X, T>(params(t), x, y, voted.data());
  }
};

// Checks the flattened trees: successor indices in range, features in range, every tree finite.
bool check_trees(InferContext& ctx, const TreeState& s) {
  const int32_t nodes = static_cast<int32_t>(s.modes.size());
  const int32_t leaves = static_cast<int32_t>(s.vote_off.size());
  for (int32_t n = 0; n < nodes; ++n) {
    for (int32_t next : {s.true_next[n], s.false_next[n]}) {
      if (next >= nodes || (next < 0 && ~next >= leaves))
        return ctx.fail("node {} has a successor outside the {} nodes / {} leaves", n, nodes,
                        leaves);
    }
    if (s.feature[n] < 0 || s.feature[n] >= s.features)
      return ctx.fail("node {} reads feature {}, X has {} features", n, s.feature[n], s.features);
  }
  // Depth-first from each root; a node met again on the current path is a cycle.
  std::vector<uint8_t> state(nodes, 0);  // 0 unseen, 1 on the path, 2 done
  for (index_t root : s.roots) {
    if (root < 0 || root >= nodes) return ctx.fail("tree root {} is not a node", root);
    std::vector<std::pair<int32_t, int>> stack{{static_cast<int32_t>(root), 0}};
    while (!stack.empty()) {
      auto& [n, child] = stack.back();
      if (child == 0 && state[n] == 2) {
        stack.pop_back();
        continue;
      }
      state[n] = 1;
      if (child == 2) {
        state[n] = 2;
        stack.pop_back();
        continue;
      }
      const int32_t next = child++ == 0 ? s.true_next[n] : s.false_next[n];
      if (next < 0) continue;
      if (state[next] == 1)
        return ctx.fail("the trees' node links form a cycle through node {}", next);
      stack.push_back({next, 0});
    }
  }
  for (index_t t : s.vote_target)
    if (t < 0 || t >= s.n_targets)
      return ctx.fail("a leaf votes for target {}, n_targets is {}", t, s.n_targets);
  return true;
}

// The tables and `p`, the TreeEnsembleParams, in the node's block.
void emit_tree_params(EmitContext& ctx, const TreeState& s) {
  ctx.include("onnxc/ml_tree.h");
  const std::string t = dtype_cpp(s.type);
  auto num = [&](double v) { return cpp_scalar(s.type, v); };
  auto idx = [](index_t v) { return std::to_string(v); };
  using ml::emit_array;
  emit_array(ctx, "onnxc::index_t", "te_roots", s.roots, idx);
  emit_array(ctx, "uint8_t", "te_modes", s.modes, [](uint8_t v) { return std::to_string(v); });
  emit_array(ctx, "onnxc::index_t", "te_feature", s.feature, idx);
  emit_array(ctx, t, "te_split", s.split, num);
  emit_array(ctx, "int32_t", "te_true", s.true_next, cpp_int64);
  emit_array(ctx, "int32_t", "te_false", s.false_next, cpp_int64);
  if (!s.missing_true.empty())
    emit_array(ctx, "uint8_t", "te_missing_true", s.missing_true,
               [](uint8_t v) { return std::to_string(v); });
  if (!s.member_off.empty()) {
    emit_array(ctx, "onnxc::index_t", "te_member_off", s.member_off, idx);
    emit_array(ctx, "onnxc::index_t", "te_member_count", s.member_count, idx);
  }
  emit_array(ctx, t, "te_members", s.members, num);
  emit_array(ctx, "onnxc::index_t", "te_vote_off", s.vote_off, idx);
  emit_array(ctx, "onnxc::index_t", "te_vote_count", s.vote_count, idx);
  emit_array(ctx, "onnxc::index_t", "te_vote_target", s.vote_target, idx);
  emit_array(ctx, t, "te_vote_weight", s.vote_weight, num);
  if (!s.base_values.empty()) emit_array(ctx, t, "te_base", s.base_values, num);
  ctx.line("static constexpr onnxc::TreeEnsembleParams<{}> p = {};", t,
           labeled({{"rows", std::to_string(s.rows)},
                    {"features", std::to_string(s.features)},
                    {"n_targets", std::to_string(s.n_targets)},
                    {"n_trees", std::to_string(s.roots.size())},
                    {"roots", "te_roots"},
                    {"modes", "te_modes"},
                    {"feature", "te_feature"},
                    {"split", "te_split"},
                    {"true_next", "te_true"},
                    {"false_next", "te_false"},
                    {"missing_true", s.missing_true.empty() ? "nullptr" : "te_missing_true"},
                    {"member_off", s.member_off.empty() ? "nullptr" : "te_member_off"},
                    {"member_count", s.member_off.empty() ? "nullptr" : "te_member_count"},
                    {"members", "te_members"},
                    {"vote_off", "te_vote_off"},
                    {"vote_count", "te_vote_count"},
                    {"vote_target", "te_vote_target"},
                    {"vote_weight", "te_vote_weight"},
                    {"base_values", s.base_values.empty() ? "nullptr" : "te_base"},
                    {"aggregate", std::to_string(s.aggregate)},
                    {"post_transform", std::to_string(s.post)}}));
}

void emit_tree(EmitContext& ctx, const TreeState& s) {
  emit_tree_params(ctx, s);
  ctx.line("onnxc::tree_ensemble_ref<{}, {}>(p, {}, {}, reinterpret_cast<uint8_t*>({}));",
           dtype_cpp(ctx.input(0)->dtype), dtype_cpp(s.type), ctx.in(0), ctx.out(0), ctx.scratch());
}

template <typename T>
void run_typed(const TreeState& s, const Tensor& x, Tensor& y) {
  switch (x.dtype) {
    case DataType::kDouble:
      return s.run(x.as<double>(), y.as<T>());
    case DataType::kInt64:
      return s.run(x.as<int64_t>(), y.as<T>());
    case DataType::kInt32:
      return s.run(x.as<int32_t>(), y.as<T>());
    default:
      return s.run(x.as<float>(), y.as<T>());
  }
}

bool fold_tree(const Node& n, const std::vector<const Tensor*>& in, std::vector<Tensor>& out) {
  const auto& s = n.state_as<TreeState>();
  if (s.type == DataType::kDouble)
    run_typed<double>(s, *in[0], out[0]);
  else
    run_typed<float>(s, *in[0], out[0]);
  return true;
}

// ---- TreeEnsemble (opset 5) -----------------------------------------------------------------

class TreeEnsembleOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    const DataType xt = ctx.input(0)->dtype;
    if (xt != DataType::kFloat && xt != DataType::kDouble)
      return ctx.fail("X of type {} is not supported (float or double)", dtype_name(xt));
    for (const char* a : {"leaf_targetids", "leaf_weights", "nodes_falseleafs",
                          "nodes_falsenodeids", "nodes_featureids", "nodes_modes", "nodes_splits",
                          "nodes_trueleafs", "nodes_truenodeids", "tree_roots"})
      if (!ctx.has_attr(a)) return ctx.fail("attribute {} is required", a);
    auto& s = ctx.make_state<TreeState>();
    s.type = xt;
    if (!ml::numeric_rows(ctx, s.rows, s.features)) return false;
    const Node& node = ctx.node();
    s.n_targets = ctx.attr_int("n_targets", 1);
    s.aggregate = static_cast<int>(ctx.attr_int("aggregate_function", 1));
    s.post = static_cast<int>(ctx.attr_int("post_transform", 0));
    if (s.aggregate < kAggAverage || s.aggregate > kAggMax)
      return ctx.fail("aggregate_function {} is not 0-3", s.aggregate);
    if (s.post == 4) return ctx.fail("post_transform PROBIT (4) is not supported");
    if (s.post < kPostNone || s.post > kPostSoftmaxZero)
      return ctx.fail("post_transform {} is not 0-4", s.post);
    if (s.n_targets < 1) return ctx.fail("n_targets must be >= 1, is {}", s.n_targets);

    const std::vector<double> modes = ml::attr_numbers(node, "nodes_modes");
    const std::vector<int64_t> features = ctx.attr_ints("nodes_featureids");
    s.split = ml::attr_numbers(node, "nodes_splits");
    const std::vector<int64_t> t_ids = ctx.attr_ints("nodes_truenodeids");
    const std::vector<int64_t> f_ids = ctx.attr_ints("nodes_falsenodeids");
    const std::vector<int64_t> t_leaf = ctx.attr_ints("nodes_trueleafs");
    const std::vector<int64_t> f_leaf = ctx.attr_ints("nodes_falseleafs");
    const std::vector<int64_t> missing = ctx.attr_ints("nodes_missing_value_tracks_true");
    const size_t nodes = modes.size();
    for (size_t len : {features.size(), s.split.size(), t_ids.size(), f_ids.size(), t_leaf.size(),
                       f_leaf.size()})
      if (len != nodes) return ctx.fail("the nodes_* attributes must all have {} entries", nodes);
    if (!missing.empty() && missing.size() != nodes)
      return ctx.fail("nodes_missing_value_tracks_true has {} entries, not {}", missing.size(),
                      nodes);
    const std::vector<int64_t> targets = ctx.attr_ints("leaf_targetids");
    s.vote_weight = ml::attr_numbers(node, "leaf_weights");
    if (targets.size() != s.vote_weight.size())
      return ctx.fail("leaf_targetids has {} entries, leaf_weights {}", targets.size(),
                      s.vote_weight.size());
    const std::vector<double> members = ml::attr_numbers(node, "membership_values");
    size_t member_at = 0;
    const bool any_member = std::count(modes.begin(), modes.end(), 6.0) > 0;
    for (size_t n = 0; n < nodes; ++n) {
      if (modes[n] < 0 || modes[n] > 6)
        return ctx.fail("nodes_modes[{}] = {} is not 0-6", n, modes[n]);
      s.modes.push_back(static_cast<uint8_t>(modes[n]));
      s.feature.push_back(features[n]);
      s.true_next.push_back(static_cast<int32_t>(t_leaf[n] ? ~t_ids[n] : t_ids[n]));
      s.false_next.push_back(static_cast<int32_t>(f_leaf[n] ? ~f_ids[n] : f_ids[n]));
      if ((t_leaf[n] ? t_ids[n] : 0) < 0 || (f_leaf[n] ? f_ids[n] : 0) < 0 ||
          t_ids[n] > INT32_MAX || f_ids[n] > INT32_MAX)
        return ctx.fail("node {} has a successor id out of range", n);
      if (!missing.empty()) s.missing_true.push_back(missing[n] ? 1 : 0);
      if (!any_member) continue;
      s.member_off.push_back(static_cast<index_t>(s.members.size()));
      index_t count = 0;
      if (s.modes[n] == kTreeMember) {
        while (member_at < members.size() && !std::isnan(members[member_at])) {
          s.members.push_back(members[member_at++]);
          ++count;
        }
        if (member_at >= members.size())
          return ctx.fail("membership_values has fewer NaN-ended sets than BRANCH_MEMBER nodes");
        ++member_at;  // the NaN
      }
      s.member_count.push_back(count);
    }
    for (size_t l = 0; l < targets.size(); ++l) {
      s.vote_off.push_back(static_cast<index_t>(l));
      s.vote_count.push_back(1);
      s.vote_target.push_back(targets[l]);
    }
    for (int64_t r : ctx.attr_ints("tree_roots")) s.roots.push_back(r);
    if (s.roots.empty()) return ctx.fail("tree_roots is empty");
    if (!check_trees(ctx, s)) return false;
    ctx.request_scratch(static_cast<size_t>(s.n_targets));  // per-target "voted" flags
    return ctx.set_output(0, xt, {s.rows, s.n_targets});
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    return fold_tree(n, in, out);
  }
  void emit(EmitContext& ctx) const override { emit_tree(ctx, ctx.node().state_as<TreeState>()); }
};

// ---- TreeEnsembleRegressor (opsets 1-4) --------------------------------------------------------

int branch_mode(const std::string& m) {
  static const char* const kNames[] = {"BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE",
                                       "BRANCH_GT",  "BRANCH_EQ", "BRANCH_NEQ"};
  for (int i = 0; i < 6; ++i)
    if (m == kNames[i]) return i;
  return m == "LEAF" ? 100 : -1;
}

// PREFIX* votes grouped by leaf, in leaf order.
bool collect_votes(InferContext& ctx, TreeState& s,
                   const std::map<std::pair<int64_t, int64_t>, int32_t>& where,
                   const std::string& prefix, const std::string& id_name) {
  const Node& node = ctx.node();
  const std::vector<int64_t> tree = ctx.attr_ints(prefix + "treeids");
  const std::vector<int64_t> id = ctx.attr_ints(prefix + "nodeids");
  const std::vector<int64_t> target = ctx.attr_ints(prefix + id_name);
  const std::vector<double> weight =
      ml::attr_numbers(node, prefix + "weights", prefix + "weights_as_tensor");
  if (id.size() != tree.size() || target.size() != tree.size() || weight.size() != tree.size())
    return ctx.fail("the {}* attributes must all have {} entries", prefix, tree.size());
  std::vector<std::vector<size_t>> by_leaf(s.vote_off.size());
  for (size_t k = 0; k < tree.size(); ++k) {
    auto it = where.find({tree[k], id[k]});
    if (it == where.end() || it->second >= 0)
      return ctx.fail("{} vote {} names node {} of tree {}, which is not a leaf", prefix, k, id[k],
                      tree[k]);
    by_leaf[static_cast<size_t>(~it->second)].push_back(k);
  }
  for (size_t l = 0; l < by_leaf.size(); ++l) {
    s.vote_off[l] = static_cast<index_t>(s.vote_target.size());
    s.vote_count[l] = static_cast<index_t>(by_leaf[l].size());
    for (size_t k : by_leaf[l]) {
      s.vote_target.push_back(target[k]);
      s.vote_weight.push_back(weight[k]);
    }
  }
  return true;
}

// The nodes_* attributes of TreeEnsembleRegressor/Classifier flattened into `s` (nodes, leaves,
// roots), then the votes of attributes PREFIX{treeids,nodeids} (PREFIX + `id_name` gives the
// target of each vote, PREFIX + "weights" its weight), then the whole checked.
bool parse_legacy_trees(InferContext& ctx, TreeState& s, const std::string& prefix,
                        const std::string& id_name) {
  const Node& node = ctx.node();
  const std::vector<int64_t> tree = ctx.attr_ints("nodes_treeids");
  const std::vector<int64_t> id = ctx.attr_ints("nodes_nodeids");
  const std::vector<int64_t> features = ctx.attr_ints("nodes_featureids");
  const std::vector<std::string> modes = ml::attr_strings(node, "nodes_modes");
  const std::vector<double> values =
      ml::attr_numbers(node, "nodes_values", "nodes_values_as_tensor");
  const std::vector<int64_t> t_ids = ctx.attr_ints("nodes_truenodeids");
  const std::vector<int64_t> f_ids = ctx.attr_ints("nodes_falsenodeids");
  const std::vector<int64_t> missing = ctx.attr_ints("nodes_missing_value_tracks_true");
  const size_t count = tree.size();
  if (count == 0) return ctx.fail("nodes_treeids is empty (no trees)");
  for (size_t len :
       {id.size(), features.size(), modes.size(), values.size(), t_ids.size(), f_ids.size()})
    if (len != count) return ctx.fail("the nodes_* attributes must all have {} entries", count);
  if (!missing.empty() && missing.size() != count)
    return ctx.fail("nodes_missing_value_tracks_true has {} entries, not {}", missing.size(),
                    count);

  // (tree, node id) -> node index or ~leaf index, in attribute order.
  std::map<std::pair<int64_t, int64_t>, int32_t> where;
  std::vector<int64_t> tree_order;
  for (size_t k = 0; k < count; ++k) {
    const int mode = branch_mode(modes[k]);
    if (mode < 0) return ctx.fail("nodes_modes[{}] '{}' is not a known mode", k, modes[k]);
    int32_t slot;
    if (mode == 100) {
      slot = ~static_cast<int32_t>(s.vote_off.size());
      s.vote_off.push_back(0);
      s.vote_count.push_back(0);
    } else {
      slot = static_cast<int32_t>(s.modes.size());
      s.modes.push_back(static_cast<uint8_t>(mode));
      s.feature.push_back(features[k]);
      s.split.push_back(values[k]);
      if (!missing.empty()) s.missing_true.push_back(missing[k] ? 1 : 0);
    }
    if (!where.emplace(std::make_pair(tree[k], id[k]), slot).second)
      return ctx.fail("node id {} appears twice in tree {}", id[k], tree[k]);
    if (std::find(tree_order.begin(), tree_order.end(), tree[k]) == tree_order.end())
      tree_order.push_back(tree[k]);
  }
  std::map<int32_t, bool> referenced;
  for (size_t k = 0; k < count; ++k) {
    if (branch_mode(modes[k]) == 100) continue;
    for (int64_t next : {t_ids[k], f_ids[k]}) {
      auto it = where.find({tree[k], next});
      if (it == where.end())
        return ctx.fail("node {} of tree {} links to node {}, which the tree lacks", id[k], tree[k],
                        next);
      referenced[it->second] = true;
    }
    s.true_next.push_back(where[{tree[k], t_ids[k]}]);
    s.false_next.push_back(where[{tree[k], f_ids[k]}]);
  }
  // A tree's root is its one node no other node links to.
  for (int64_t t : tree_order) {
    int32_t root = 0;
    int roots = 0;
    for (const auto& [key, slot] : where)
      if (key.first == t && !referenced.count(slot)) root = slot, ++roots;
    if (roots != 1) return ctx.fail("tree {} has {} root nodes, not 1", t, roots);
    if (root < 0) {
      // A tree that is a single leaf: an always-true node with both branches on that leaf.
      s.modes.push_back(kTreeEq);
      s.feature.push_back(0);
      s.split.push_back(0);
      if (!missing.empty()) s.missing_true.push_back(0);
      s.true_next.push_back(root);
      s.false_next.push_back(root);
      root = static_cast<int32_t>(s.modes.size()) - 1;
    }
    s.roots.push_back(root);
  }
  return collect_votes(ctx, s, where, prefix, id_name) && check_trees(ctx, s);
}

// post_transform and base_values of the older tree ops.
bool parse_legacy_common(InferContext& ctx, TreeState& s) {
  const std::string post = ctx.attr_string("post_transform", "NONE");
  s.post = ml::post_transform_code(post);
  if (s.post < 0) return ctx.fail("post_transform '{}' is not supported", post);
  s.base_values = ml::attr_numbers(ctx.node(), "base_values", "base_values_as_tensor");
  return true;
}

class TreeEnsembleRegressorOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1)) return false;
    auto& s = ctx.make_state<TreeState>();
    s.type = DataType::kFloat;
    if (!ml::numeric_rows(ctx, s.rows, s.features)) return false;
    s.n_targets = ctx.attr_int("n_targets", 1);
    if (s.n_targets < 1) return ctx.fail("n_targets must be >= 1, is {}", s.n_targets);
    const std::string agg = ctx.attr_string("aggregate_function", "SUM");
    static const char* const kAgg[] = {"AVERAGE", "SUM", "MIN", "MAX"};
    s.aggregate = -1;
    for (int i = 0; i < 4; ++i)
      if (agg == kAgg[i]) s.aggregate = i;
    if (s.aggregate < 0) return ctx.fail("aggregate_function '{}' is not AVERAGE/SUM/MIN/MAX", agg);
    if (!parse_legacy_common(ctx, s)) return false;
    if (!s.base_values.empty() && static_cast<int64_t>(s.base_values.size()) != s.n_targets)
      return ctx.fail("base_values has {} entries, n_targets is {}", s.base_values.size(),
                      s.n_targets);
    if (!parse_legacy_trees(ctx, s, "target_", "ids")) return false;
    ctx.request_scratch(static_cast<size_t>(s.n_targets));  // per-target "voted" flags
    return ctx.set_output(0, DataType::kFloat, {s.rows, s.n_targets});
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    return fold_tree(n, in, out);
  }
  void emit(EmitContext& ctx) const override { emit_tree(ctx, ctx.node().state_as<TreeState>()); }
};

// ---- TreeEnsembleClassifier (opsets 1-4) -----------------------------------------------------

struct TreeClassifierState : TreeState {
  std::vector<int64_t> labels;
  int binary = 0, weights_positive = 1;
  TreeClassifierParams classifier() const {
    return {labels.data(), binary, weights_positive, static_cast<int>(base_values.size())};
  }
};

class TreeEnsembleClassifierOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 2, 2)) return false;
    auto& s = ctx.make_state<TreeClassifierState>();
    if (!ml::int_class_labels(ctx, "classlabels_int64s", 1, s.labels) ||
        !ml::numeric_rows(ctx, s.rows, s.features) || !parse_legacy_common(ctx, s))
      return false;
    s.n_targets = static_cast<int64_t>(s.labels.size());
    s.aggregate = kAggSum;
    if (s.post == kPostSoftmaxZero && s.n_targets == 2)
      return ctx.fail("post_transform SOFTMAX_ZERO with two classes is not supported");
    const size_t n_base = s.base_values.size();
    if (n_base != 0 && !(s.n_targets == 2 && n_base <= 2) &&
        static_cast<int64_t>(n_base) != s.n_targets)
      return ctx.fail("base_values has {} entries for {} classes", n_base, s.n_targets);
    if (!parse_legacy_trees(ctx, s, "class_", "ids")) return false;
    std::vector<int64_t> ids = ctx.attr_ints("class_ids");
    std::sort(ids.begin(), ids.end());
    s.binary = s.n_targets == 2 && std::unique(ids.begin(), ids.end()) - ids.begin() == 1;
    for (double w : s.vote_weight)
      if (w < 0) s.weights_positive = 0;
    ctx.request_scratch(static_cast<size_t>(s.n_targets));  // per-class "voted" flags
    return ctx.set_output(0, DataType::kInt64, {s.rows}) &&
           ctx.set_output(1, DataType::kFloat, {s.rows, s.n_targets});
  }
  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<TreeClassifierState>();
    TreeState::Typed<float> t{{s.split.begin(), s.split.end()},
                              {s.members.begin(), s.members.end()},
                              {s.vote_weight.begin(), s.vote_weight.end()},
                              {s.base_values.begin(), s.base_values.end()}};
    std::vector<uint8_t> voted(static_cast<size_t>(s.n_targets));
    visit_dtype<ml::kInputTypes>(in[0]->dtype, [&](auto tag) {
      using X = decltype(tag);
      tree_ensemble_classifier_ref<X>(s.params(t), s.classifier(), in[0]->as<X>(),
                                      out[0].as<int64_t>(), out[1].as<float>(), voted.data());
    });
    return true;
  }
  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<TreeClassifierState>();
    emit_tree_params(ctx, s);
    ml::emit_array(ctx, "int64_t", "te_labels", s.labels, cpp_int64);
    ctx.line("static constexpr onnxc::TreeClassifierParams c = {};",
             labeled({{"labels", "te_labels"},
                      {"binary", std::to_string(s.binary)},
                      {"weights_positive", std::to_string(s.weights_positive)},
                      {"n_base", std::to_string(s.base_values.size())}}));
    ctx.line(
        "onnxc::tree_ensemble_classifier_ref<{}>(p, c, {}, {}, {}, "
        "reinterpret_cast<uint8_t*>({}));",
        dtype_cpp(ctx.input(0)->dtype), ctx.in(0), ctx.out(0), ctx.out(1), ctx.scratch());
  }
};

const TreeEnsembleOp kTreeEnsemble;
const TreeEnsembleRegressorOp kTreeEnsembleRegressor;
const TreeEnsembleClassifierOp kTreeEnsembleClassifier;

}  // namespace

std::vector<OpRegistration> ml_tree_ops() {
  return {{"ai.onnx.ml", "TreeEnsemble", 5, 5, &kTreeEnsemble},
          {"ai.onnx.ml", "TreeEnsembleRegressor", 1, 4, &kTreeEnsembleRegressor},
          {"ai.onnx.ml", "TreeEnsembleClassifier", 1, 4, &kTreeEnsembleClassifier}};
}

}  // namespace onnxc
