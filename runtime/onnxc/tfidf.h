// TfIdfVectorizer over integer token sequences (int32/int64). Each row of X is scanned for the
// n-grams of a pool; a gram of n items read with skip distance d (1 + skipped items) covers
// positions s, s + d, ..., s + (n - 1) * d of the row. Unigrams are counted once (d = 1 only);
// longer grams for every d in 1..max_skip + 1. Counts then go through the weighting mode:
//   TF:    count;   IDF: weight if count > 0 else 0;   TFIDF: count * weight
// where the weight of output coordinate j is weights[j] (1 when no weights are given).
//   tfidf_ref<T>   T = int32_t or int64_t; the pool is given as compile-time constant arrays
#ifndef ONNXC_TFIDF_H
#define ONNXC_TFIDF_H

#include <cstdint>

#include "onnxc/base.h"

namespace onnxc {

struct TfIdfParams {
  index_t rows;             // rows of X (1 for 1-D input)
  index_t cols;             // tokens per row
  index_t out_size;         // coordinates per output row: max(ngram_indexes) + 1
  index_t min_n, max_n;     // gram lengths counted
  index_t max_skip;         // largest number of skipped items between two gram items
  int mode;                 // 0 TF, 1 IDF, 2 TFIDF
  index_t num_grams;        // grams in the pool arrays (only those of length min_n..max_n)
  const int64_t* items;     // all gram items end to end
  const index_t* gram_len;  // [num_grams] length of each gram
  const index_t* gram_off;  // [num_grams] offset of each gram's first item in `items`
  const index_t* gram_out;  // [num_grams] output coordinate of each gram
  const float* weights;     // [out_size] weight per output coordinate, or nullptr (all ones)
};

template <typename T>
inline void tfidf_ref(const TfIdfParams& p, const T* x, float* y) {
  for (index_t r = 0; r < p.rows; ++r) {
    const T* row = x + r * p.cols;
    float* out = y + r * p.out_size;
    for (index_t j = 0; j < p.out_size; ++j) out[j] = 0.0f;
    for (index_t d = 1; d <= p.max_skip + 1; ++d) {
      const index_t shortest = (d == 1 || p.min_n > 1) ? p.min_n : 2;  // unigrams only at d = 1
      if (shortest > p.max_n) break;
      for (index_t s = 0; s < p.cols; ++s) {
        for (index_t g = 0; g < p.num_grams; ++g) {
          const index_t n = p.gram_len[g];
          if (n < shortest || s + (n - 1) * d >= p.cols) continue;
          const int64_t* want = p.items + p.gram_off[g];
          bool match = true;
          for (index_t k = 0; k < n && match; ++k)
            match = static_cast<int64_t>(row[s + k * d]) == want[k];
          if (match) out[p.gram_out[g]] += 1.0f;
        }
      }
    }
    for (index_t j = 0; j < p.out_size; ++j) {
      const float w = p.weights ? p.weights[j] : 1.0f;
      if (p.mode == 1)
        out[j] = out[j] > 0.0f ? w : 0.0f;
      else if (p.mode == 2)
        out[j] *= w;
    }
  }
}

}  // namespace onnxc

#endif  // ONNXC_TFIDF_H
