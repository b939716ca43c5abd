// Support vector machines of ai.onnx.ml, computed in float whatever the input type, as
// onnxruntime does:
//   svm_kernel            K(x, s): LINEAR x.s; POLY (gamma x.s + coef0)^degree; RBF
//                         e^(-gamma |x - s|^2); SIGMOID tanh(gamma x.s + coef0)
//   svm_regressor_ref     y = sum_v coef[v] K(x, support_v) + rho, or, without support vectors
//                         (liblinear form), y = x.coef + rho; one_class: y = y > 0 ? 1 : -1
//   svm_classifier_ref    labels and scores, following onnxruntime (see its section)
// Parameters are computed by the compiler; kernels never validate them.
#ifndef ONNXC_ML_SVM_H
#define ONNXC_ML_SVM_H

#include <cmath>
#include <cstdint>

#include "onnxc/base.h"
#include "onnxc/ml_common.h"

namespace onnxc {

enum : int { kSvmLinear, kSvmPoly, kSvmRbf, kSvmSigmoid };

struct SvmParams {
  index_t rows, features;
  index_t vectors;       // support vectors; 0: the liblinear form
  const float* support;  // [vectors, features], or nullptr
  const float* coef;     // [vectors], or [features] in the liblinear form
  float rho;
  int kernel;  // kSvmLinear .. kSvmSigmoid
  float gamma, coef0, degree;
  int one_class;
};

template <typename X>
inline float svm_kernel(const SvmParams& p, const X* x, const float* s) {
  float acc = 0.0f;
  if (p.kernel == kSvmRbf) {
    for (index_t f = 0; f < p.features; ++f) {
      const float d = static_cast<float>(x[f]) - s[f];
      acc += d * d;
    }
    return std::exp(-p.gamma * acc);
  }
  for (index_t f = 0; f < p.features; ++f) acc += static_cast<float>(x[f]) * s[f];
  if (p.kernel == kSvmLinear) return acc;
  const float v = p.gamma * acc + p.coef0;
  if (p.kernel == kSvmSigmoid) return std::tanh(v);
  return p.degree == 2.0f ? v * v : p.degree == 3.0f ? v * v * v : std::pow(v, p.degree);
}

template <typename X>
inline void svm_regressor_ref(const SvmParams& p, const X* x, float* y) {
  for (index_t r = 0; r < p.rows; ++r) {
    const X* row = x + r * p.features;
    float sum = 0.0f;
    if (p.vectors == 0) {
      sum = svm_kernel(p, row, p.coef);  // the compiler sets kernel LINEAR for this form
    } else {
      for (index_t v = 0; v < p.vectors; ++v)
        sum += p.coef[v] * svm_kernel(p, row, p.support + v * p.features);
    }
    sum += p.rho;
    y[r] = p.one_class ? (sum > 0.0f ? 1.0f : -1.0f) : sum;
  }
}

// ---- SVMClassifier --------------------------------------------------------------------------
// Liblinear form (no support vectors): one score per class, x.coef_c + rho[0]; the label is that
// of the first highest score, except with two classes: labels[1] when the top score is >= 0.5
// (all coefficients >= 0) or > 0 (some negative), else the top score's label (always the top
// score's label when prob_a is given, which this form does not otherwise use).
// Libsvm form: one-vs-one classifiers for each class pair i < j, score_ij = sum over i's support
// vectors of coef[j - 1][v] K(x, v) + sum over j's of coef[i][v] K(x, v) + rho_ij (summed in
// double); a positive score votes for i, else for j, and the label is that of the first class
// with the most votes. Without prob_a the scores are the pair scores (two classes: [-s, s] with
// post_transform NONE, [1 - L(s), L(s)] with LOGISTIC); with prob_a/prob_b each pair score
// becomes a probability 1 - logistic(s * a + b), clamped to [1e-7, 1 - 1e-7], and the class
// probabilities come from libsvm's pairwise coupling (Wu, Lin and Weng), iterated in float.
// Scores of more than one column are then post-transformed (onnxc/ml_common.h).
struct SvmClassifierParams {
  SvmParams svm;                 // rows, features, kernel; vectors 0: liblinear
  index_t classes;               // class labels
  const int64_t* labels;         // [classes]
  const index_t* class_vectors;  // [classes] support vectors per class (libsvm form)
  const float* rho;              // [classes * (classes - 1) / 2] (liblinear: [1])
  const float* prob_a;           // [pairs] or nullptr
  const float* prob_b;           // [pairs] or nullptr
  int weights_positive;          // every coefficient >= 0
  int post_transform;            // kPostNone .. kPostSoftmaxZero
  index_t score_columns;         // columns of the scores output
};

// Scratch floats svm_classifier_ref needs.
constexpr index_t svm_classifier_scratch_floats(index_t vectors, index_t classes) {
  return vectors + 2 * classes + classes * (classes - 1) / 2 + 2 * classes * classes;
}

namespace svm_detail {

inline float logistic(float v) {
  const float e = 1.0f / (1.0f + std::exp(-std::fabs(v)));
  return v < 0 ? 1.0f - e : e;
}

// Class probabilities p[k] from pairwise probabilities r[i * k + j] (libsvm's method 2).
inline void couple(index_t k, const float* r, float* p, float* q, float* qp) {
  for (index_t i = 0; i < k * k; ++i) q[i] = 0.0f;
  for (index_t i = 0; i < k; ++i) {
    p[i] = 1.0f / static_cast<float>(k);
    for (index_t j = 0; j < i; ++j) {
      q[i * k + i] += r[j * k + i] * r[j * k + i];
      q[i * k + j] = q[j * k + i];
    }
    for (index_t j = i + 1; j < k; ++j) {
      q[i * k + i] += r[j * k + i] * r[j * k + i];
      q[i * k + j] = -r[j * k + i] * r[i * k + j];
    }
  }
  const float eps = 0.005f / static_cast<float>(k);
  for (int iter = 0; iter < 100; ++iter) {
    float pqp = 0.0f;
    for (index_t i = 0; i < k; ++i) {
      qp[i] = 0.0f;
      for (index_t j = 0; j < k; ++j) qp[i] += q[i * k + j] * p[j];
      pqp += p[i] * qp[i];
    }
    float max_error = 0.0f;
    for (index_t i = 0; i < k; ++i) {
      const float e = std::fabs(qp[i] - pqp);
      max_error = e > max_error ? e : max_error;
    }
    if (max_error < eps) break;
    for (index_t i = 0; i < k; ++i) {
      const float diff = (-qp[i] + pqp) / q[i * k + i];
      p[i] += diff;
      pqp = (pqp + diff * (diff * q[i * k + i] + 2 * qp[i])) / (1 + diff) / (1 + diff);
      for (index_t j = 0; j < k; ++j) {
        qp[j] = (qp[j] + diff * q[i * k + j]) / (1 + diff);
        p[j] /= (1 + diff);
      }
    }
  }
}

}  // namespace svm_detail

template <typename X>
inline void svm_classifier_ref(const SvmClassifierParams& c, const X* x, int64_t* labels,
                               float* scores, float* scratch) {
  const SvmParams& p = c.svm;
  const index_t k = c.classes, pairs = k * (k - 1) / 2;
  float* kernels = scratch;              // [vectors]
  float* votes = kernels + p.vectors;    // [classes]
  float* pair_scores = votes + k;        // [pairs]
  float* coupled = pair_scores + pairs;  // [classes * classes] pairwise probabilities
  float* q = coupled + k * k;            // [classes * classes]
  float* qp = q + k * k;                 // [classes]
  for (index_t r = 0; r < p.rows; ++r) {
    const X* row = x + r * p.features;
    float* z = scores + r * c.score_columns;
    if (p.vectors == 0) {  // liblinear
      index_t best = 0;
      for (index_t j = 0; j < k; ++j) {
        z[j] = svm_kernel(p, row, p.coef + j * p.features) + c.rho[0];
        if (z[j] > z[best]) best = j;
      }
      const float top = z[best];
      const bool positive = k == 2 && !c.prob_a && (c.weights_positive ? top >= 0.5f : top > 0.0f);
      labels[r] = c.labels[positive ? 1 : best];
      ml_post_transform(c.post_transform, z, k);
      continue;
    }
    for (index_t v = 0; v < p.vectors; ++v)
      kernels[v] = svm_kernel(p, row, p.support + v * p.features);
    for (index_t j = 0; j < k; ++j) votes[j] = 0.0f;
    index_t pair = 0, start_i = 0;
    for (index_t i = 0; i + 1 < k; start_i += c.class_vectors[i], ++i) {
      index_t start_j = start_i + c.class_vectors[i];
      for (index_t j = i + 1; j < k; start_j += c.class_vectors[j], ++j, ++pair) {
        double sum = 0;
        for (index_t m = 0; m < c.class_vectors[i]; ++m)
          sum += p.coef[(j - 1) * p.vectors + start_i + m] * kernels[start_i + m];
        for (index_t m = 0; m < c.class_vectors[j]; ++m)
          sum += p.coef[i * p.vectors + start_j + m] * kernels[start_j + m];
        sum += c.rho[pair];
        pair_scores[pair] = static_cast<float>(sum);
        votes[sum > 0 ? i : j] += 1.0f;
      }
    }
    index_t best = 0;
    for (index_t j = 1; j < k; ++j)
      if (votes[j] > votes[best]) best = j;
    labels[r] = c.labels[best];
    if (c.prob_a) {
      for (index_t i = 0, at = 0; i + 1 < k; ++i)
        for (index_t j = i + 1; j < k; ++j, ++at) {
          float v = 1.0f - svm_detail::logistic(pair_scores[at] * c.prob_a[at] + c.prob_b[at]);
          v = v < 1.0e-7f ? 1.0e-7f : v > 1 - 1.0e-7f ? 1 - 1.0e-7f : v;
          coupled[i * k + j] = v;
          coupled[j * k + i] = 1 - v;
        }
      svm_detail::couple(k, coupled, z, q, qp);
      ml_post_transform(c.post_transform, z, k);
    } else if (k == 2) {
      const float s = pair_scores[0];
      const float v = c.post_transform == kPostLogistic ? svm_detail::logistic(s) : s;
      z[0] = c.post_transform == kPostNone ? -s : 1.0f - v;
      z[1] = v;
    } else {
      for (index_t j = 0; j < pairs; ++j) z[j] = pair_scores[j];
      ml_post_transform(c.post_transform, z, pairs);
    }
  }
}

}  // namespace onnxc

#endif  // ONNXC_ML_SVM_H
