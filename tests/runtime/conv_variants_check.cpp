// Tester program for the conv kernel variants of onnxc/variants.h. Not part of onnxc_tests: it
// is compiled once per ISA with that ISA's flags (conv_variants_kernels_test.cpp does, for every
// target the host can run, and for aarch64 under qemu when a cross compiler is installed), so
// the intrinsics variants are built and run exactly as generated code would build them.
//
// Every table row of the conv families whose ISA this build has is run over many shapes (odd
// sizes, planes narrower and wider than a vector, row counts not a multiple of the row block,
// every padding 0..2 per side, strides 1 and 2, multipliers 1 and 2, fused epilogues) against
// a double-precision brute-force convolution. Tolerance: each output is a sum of at most 25
// products plus the bias (plus a residual), summed in float in some order with or without FMA;
// the rounding error of such a sum is below (terms + 1) * 2^-24 * (the sum of the terms'
// magnitudes) (Higham, recursive summation), so |y - exact| <= 16 * 2^-24 * magnitude, with
// magnitude = |b| + sum |w x| (+ |residual|), before the activation (Relu and Clip are
// 1-Lipschitz; the others are checked with 1e-6 of slack on top).
// Winograd (wino4x4) gets its filters transformed first (pack_winograd_weights), and the bound of
// its own evaluation order: every output is at most about c_in + 24 roundings deep (the two
// transforms 8 each, the filter transform, the product, the channel sum, the bias), so
// |y - exact| <= (cin_padded + 24) * 2^-24 * the same algorithm run on |x|, |w| and the
// transform matrices' absolute values (first-order error analysis, Higham ch. 3).
// Guard words after Y and the scratch catch out-of-bounds writes. Prints one line per variant,
// "ran <name> <cases>" or "skip <name> (not built for this ISA)"; exits 1 on a mismatch.
// It also runs the GEMM variants' few-row products (m < 4: one dot product or axpy per output
// row, with AVX-512 f32_dot_rows_avx512) as this ISA compiles them, against a double-precision
// product with the same kind of bound: (k + 2) * 2^-24 * (|alpha| sum |a b| + |beta c|).
// Usage: conv_variants_check [avx512f|avx2_fma|sse2]. In a build with run-time ISA dispatch
// (--target generic or x86-64-v2 on x86-64) the argument caps the copy the dispatch picks, so one
// build checks the AVX-512, the AVX2 + FMA and the baseline copies in turn (default: the CPU's
// widest); elsewhere it changes nothing.
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

// The widest copy the dispatch may pick (onnxc/base.h asks these two questions, and only these).
namespace isa_cap {
int widest = 2;  // 2: AVX-512, 1: AVX2 + FMA, 0: the baseline
}  // namespace isa_cap
#define ONNXC_CPU_HAS_AVX512F() (isa_cap::widest >= 2 && __builtin_cpu_supports("avx512f"))
#define ONNXC_CPU_HAS_AVX2_FMA() \
  (isa_cap::widest >= 1 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))

#include "onnxc/activation_table.h"

// The activations run_variant's cases check (its `epilogues`): the adapters compile each variant
// for these alone (every variant's fused and parallel forms for all 11 activations of the table,
// in each ISA copy, took most of the checker's build: 381 s for --target generic on a 2-core Zen
// 3). A case naming another activation aborts instead of passing unchecked.
constexpr bool is_checked_activation(onnxc::EpilogueActivation a) {
  using namespace onnxc;
  return a == kActNone || a == kActRelu || a == kActClip || a == kActSigmoid ||
         a == kActHardSwish || a == kActSwish;
}
template <class F>
void with_checked_epilogue(const onnxc::EpilogueSpec& s, F&& f) {
  using namespace onnxc;
  switch (s.activation) {
#define ONNXC_CHECKED_CASE(kind, name, functor, polynomial)              \
  case kind:                                                             \
    if constexpr (is_checked_activation(kind))                           \
      return f(Epilogue<functor>{functor{s.alpha, s.beta}, s.residual}); \
    break;
    ONNXC_EPILOGUE_ACTIVATIONS(ONNXC_CHECKED_CASE)
#undef ONNXC_CHECKED_CASE
  }
  std::fprintf(stderr, "conv_variants_check: activation %d is not among the checked ones\n",
               static_cast<int>(s.activation));
  std::abort();
}
#define ONNXC_TESTED_EPILOGUE with_checked_epilogue
#include "epilogue_adapters.h"
#include "onnxc/conv_variants.h"
#include "onnxc/conv_variants_sse2.h"
#include "onnxc/conv_winograd.h"
#include "onnxc/kernels_parallel.h"
#include "onnxc/thread_pool.h"
#include "onnxc/variants.h"

using namespace onnxc;

namespace {

using PlainFn = void (*)(const ConvParams&, const float*, const float*, const float*, float*,
                         void*);
using EpilogueFn = void (*)(const ConvParams&, const float*, const float*, const float*, float*,
                            void*, const EpilogueSpec&, const float*);

using ParallelFn = void (*)(const ConvParams&, const float*, const float*, const float*, float*,
                            void*, const EpilogueSpec&, const float*, const Parallel&, index_t);

struct Compiled {
  const char* name;
  PlainFn plain;
  EpilogueFn epilogue;
  ParallelFn parallel;  // null: a microcontroller variant (no thread code)
};

// kCompiled comes from the table itself: a conv or dwconv row is compiled here when this build
// has its ISA, so a new row is run with no edit to this file. Microcontroller rows ("mcu") have
// no thread code.
#define ONNXC_IF_ISA_scalar(x) x,
#if defined(__SSE2__)
#define ONNXC_IF_ISA_sse2(x) x,
#else
#define ONNXC_IF_ISA_sse2(x)
#endif
#if defined(__AVX2__) && defined(__FMA__)
#define ONNXC_IF_ISA_avx2_fma(x) x,
#else
#define ONNXC_IF_ISA_avx2_fma(x)
#endif
#if defined(__AVX512F__)
#define ONNXC_IF_ISA_avx512f(x) x,
#else
#define ONNXC_IF_ISA_avx512f(x)
#endif
#if defined(__ARM_NEON)
#define ONNXC_IF_ISA_neon(x) x,
#else
#define ONNXC_IF_ISA_neon(x)
#endif
#if defined(__ARM_NEON) && defined(__aarch64__)
#define ONNXC_IF_ISA_neonfma(x) x,
#else
#define ONNXC_IF_ISA_neonfma(x)
#endif
#if defined(__ARM_FEATURE_DSP)
#define ONNXC_IF_ISA_dsp(x) x,
#else
#define ONNXC_IF_ISA_dsp(x)
#endif
#if defined(__ARM_FEATURE_MVE)
#define ONNXC_IF_ISA_mve(x) x,
#else
#define ONNXC_IF_ISA_mve(x)
#endif
#define ONNXC_IF_OP_qconv(x)
#define ONNXC_IF_OP_qdwconv(x)
#define ONNXC_IF_OP_conv(x) x
#define ONNXC_IF_OP_dwconv(x) x
#define ONNXC_IF_OP_gemm_packed(x)
#define ONNXC_IF_OP_gemm(x)
#define ONNXC_IF_OP_recurrent(x)
#define ONNXC_IF_OP_maxpool(x)
#define ONNXC_PARALLEL_any(fn) ONNXC_CONV_PARALLEL(fn)
#define ONNXC_PARALLEL_hosted(fn) ONNXC_CONV_PARALLEL(fn)
#define ONNXC_PARALLEL_wide(fn) ONNXC_CONV_PARALLEL(fn)
#define ONNXC_PARALLEL_baseline(fn) ONNXC_CONV_PARALLEL(fn)
#define ONNXC_PARALLEL_vector_fma(fn) ONNXC_CONV_PARALLEL(fn)
#define ONNXC_PARALLEL_mcu(fn) nullptr
#define ONNXC_COMPILED_AS(fn, targets) \
  { #fn, fn, ONNXC_CONV_FUSED(fn), ONNXC_PARALLEL_##targets(fn) }
#define ONNXC_COMPILED(dtype, op, tile, isa, header, fits, weights, targets, panel, gflops) \
  ONNXC_IF_OP_##op(ONNXC_IF_ISA_##isa(ONNXC_COMPILED_AS(dtype##_##op##_##tile##__##isa, targets)))
const Compiled kCompiled[] = {ONNXC_KERNEL_VARIANTS(ONNXC_COMPILED)};
#undef ONNXC_COMPILED
#undef ONNXC_COMPILED_AS

const Compiled* find_compiled(const std::string& name) {
  for (const Compiled& c : kCompiled)
    if (name == c.name) return &c;
  return nullptr;
}

constexpr float kGuard = 12345.0f;

ConvParams params(index_t c_in, index_t mult, index_t h, index_t w, index_t k, index_t s,
                  index_t pt, index_t pl, index_t pb, index_t pr, bool depthwise) {
  ConvParams p{};
  p.batch = 1 + (h % 2 == 0 && w < 9);  // a second image now and then
  p.c_in = c_in, p.group = depthwise ? c_in : 1, p.c_out = depthwise ? c_in * mult : mult;
  const index_t in[3] = {1, h, w}, pad[3] = {0, pt, pl}, end[3] = {0, pb, pr};
  for (int d = 0; d < 3; ++d) {
    p.in[d] = in[d], p.kernel[d] = d ? k : 1, p.stride[d] = d ? s : 1, p.dilation[d] = 1;
    p.pad[d] = pad[d];
    p.out[d] = (p.in[d] + pad[d] + end[d] - p.kernel[d]) / p.stride[d] + 1;
  }
  p.tile = p.out[1] * p.out[2] < kMaxConvTile ? p.out[1] * p.out[2] : 512;
  return p;
}

// A table row's tile and shape predicate (onnxc/variants.h's `fits` column): what decides the
// shapes it is run on, as select-kernels decides them.
struct RowKind {
  std::string tile, fits;
};

// The window K of a "KxK" depthwise tile (fits dwconv_kxk), 0 for the others.
index_t square(const RowKind& tile) {
  return tile.fits == "dwconv_kxk" ? std::atoi(tile.tile.c_str()) : 0;
}

bool winograd(const RowKind& tile) {
  return tile.fits == "winograd";
}

bool applies(const std::string& op, const RowKind& tile, const ConvParams& p) {
  if (op == "dwconv")
    return square(tile) ? f32_dwconv_kxk_applies(p, square(tile)) : p.c_in == p.group;
  return op == "conv" && (!winograd(tile) || f32_conv_winograd_applies(p));
}

index_t scratch_bytes(const std::string& op, const RowKind& tile, const ConvParams& p) {
  if (op == "dwconv")
    return square(tile) ? f32_dwconv_kxk_scratch_bytes(p) : conv_dw_scratch_bytes(p);
  return winograd(tile) ? f32_conv_winograd_scratch_bytes(p) : conv_gemm_scratch_bytes(p);
}

// Winograd's error scale at output (n, oc, oh, ow) of a 3x3 stride-1 convolution: F(4x4, 3x3)
// evaluated on |x| and |w| with the absolute values of its matrices A^T, B^T and G.
double winograd_magnitude(const ConvParams& p, const std::vector<float>& x,
                          const std::vector<float>& w, index_t n, index_t oc, index_t oh,
                          index_t ow) {
  static const double at[4][6] = {
      {1, 1, 1, 1, 1, 0}, {0, 1, 1, 2, 2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, 1, 8, 8, 1}};
  static const double bt[6][6] = {{4, 0, 5, 0, 1, 0}, {0, 4, 4, 1, 1, 0}, {0, 4, 4, 1, 1, 0},
                                  {0, 2, 1, 2, 1, 0}, {0, 2, 1, 2, 1, 0}, {0, 4, 0, 5, 0, 1}};
  static const double g[6][3] = {{0.25, 0, 0},
                                 {1.0 / 6, 1.0 / 6, 1.0 / 6},
                                 {1.0 / 6, 1.0 / 6, 1.0 / 6},
                                 {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                 {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                 {0, 0, 1}};
  const index_t h0 = oh / 4 * 4 - p.pad[1], w0 = ow / 4 * 4 - p.pad[2];
  const index_t a = oh % 4, bcol = ow % 4;
  double total = 0;
  for (index_t c = 0; c < p.c_in; ++c) {
    double d[6][6], u[6][6];
    for (index_t r = 0; r < 6; ++r)
      for (index_t col = 0; col < 6; ++col) {
        const index_t ih = h0 + r, iw = w0 + col;
        d[r][col] = ih < 0 || ih >= p.in[1] || iw < 0 || iw >= p.in[2]
                        ? 0.0
                        : std::fabs(x[((n * p.c_in + c) * p.in[1] + ih) * p.in[2] + iw]);
      }
    for (index_t i = 0; i < 6; ++i)
      for (index_t j = 0; j < 6; ++j) {
        double v = 0, gu = 0;
        for (index_t r = 0; r < 6; ++r)
          for (index_t col = 0; col < 6; ++col) v += bt[i][r] * d[r][col] * bt[j][col];
        for (index_t r = 0; r < 3; ++r)
          for (index_t col = 0; col < 3; ++col)
            gu += g[i][r] * std::fabs(w[((oc * p.c_in + c) * 3 + r) * 3 + col]) * g[j][col];
        u[i][j] = v * gu;
      }
    for (index_t i = 0; i < 6; ++i)
      for (index_t j = 0; j < 6; ++j) total += at[a][i] * u[i][j] * at[bcol][j];
  }
  return total;
}

float act(const EpilogueSpec& e, float v) {
  return apply_activation(e, v);
}

// The parallel form of c in 2, 3, 4, 7 and 16 parts (grids of one and two dimensions, parts
// past the work), on the serial loop and on a pool of 2 threads, gives y bit for bit (depthwise
// ones split only single images, as the compiler uses them).
bool check_parallel(const Compiled& c, const std::string& op, const RowKind& tile,
                    const ConvParams& p, const EpilogueSpec& e, const std::vector<float>& x,
                    const std::vector<float>& w, const std::vector<float>& b,
                    const std::vector<float>& res, const std::vector<float>& y) {
  if (!c.parallel || (op == "dwconv" && p.batch != 1)) return true;
  static ThreadPool pool(2);
  const index_t slice = task_scratch_bytes(scratch_bytes(op, tile, p));
  for (const index_t tasks : {2, 3, 4, 7, 16})
    for (const Parallel& par : {kSerial, pool.parallel()}) {
      std::vector<float> yp(y.size(), kGuard);
      const size_t ns = static_cast<size_t>(slice * tasks) / sizeof(float);
      std::vector<float> scratch(ns + 16, kGuard);
      c.parallel(p, x.data(), w.data(), b.data(), yp.data(), scratch.data(), e, res.data(), par,
                 tasks);
      for (size_t i = ns; i < scratch.size(); ++i)
        if (scratch[i] != kGuard)
          return std::printf("FAIL %s: %td tasks write past scratch\n", c.name, tasks), false;
      if (std::memcmp(yp.data(), y.data(), y.size() * sizeof(float)) != 0)
        return std::printf(
                   "FAIL %s: %td tasks (%s) differ from one: c_in %td c_out %td in %tdx%td\n",
                   c.name, tasks, par.pool ? "pool" : "serial", p.c_in, p.c_out, p.in[1], p.in[2]),
               false;
    }
  return true;
}

// Runs one case; returns false (after printing it) on a mismatch.
bool check(const Compiled& c, const std::string& op, const RowKind& tile, const ConvParams& p,
           const EpilogueSpec& e, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  const index_t cin_g = p.c_in / p.group, taps = p.kernel[1] * p.kernel[2];
  const index_t in_size = p.in[1] * p.in[2], out_size = p.out[1] * p.out[2];
  std::vector<float> x(static_cast<size_t>(p.batch * p.c_in * in_size));
  std::vector<float> w(static_cast<size_t>(p.c_out * cin_g * taps)), b(p.c_out);
  const size_t ny = static_cast<size_t>(p.batch * p.c_out * out_size);
  std::vector<float> res(ny), y(ny + 16, kGuard);
  for (auto* v : {&x, &w, &b, &res})
    for (float& f : *v) f = dist(rng);
  const size_t ns = static_cast<size_t>(scratch_bytes(op, tile, p)) / sizeof(float) + 1;
  std::vector<float> scratch(ns + 16, kGuard);
  std::vector<float> packed;  // the kernel's W: the transformed filters for Winograd
  if (winograd(tile)) {
    packed.resize(static_cast<size_t>(winograd_weight_floats(p)));
    pack_winograd_weights(p, w.data(), packed.data());
  }
  const std::vector<float>& wk = winograd(tile) ? packed : w;
  if (has_epilogue(e))
    c.epilogue(p, x.data(), wk.data(), b.data(), y.data(), scratch.data(), e, res.data());
  else
    c.plain(p, x.data(), wk.data(), b.data(), y.data(), scratch.data());
  for (size_t i = ny; i < y.size(); ++i)
    if (y[i] != kGuard) return std::printf("FAIL %s: write past Y\n", c.name), false;
  static int n = 0;  // every 4th case: a pool on the 2-core CI machine costs microseconds a call
  if (n++ % 4 == 0 && !check_parallel(c, op, tile, p, e, x, wk, b, res, y)) return false;
  for (size_t i = ns; i < scratch.size(); ++i)
    if (scratch[i] != kGuard) return std::printf("FAIL %s: write past scratch\n", c.name), false;
  const index_t mult = p.c_out / p.group;
  for (index_t n = 0; n < p.batch; ++n)
    for (index_t oc = 0; oc < p.c_out; ++oc)
      for (index_t oh = 0; oh < p.out[1]; ++oh)
        for (index_t ow = 0; ow < p.out[2]; ++ow) {
          double sum = b[oc], mag = std::fabs(b[oc]);
          for (index_t ic = 0; ic < cin_g; ++ic) {
            const index_t xc = p.group == p.c_in ? oc / mult : ic;
            for (index_t kh = 0; kh < p.kernel[1]; ++kh)
              for (index_t kw = 0; kw < p.kernel[2]; ++kw) {
                const index_t ih = oh * p.stride[1] - p.pad[1] + kh;
                const index_t iw = ow * p.stride[2] - p.pad[2] + kw;
                if (ih < 0 || ih >= p.in[1] || iw < 0 || iw >= p.in[2]) continue;
                const double t = double(w[(oc * cin_g + ic) * taps + kh * p.kernel[2] + kw]) *
                                 x[((n * p.c_in + xc) * p.in[1] + ih) * p.in[2] + iw];
                sum += t, mag += std::fabs(t);
              }
          }
          const size_t at = static_cast<size_t>((n * p.c_out + oc) * out_size + oh * p.out[2] + ow);
          if (e.residual) sum += res[at], mag += std::fabs(res[at]);
          const double want = act(e, static_cast<float>(sum));
          const double terms = double(cin_g * taps + 2);
          double tol = (terms + 4) * std::ldexp(1.0, -24) * mag + 1e-6;
          if (winograd(tile))
            tol = (double((p.c_in + 15) / 16 * 16) + 24) * std::ldexp(1.0, -24) *
                      (winograd_magnitude(p, x, w, n, oc, oh, ow) + mag) +
                  1e-6;
          if (!(std::fabs(y[at] - want) <= tol)) {
            std::printf(
                "FAIL %s: c_in %td c_out %td in %tdx%td stride %td pad %td,%td act %d "
                "res %d: y[%zu] = %.9g, want %.9g (tol %.3g)\n",
                c.name, p.c_in, p.c_out, p.in[1], p.in[2], p.stride[1], p.pad[1], p.pad[2],
                e.activation, e.residual, at, y[at], want, tol);
            return false;
          }
        }
  return true;
}

// Every shape and epilogue of the family for one variant; the number of cases run.
int run_variant(const Compiled& c, const std::string& op, const RowKind& tile, bool& ok) {
  std::mt19937 rng(7);
  const EpilogueSpec epilogues[] = {{kActNone, 0, 0, 0},       {kActRelu, 0, 0, 1},
                                    {kActClip, 0.0f, 6.0f, 0}, {kActClip, -0.25f, 0.5f, 1},
                                    {kActSigmoid, 0, 0, 1},    {kActHardSwish, 0, 0, 0},
                                    {kActSwish, 1.0f, 0, 1}};
  int cases = 0, i = 0;
  const index_t sizes[] = {1, 2, 3, 5, 7, 8, 9, 14, 15, 16, 17, 23, 28, 33, 56};
  for (index_t h : sizes)
    for (index_t w : sizes)
      for (index_t s = 1; s <= 2; ++s)
        for (index_t pad = 0; pad <= 2; ++pad, ++i) {
          if ((h > 17 || w > 17) && i % 5) continue;  // the big planes on a sample
          const index_t pt = pad, pl = (pad + i) % 3, pb = (pad + h) % 3, pr = (pad * w) % 3;
          // 1x1 kernels now and then for the GEMM (padded here: through the patch matrix).
          const index_t k = square(tile) == 5 || (op == "dwconv" && !square(tile) && i % 4 == 0) ? 5
                            : op == "conv" && !winograd(tile) && i % 3 == 1                      ? 1
                                                                            : 3;
          if (h + pt + pb < k || w + pl + pr < k) continue;
          const bool dw = op == "dwconv";
          ConvParams p =
              params(dw ? 1 + i % 3 : 2 + i % 5, 1 + i % 2, h, w, k, s, pt, pl, pb, pr, dw);
          if (winograd(tile)) {
            p.tile = 1 + i % 3;                  // bands per block
            if (h <= 9 && w <= 9 && i % 3 == 0)  // several channel vectors and c_out panels
              p.c_in = 17 + i % 17, p.c_out = 33 + i % 7;
          }
          if (!applies(op, tile, p)) continue;
          const EpilogueSpec& e = epilogues[i % 6];
          ++cases;
          if (!check(c, op, tile, p, e, rng)) {
            ok = false;
            return cases;
          }
        }
  // Depthwise planes with padding wider than a vector on one side (the padded copy's zero
  // runs) and rows around the vector widths.
  if (op == "dwconv")
    for (index_t w : {3, 15, 33})
      for (index_t s = 1; s <= 2; ++s)
        for (const auto& pads : {std::array<index_t, 2>{17, 0}, {0, 18}, {5, 9}, {33, 1}}) {
          const index_t k = square(tile) ? square(tile) : 3;
          const ConvParams p = params(2, 1 + s % 2, 4 + w % 5, w, k, s, pads[1] % 4, pads[0],
                                      pads[0] % 3, pads[1], true);
          if (!applies(op, tile, p)) continue;
          const EpilogueSpec& e = epilogues[static_cast<size_t>(w + s) % 7];
          ++cases;
          if (!check(c, op, tile, p, e, rng)) {
            ok = false;
            return cases;
          }
        }
  // Pointwise GEMM convolutions, unpadded: of one output position (1x1 planes: the
  // matrix-vector path) and a few; depths around the vector loop's 64-float step.
  if (op == "conv" && !winograd(tile))
    for (index_t c_in : {1, 5, 64, 67, 130})
      for (index_t c_out : {1, 9, 33})
        for (index_t h : {1, 2, 3}) {
          const ConvParams p = params(c_in, c_out, h, h == 2 ? 1 : h, 1, 1, 0, 0, 0, 0, false);
          const EpilogueSpec& e = epilogues[static_cast<size_t>(c_in + c_out + h) % 7];
          ++cases;
          if (!check(c, op, tile, p, e, rng)) {
            ok = false;
            return cases;
          }
        }
  return cases;
}

// The GEMM variants on products of 1 to 3 rows, both layouts of B, depths around the 16-float
// vector and n around the 8-row block; Y's padding columns must keep their guard value.
int check_gemm_rows(bool& ok) {
  struct Gemm {
    const char* name;
    void (*fn)(const GemmParams&, const float*, const float*, const float*, float*,
               const Workspace&);
  };
  const Gemm variants[] = {{"f32_gemm_8x32__scalar", f32_gemm_8x32__scalar},
                           {"f32_gemm_6x16__scalar", f32_gemm_6x16__scalar}};
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> ws(32 * 256);
  int cases = 0;
  for (const Gemm& g : variants)
    for (index_t m : {1, 2, 3})
      for (index_t n : {1, 7, 8, 9, 17, 64})
        for (index_t k : {1, 3, 15, 16, 17, 40, 129, 256})
          for (int tb : {0, 1}) {
            const index_t ldb = (tb ? k : n) + 1, ldy = n + 2;
            const GemmParams p = {m, n, k, 0, tb, k, ldb, ldy, 0.75f, -0.5f, 0, 1};
            std::vector<float> a(static_cast<size_t>(m * k)),
                b(static_cast<size_t>((tb ? n : k) * ldb)), c(static_cast<size_t>(n)),
                y(static_cast<size_t>(m * ldy), kGuard);
            for (auto* v : {&a, &b, &c})
              for (float& x : *v) x = u(rng);
            g.fn(p, a.data(), b.data(), c.data(), y.data(), Workspace{ws.data(), 32 * 256 * 4});
            ++cases;
            for (index_t i = 0; i < m; ++i)
              for (index_t j = 0; j < ldy; ++j) {
                const float got = y[static_cast<size_t>(i * ldy + j)];
                if (j >= n) {
                  if (got != kGuard) ok = false;
                  continue;
                }
                double exact = -0.5 * c[static_cast<size_t>(j)],
                       mag = 0.5 * std::fabs(c[static_cast<size_t>(j)]);
                for (index_t kk = 0; kk < k; ++kk) {
                  const double t = 0.75 * a[static_cast<size_t>(i * k + kk)] *
                                   b[static_cast<size_t>(tb ? j * ldb + kk : kk * ldb + j)];
                  exact += t;
                  mag += std::fabs(t);
                }
                if (std::fabs(got - exact) > static_cast<double>(k + 2) * 0x1p-24 * mag + 1e-30) {
                  std::printf("MISMATCH %s m=%ld n=%ld k=%ld transB=%d (%ld, %ld): %.9g vs %.9g\n",
                              g.name, static_cast<long>(m), static_cast<long>(n),
                              static_cast<long>(k), tb, static_cast<long>(i), static_cast<long>(j),
                              static_cast<double>(got), exact);
                  ok = false;
                  return cases;
                }
              }
          }
  return cases;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) {
    const std::string cap = argv[1];
    if (cap != "avx512f" && cap != "avx2_fma" && cap != "sse2") {
      std::fprintf(stderr, "usage: %s [avx512f|avx2_fma|sse2]\n", argv[0]);
      return 2;
    }
    isa_cap::widest = cap == "avx512f" ? 2 : cap == "avx2_fma" ? 1 : 0;
  }
  bool ok = true;
  struct Row {
    const char *dtype, *op, *tile, *isa, *fits;
  };
#define ONNXC_ROW(dtype, op, tile, isa, header, fits, weights, targets, panel, gflops) \
  {#dtype, #op, #tile, #isa, #fits},
  const Row rows[] = {ONNXC_KERNEL_VARIANTS(ONNXC_ROW)};
#undef ONNXC_ROW
  for (const Row& r : rows) {
    const std::string name = std::string(r.dtype) + "_" + r.op + "_" + r.tile + "__" + r.isa;
    const std::string op = r.op;
    if (op != "dwconv" && op != "conv") continue;
    const Compiled* c = find_compiled(name);
    if (!c) {
      std::printf("skip %s (not built for this ISA)\n", name.c_str());
      continue;
    }
    const int cases = run_variant(*c, op, RowKind{r.tile, r.fits}, ok);
    std::printf("ran %s %d\n", name.c_str(), cases);
  }
  std::printf("ran gemm rows %d\n", check_gemm_rows(ok));
  return ok ? 0 : 1;
}
