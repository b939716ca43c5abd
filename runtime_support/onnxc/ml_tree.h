// Tree ensembles (ai.onnx.ml TreeEnsemble, TreeEnsembleRegressor). The compiler flattens every
// encoding into one layout: interior nodes with a comparison, a feature and two successors, and
// leaves that each cast one or more votes (target, weight). For each row of X every tree is walked
// from its root to a leaf; the leaf's votes are aggregated per target (SUM, AVERAGE = SUM / trees,
// MIN, MAX), base values are added and a post transform is applied to the row:
//   see onnxc/ml_common.h.
// A successor >= 0 is a node index; a successor < 0 is leaf ~successor. A NaN feature goes to the
// true branch when the node's missing_true flag is set, otherwise the comparison decides (every
// comparison with NaN is false except NEQ). MEMBER nodes test x against their members list.
// A target no leaf voted for is 0 before the post transform, base value not added (what
// onnxruntime does; the ONNX reference leaves MIN/MAX at the type's extremes there). `voted` is
// n_targets bytes of scratch. Parameters are computed by the compiler; kernels never validate them.
//   tree_ensemble_ref<X, T>   X: input element type, T: threshold/weight/output type
#ifndef ONNXC_ML_TREE_H
#define ONNXC_ML_TREE_H

#include <cmath>
#include <cstdint>
#include <limits>

#include "onnxc/base.h"
#include "onnxc/ml_common.h"

namespace onnxc {

enum : uint8_t { kTreeLeq, kTreeLt, kTreeGte, kTreeGt, kTreeEq, kTreeNeq, kTreeMember };
enum : int { kAggAverage, kAggSum, kAggMin, kAggMax };

template <typename T>
struct TreeEnsembleParams {
  index_t rows, features, n_targets, n_trees;
  const index_t* roots;         // [n_trees] node index of each tree's root
  const uint8_t* modes;         // [nodes] kTreeLeq .. kTreeMember
  const index_t* feature;       // [nodes] feature compared
  const T* split;               // [nodes] threshold (unused by MEMBER nodes)
  const int32_t* true_next;     // [nodes] >= 0 node, < 0 leaf ~value
  const int32_t* false_next;    // [nodes]
  const uint8_t* missing_true;  // [nodes] NaN goes to the true branch; nullptr: never
  const index_t* member_off;    // [nodes] MEMBER nodes: first member; nullptr when none
  const index_t* member_count;  // [nodes]
  const T* members;             // all member lists end to end
  const index_t* vote_off;      // [leaves] first vote of each leaf
  const index_t* vote_count;    // [leaves]
  const index_t* vote_target;   // [votes]
  const T* vote_weight;         // [votes]
  const T* base_values;         // [n_targets] added after aggregation, or nullptr
  int aggregate;                // kAggAverage .. kAggMax
  int post_transform;           // kPostNone .. kPostSoftmaxZero
};

template <typename T>
inline bool tree_goes_true(const TreeEnsembleParams<T>& p, index_t n, T x) {
  if (p.missing_true && p.missing_true[n] && std::isnan(x)) return true;
  const T s = p.split[n];
  switch (p.modes[n]) {
    case kTreeLeq:
      return x <= s;
    case kTreeLt:
      return x < s;
    case kTreeGte:
      return x >= s;
    case kTreeGt:
      return x > s;
    case kTreeEq:
      return x == s;
    case kTreeNeq:
      return x != s;
    default: {
      const T* m = p.members + p.member_off[n];
      for (index_t k = 0; k < p.member_count[n]; ++k)
        if (m[k] == x) return true;
      return false;
    }
  }
}

// The leaf row `x` reaches in the tree rooted at node `root`.
template <typename X, typename T>
inline index_t tree_leaf(const TreeEnsembleParams<T>& p, index_t root, const X* x) {
  int32_t at = static_cast<int32_t>(root);
  while (at >= 0) {
    const index_t n = at;
    const T v = static_cast<T>(x[p.feature[n]]);
    at = tree_goes_true(p, n, v) ? p.true_next[n] : p.false_next[n];
  }
  return ~at;
}

template <typename X, typename T>
inline void tree_ensemble_ref(const TreeEnsembleParams<T>& p, const X* x, T* y, uint8_t* voted) {
  for (index_t r = 0; r < p.rows; ++r) {
    const X* row = x + r * p.features;
    T* out = y + r * p.n_targets;
    const T start = p.aggregate == kAggMin   ? std::numeric_limits<T>::max()
                    : p.aggregate == kAggMax ? std::numeric_limits<T>::lowest()
                                             : T(0);
    for (index_t j = 0; j < p.n_targets; ++j) out[j] = start, voted[j] = 0;
    for (index_t t = 0; t < p.n_trees; ++t) {
      const index_t leaf = tree_leaf(p, p.roots[t], row);
      for (index_t v = p.vote_off[leaf]; v < p.vote_off[leaf] + p.vote_count[leaf]; ++v) {
        T& o = out[p.vote_target[v]];
        voted[p.vote_target[v]] = 1;
        const T w = p.vote_weight[v];
        if (p.aggregate == kAggMin)
          o = w < o ? w : o;
        else if (p.aggregate == kAggMax)
          o = w > o ? w : o;
        else
          o += w;
      }
    }
    for (index_t j = 0; j < p.n_targets; ++j) {
      if (!voted[j]) {
        out[j] = T(0);
        continue;
      }
      if (p.aggregate == kAggAverage) out[j] /= static_cast<T>(p.n_trees);
      if (p.base_values) out[j] += p.base_values[j];
    }
    ml_post_transform(p.post_transform, out, p.n_targets);
  }
}

}  // namespace onnxc

#endif  // ONNXC_ML_TREE_H
