// GEMM / MatMul kernels: the reference against hand-computed products, then every float variant
// against the reference over remainders (m, n, k not multiples of the tiles or blocks),
// transposes, leading-dimension strides, C broadcasts, alpha/beta and C aliasing Y.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "epilogue_adapters.h"
#include "onnxc/gemm.h"
#include "onnxc/kernels_parallel.h"
#include "onnxc/thread_pool.h"
#include "onnxc/variants.h"

using namespace onnxc;

namespace {

using GemmFn = void (*)(const GemmParams&, const float*, const float*, const float*, float*);

struct Variant {
  const char* name;
  GemmFn fn;
};

// A workspace of `Bytes` (0: none): the full panel, and one a few rows deep, so that the k
// blocking runs with every depth the budget can give.
template <index_t Bytes>
Workspace test_workspace() {
  alignas(64) static float buffer[8192];
  return {Bytes ? buffer : nullptr, Bytes};
}
// A packed variant behind the plain signature: B packed as the compiler would (pack_gemm_b),
// then the product from the panels.
template <index_t NR,
          void (*Kernel)(const GemmParams&, const float*, const float*, const float*, float*)>
void gemm_packed(const GemmParams& p, const float* a, const float* b, const float* c, float* y) {
  std::vector<float> packed(static_cast<size_t>(packed_b_floats(p.k, p.n, NR)), -1.0f);
  pack_gemm_b<NR>(p, b, packed.data());
  Kernel(p, a, packed.data(), c, y);
}
template <index_t NR, void (*Kernel)(const GemmParams&, const float*, const float*, const float*,
                                     float*, const EpilogueSpec&, const float*)>
void gemm_packed_e(const GemmParams& p, const float* a, const float* b, const float* c, float* y,
                   const EpilogueSpec& e, const float* r) {
  std::vector<float> packed(static_cast<size_t>(packed_b_floats(p.k, p.n, NR)), -1.0f);
  pack_gemm_b<NR>(p, b, packed.data());
  Kernel(p, a, packed.data(), c, y, e, r);
}
template <index_t Bytes>
void gemm_6x16(const GemmParams& p, const float* a, const float* b, const float* c, float* y) {
  f32_gemm_6x16__scalar(p, a, b, c, y, test_workspace<Bytes>());
}
template <index_t Bytes>
void gemm_8x32(const GemmParams& p, const float* a, const float* b, const float* c, float* y) {
  f32_gemm_8x32__scalar(p, a, b, c, y, test_workspace<Bytes>());
}
template <index_t Bytes>
void gemm_6x16_e(const GemmParams& p, const float* a, const float* b, const float* c, float* y,
                 const EpilogueSpec& e, const float* r) {
  with_epilogue(e, [&](const auto& typed) {
    f32_gemm_6x16__scalar(p, a, b, c, y, typed, r, test_workspace<Bytes>());
  });
}
template <index_t Bytes>
void gemm_8x32_e(const GemmParams& p, const float* a, const float* b, const float* c, float* y,
                 const EpilogueSpec& e, const float* r) {
  with_epilogue(e, [&](const auto& typed) {
    f32_gemm_8x32__scalar(p, a, b, c, y, typed, r, test_workspace<Bytes>());
  });
}
// gemm<Tile>: the entry point of the kernels that run GEMMs inside, at the tile of each
// target class's blocked row (onnxc/variants.h).
using HostedTile = GemmTile<6, 16>;
using WideTile = GemmTile<8, 32>;
using McuTile = GemmTile<4, 4>;
template <class Tile>
void gemm_tile(const GemmParams& p, const float* a, const float* b, const float* c, float* y) {
  gemm<Tile>(p, a, b, c, y, test_workspace<32768>());
}

// Every gemm and gemm_packed row of the variant table (onnxc/variants.h), taken from the table
// (a new row is run here without an edit), then the workspace depths and gemm<Tile>.
#define ONNXC_TESTED_gemm(name, panel)                                                        \
  {#name, [](const GemmParams& p, const float* a, const float* b, const float* c, float* y) { \
     name(p, a, b, c, y, test_workspace<32768>());                                            \
   }},
#define ONNXC_TESTED_gemm_packed(name, panel) {#name, gemm_packed<panel, name>},
#define ONNXC_TESTED_conv(name, panel)
#define ONNXC_TESTED_dwconv(name, panel)
#define ONNXC_TESTED_recurrent(name, panel)
#define ONNXC_TESTED_maxpool(name, panel)
#define ONNXC_TESTED_qconv(name, panel)
#define ONNXC_TESTED_qdwconv(name, panel)
#define ONNXC_TESTED_ROW(dtype, op, tile, isa, header, fits, weights, targets, panel, gflops) \
  ONNXC_TESTED_##op(dtype##_##op##_##tile##__##isa, panel)
// clang-format off
const Variant kVariants[] = {
    ONNXC_KERNEL_VARIANTS(ONNXC_TESTED_ROW)
    {"f32_gemm_6x16__scalar, 3-row panel", gemm_6x16<3 * 16 * 4>},
    {"f32_gemm_8x32__scalar, 1-row panel", gemm_8x32<32 * 4>},
    {"f32_gemm_8x32__scalar, no workspace", gemm_8x32<0>},
    {"gemm<GemmTile<6, 16>>", gemm_tile<HostedTile>},
    {"gemm<GemmTile<8, 32>>", gemm_tile<WideTile>},
    {"gemm<GemmTile<4, 4>>", gemm_tile<McuTile>},
    {"gemm<GemmTile<6, 16>>, no workspace", gemm<HostedTile, float>},
};
// clang-format on

std::vector<float> random_vector(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

// C layouts a Gemm bias can have: absent, full (m x n), a row, a column, a scalar.
enum class Bias { kNone, kFull, kRow, kColumn, kScalar };

struct Problem {
  GemmParams p;
  std::vector<float> a, b, c, y;
};

// Random operands for p (strides padded by `pad` elements beyond the minimum).
Problem make_problem(index_t m, index_t n, index_t k, int ta, int tb, index_t pad, Bias bias,
                     float alpha, float beta, std::mt19937& rng) {
  Problem pr;
  GemmParams& p = pr.p;
  p = GemmParams{m,       n,     k,    ta, tb, (ta ? m : k) + pad, (tb ? k : n) + pad,
                 n + pad, alpha, beta, 0,  0};
  pr.a = random_vector(static_cast<size_t>((ta ? k : m) * p.lda), rng);
  pr.b = random_vector(static_cast<size_t>((tb ? n : k) * p.ldb), rng);
  switch (bias) {
    case Bias::kNone:
      break;
    case Bias::kFull:
      p.c_row_stride = n + 1, p.c_col_stride = 1, pr.c = random_vector(m * (n + 1), rng);
      break;
    case Bias::kRow:
      p.c_row_stride = 0, p.c_col_stride = 1, pr.c = random_vector(n, rng);
      break;
    case Bias::kColumn:
      p.c_row_stride = 1, p.c_col_stride = 0, pr.c = random_vector(m, rng);
      break;
    case Bias::kScalar:
      pr.c = random_vector(1, rng);
      break;
  }
  pr.y.assign(static_cast<size_t>(m * p.ldy), 7.0f);  // sentinel: padding must survive
  return pr;
}

// |got - want| within float rounding of a k-term dot product of values in [-1, 1].
void check_close(const Problem& pr, const std::vector<float>& got, const std::vector<float>& want) {
  const float tol = 1e-5f * static_cast<float>(pr.p.k + 4);
  for (index_t i = 0; i < pr.p.m; ++i)
    for (index_t j = 0; j < pr.p.ldy; ++j) {
      const size_t at = static_cast<size_t>(i * pr.p.ldy + j);
      INFO("row " << i << " col " << j);
      if (j >= pr.p.n)
        REQUIRE(got[at] == 7.0f);  // never written
      else
        REQUIRE(std::fabs(got[at] - want[at]) <= tol);
    }
}

}  // namespace

TEST_CASE("gemm_ref computes hand-checked products", "[gemm-kernels]") {
  // A = [[1, 2, 3], [4, 5, 6]], B = [[1, 0], [0, 1], [1, 1]]: A B = [[4, 5], [10, 11]].
  const float a[] = {1, 2, 3, 4, 5, 6}, b[] = {1, 0, 0, 1, 1, 1};
  float y[4];
  SECTION("plain") {
    gemm_ref(GemmParams{2, 2, 3, 0, 0, 3, 2, 2, 1.0, 0.0, 0, 0}, a, b,
             static_cast<const float*>(nullptr), y);
    CHECK(std::vector<float>(y, y + 4) == std::vector<float>{4, 5, 10, 11});
  }
  SECTION("alpha, beta and a bias row") {
    const float c[] = {1, -1};
    gemm_ref(GemmParams{2, 2, 3, 0, 0, 3, 2, 2, 2.0, 0.5, 0, 1}, a, b, c, y);
    CHECK(std::vector<float>(y, y + 4) == std::vector<float>{8.5f, 9.5f, 20.5f, 21.5f});
  }
  SECTION("transposed operands") {
    // A^T stored 3x2, B^T stored 2x3.
    const float at[] = {1, 4, 2, 5, 3, 6}, bt[] = {1, 0, 1, 0, 1, 1};
    gemm_ref(GemmParams{2, 2, 3, 1, 1, 2, 3, 2, 1.0, 0.0, 0, 0}, at, bt,
             static_cast<const float*>(nullptr), y);
    CHECK(std::vector<float>(y, y + 4) == std::vector<float>{4, 5, 10, 11});
  }
  SECTION("k = 0 leaves beta * C") {
    const float c[] = {3};
    gemm_ref(GemmParams{2, 2, 0, 0, 0, 0, 2, 2, 1.0, 2.0, 0, 0}, a, b, c, y);
    CHECK(std::vector<float>(y, y + 4) == std::vector<float>{6, 6, 6, 6});
  }
}

TEST_CASE("gemm_ref on integers wraps like numpy and keeps int64 exact", "[gemm-kernels]") {
  const int32_t a[] = {INT32_MAX, 1}, b[] = {2, 3};
  int32_t y[1];
  gemm_ref(GemmParams{1, 1, 2, 0, 0, 2, 1, 1, 1.0, 1.0, 0, 0}, a, b,
           static_cast<const int32_t*>(nullptr), y);
  CHECK(y[0] == static_cast<int32_t>(static_cast<uint32_t>(INT32_MAX) * 2u + 3u));
  const int64_t big[] = {(int64_t{1} << 60) + 1}, one[] = {1}, c[] = {1};
  int64_t z[1];
  gemm_ref(GemmParams{1, 1, 1, 0, 0, 1, 1, 1, 1.0, 1.0, 0, 0}, big, one, c, z);
  CHECK(z[0] == (int64_t{1} << 60) + 2);
}

TEST_CASE("every float GEMM variant matches gemm_ref", "[gemm-kernels]") {
  std::mt19937 rng(42);
  // Sizes straddle the 4/8-row and 16/32-column tiles, the 96-row and 128/256-deep blocks.
  const index_t ms[] = {1, 2, 3, 5, 8, 13, 97, 200};
  const index_t ns[] = {1, 7, 16, 17, 33, 70};
  const index_t ks[] = {1, 3, 16, 129, 300};
  for (const Variant& v : kVariants)
    for (index_t m : ms)
      for (index_t n : ns)
        for (index_t k : ks) {
          const int ta = static_cast<int>((m + n + k) % 2), tb = static_cast<int>((m + k) / 3 % 2);
          const Bias bias = static_cast<Bias>((m * 3 + n + k) % 5);
          const index_t pad = (m + n) % 3;
          const double alpha = (n % 2) ? 1.0 : 0.75, beta = (k % 2) ? 1.0 : -0.5;
          Problem pr = make_problem(m, n, k, ta, tb, pad, bias, alpha, beta, rng);
          const float* c = pr.c.empty() ? nullptr : pr.c.data();
          std::vector<float> want = pr.y, got = pr.y;
          gemm_ref(pr.p, pr.a.data(), pr.b.data(), c, want.data());
          v.fn(pr.p, pr.a.data(), pr.b.data(), c, got.data());
          INFO(v.name << " m=" << m << " n=" << n << " k=" << k << " transA=" << ta
                      << " transB=" << tb << " pad=" << pad << " bias=" << static_cast<int>(bias));
          check_close(pr, got, want);
        }
}

TEST_CASE("every gemm and gemm_packed row of the variant table is run here", "[gemm-kernels]") {
  // kVariants takes the rows from the table; the portable rows are compiled in every build (an
  // intrinsics row would need the ISA guard conv_variants_check.cpp has, hence the check).
#define ONNXC_ROW(dtype, op, tile, isa, header, fits, weights, targets, panel, gflops) \
  {#op, #dtype "_" #op "_" #tile "__" #isa, #isa},
  struct Row {
    std::string op, name, isa;
  };
  const Row rows[] = {ONNXC_KERNEL_VARIANTS(ONNXC_ROW)};
#undef ONNXC_ROW
  int checked = 0;
  for (const Row& r : rows) {
    if (r.op != "gemm" && r.op != "gemm_packed") continue;
    INFO(r.name);
    REQUIRE(r.isa == "scalar");
    bool listed = false;
    for (const Variant& v : kVariants) listed = listed || r.name == v.name;
    CHECK(listed);
    ++checked;
  }
  CHECK(checked >= 7);
}

TEST_CASE("float GEMM variants accept C aliasing Y (accumulate in place)", "[gemm-kernels]") {
  std::mt19937 rng(7);
  for (const Variant& v : kVariants) {
    Problem pr = make_problem(37, 45, 61, 0, 1, 2, Bias::kNone, 1.0, 1.0, rng);
    pr.y = random_vector(pr.y.size(), rng);
    GemmParams p = pr.p;
    p.c_row_stride = p.ldy;
    p.c_col_stride = 1;
    std::vector<float> want = pr.y, got = pr.y;
    gemm_ref(p, pr.a.data(), pr.b.data(), want.data(), want.data());
    v.fn(p, pr.a.data(), pr.b.data(), got.data(), got.data());
    INFO(v.name);
    for (size_t i = 0; i < got.size(); ++i) REQUIRE(std::fabs(got[i] - want[i]) <= 1e-4f);
  }
}

TEST_CASE("matmul matches matmul_ref with broadcast batches", "[gemm-kernels]") {
  std::mt19937 rng(3);
  // Y[2, 3, m, n] = A[2, 1, m, k] @ B[3, k, n]: A broadcasts over dim 1, B over dim 0.
  const index_t m = 9, n = 21, k = 19;
  MatMulParams p{};
  p.batch_rank = 2;
  p.batch_dims[0] = 2;
  p.batch_dims[1] = 3;
  p.a_strides[0] = m * k;
  p.a_strides[1] = 0;
  p.b_strides[0] = 0;
  p.b_strides[1] = k * n;
  p.batch_count = 6;
  p.m = m, p.n = n, p.k = k;
  const std::vector<float> a = random_vector(2 * m * k, rng), b = random_vector(3 * k * n, rng);
  std::vector<float> want(6 * m * n), got(6 * m * n);
  matmul_ref(p, a.data(), b.data(), want.data());
  matmul<HostedTile>(p, a.data(), b.data(), got.data());
  for (size_t i = 0; i < got.size(); ++i) REQUIRE(std::fabs(got[i] - want[i]) <= 1e-4f);
  // Batch 4 (i0 = 1, i1 = 1) is A[1] @ B[1]; spot-check one element by hand.
  double dot = 0;
  for (index_t kk = 0; kk < k; ++kk) dot += double(a[m * k + 2 * k + kk]) * b[k * n + kk * n + 5];
  CHECK(std::fabs(want[4 * m * n + 2 * n + 5] - dot) < 1e-4);
}

TEST_CASE("gemm_prefers_blocked keeps tiny products on the reference", "[gemm-kernels]") {
  CHECK_FALSE(gemm_prefers_blocked(2, 2, 2));
  CHECK_FALSE(gemm_prefers_blocked(1000, 3, 1000));  // a few columns: no tile to fill
  CHECK(gemm_prefers_blocked(1000, 1, 1000));        // one column: dot products (gemv)
  CHECK(gemm_prefers_blocked(64, 64, 64));
}

// ---- fused epilogues --------------------------------------------------------------------------

namespace {

using GemmEpilogueFn = void (*)(const GemmParams&, const float*, const float*, const float*, float*,
                                const EpilogueSpec&, const float*);

void packed_6x16_fused(const GemmParams& p, const float* a, const float* b, const float* c,
                       float* y, const EpilogueSpec& e, const float* r) {
  ONNXC_GEMM_FUSED(f32_gemm_packed_6x16__scalar)(p, a, b, c, y, e, r);
}
void packed_4x4_fused(const GemmParams& p, const float* a, const float* b, const float* c, float* y,
                      const EpilogueSpec& e, const float* r) {
  ONNXC_GEMM_FUSED(f32_gemm_packed_4x4__scalar)(p, a, b, c, y, e, r);
}

const struct {
  const char* name;
  GemmEpilogueFn fused;
  GemmFn plain;
} kEpilogueVariants[] = {
    {"f32_gemm_6x16__scalar", gemm_6x16_e<32768>, gemm_6x16<32768>},
    {"f32_gemm_8x32__scalar", gemm_8x32_e<32768>, gemm_8x32<32768>},
    {"f32_gemm_6x16__scalar, 5-row panel", gemm_6x16_e<5 * 16 * 4>, gemm_6x16<5 * 16 * 4>},
    {"gemm<GemmTile<6, 16>>", ONNXC_GEMM_FUSED(gemm<HostedTile>), gemm<HostedTile, float>},
    {"gemm_ref<float>", ONNXC_GEMM_FUSED(gemm_ref), gemm_ref<float>},
    {"f32_gemm_packed_6x16__scalar", gemm_packed_e<16, packed_6x16_fused>,
     gemm_packed<16, f32_gemm_packed_6x16__scalar>},
    {"f32_gemm_packed_4x4__scalar", gemm_packed_e<4, packed_4x4_fused>,
     gemm_packed<4, f32_gemm_packed_4x4__scalar>},
};

// Every activation with parameters that exercise both sides of it.
const EpilogueSpec kEpilogues[] = {
    {kActNone, 0, 0, 1},        {kActRelu, 0, 0, 0},
    {kActRelu, 0, 0, 1},        {kActClip, -0.5f, 0.25f, 0},
    {kActClip, 0.5f, -1.0f, 1}, {kActLeakyRelu, 0.1f, 0, 1},
    {kActSigmoid, 0, 0, 0},     {kActHardSigmoid, 0.2f, 0.5f, 1},
    {kActHardSwish, 0, 0, 0},   {kActTanh, 0, 0, 1},
    {kActGeluErf, 0, 0, 0},     {kActGeluTanh, 0, 0, 1},
    {kActSwish, 1.0f, 0, 0},    {kActSwish, 0.5f, 0, 1},
};

// The unfused graph: y = activation(y + residual) as separate passes after the product.
void unfused_epilogue(const EpilogueSpec& e, std::vector<float>& y, const std::vector<float>& r,
                      index_t m, index_t n, index_t ldy) {
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) {
      float& v = y[static_cast<size_t>(i * ldy + j)];
      if (e.residual) v = v + r[static_cast<size_t>(i * ldy + j)];
      v = apply_activation(e, v);
    }
}

void check_same(const std::vector<float>& got, const std::vector<float>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << " got " << got[i] << " want " << want[i]);
    REQUIRE(std::fabs(got[i] - want[i]) <= 1e-6f * (1.0f + std::fabs(want[i])));
  }
}

}  // namespace

TEST_CASE("epilogue activations follow the ONNX definitions", "[gemm-kernels]") {
  auto act = [](EpilogueActivation kind, float x, float alpha = 0, float beta = 0) {
    return apply_activation(EpilogueSpec{kind, alpha, beta, 0}, x);
  };
  CHECK(act(kActRelu, -2.0f) == 0.0f);
  CHECK(act(kActRelu, 3.0f) == 3.0f);
  CHECK(act(kActClip, 5.0f, -1.0f, 2.0f) == 2.0f);
  CHECK(act(kActClip, -5.0f, -1.0f, 2.0f) == -1.0f);
  CHECK(act(kActClip, 0.0f, 3.0f, 1.0f) == 1.0f);  // min > max: numpy.clip gives max
  CHECK(act(kActLeakyRelu, -2.0f, 0.1f) == Approx(-0.2f));
  CHECK(act(kActSigmoid, 0.0f) == 0.5f);
  CHECK(act(kActHardSigmoid, 1.0f, 0.2f, 0.5f) == Approx(0.7f));
  CHECK(act(kActHardSwish, 1.0f) == Approx(1.0f * (1.0f / 6.0f + 0.5f)));
  CHECK(act(kActHardSwish, -4.0f) == 0.0f);
  CHECK(act(kActTanh, 0.5f) == Approx(std::tanh(0.5f)));
  CHECK(act(kActGeluErf, 1.0f) == Approx(0.8413447f));
  CHECK(act(kActGeluTanh, 1.0f) == Approx(0.8411920f));
  CHECK(act(kActSwish, 2.0f, 1.0f) == Approx(2.0f / (1.0f + std::exp(-2.0f))));
  CHECK(act(kActSwish, -3.0f, 0.5f) == Approx(-3.0f / (1.0f + std::exp(1.5f))));
  CHECK(std::isnan(act(kActRelu, NAN)) == false);  // NaN > 0 is false: Relu gives 0, as ONNX's
  CHECK(std::isnan(act(kActClip, NAN, -1.0f, 1.0f)));
}

TEST_CASE("fused GEMM epilogues match the product followed by the unfused ops", "[gemm-kernels]") {
  std::mt19937 rng(99);
  const index_t sizes[][3] = {{1, 70, 129},   {3, 17, 16}, {13, 33, 300}, {97, 70, 3},
                              {200, 16, 129}, {40, 1, 50}, {8, 32, 256},  {5, 7, 0}};
  for (const auto& v : kEpilogueVariants)
    for (const auto& sz : sizes)
      for (const EpilogueSpec& e : kEpilogues) {
        const index_t m = sz[0], n = sz[1], k = sz[2];
        const int tb = static_cast<int>((m + n) % 2);
        const index_t pad = n == 1 ? 0 : (m % 2);
        Problem pr =
            make_problem(m, n, k, 0, tb, pad, static_cast<Bias>((m + k) % 3), 1.0, 1.0, rng);
        const float* c = pr.c.empty() ? nullptr : pr.c.data();
        const std::vector<float> residual = random_vector(pr.y.size(), rng);
        std::vector<float> want = pr.y, got = pr.y;
        v.plain(pr.p, pr.a.data(), pr.b.data(), c, want.data());
        unfused_epilogue(e, want, residual, m, n, pr.p.ldy);
        v.fused(pr.p, pr.a.data(), pr.b.data(), c, got.data(), e,
                e.residual ? residual.data() : nullptr);
        INFO(v.name << " m=" << m << " n=" << n << " k=" << k << " activation=" << e.activation
                    << " residual=" << e.residual);
        check_same(got, want);
      }
}

TEST_CASE("matmul with a bias, transposed operands and an epilogue", "[gemm-kernels]") {
  std::mt19937 rng(5);
  // Y[3, m, n] = A[3, m, k] @ B[k, n] (B shared) with A or B stored transposed.
  const index_t m = 11, n = 37, k = 23;
  for (int ta : {0, 1})
    for (int tb : {0, 1}) {
      MatMulParams p{};
      p.batch_rank = 1;
      p.batch_dims[0] = 3;
      p.a_strides[0] = m * k;
      p.b_strides[0] = 0;
      p.batch_count = 3;
      p.m = m, p.n = n, p.k = k, p.trans_a = ta, p.trans_b = tb;
      const std::vector<float> a = random_vector(3 * m * k, rng), b = random_vector(k * n, rng);
      const std::vector<float> bias = random_vector(n, rng), res = random_vector(3 * m * n, rng);
      // The reference: explicit transposes, then a plain matmul_ref, then bias, residual, Relu.
      std::vector<float> at(a.size()), bt(b.size());
      for (index_t bi = 0; bi < 3; ++bi)
        for (index_t i = 0; i < m; ++i)
          for (index_t kk = 0; kk < k; ++kk)
            at[bi * m * k + i * k + kk] =
                ta ? a[bi * m * k + kk * m + i] : a[bi * m * k + i * k + kk];
      for (index_t kk = 0; kk < k; ++kk)
        for (index_t j = 0; j < n; ++j) bt[kk * n + j] = tb ? b[j * k + kk] : b[kk * n + j];
      MatMulParams plain = p;
      plain.trans_a = plain.trans_b = 0;
      std::vector<float> want(3 * m * n), got(3 * m * n), got_ref(3 * m * n);
      matmul_ref(plain, at.data(), bt.data(), want.data());
      for (size_t i = 0; i < want.size(); ++i) {
        const float v = (want[i] + bias[i % n]) + res[i];
        want[i] = v > 0 ? v : 0;
      }
      const Epilogue<Relu> e = {Relu{0.0f, 0.0f}, 1};
      matmul<HostedTile>(p, a.data(), b.data(), bias.data(), got.data(), e, res.data());
      matmul_ref(p, a.data(), b.data(), bias.data(), got_ref.data(), e, res.data());
      INFO("transA=" << ta << " transB=" << tb);
      for (size_t i = 0; i < got.size(); ++i) {
        REQUIRE(std::fabs(got[i] - want[i]) <= 1e-4f);
        REQUIRE(std::fabs(got_ref[i] - want[i]) <= 1e-4f);
      }
    }
}

namespace {

// --threads N: the packed variants in 2 to 4 parts (by column panels, or by rows when there
// are fewer panels than parts), on the serial loop and on a pool of 2 threads, give the whole
// kernel's result bit for bit.
using PackedParallelFn = void (*)(const GemmParams&, const float*, const float*, const float*,
                                  float*, const Epilogue<Relu>&, const float*, const Parallel&,
                                  index_t);

template <index_t NR, gemm_detail::PackedEpilogueKernel<Relu> Kernel,
          PackedParallelFn KernelParallel>
void check_packed_parallel(const char* name) {
  std::mt19937 rng(5);
  ThreadPool pool(2);
  const index_t sizes[][3] = {{4, 70, 129},   {13, 33, 300}, {97, 16, 3},
                              {200, 100, 64}, {9, 1, 50},    {64, 256, 40}};
  for (const auto& sz : sizes) {
    const index_t m = sz[0], n = sz[1], k = sz[2];
    Problem pr = make_problem(m, n, k, static_cast<int>(m % 2), static_cast<int>(n % 2), m % 3,
                              static_cast<Bias>((m + k) % 3), 1.0, 1.0, rng);
    std::vector<float> packed(static_cast<size_t>(packed_b_floats(k, n, NR)));
    pack_gemm_b<NR>(pr.p, pr.b.data(), packed.data());
    const float* c = pr.c.empty() ? nullptr : pr.c.data();
    const std::vector<float> residual = random_vector(pr.y.size(), rng);
    const Epilogue<Relu> e = {Relu{0.0f, 0.0f}, 1};
    std::vector<float> want = pr.y;
    Kernel(pr.p, pr.a.data(), packed.data(), c, want.data(), e, residual.data());
    for (index_t tasks = 2; tasks <= 4; ++tasks)
      for (const Parallel& par : {kSerial, pool.parallel()}) {
        std::vector<float> got = pr.y;
        KernelParallel(pr.p, pr.a.data(), packed.data(), c, got.data(), e, residual.data(), par,
                       tasks);
        INFO(name << " m=" << m << " n=" << n << " k=" << k << " tasks=" << tasks);
        CHECK(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)) == 0);
      }
  }
}

}  // namespace

TEST_CASE("packed GEMM variants split over threads give the serial result bit for bit",
          "[gemm-kernels][threads]") {
  check_packed_parallel<32, f32_gemm_packed_8x32__scalar, f32_gemm_packed_8x32__scalar>(
      "f32_gemm_packed_8x32__scalar");
  check_packed_parallel<16, f32_gemm_packed_6x16__scalar, f32_gemm_packed_6x16__scalar>(
      "f32_gemm_packed_6x16__scalar");
}

namespace {

// --threads N: the plain variants split row products (under 4 rows of A, read in place) by
// columns in 2, 3, 5 and 16 parts, on the serial loop and on a pool of 2 threads, giving the
// whole kernel's result bit for bit; other products run whole.
using PlainParallelFn = void (*)(const GemmParams&, const float*, const float*, const float*,
                                 float*, const Epilogue<Relu>&, const float*, const Workspace&,
                                 const Parallel&, index_t);
using PlainFn = void (*)(const GemmParams&, const float*, const float*, const float*, float*,
                         const Epilogue<Relu>&, const float*, const Workspace&);

template <PlainFn Kernel, PlainParallelFn KernelParallel>
void check_row_products_parallel(const char* name) {
  std::mt19937 rng(9);
  ThreadPool pool(2);
  // {m, n, k, transA, transB}: classifiers (B transposed or not), a ragged width, and a product
  // of 6 rows (not a row product: it runs whole).
  const index_t sizes[][5] = {{1, 1000, 512, 0, 1}, {1, 1000, 300, 0, 0}, {2, 37, 129, 0, 1},
                              {3, 200, 64, 0, 0},   {1, 9, 700, 0, 1},    {6, 40, 30, 0, 0}};
  for (const auto& sz : sizes) {
    const index_t m = sz[0], n = sz[1], k = sz[2];
    Problem pr = make_problem(m, n, k, static_cast<int>(sz[3]), static_cast<int>(sz[4]), m % 2,
                              static_cast<Bias>((n + k) % 3), 1.0, 1.0, rng);
    const float* c = pr.c.empty() ? nullptr : pr.c.data();
    const std::vector<float> residual = random_vector(pr.y.size(), rng);
    const Epilogue<Relu> e = {Relu{0.0f, 0.0f}, 1};
    std::vector<float> ws(static_cast<size_t>(gemm_workspace_bytes(pr.p, 1 << 20) / 4 + 1));
    const Workspace w = {ws.data(), static_cast<index_t>(ws.size() * sizeof(float))};
    std::vector<float> want = pr.y;
    Kernel(pr.p, pr.a.data(), pr.b.data(), c, want.data(), e, residual.data(), w);
    for (const index_t tasks : {2, 3, 5, 16})
      for (const Parallel& par : {kSerial, pool.parallel()}) {
        std::vector<float> got = pr.y;
        KernelParallel(pr.p, pr.a.data(), pr.b.data(), c, got.data(), e, residual.data(), w, par,
                       tasks);
        INFO(name << " m=" << m << " n=" << n << " k=" << k << " tasks=" << tasks);
        CHECK(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)) == 0);
      }
  }
}

}  // namespace

TEST_CASE(
    "plain GEMM variants split row products by columns and match the serial result bit for bit",
    "[gemm-kernels][threads]") {
  check_row_products_parallel<f32_gemm_8x32__scalar<Relu>, f32_gemm_8x32__scalar<Relu>>(
      "f32_gemm_8x32__scalar");
  check_row_products_parallel<f32_gemm_6x16__scalar<Relu>, f32_gemm_6x16__scalar<Relu>>(
      "f32_gemm_6x16__scalar");
}
