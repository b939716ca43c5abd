// Conv / ConvTranspose kernels: the references against hand-computed outputs (the ONNX
// operator examples), then every float variant against the reference over odd sizes, 1-D to
// 3-D, groups and depthwise multipliers, strides, dilations, padding and tile sizes, with guard
// words after the output and the scratch to catch out-of-bounds writes.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "epilogue_adapters.h"
#include "onnxc/conv.h"

using namespace onnxc;

namespace {

using ConvFn = void (*)(const ConvParams&, const float*, const float*, const float*, float*, void*);

constexpr float kGuard = 12345.0f;

struct GemmVariant {
  const char* name;
  ConvFn fn;
};
const GemmVariant kGemmVariants[] = {
    {"f32_conv_8x32__scalar", f32_conv_8x32__scalar},
    {"f32_conv_6x16__scalar", f32_conv_6x16__scalar},
    {"f32_conv_4x8__scalar", f32_conv_4x8__scalar},
};

// A Conv problem: params with the output size implied by the input, kernel, stride, dilation
// and leading / trailing padding.
ConvParams conv_params(index_t batch, index_t c_in, index_t c_out, index_t group,
                       std::vector<index_t> in, std::vector<index_t> kernel,
                       std::vector<index_t> stride, std::vector<index_t> dilation,
                       std::vector<index_t> pad_begin, std::vector<index_t> pad_end) {
  ConvParams p{};
  p.batch = batch, p.c_in = c_in, p.c_out = c_out, p.group = group;
  const size_t lead = 3 - in.size();
  for (size_t d = 0; d < 3; ++d) {
    const bool real = d >= lead;
    const size_t i = d - lead;
    p.in[d] = real ? in[i] : 1;
    p.kernel[d] = real ? kernel[i] : 1;
    p.stride[d] = real ? stride[i] : 1;
    p.dilation[d] = real ? dilation[i] : 1;
    p.pad[d] = real ? pad_begin[i] : 0;
    const index_t end = real ? pad_end[i] : 0;
    p.out[d] = (p.in[d] + p.pad[d] + end - (p.kernel[d] - 1) * p.dilation[d] - 1) / p.stride[d] + 1;
  }
  p.tile = 1;
  return p;
}

index_t vol(const index_t* d) {
  return d[0] * d[1] * d[2];
}

std::vector<float> random_vector(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

struct Operands {
  std::vector<float> x, w, b;
};

Operands conv_operands(const ConvParams& p, bool transpose, std::mt19937& rng) {
  const index_t k = vol(p.kernel);
  Operands o;
  o.x = random_vector(static_cast<size_t>(p.batch * p.c_in * vol(p.in)), rng);
  o.w = random_vector(static_cast<size_t>(transpose ? p.c_in * p.c_out / p.group * k
                                                    : p.c_out * p.c_in / p.group * k),
                      rng);
  o.b = random_vector(static_cast<size_t>(p.c_out), rng);
  return o;
}

// Runs fn with exactly `scratch_bytes` of scratch and one guard word after it and after y.
std::vector<float> run(ConvFn fn, const ConvParams& p, const Operands& o, bool bias,
                       index_t scratch_bytes) {
  const size_t n = static_cast<size_t>(p.batch * p.c_out * vol(p.out));
  std::vector<float> y(n + 1, kGuard);
  const size_t words = static_cast<size_t>(scratch_bytes + 3) / 4;
  std::vector<float> scratch(words + 1, kGuard);
  fn(p, o.x.data(), o.w.data(), bias ? o.b.data() : nullptr, y.data(), scratch.data());
  CHECK(y[n] == kGuard);
  CHECK(scratch[words] == kGuard);
  y.pop_back();
  return y;
}

// |got - want| within float rounding of sums of `terms` products of values in [-1, 1].
void check_close(const std::vector<float>& got, const std::vector<float>& want, index_t terms) {
  REQUIRE(got.size() == want.size());
  const float tol = 2e-6f * static_cast<float>(terms + 4);
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    REQUIRE(std::fabs(got[i] - want[i]) <= tol);
  }
}

std::string describe(const ConvParams& p) {
  auto arr = [](const index_t* v) {
    return std::to_string(v[0]) + "x" + std::to_string(v[1]) + "x" + std::to_string(v[2]);
  };
  return "N" + std::to_string(p.batch) + " C" + std::to_string(p.c_in) + " M" +
         std::to_string(p.c_out) + " g" + std::to_string(p.group) + " in " + arr(p.in) + " k " +
         arr(p.kernel) + " s " + arr(p.stride) + " d " + arr(p.dilation) + " pad " + arr(p.pad) +
         " out " + arr(p.out) + " tile " + std::to_string(p.tile);
}

// Shapes that exercise the variants' edges: 1-D, 2-D and 3-D, odd extents, strides 1-3,
// dilations, asymmetric padding (including more padding than kernel), batch 2.
std::vector<ConvParams> spatial_cases(index_t c_in, index_t c_out, index_t group) {
  return {
      conv_params(1, c_in, c_out, group, {7, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}),
      conv_params(2, c_in, c_out, group, {8, 11}, {3, 2}, {2, 1}, {1, 2}, {0, 1}, {2, 0}),
      conv_params(1, c_in, c_out, group, {13, 10}, {5, 3}, {2, 3}, {1, 1}, {2, 1}, {1, 1}),
      conv_params(1, c_in, c_out, group, {5, 6}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}),
      conv_params(1, c_in, c_out, group, {9, 9}, {1, 1}, {2, 2}, {1, 1}, {0, 0}, {0, 0}),
      conv_params(1, c_in, c_out, group, {6, 7}, {3, 3}, {1, 1}, {2, 3}, {3, 2}, {1, 4}),
      conv_params(1, c_in, c_out, group, {37}, {4}, {3}, {2}, {5}, {1}),
      conv_params(2, c_in, c_out, group, {5, 4, 6}, {2, 3, 2}, {1, 2, 1}, {2, 1, 1}, {1, 0, 1},
                  {0, 1, 1}),
      conv_params(1, c_in, c_out, group, {3, 3}, {3, 3}, {1, 1}, {1, 1}, {3, 3}, {3, 3}),
  };
}

std::vector<float> reference(const ConvParams& p, const Operands& o, bool bias, bool transpose) {
  // The double reference is the yardstick (float references round differently).
  std::vector<double> xd(o.x.begin(), o.x.end()), wd(o.w.begin(), o.w.end()),
      bd(o.b.begin(), o.b.end());
  std::vector<double> yd(static_cast<size_t>(p.batch * p.c_out * vol(p.out)));
  if (transpose)
    conv_transpose_ref<double>(p, xd.data(), wd.data(), bias ? bd.data() : nullptr, yd.data(),
                               nullptr);
  else
    conv_ref<double>(p, xd.data(), wd.data(), bias ? bd.data() : nullptr, yd.data(), nullptr);
  return std::vector<float>(yd.begin(), yd.end());
}

}  // namespace

TEST_CASE("conv_ref matches the ONNX Conv examples", "[conv-kernels]") {
  // X = 0..24 as 5x5, W = ones 3x3.
  std::vector<float> x(25), w(9, 1.0f);
  for (int i = 0; i < 25; ++i) x[static_cast<size_t>(i)] = static_cast<float>(i);
  SECTION("with padding 1") {
    const ConvParams p = conv_params(1, 1, 1, 1, {5, 5}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1});
    std::vector<float> y(25);
    conv_ref<float>(p, x.data(), w.data(), nullptr, y.data(), nullptr);
    CHECK(y == std::vector<float>{12,  21, 27, 33,  24,  33,  54,  63, 72,  51,  63,  99, 108,
                                  117, 81, 93, 144, 153, 162, 111, 72, 111, 117, 123, 84});
  }
  SECTION("strides 2, asymmetric padding, a bias") {
    // test_conv_with_strides_and_asymmetric_padding: 7x5 input, pads [1, 0, 1, 0], stride 2.
    std::vector<float> x7(35);
    for (int i = 0; i < 35; ++i) x7[static_cast<size_t>(i)] = static_cast<float>(i);
    const ConvParams p = conv_params(1, 1, 1, 1, {7, 5}, {3, 3}, {2, 2}, {1, 1}, {1, 0}, {1, 0});
    REQUIRE(p.out[1] == 4);
    REQUIRE(p.out[2] == 2);
    const float b = 0.5f;
    std::vector<float> y(8);
    conv_ref<float>(p, x7.data(), w.data(), &b, y.data(), nullptr);
    CHECK(y == std::vector<float>{21.5f, 33.5f, 99.5f, 117.5f, 189.5f, 207.5f, 171.5f, 183.5f});
  }
}

TEST_CASE("conv_ref handles groups and float16", "[conv-kernels]") {
  // Two groups of one channel: each output channel scales its own input channel.
  const ConvParams p = conv_params(1, 2, 2, 2, {2}, {1}, {1}, {1}, {0}, {0});
  const float x[] = {1, 2, 3, 4}, w[] = {10, 100}, b[] = {1, -1};
  float y[4];
  conv_ref<float>(p, x, w, b, y, nullptr);
  CHECK(std::vector<float>(y, y + 4) == std::vector<float>{11, 21, 299, 399});
  const float16 xh[] = {to_float16(1), to_float16(2), to_float16(3), to_float16(4)};
  const float16 wh[] = {to_float16(10), to_float16(100)}, bh[] = {to_float16(1), to_float16(-1)};
  float16 yh[4];
  conv_ref<float16>(p, xh, wh, bh, yh, nullptr);
  CHECK(to_float(yh[0]) == 11.0f);
  CHECK(to_float(yh[3]) == 399.0f);
}

TEST_CASE("every float Conv variant matches the reference", "[conv-kernels]") {
  std::mt19937 rng(7);
  struct Channels {
    index_t c_in, c_out, group;
  };
  // Plain, grouped, depthwise, depthwise with multiplier, one input channel.
  const Channels channels[] = {{3, 5, 1}, {4, 6, 2}, {6, 6, 6}, {3, 6, 3}, {1, 4, 1}, {17, 9, 1}};
  for (const Channels& c : channels)
    for (ConvParams p : spatial_cases(c.c_in, c.c_out, c.group))
      for (bool bias : {true, false}) {
        const Operands o = conv_operands(p, false, rng);
        const std::vector<float> want = reference(p, o, bias, false);
        const index_t terms = c.c_in / c.group * vol(p.kernel);
        INFO(describe(p) << " bias " << bias);
        check_close(run(conv_ref<float>, p, o, bias, 0), want, terms);
        for (const GemmVariant& v : kGemmVariants)
          for (index_t tile : {index_t{1}, index_t{7}, index_t{33}, vol(p.out)}) {
            p.tile = tile;
            INFO(v.name << " tile " << tile);
            check_close(run(v.fn, p, o, bias, conv_gemm_scratch_bytes(p)), want, terms);
          }
        if (c.c_in == c.group) {
          INFO("f32_dwconv_any__scalar");
          check_close(run(f32_dwconv_any__scalar, p, o, bias, conv_dw_scratch_bytes(p)), want,
                      terms);
        }
      }
}

TEST_CASE("the GEMM Conv variants cover large blocked products", "[conv-kernels]") {
  // Channel counts and positions past the GEMM's register tiles, depth slices (256) and row
  // blocks (192), the largest position block, and depthwise planes of every size.
  std::mt19937 rng(11);
  for (ConvParams p : {conv_params(1, 70, 67, 1, {15, 17}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}),
                       conv_params(1, 300, 40, 1, {9, 9}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}),
                       conv_params(1, 40, 200, 1, {50, 45}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}),
                       conv_params(2, 64, 12, 2, {11, 7}, {3, 3}, {2, 1}, {1, 2}, {1, 2}, {0, 2}),
                       conv_params(1, 48, 96, 48, {23, 21}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}),
                       conv_params(1, 32, 32, 32, {56, 56}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}),
                       conv_params(1, 8, 8, 8, {30, 31}, {5, 5}, {2, 3}, {1, 1}, {2, 2}, {2, 2})}) {
    const Operands o = conv_operands(p, false, rng);
    const std::vector<float> want = reference(p, o, true, false);
    const index_t terms = p.c_in / p.group * vol(p.kernel);
    INFO(describe(p));
    for (const GemmVariant& v : kGemmVariants)
      for (index_t tile : {index_t{100}, index_t{512}, std::min(vol(p.out), kMaxConvTile)}) {
        p.tile = tile;
        INFO(v.name << " tile " << tile);
        check_close(run(v.fn, p, o, true, conv_gemm_scratch_bytes(p)), want, terms);
      }
    if (p.c_in == p.group)
      check_close(run(f32_dwconv_any__scalar, p, o, true, conv_dw_scratch_bytes(p)), want, terms);
  }
}

TEST_CASE("conv_transpose_ref matches the ONNX ConvTranspose examples", "[conv-kernels]") {
  // test_convtranspose: X = 0..8 as 3x3, W = ones [1, 2, 3, 3]: both output channels equal.
  std::vector<float> x(9), w(18, 1.0f), y(50);
  for (int i = 0; i < 9; ++i) x[static_cast<size_t>(i)] = static_cast<float>(i);
  ConvParams p = conv_params(1, 1, 2, 1, {3, 3}, {3, 3}, {1, 1}, {1, 1}, {0, 0}, {0, 0});
  p.out[1] = p.out[2] = 5;
  conv_transpose_ref<float>(p, x.data(), w.data(), nullptr, y.data(), nullptr);
  const std::vector<float> channel = {0,  1,  3, 3,  2,  3,  8,  15, 12, 7,  9,  21, 36,
                                      27, 15, 9, 20, 33, 24, 13, 6,  13, 21, 15, 8};
  CHECK(std::vector<float>(y.begin(), y.begin() + 25) == channel);
  CHECK(std::vector<float>(y.begin() + 25, y.end()) == channel);
  SECTION("strides, pads and a bias-only tail") {
    // Stride 2, pad 1 at the start: output o gets x[i] * w[k] for o = 2 i + k - 1.
    ConvParams q = conv_params(1, 1, 1, 1, {3}, {3}, {2}, {1}, {1}, {0});
    q.out[2] = 7;  // full size 2*2+3-1 = 6, plus one position no tap reaches
    const float x1[] = {1, 2, 3}, w1[] = {1, 10, 100}, b1[] = {0.5f};
    float y1[7];
    conv_transpose_ref<float>(q, x1, w1, b1, y1, nullptr);
    CHECK(std::vector<float>(y1, y1 + 7) ==
          std::vector<float>{10.5f, 102.5f, 20.5f, 203.5f, 30.5f, 300.5f, 0.5f});
  }
}

TEST_CASE("f32_convtranspose_gemm__scalar matches the reference at every GEMM tile",
          "[conv-kernels]") {
  std::mt19937 rng(3);
  struct Case {
    index_t c_in, c_out, group;
    std::vector<index_t> in, kernel, stride, dilation, pad, extra;  // extra: output beyond full
  };
  const Case cases[] = {
      {1, 2, 1, {3, 3}, {3, 3}, {1, 1}, {1, 1}, {0, 0}, {0, 0}},
      {3, 4, 1, {7, 6}, {3, 3}, {3, 2}, {1, 1}, {1, 1}, {1, 1}},
      {4, 6, 2, {5, 4}, {2, 3}, {2, 2}, {2, 1}, {0, 2}, {0, 0}},
      {2, 2, 2, {9}, {4}, {3}, {1}, {2}, {2}},
      {2, 3, 1, {3, 4, 5}, {3, 2, 3}, {1, 2, 2}, {1, 1, 2}, {1, 0, 1}, {0, 1, 0}},
  };
  for (const Case& c : cases)
    for (index_t batch : {1, 2}) {
      const size_t n = c.in.size();
      ConvParams p = conv_params(batch, c.c_in, c.c_out, c.group, c.in, c.kernel, c.stride,
                                 c.dilation, c.pad, std::vector<index_t>(n, 0));
      for (size_t i = 0; i < n; ++i) {
        const size_t d = 3 - n + i;
        p.out[d] = c.stride[i] * (c.in[i] - 1) + (c.kernel[i] - 1) * c.dilation[i] + 1 -
                   2 * c.pad[i] + c.extra[i];
      }
      const Operands o = conv_operands(p, true, rng);
      const std::vector<float> want = reference(p, o, true, true);
      for (index_t tile : {index_t{1}, index_t{5}, vol(p.in)}) {
        p.tile = tile;
        INFO(describe(p));
        for (ConvFn fn : {f32_convtranspose_gemm__scalar<GemmTile<6, 16>>,
                          f32_convtranspose_gemm__scalar<GemmTile<8, 32>>,
                          f32_convtranspose_gemm__scalar<GemmTile<4, 4>>})
          check_close(run(fn, p, o, true, conv_transpose_scratch_bytes(p)), want,
                      c.c_in * vol(p.kernel));
      }
    }
}

// ---- fused epilogues --------------------------------------------------------------------------

namespace {

using ConvEpilogueFn = void (*)(const ConvParams&, const float*, const float*, const float*, float*,
                                void*, const EpilogueSpec&, const float*);

// The fused variant against the plain one followed by the unfused ops (y + residual, then the
// activation), with guard words after the output and the scratch.
void check_fused(ConvEpilogueFn fused, ConvFn plain, const ConvParams& p, const Operands& o,
                 index_t scratch_bytes, const EpilogueSpec& e, const std::vector<float>& residual) {
  std::vector<float> want = run(plain, p, o, true, scratch_bytes);
  for (size_t i = 0; i < want.size(); ++i) {
    if (e.residual) want[i] = want[i] + residual[i];
    want[i] = apply_activation(e, want[i]);
  }
  const size_t n = want.size();
  std::vector<float> got(n + 1, kGuard);
  const size_t words = static_cast<size_t>(scratch_bytes + 3) / 4;
  std::vector<float> scratch(words + 1, kGuard);
  fused(p, o.x.data(), o.w.data(), o.b.data(), got.data(), scratch.data(), e,
        e.residual ? residual.data() : nullptr);
  CHECK(got[n] == kGuard);
  CHECK(scratch[words] == kGuard);
  for (size_t i = 0; i < n; ++i) {
    INFO("element " << i << " got " << got[i] << " want " << want[i]);
    REQUIRE(std::fabs(got[i] - want[i]) <= 1e-6f * (1.0f + std::fabs(want[i])));
  }
}

}  // namespace

TEST_CASE("fused Conv epilogues match the convolution followed by the unfused ops",
          "[conv-kernels]") {
  std::mt19937 rng(21);
  const EpilogueSpec epilogues[] = {{kActRelu, 0, 0, 0},
                                    {kActRelu, 0, 0, 1},
                                    {kActClip, 0.0f, 6.0f, 0},
                                    {kActLeakyRelu, 0.01f, 0, 1},
                                    {kActSigmoid, 0, 0, 0},
                                    {kActHardSwish, 0, 0, 1},
                                    {kActHardSigmoid, 0.2f, 0.5f, 0},
                                    {kActTanh, 0, 0, 0},
                                    {kActGeluErf, 0, 0, 1},
                                    {kActSwish, 1.0f, 0, 1},
                                    {kActNone, 0, 0, 1}};
  // Depth across the 256-deep slices (the epilogue runs after the last one only), row blocks,
  // odd positions, depthwise with multiplier.
  for (ConvParams p : {conv_params(1, 3, 5, 1, {7, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}),
                       conv_params(2, 70, 67, 1, {9, 11}, {3, 3}, {2, 1}, {1, 1}, {1, 1}, {1, 0}),
                       conv_params(1, 300, 40, 1, {9, 9}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}),
                       conv_params(1, 40, 200, 1, {13, 15}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}),
                       conv_params(2, 64, 12, 2, {11, 7}, {3, 3}, {2, 1}, {1, 2}, {1, 2}, {0, 2}),
                       conv_params(1, 6, 12, 6, {23, 21}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}),
                       conv_params(2, 8, 8, 8, {3, 5, 6}, {2, 3, 3}, {1, 1, 2}, {1, 1, 1},
                                   {1, 1, 1}, {0, 1, 1})}) {
    const Operands o = conv_operands(p, false, rng);
    const std::vector<float> residual =
        random_vector(static_cast<size_t>(p.batch * p.c_out * vol(p.out)), rng);
    INFO(describe(p));
    for (const EpilogueSpec& e : epilogues) {
      INFO("activation " << e.activation << " residual " << e.residual);
      for (index_t tile : {index_t{33}, std::min(vol(p.out), kMaxConvTile)}) {
        p.tile = tile;
        check_fused(ONNXC_CONV_FUSED(f32_conv_8x32__scalar), f32_conv_8x32__scalar, p, o,
                    conv_gemm_scratch_bytes(p), e, residual);
        check_fused(ONNXC_CONV_FUSED(f32_conv_6x16__scalar), f32_conv_6x16__scalar, p, o,
                    conv_gemm_scratch_bytes(p), e, residual);
        check_fused(ONNXC_CONV_FUSED(f32_conv_4x8__scalar), f32_conv_4x8__scalar, p, o,
                    conv_gemm_scratch_bytes(p), e, residual);
      }
      if (p.c_in == p.group)
        check_fused(ONNXC_CONV_FUSED(f32_dwconv_any__scalar), f32_dwconv_any__scalar, p, o,
                    conv_dw_scratch_bytes(p), e, residual);
    }
  }
}
