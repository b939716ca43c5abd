// Tree ensembles (ai.onnx.ml TreeEnsemble, TreeEnsembleRegressor, TreeEnsembleClassifier). The
// compiler flattens every encoding into one layout: interior nodes with a comparison, a feature and
// two successors, and leaves that each cast one or more votes (target, weight). For each row of X
// every tree is walked from its root to a leaf; the leaf's votes are aggregated per target (SUM,
// AVERAGE = SUM / trees, MIN, MAX), base values are added and a post transform is applied to the
// row:
//   see onnxc/ml_common.h.
// A successor >= 0 is a node index; a successor < 0 is leaf ~successor. A NaN feature goes to the
// true branch when the node's missing_true flag is set, otherwise the comparison decides (every
// comparison with NaN is false except NEQ). MEMBER nodes test x against their members list.
// A target no leaf voted for is 0 before the post transform, base value not added (what
// onnxruntime does; the ONNX reference leaves MIN/MAX at the type's extremes there). `voted` is
// n_targets bytes of scratch. Parameters are computed by the compiler; kernels never validate them.
//   tree_ensemble_ref<X, T>            X: input element type, T: threshold/weight/output type
//   tree_ensemble_classifier_ref<X>    labels and float class scores (see its section)
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

// The votes of every tree for one row, aggregated per target (before AVERAGE's division, base
// values and the post transform); voted[j] = 1 for the targets some leaf voted for, whose
// out[j] is then meaningful (the others hold 0).
template <typename X, typename T>
inline void tree_votes(const TreeEnsembleParams<T>& p, const X* row, T* out, uint8_t* voted) {
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
  for (index_t j = 0; j < p.n_targets; ++j)
    if (!voted[j]) out[j] = T(0);
}

template <typename X, typename T>
inline void tree_ensemble_ref(const TreeEnsembleParams<T>& p, const X* x, T* y, uint8_t* voted) {
  for (index_t r = 0; r < p.rows; ++r) {
    T* out = y + r * p.n_targets;
    tree_votes(p, x + r * p.features, out, voted);
    for (index_t j = 0; j < p.n_targets; ++j) {
      if (!voted[j]) continue;
      if (p.aggregate == kAggAverage) out[j] /= static_cast<T>(p.n_trees);
      if (p.base_values) out[j] += p.base_values[j];
    }
    ml_post_transform(p.post_transform, out, p.n_targets);
  }
}

// ---- TreeEnsembleClassifier ----------------------------------------------------------------
// Targets are classes and votes are summed. The spec leaves the labels and scores of two-class
// models open; these follow onnxruntime, case by case (`binary`: two classes and every vote for
// the same class id; `weights_positive`: no negative class weight; n_base: 0, 1 or 2 base values):
// - more than two classes: base values are added (a class without votes then counts as voted),
//   the label is that of the first highest voted score, scores are post-transformed;
// - two classes: with 2 base values, s1 = base1 + s0 and s0 = -s1 when class 1 got votes, else
//   each adds its base; with 1, s0 += base0; then a class without votes scores 0 (its base value
//   is dropped, s0 too when class 0 got none). Class 1's score, or else class 0's, decides the
//   label: binary: > 0.5 (weights_positive) or > 0 picks labels[1], else labels[0]; otherwise
//   > 0 gives the raw label 1, else 0. When class 1 got no votes (and there are fewer than 2
//   base values) only s0 is a score and the pair is [1 - s0, s0] (binary, weights positive),
//   [L(-s0), L(s0)] under LOGISTIC, else [-s0, s0] or [s0, -s0] (binary with negative weights,
//   label 1 / label 0), or [s0, 0]; otherwise both scores are post-transformed.
struct TreeClassifierParams {
  const int64_t* labels;  // [n_classes] classlabels_int64s
  int binary, weights_positive, n_base;
};

inline float tree_logistic(float v) {
  const float e = 1.0f / (1.0f + std::exp(-std::fabs(v)));
  return v < 0 ? 1.0f - e : e;
}

template <typename X>
inline void tree_ensemble_classifier_ref(const TreeEnsembleParams<float>& p,
                                         const TreeClassifierParams& c, const X* x, int64_t* y,
                                         float* z, uint8_t* voted) {
  const index_t n = p.n_targets;
  const float* base = p.base_values;
  for (index_t r = 0; r < p.rows; ++r) {
    float* s = z + r * n;
    tree_votes(p, x + r * p.features, s, voted);
    if (n > 2) {
      index_t best = -1;
      for (index_t k = 0; k < n; ++k) {
        if (base) s[k] += base[k], voted[k] = 1;
        if (voted[k] && (best < 0 || s[k] > s[best])) best = k;
      }
      y[r] = c.labels[best < 0 ? 0 : best];
      ml_post_transform(p.post_transform, s, n);
      continue;
    }
    bool pair = true;  // both scores are scores (else only s[0])
    if (c.n_base == 2 && voted[1]) {
      s[1] = base[1] + s[0], s[0] = -s[1];
    } else if (c.n_base == 2) {
      s[0] += base[0], s[1] += base[1];
    } else {
      if (c.n_base == 1) s[0] += base[0];
      pair = voted[1] != 0;
    }
    for (index_t k = 0; k < 2; ++k)
      if (!voted[k]) s[k] = 0.0f;  // a class without votes scores 0 from here on
    const float pos = pair && voted[1] ? s[1] : voted[0] ? s[0] : 0.0f;
    int form = c.n_base == 0 ? 3 : -1;  // the two-score form when only s[0] is a score
    if (c.binary) {
      const bool positive = c.weights_positive ? pos > 0.5f : pos > 0.0f;
      form = c.weights_positive ? (positive ? 0 : 1) : (positive ? 2 : 3);
      y[r] = c.labels[positive ? 1 : 0];
    } else {
      y[r] = pos > 0.0f ? 1 : 0;
    }
    if (pair) {
      ml_post_transform(p.post_transform, s, 2);
    } else if (form == 0 || form == 1) {
      s[1] = s[0], s[0] = 1.0f - s[0];
    } else if (form >= 2 && p.post_transform == kPostLogistic) {
      s[1] = tree_logistic(s[0]), s[0] = tree_logistic(-s[0]);
    } else if (form == 2) {
      s[1] = s[0], s[0] = -s[0];
    } else {
      s[1] = form == 3 ? -s[0] : 0.0f;
    }
  }
}

}  // namespace onnxc

#endif  // ONNXC_ML_TREE_H
