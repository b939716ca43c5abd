// conv_blocks: the convolution GEMM's block sizes on this CPU, one core. For the direct (GEMM)
// convolution layers of ResNet-18/50 and MobileNet-v2 it times f32_conv_8x32__scalar (AVX-512
// builds) or f32_conv_6x16__scalar (others) with every pair of position block (ConvParams::tile)
// and depth slice (ConvParams::depth_block) below, and prints GFLOP/s per layer and pair, then
// the geomean per pair over the layers. The compiler's defaults are tile 512 and depth 1152
// (compiler/ops/nn/conv.cpp, onnxc/conv.h); this shows whether another CPU's caches want others.
// Measured on a 16-core Xeon (Sapphire Rapids family, 2 MB L2) and the 2-core Zen 5: within a few
// percent of the best pair at 512/576..1152 on both (W packed MR rows at a time, one stream instead
// of MR, gained nothing either); what decided the Xeon's speed was fused multiply-adds
// (onnxc/base.h ONNXC_CONTRACT).
// Not a timed test: run it by hand, e.g.
//   g++ -O3 -march=native -ffp-contract=off -std=c++17 -Iruntime bench/conv_blocks.cpp -o
//   conv_blocks
//   ./conv_blocks [milliseconds per measurement, default 60]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "onnxc/conv.h"

namespace {

using onnxc::index_t;
using Clock = std::chrono::steady_clock;

#if defined(__AVX512F__)
constexpr index_t kMr = 8, kNr = 32;
#else
constexpr index_t kMr = 6, kNr = 16;
#endif

struct Layer {
  const char* name;
  index_t c_in, c_out, in, k, stride, pad;
};

const Layer kLayers[] = {
    {"r18.conv1 7x7/2", 3, 64, 224, 7, 2, 3},
    {"r18.l2.0.conv1 3x3/2", 64, 128, 56, 3, 2, 1},
    {"r18.l4 3x3 512@7", 512, 512, 7, 3, 1, 1},
    {"r18.l4.0.conv1 3x3/2", 256, 512, 14, 3, 2, 1},
    {"r18.l3.ds 1x1/2", 128, 256, 28, 1, 2, 0},
    {"r50 1x1 64->256@56", 64, 256, 56, 1, 1, 0},
    {"r50 1x1 256->64@56", 256, 64, 56, 1, 1, 0},
    {"r50 1x1 512->128@28", 512, 128, 28, 1, 1, 0},
    {"r50 1x1 1024->256@14", 1024, 256, 14, 1, 1, 0},
    {"r50 1x1 256->1024@14", 256, 1024, 14, 1, 1, 0},
    {"r50 1x1 2048->512@7", 2048, 512, 7, 1, 1, 0},
    {"r50 1x1 512->2048@7", 512, 2048, 7, 1, 1, 0},
    {"r50 3x3 512@7", 512, 512, 7, 3, 1, 1},
    {"mv2 1x1 16->96@112", 16, 96, 112, 1, 1, 0},
    {"mv2 1x1 144->24@56", 144, 24, 56, 1, 1, 0},
    {"mv2 1x1 32->192@28", 32, 192, 28, 1, 1, 0},
    {"mv2 1x1 384->64@14", 384, 64, 14, 1, 1, 0},
    {"mv2 1x1 96->576@14", 96, 576, 14, 1, 1, 0},
    {"mv2 1x1 960->160@7", 960, 160, 7, 1, 1, 0},
    {"mv2 1x1 320->1280@7", 320, 1280, 7, 1, 1, 0},
};

const index_t kTiles[] = {128, 256, 512};
const index_t kDepths[] = {128, 256, 384, 576, 1152};

onnxc::ConvParams params_of(const Layer& l, index_t tile, index_t depth_block) {
  const index_t out = (l.in + 2 * l.pad - l.k) / l.stride + 1;
  onnxc::ConvParams p{};
  p.batch = 1, p.c_in = l.c_in, p.c_out = l.c_out, p.group = 1;
  for (int d = 0; d < 3; ++d) {
    const bool spatial = d > 0;
    p.in[d] = spatial ? l.in : 1, p.out[d] = spatial ? out : 1;
    p.kernel[d] = spatial ? l.k : 1, p.stride[d] = spatial ? l.stride : 1;
    p.dilation[d] = 1, p.pad[d] = spatial ? l.pad : 0;
  }
  const index_t positions = out * out, blocks = (positions + tile - 1) / tile;
  p.tile = (positions + blocks - 1) / blocks;  // equal blocks, as the compiler splits them
  p.depth_block = depth_block;
  return p;
}

double flops_of(const onnxc::ConvParams& p) {
  return 2.0 * p.c_out * p.c_in * p.kernel[1] * p.kernel[2] * p.out[1] * p.out[2];
}

// Median GFLOP/s of 5 rounds, each repeating f for about `ms` milliseconds.
template <class F>
double gflops(double flops, double ms, F&& f) {
  f();
  std::vector<double> rates;
  for (int round = 0; round < 5; ++round) {
    int reps = 0;
    const auto t0 = Clock::now();
    double elapsed = 0;
    do {
      f(), ++reps;
      elapsed = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    } while (elapsed < ms / 5);
    rates.push_back(flops * reps / (elapsed * 1e6));
  }
  std::sort(rates.begin(), rates.end());
  return rates[2];
}

void fill(std::vector<float>& v, unsigned seed) {
  for (auto& x : v) x = static_cast<float>((seed = seed * 1103515245u + 12345u) >> 16) / 65536.0f;
}

}  // namespace

int main(int argc, char** argv) {
  const double ms = argc > 1 ? std::atof(argv[1]) : 60.0;
  std::printf("tile %dx%d; GFLOP/s, one core; columns: position block / depth slice\n",
              static_cast<int>(kMr), static_cast<int>(kNr));
  std::printf("%-24s", "layer");
  for (index_t t : kTiles)
    for (index_t d : kDepths) std::printf(" %4d/%-4d", static_cast<int>(t), static_cast<int>(d));
  std::printf("\n");
  std::vector<double> log_sum(std::size(kTiles) * std::size(kDepths), 0.0);
  for (const Layer& l : kLayers) {
    const auto p0 = params_of(l, 512, 0);
    std::vector<float> x(l.c_in * l.in * l.in), w(l.c_out * l.c_in * l.k * l.k), b(l.c_out);
    std::vector<float> y(l.c_out * p0.out[1] * p0.out[2]);
    fill(x, 1), fill(w, 2), fill(b, 3);
    std::printf("%-24s", l.name);
    size_t column = 0;
    for (index_t t : kTiles)
      for (index_t d : kDepths) {
        const auto p = params_of(l, t, d);
        std::vector<float> scratch(onnxc::conv_gemm_scratch_bytes(p) / sizeof(float) + 16);
        const double g = gflops(flops_of(p), ms, [&] {
#if defined(__AVX512F__)
          onnxc::f32_conv_8x32__scalar(p, x.data(), w.data(), b.data(), y.data(), scratch.data());
#else
          onnxc::f32_conv_6x16__scalar(p, x.data(), w.data(), b.data(), y.data(), scratch.data());
#endif
        });
        log_sum[column++] += std::log(g);
        std::printf(" %9.1f", g);
      }
    std::printf("\n");
  }
  std::printf("%-24s", "geomean");
  for (const double sum : log_sum)
    std::printf(" %9.1f", std::exp(sum / static_cast<double>(std::size(kLayers))));
  std::printf("\n");
}
