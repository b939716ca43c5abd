// Random ops: RandomUniform(Like), RandomNormal(Like), Bernoulli and Multinomial.
//
// The generator is counter based: draw i of a node is a pure function of the node's 64-bit key
// and i, the splitmix64 output function applied to key + (i + 1) * 0x9E3779B97F4A7C15:
//   random_bits(key, i) = mix64(key + (i + 1) * golden)
// There is no generator state at all, so the kernels keep nothing between calls, need no
// scratch, are reentrant, and every run of a model draws the same numbers. The key is computed at
// compile time from the node's `seed` attribute or, without one, from the node's name (see
// compiler/ops/tensor/random.cpp, random_key()). This is not numpy's generator, so the values
// differ from the ONNX reference's; only the distribution is the same. (Dropout keeps its own
// MT19937 in onnxc/elementwise.h: it must reproduce numpy's RandomState stream, which these ops
// cannot, and its 2.5 KB state would not fit a kernel frame here.)
//
// Draws to numbers:
//   unit_uniform<C>(bits)  C = float: the top 24 bits / 2^24, C = double: the top 53 bits / 2^53;
//                          [0, 1), every value exactly representable in C.
//   normal: Box-Muller on draws 2i and 2i+1, -log of a uniform in (0, 1], computed in C.
// float16/bfloat16 outputs are computed in float and rounded once.
#ifndef ONNXC_RANDOM_H
#define ONNXC_RANDOM_H

#include <cmath>
#include <cstdint>

#include "onnxc/base.h"
#include "onnxc/elementwise.h"  // elem_load, ElemStore, compute_t

namespace onnxc {

// splitmix64's output function: a bijective 64-bit mix.
inline uint64_t random_mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Draw i of the stream `key`.
inline uint64_t random_bits(uint64_t key, uint64_t i) {
  return random_mix64(key + (i + 1) * 0x9E3779B97F4A7C15ull);
}

// A uniform value in [0, 1) of type C (float or double).
template <typename C>
inline C unit_uniform(uint64_t bits) {
  if constexpr (sizeof(C) == sizeof(float))
    return static_cast<C>(bits >> 40) * (1.0f / 16777216.0f);
  else
    return static_cast<C>(bits >> 11) * (1.0 / 9007199254740992.0);
}

struct RandomUniformParams {
  uint64_t key;  // stream key (compile time)
  index_t n;     // elements to write
  double low;    // y in [low, high]
  double high;
};

// y[i] = low + (high - low) * u_i, u_i uniform in [0, 1).
template <typename T>
inline void random_uniform_ref(T* y, const RandomUniformParams& p) {
  using C = compute_t<T>;
  const C low = static_cast<C>(p.low), span = static_cast<C>(p.high - p.low);
  for (index_t i = 0; i < p.n; ++i) {
    C v = low + span * unit_uniform<C>(random_bits(p.key, static_cast<uint64_t>(i)));
    if (v > static_cast<C>(p.high)) v = static_cast<C>(p.high);  // rounding of low + span * u
    y[i] = ElemStore<T>::to(v);
  }
}

struct RandomNormalParams {
  uint64_t key;  // stream key (compile time)
  index_t n;     // elements to write
  double mean;
  double scale;  // standard deviation
};

// y[i] = mean + scale * sqrt(-2 log u1) cos(2 pi u2), u1 in (0, 1] and u2 in [0, 1) from draws
// 2i and 2i + 1.
template <typename T>
inline void random_normal_ref(T* y, const RandomNormalParams& p) {
  using C = compute_t<T>;
  const C mean = static_cast<C>(p.mean), scale = static_cast<C>(p.scale);
  const C two_pi = static_cast<C>(6.283185307179586476925);
  for (index_t i = 0; i < p.n; ++i) {
    const uint64_t k = 2 * static_cast<uint64_t>(i);
    const C u1 = C(1) - unit_uniform<C>(random_bits(p.key, k));  // (0, 1]: log stays finite
    const C u2 = unit_uniform<C>(random_bits(p.key, k + 1));
    const C z = std::sqrt(C(-2) * std::log(u1)) * std::cos(two_pi * u2);
    y[i] = ElemStore<T>::to(mean + scale * z);
  }
}

struct BernoulliParams {
  uint64_t key;  // stream key (compile time)
  index_t n;     // elements
};

// y[i] = 1 when u_i < p[i], else 0 (u_i uniform in [0, 1)): P(y = 1) = p for p in [0, 1].
template <typename TP, typename TY>
inline void bernoulli_ref(const TP* prob, TY* y, const BernoulliParams& p) {
  using C = compute_t<TP>;
  for (index_t i = 0; i < p.n; ++i) {
    const bool one =
        unit_uniform<C>(random_bits(p.key, static_cast<uint64_t>(i))) < elem_load(prob[i]);
    y[i] = ElemStore<TY>::to(one ? 1 : 0);
  }
}

struct MultinomialParams {
  uint64_t key;     // stream key (compile time)
  index_t batch;    // rows of x and y
  index_t classes;  // x is [batch, classes] unnormalized log-probabilities
  index_t samples;  // y is [batch, samples] class indices
};

// Each sample of row b: the first class c whose cumulative exp(x[b, c] - max) exceeds u * total,
// u uniform in [0, 1) (draw b * samples + s). Classes with -inf log-probability are never drawn.
template <typename TX, typename TY>
inline void multinomial_ref(const TX* x, TY* y, const MultinomialParams& p) {
  using C = compute_t<TX>;
  for (index_t b = 0; b < p.batch; ++b) {
    const TX* row = x + b * p.classes;
    C mx = elem_load(row[0]);
    for (index_t c = 1; c < p.classes; ++c)
      if (elem_load(row[c]) > mx) mx = elem_load(row[c]);
    C total = C(0);
    for (index_t c = 0; c < p.classes; ++c) total += std::exp(elem_load(row[c]) - mx);
    for (index_t s = 0; s < p.samples; ++s) {
      const uint64_t draw = static_cast<uint64_t>(b * p.samples + s);
      const C target = unit_uniform<C>(random_bits(p.key, draw)) * total;
      C acc = C(0);
      index_t pick = p.classes - 1;
      for (index_t c = 0; c < p.classes; ++c) {
        const C e = std::exp(elem_load(row[c]) - mx);
        acc += e;
        if (e > C(0) && target < acc) {
          pick = c;
          break;
        }
      }
      while (pick > 0 && !(std::exp(elem_load(row[pick]) - mx) > C(0)))
        --pick;  // rounding at the end
      y[b * p.samples + s] = static_cast<TY>(pick);
    }
  }
}

}  // namespace onnxc

#endif  // ONNXC_RANDOM_H
