// The int8 convolution variants of onnxc/variants.h (families qconv, qdwconv) against
// qlinear_conv_ref, bit for bit, on shapes chosen to reach every path: pointwise, KxK windows with
// padding on each side, strides and dilations, odd channel and position counts (the 2x2 tiles'
// tails), K not a multiple of 4, fused Relu, zero points at both ends of the range, per-tensor and
// per-channel weight scales, with and without bias. Built with each target's flags by
// qconv_variants_kernels_test.cpp: natively, and for the Cortex-M4 (the __dsp rows), the M0+ and
// the Cortex-M55 (the __mve rows, and the __dsp ones again) as bare-metal programs run by
// qemu-system-arm. No heap (static buffers), so it runs on the boards.
// Prints "ran <variant> <cases>" per row and "qconv check PASS" or "... FAIL".
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>

#include "onnxc/qconv_variants.h"
#include "onnxc/qconv_variants_mve.h"
#include "onnxc/quantize.h"
#include "onnxc/variants.h"

namespace {

using namespace onnxc;

using QConvFn = void (*)(const QConvS8Params&, const int8_t*, const int8_t*, const int32_t*,
                         int8_t*, void*);
struct Compiled {
  const char* name;
  const char* op;
  int window;            // the KxK window the row takes (0: any)
  int dw_element_bytes;  // depthwise rows: the bytes of a scratch row element (the compiler's)
  bool mve;              // an __mve row: its own weight layout and scratch (the *_mve functions)
  QConvFn forms[2][2];   // [ties][whole plane]: the template instances (qconv: no plane form)
};

// kCompiled comes from the table: every qconv / qdwconv row whose ISA this build has.
#define ONNXC_IF_ISA_scalar(x) x,
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
#define ONNXC_IF_ISA_sse2(x)
#define ONNXC_IF_ISA_avx2_fma(x)
#define ONNXC_IF_ISA_avx512f(x)
#define ONNXC_IF_ISA_neon(x)
#define ONNXC_IF_ISA_neonfma(x)
#define ONNXC_IF_OP_qconv(x) x
#define ONNXC_IF_OP_qdwconv(x) x
#define ONNXC_IF_OP_conv(x)
#define ONNXC_IF_OP_dwconv(x)
#define ONNXC_IF_OP_gemm_packed(x)
#define ONNXC_IF_OP_gemm(x)
#define ONNXC_IF_OP_recurrent(x)
#define ONNXC_IF_OP_maxpool(x)
// A window_kxk row's K (its tile "KxK"); 0 for rows that take any window.
constexpr int window_of(const char* fits, const char* tile) {
  return fits[0] == 'w' ? tile[0] - '0' : 0;
}
// As the compiler sizes depthwise scratch (QLinearConv's use_kernel): int16 rows for dsp rows.
constexpr int element_bytes_of(const char* isa) {
  return isa[0] == 'd' ? 2 : 1;
}
constexpr bool is_mve(const char* isa) {
  return isa[0] == 'm';
}
#define ONNXC_FORMS_qconv(fn) \
  {                           \
    {fn<false>, fn<false>}, { \
      fn<true>, fn<true>      \
    }                         \
  }
#define ONNXC_FORMS_qdwconv(fn)            \
  {                                        \
    {fn<false, false>, fn<false, true>}, { \
      fn<true, false>, fn<true, true>      \
    }                                      \
  }
#define ONNXC_COMPILED_AS(fn, op, fits, tile, isa) \
  { #fn, #op, window_of(#fits, #tile), element_bytes_of(#isa), is_mve(#isa), ONNXC_FORMS_##op(fn) }
#define ONNXC_COMPILED(dtype, op, tile, isa, header, fits, weights, targets, panel, gflops) \
  ONNXC_IF_OP_##op(                                                                         \
      ONNXC_IF_ISA_##isa(ONNXC_COMPILED_AS(dtype##_##op##_##tile##__##isa, op, fits, tile, isa)))
const Compiled kCompiled[] = {ONNXC_KERNEL_VARIANTS(ONNXC_COMPILED)};
#undef ONNXC_COMPILED
#undef ONNXC_COMPILED_AS

struct Case {
  int c_in, c_out, group, h, w, kh, kw, stride, dilation;
  int pad_top, pad_left, pad_bottom, pad_right;
  bool relu, per_channel, bias;
  int x_zp, y_zp;
  bool exact_halves = false;  // scales whose multiplier is 2^-5: many outputs are exact halves
};

// Group-1 cases, then depthwise ones (group = c_in = c_out).
const Case kCases[] = {
    {64, 64, 1, 5, 5, 1, 1, 1, 1, 0, 0, 0, 0, true, true, true, -128, -128},   // pointwise
    {13, 7, 1, 3, 5, 1, 1, 1, 1, 0, 0, 0, 0, false, false, true, 5, 3},        // odd M, P, K
    {1, 8, 1, 12, 7, 5, 3, 2, 1, 2, 1, 3, 1, true, true, true, 0, -128},       // kws-like first
    {3, 5, 1, 6, 6, 3, 3, 1, 2, 2, 2, 2, 2, false, true, false, 127, -7},      // dilated
    {6, 4, 1, 7, 9, 3, 3, 2, 1, 1, 0, 0, 1, true, false, true, -3, 127},       // stride 2
    {2, 3, 1, 4, 4, 4, 4, 1, 1, 0, 0, 0, 0, false, true, true, -128, 0},       // window = input
    {8, 8, 8, 6, 5, 3, 3, 1, 1, 1, 1, 1, 1, true, true, true, -128, -128},     // dw 3x3
    {5, 5, 5, 7, 8, 3, 3, 2, 1, 1, 1, 0, 0, false, true, true, 9, -2},         // dw s2
    {4, 4, 4, 5, 6, 3, 3, 1, 2, 2, 1, 2, 3, true, false, false, -100, 50},     // dw dilated
    {3, 3, 3, 9, 7, 5, 5, 1, 1, 2, 2, 2, 2, false, true, true, 1, 1},          // dw 5x5
    {6, 6, 6, 2, 3, 3, 3, 1, 1, 1, 1, 1, 1, true, true, true, -128, -128},     // all border
    {16, 6, 1, 4, 4, 1, 1, 1, 1, 0, 0, 0, 0, false, false, true, 3, 0, true},  // ties
    {5, 5, 5, 4, 6, 3, 3, 1, 1, 1, 1, 1, 1, false, false, true, -3, 0, true},  // dw ties
};

// A 32-bit LCG: the same draws on every CPU.
struct Random {
  uint32_t state;
  uint32_t next() { return state = state * 1664525u + 1013904223u; }
  int8_t s8() { return static_cast<int8_t>(next() >> 24); }
  float uniform(float lo, float hi) {
    return lo + (hi - lo) * static_cast<float>(next() >> 8) / 16777216.0f;
  }
};

constexpr int kMax = 8192;
int8_t g_x[kMax], g_w[kMax], g_w_packed[kMax], g_w_packed_mve[kMax], g_want[kMax], g_got[kMax];
int32_t g_bias[256], g_channels[256 * kQConvChannelWords];
float g_w_scale[256];
int16_t g_scratch[kMax];

int out_extent(int in, int k, int stride, int dilation, int pad_a, int pad_b) {
  return (in + pad_a + pad_b - dilation * (k - 1) - 1) / stride + 1;
}

ConvParams geometry(const Case& c) {
  ConvParams p{};
  p.batch = 1, p.c_in = c.c_in, p.c_out = c.c_out, p.group = c.group;
  const index_t in[3] = {1, c.h, c.w}, k[3] = {1, c.kh, c.kw};
  const index_t out[3] = {1, out_extent(c.h, c.kh, c.stride, c.dilation, c.pad_top, c.pad_bottom),
                          out_extent(c.w, c.kw, c.stride, c.dilation, c.pad_left, c.pad_right)};
  for (int i = 0; i < 3; ++i) {
    p.in[i] = in[i], p.kernel[i] = k[i], p.out[i] = out[i];
    p.stride[i] = i ? c.stride : 1, p.dilation[i] = i ? c.dilation : 1;
  }
  p.pad[0] = 0, p.pad[1] = c.pad_top, p.pad[2] = c.pad_left;
  return p;
}

// Runs every compiled row that takes case `c` against the reference; false on a mismatch.
// Runs row v on the prepared case against g_want: the outputs, and that neither the output nor
// the scratch the compiler plans is written past.
bool run_variant(const Compiled& v, QConvS8Params s, bool depthwise, int index, index_t y_n,
                 int* runs) {
  const ConvParams& p = s.conv;
  if (std::strcmp(v.op, depthwise ? "qdwconv" : "qconv") != 0) return true;
  if (v.window && (p.kernel[1] != v.window || p.kernel[2] != v.window)) return true;
  bool ok = true;
  std::memset(g_got, 0x5A, sizeof(g_got));
  // The scratch the compiler plans, followed by a painted guard that must stay untouched.
  if (v.mve) s.k_padded = qconv_k_padded_mve(s.k);  // as the compiler sets it for these rows
  const index_t bytes =
      v.mve       ? (depthwise ? qdwconv_scratch_bytes_mve(s) : qconv_scratch_bytes_mve(s))
      : depthwise ? qdwconv_scratch_bytes(s, v.dw_element_bytes)
                  : qconv_scratch_bytes(s);
  unsigned char* scratch = reinterpret_cast<unsigned char*>(g_scratch);
  std::memset(scratch, 0xA5, sizeof(g_scratch));
  const QConvFn fn = v.forms[s.ties][s.dw_rows == qdw_plane_rows(s)];
  fn(s, g_x, depthwise ? g_w : v.mve ? g_w_packed_mve : g_w_packed, g_channels, g_got, scratch);
  for (index_t i = bytes; i < bytes + 64; ++i)
    if (scratch[i] != 0xA5) {
      std::printf("FAIL %s case %d: wrote past its %d bytes of scratch\n", v.name, index,
                  static_cast<int>(bytes));
      ok = false;
      break;
    }
  ++runs[&v - kCompiled];
  for (index_t i = 0; i < y_n; ++i)
    if (g_got[i] != g_want[i]) {
      std::printf("FAIL %s case %d: output %d is %d, the reference %d\n", v.name, index,
                  static_cast<int>(i), g_got[i], g_want[i]);
      ok = false;
      break;
    }
  if (g_got[y_n] != 0x5A) {
    std::printf("FAIL %s case %d: wrote past the output\n", v.name, index);
    ok = false;
  }
  return ok;
}

bool check_case(const Case& c, int index, int* runs) {
  Random rng{static_cast<uint32_t>(1234 + 77 * index)};
  QuantConvParams q{};
  q.conv = geometry(c);
  q.w_scale_per_channel = c.per_channel;
  q.relu = c.relu;
  const ConvParams& p = q.conv;
  const index_t k = p.c_in / p.group * p.kernel[1] * p.kernel[2];
  const index_t x_n = p.c_in * p.in[1] * p.in[2], y_n = p.c_out * p.out[1] * p.out[2];
  // (exact_halves: small values, so that outputs do not saturate and ties show)
  auto draw = [&] { return c.exact_halves ? static_cast<int8_t>(rng.next() % 8) - 4 : rng.s8(); };
  for (index_t i = 0; i < x_n; ++i) g_x[i] = static_cast<int8_t>(draw());
  for (index_t i = 0; i < p.c_out * k; ++i) g_w[i] = static_cast<int8_t>(draw());
  const uint32_t bias_range = c.exact_halves ? 401 : 20001;
  for (index_t m = 0; m < p.c_out; ++m) {
    g_bias[m] = static_cast<int32_t>(rng.next() % bias_range - bias_range / 2);
    g_w_scale[m] = rng.uniform(0.002f, 0.02f);
  }
  float x_scale = rng.uniform(0.01f, 0.05f), y_scale = rng.uniform(0.05f, 0.4f);
  if (c.exact_halves) {  // 0.5 * 0.125 / 2 = 2^-5 exactly: acc = 16 * odd is a tie
    x_scale = 0.5f, y_scale = 2.0f;
    for (index_t m = 0; m < p.c_out; ++m) g_w_scale[m] = 0.125f;
  }
  const int8_t x_zp = static_cast<int8_t>(c.x_zp), y_zp = static_cast<int8_t>(c.y_zp);
  const int32_t* bias = c.bias ? g_bias : nullptr;
  qlinear_conv_ref<int8_t, int8_t, int8_t>(q, g_x, &x_scale, &x_zp, g_w, g_w_scale, nullptr,
                                           &y_scale, &y_zp, bias, g_want);

  QConvS8Params s{};
  s.conv = p, s.k = k, s.k_padded = (k + 3) / 4 * 4;
  s.x_zero_point = x_zp, s.y_zero_point = y_zp, s.y_min = c.relu ? y_zp : -128;
  const bool depthwise = p.group > 1;
  const index_t m_padded = depthwise ? p.c_out : qconv_padded_channels(s);
  // (rows past c_out are zero: the mve rows' 4-row groups read up to a multiple of 4)
  qconv_channels(s, g_w, bias, x_scale, g_w_scale, c.per_channel, y_scale,
                 depthwise ? p.c_out : qconv_padded_channels_mve(s), g_channels);
  pack_qconv_weights(s, g_w, m_padded, g_w_packed);
  QConvS8Params s_mve = s;
  s_mve.k_padded = qconv_k_padded_mve(s.k);
  pack_qconv_weights_mve(s_mve, g_w, qconv_padded_channels_mve(s), g_w_packed_mve);
  bool ok = true;
  // Depthwise rows run twice: with the whole padded plane in scratch, and with the ring of rows.
  // Each also with the tie check on when the compiler would leave it out (both must agree).
  const index_t dw_forms[2] = {qdw_plane_rows(s), qdw_ring_rows(s)};
  const bool ties = qconv_ties_possible(s, g_channels, p.c_out);
  if (c.exact_halves && !ties) {
    std::printf("FAIL case %d: qconv_ties_possible missed a multiplier of 2^-5\n", index);
    ok = false;
  }
  for (const Compiled& v : kCompiled)
    for (int form = 0; form < (depthwise ? 2 : 1); ++form)
      for (const bool with_ties : {ties, true}) {
        s.dw_rows = dw_forms[form], s.ties = with_ties;
        ok &= run_variant(v, s, depthwise, index, y_n, runs);
        if (ties) break;
      }
  return ok;
}

// The variants' requantization against the reference's, on accumulators around ties (exact
// halves, for multipliers that are powers of two), the int32 extremes and a sweep, with and
// without a Relu clamp.
bool check_requantize() {
  const float multipliers[] = {0.03125f, 0.0078125f, 0.2f, 0.0013f, 0.24999f, 1.1e-9f, 0.1f};
  const int32_t zero_points[] = {-128, 0, 37, 127};
  bool ok = true;
  for (float m : multipliers) {
    if (!qconv_multiplier_fits(m, 1.0f, 1.0f)) {
      std::printf("FAIL multiplier %g does not fit\n", static_cast<double>(m));
      ok = false;
      continue;
    }
    const quant_detail::FixedMultiplier ref = quant_detail::fixed_multiplier(m);
    int32_t channel[kQConvChannelWords] = {};
    const quant_detail::FixedMultiplier f = qconv_detail::channel_multiplier(m, 1.0f, 1.0f);
    set_channel_multiplier(channel, f);
    int zeros = 0;
    for (uint32_t v = static_cast<uint32_t>(channel[kMultiplier]); v && !(v & 1u); v >>= 1) ++zeros;
    const int tie_zeros = channel[kHighShift] + 31 - zeros;
    const int64_t tie_free = tie_zeros > 62 ? INT64_MAX : int64_t{1} << tie_zeros;
    for (int32_t zp : zero_points)
      for (int relu = 0; relu < 2; ++relu) {
        QConvS8Params p{};
        p.y_zero_point = zp, p.y_min = relu ? zp : -128;
        auto check = [&](int64_t acc64) {
          if (acc64 < INT32_MIN || acc64 > INT32_MAX) return;
          const int32_t acc = static_cast<int32_t>(acc64);
          int32_t want = quant_detail::requantize<int8_t>(acc, ref, zp);
          if (relu && want < zp) want = zp;
          const qconv_detail::Requant rq = qconv_detail::requant_of(channel, zp, p.y_min);
          const int32_t got = qconv_detail::requantize<true>(acc, rq);
          // Without the tie check where no tie can be: |acc| below 2^(shift - 1 - ctz(M)).
          const int64_t magnitude = acc64 < 0 ? -acc64 : acc64;
          if (magnitude < tie_free && qconv_detail::requantize<false>(acc, rq) != want && ok) {
            std::printf("FAIL requantize<false>(%ld * %g): differs below the tie bound\n",
                        static_cast<long>(acc), static_cast<double>(m));
            ok = false;
          }
          if (got != want && ok) {
            std::printf("FAIL requantize(%ld * %g, zp %d): %d, the reference %d\n",
                        static_cast<long>(acc), static_cast<double>(m), static_cast<int>(zp),
                        static_cast<int>(got), static_cast<int>(want));
            ok = false;
          }
        };
        for (int64_t k = -300; k <= 300; ++k) {  // k / (2m): every half step near 0
          const int64_t tie = static_cast<int64_t>(static_cast<double>(k) / (2.0 * m));
          for (int64_t d = -1; d <= 1; ++d) check(tie + d);
        }
        for (int64_t acc = INT32_MIN; acc <= INT32_MAX; acc += 9999991) check(acc);
        check(INT32_MIN), check(INT32_MAX), check(0);
      }
  }
  return ok;
}

}  // namespace

int main() {
  int runs[sizeof(kCompiled) / sizeof(kCompiled[0])] = {};
  bool ok = check_requantize();
  for (const Case& c : kCases) ok &= check_case(c, static_cast<int>(&c - kCases), runs);
  for (const Compiled& v : kCompiled) {
    std::printf("ran %s %d\n", v.name, runs[&v - kCompiled]);
    ok &= runs[&v - kCompiled] > 0;  // every compiled row meets at least one case
  }
  std::printf("qconv check %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
