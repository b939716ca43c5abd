// Data-movement kernels: the strided-copy variants against strided_copy_ref on random transposes,
// slices and broadcasts with odd sizes; every kernel against hand-computed values (numpy's
// results for Pad's modes); and non-arithmetic element types (onnxc::float16, bool).
#include <algorithm>
#include <catch2/catch.hpp>
#include <numeric>
#include <random>
#include <vector>

#include "onnxc/transform.h"

using namespace onnxc;

namespace {

StridedCopyParams make_params(std::vector<index_t> dims, std::vector<index_t> strides,
                              index_t offset) {
  StridedCopyParams p{};
  p.rank = static_cast<int>(dims.size());
  p.numel = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    p.dims[d] = dims[d];
    p.in_strides[d] = strides[d];
    p.numel *= dims[d];
  }
  p.offset = offset;
  return p;
}

std::vector<int> iota_vector(size_t n) {
  std::vector<int> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

using CopyKernel = void (*)(const StridedCopyParams&, const int*, int*);

// Runs `kernel` and strided_copy_ref on `p` over x and requires identical outputs.
void require_matches_ref(CopyKernel kernel, const StridedCopyParams& p, const std::vector<int>& x) {
  std::vector<int> want(static_cast<size_t>(p.numel), -1), got(want.size(), -2);
  strided_copy_ref(p, x.data(), want.data());
  kernel(p, x.data(), got.data());
  REQUIRE(got == want);
}

}  // namespace

TEST_CASE("strided_copy_ref: transpose, negative-step slice and broadcast by hand",
          "[transform-kernels]") {
  const int x[] = {0, 1, 2, 3, 4, 5};  // [[0, 1, 2], [3, 4, 5]]
  int y[6];
  strided_copy_ref(make_params({3, 2}, {1, 3}, 0), x, y);  // transpose
  CHECK(std::vector<int>(y, y + 6) == std::vector<int>{0, 3, 1, 4, 2, 5});
  strided_copy_ref(make_params({2, 2}, {-3, -2}, 5), x, y);  // x[::-1, ::-2]
  CHECK(std::vector<int>(y, y + 4) == std::vector<int>{5, 3, 2, 0});
  strided_copy_ref(make_params({2, 3}, {0, 1}, 3), x, y);  // row 1 broadcast to 2 rows
  CHECK(std::vector<int>(y, y + 6) == std::vector<int>{3, 4, 5, 3, 4, 5});
  strided_copy_ref(make_params({}, {}, 4), x, y);  // rank 0: one element
  CHECK(y[0] == 4);
}

TEST_CASE("strided copy variants match the reference on random views", "[transform-kernels]") {
  std::mt19937 rng(42);
  auto dim = [&](int lo, int hi) { return std::uniform_int_distribution<index_t>(lo, hi)(rng); };
  for (int trial = 0; trial < 200; ++trial) {
    // A random contiguous input, viewed through a random permutation with random slicing.
    const int rank = static_cast<int>(dim(1, 5));
    std::vector<index_t> in_dims(static_cast<size_t>(rank)), in_strides(in_dims.size());
    for (auto& d : in_dims) d = dim(1, 7);
    index_t stride = 1;
    for (int d = rank - 1; d >= 0; --d) {
      in_strides[static_cast<size_t>(d)] = stride;
      stride *= in_dims[static_cast<size_t>(d)];
    }
    std::vector<int> x = iota_vector(static_cast<size_t>(stride));
    std::vector<size_t> perm(in_dims.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<index_t> dims, strides;
    index_t offset = 0;
    for (size_t a : perm) {
      const index_t n = in_dims[a], step = dim(-2, 2);
      if (step == 0) {  // broadcast this axis instead: stride 0, any size
        dims.push_back(dim(1, 4));
        strides.push_back(0);
      } else if (step > 0) {
        dims.push_back((n + step - 1) / step);
        strides.push_back(in_strides[a] * step);
      } else {  // from the last element backwards
        offset += (n - 1) * in_strides[a];
        dims.push_back((n - 1) / -step + 1);
        strides.push_back(in_strides[a] * step);
      }
    }
    StridedCopyParams p = make_params(dims, strides, offset);
    INFO("trial " << trial << " rank " << rank);
    require_matches_ref(strided_copy__rows<int>, p, x);
  }
}

TEST_CASE("strided_copy__transpose_tiled matches the reference across tile remainders",
          "[transform-kernels]") {
  // y[b][i][j] = x[b][j][i]: rows and cols straddle the 16-element tile; the batch axis has a
  // padded stride so the outer walk is exercised too.
  for (index_t rows : {1, 8, 16, 17, 33})
    for (index_t cols : {1, 9, 16, 31}) {
      const index_t batch = 3, batch_stride = rows * cols + 5;
      std::vector<int> x = iota_vector(static_cast<size_t>(batch * batch_stride));
      StridedCopyParams p = make_params({batch, rows, cols}, {batch_stride, 1, rows}, 2);
      INFO(rows << "x" << cols);
      require_matches_ref(strided_copy__transpose_tiled<int>, p, x);
      require_matches_ref(strided_copy__rows<int>, p, x);
      // Rank 2 (no outer axes) too.
      require_matches_ref(strided_copy__transpose_tiled<int>,
                          make_params({rows, cols}, {1, rows}, 0), x);
    }
}

TEST_CASE("strided copies move non-arithmetic element types", "[transform-kernels]") {
  const float16 h[] = {{0x3c00}, {0x4000}, {0x4200}, {0x4400}};
  float16 hy[4];
  strided_copy__transpose_tiled(make_params({2, 2}, {1, 2}, 0), h, hy);
  CHECK(hy[1].bits == 0x4200);
  CHECK(hy[2].bits == 0x4000);
  const bool b[] = {true, false, false};
  bool by[3];
  strided_copy__rows(make_params({3}, {-1}, 2), b, by);
  CHECK((by[0] == false && by[1] == false && by[2] == true));
}

TEST_CASE("block_copy_ref concatenates and splits along an inner axis", "[transform-kernels]") {
  const int a[] = {1, 2, 3, 4};  // [2, 2]
  const int b[] = {5, 6};        // [2, 1]
  int y[6];
  block_copy_ref(a, y, 2, 2, 2, 3);
  block_copy_ref(b, y + 2, 2, 1, 1, 3);
  CHECK(std::vector<int>(y, y + 6) == std::vector<int>{1, 2, 5, 3, 4, 6});
  int back[2];
  block_copy_ref(y + 2, back, 2, 1, 3, 1);  // split the last column out again
  CHECK(std::vector<int>(back, back + 2) == std::vector<int>{5, 6});
}

TEST_CASE("gather_ref takes negative indices and clamps bad run-time ones", "[transform-kernels]") {
  const float x[] = {1, 2, 3, 4, 5, 6};  // [3, 2], gather rows
  const int64_t idx[] = {2, -3, 7};
  float y[6];
  gather_ref(x, idx, y, 1, 3, 2, 3);
  CHECK(std::vector<float>(y, y + 6) == std::vector<float>{5, 6, 1, 2, 1, 2});
  const int32_t cols[] = {-1};
  gather_ref(x, cols, y, 3, 2, 1, 1);  // axis 1 of [3, 2]
  CHECK(std::vector<float>(y, y + 3) == std::vector<float>{2, 4, 6});
}

TEST_CASE("gather_elements_ref on the ONNX examples", "[transform-kernels]") {
  const int x[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};  // [3, 3]
  GatherElementsParams p{2, 0, {2, 3}, {3, 1}, 3, 6};
  const int64_t idx0[] = {1, 2, 0, 2, 0, 0};
  int y[6];
  gather_elements_ref(p, x, idx0, y);
  CHECK(std::vector<int>(y, y + 6) == std::vector<int>{4, 8, 3, 7, 2, 3});
  GatherElementsParams q{2, 1, {3, 2}, {3, 1}, 3, 6};
  const int32_t idx1[] = {0, -1, 1, 0, 2, -3};
  gather_elements_ref(q, x, idx1, y);
  CHECK(std::vector<int>(y, y + 6) == std::vector<int>{1, 3, 5, 4, 9, 7});
}

TEST_CASE("pad_ref matches numpy.pad for every mode", "[transform-kernels]") {
  const int x[] = {1, 2, 3};
  auto pad1d = [&](int mode, index_t before, index_t after) {
    PadParams p{};
    p.rank = 1;
    p.mode = mode;
    p.in_dims[0] = 3;
    p.out_dims[0] = 3 + before + after;
    p.begin[0] = before;
    p.numel = p.out_dims[0];
    std::vector<int> y(static_cast<size_t>(p.numel));
    pad_ref(p, x, y.data(), -1);
    return y;
  };
  CHECK(pad1d(kPadConstant, 2, 1) == std::vector<int>{-1, -1, 1, 2, 3, -1});
  CHECK(pad1d(kPadEdge, 4, 4) == std::vector<int>{1, 1, 1, 1, 1, 2, 3, 3, 3, 3, 3});
  CHECK(pad1d(kPadReflect, 4, 4) == std::vector<int>{1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3});
  CHECK(pad1d(kPadWrap, 4, 4) == std::vector<int>{3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1});
  CHECK(pad1d(kPadConstant, -1, 1) == std::vector<int>{2, 3, -1});  // negative pads crop
}

TEST_CASE("pad_ref pads outer axes: whole constant rows, reflected rows", "[transform-kernels]") {
  const int x[] = {1, 2, 3, 4};  // [[1, 2], [3, 4]]
  PadParams p{2, kPadConstant, {3, 3}, {2, 2}, {1, 0}, 9};
  int y[9];
  pad_ref(p, x, y, 0);
  CHECK(std::vector<int>(y, y + 9) == std::vector<int>{0, 0, 0, 1, 2, 0, 3, 4, 0});
  p.mode = kPadReflect;  // np.pad(x, ((1, 0), (0, 1)), 'reflect')
  pad_ref(p, x, y, 0);
  CHECK(std::vector<int>(y, y + 9) == std::vector<int>{3, 4, 3, 1, 2, 1, 3, 4, 3});
}

TEST_CASE("trilu_ref keeps the upper or lower triangle around diagonal k", "[transform-kernels]") {
  const int x[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};  // [3, 4]
  int y[12];
  trilu_ref(x, y, 1, 3, 4, 1, true);
  CHECK(std::vector<int>(y, y + 12) == std::vector<int>{0, 2, 3, 4, 0, 0, 7, 8, 0, 0, 0, 12});
  trilu_ref(x, y, 1, 3, 4, -1, false);
  CHECK(std::vector<int>(y, y + 12) == std::vector<int>{0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0});
  trilu_ref(x, y, 2, 3, 2, 0, true);  // two [3, 2] matrices
  CHECK(std::vector<int>(y, y + 12) == std::vector<int>{1, 2, 0, 4, 0, 0, 7, 8, 0, 10, 0, 0});
}

TEST_CASE("one_hot_ref wraps negative indices and ignores out-of-range ones",
          "[transform-kernels]") {
  const int64_t idx[] = {0, -1, 5};
  const float values[] = {0.5f, 2.0f};  // off, on
  float y[9];
  one_hot_ref(idx, values, y, 3, 3, 1);  // axis -1
  CHECK(std::vector<float>(y, y + 9) ==
        std::vector<float>{2, 0.5f, 0.5f, 0.5f, 0.5f, 2, 0.5f, 0.5f, 0.5f});
  const float fidx[] = {1.0f, 2.0f};
  one_hot_ref(fidx, values, y, 1, 3, 2);  // axis 0: y[d][i]
  CHECK(std::vector<float>(y, y + 6) == std::vector<float>{0.5f, 0.5f, 2, 0.5f, 0.5f, 2});
}

TEST_CASE("range_ref counts up and down", "[transform-kernels]") {
  int32_t y[3];
  range_ref<int32_t>(10, -2, y, 3);
  CHECK(std::vector<int32_t>(y, y + 3) == std::vector<int32_t>{10, 8, 6});
  float f[4];
  range_ref(1.0f, 0.5f, f, 4);
  CHECK(std::vector<float>(f, f + 4) == std::vector<float>{1, 1.5f, 2, 2.5f});
  float16 h[3];
  range_stashed_ref(2048.0f, 1.0f, h, 3);  // 2049 rounds to even (2048) in float16
  CHECK((h[0].bits == 0x6800 && h[1].bits == 0x6800 && h[2].bits == 0x6801));
  bfloat16 b[2];
  range_stashed_ref(1.0, -0.5, b, 2);
  CHECK((b[0].bits == 0x3f80 && b[1].bits == 0x3f00));
}
