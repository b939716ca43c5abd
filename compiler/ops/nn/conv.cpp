// Conv (opsets 1, 11, 22) and ConvTranspose (1, 11, 22): 1 to 3 spatial dims, groups (depthwise
// included), strides, dilations, explicit pads or auto_pad, kernel_shape checked against W,
// optional bias. float16 and float/double from opset 1, bfloat16 from 22 (half types are
// computed in float). ConvTranspose adds output_padding and output_shape.
//
// Kernels (onnxc/conv.h) are picked per node from the shape: float depthwise convolutions run
// directly, stride-1 3x3 ones with enough channels and tiles by Winograd F(4x4, 3x3)
// (onnxc/conv_winograd.h, filters transformed by pack-weights), all others as a GEMM over the
// input or its patch matrix; other types run the references. A float Conv may carry a fused
// epilogue (a residual as input 3 and an activation, see ops/epilogue.h), which its kernel
// applies while each output tile is in cache.
#include "onnxc/conv.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "onnxc/conv_variants.h"
#include "onnxc/conv_winograd.h"
#include "onnxc/kernels_parallel.h"
#include "onnxc/parallel.h"
#include "ops/dispatch.h"
#include "ops/epilogue.h"
#include "ops/kernel_variants.h"
#include "ops/registry.h"
#include "ops/spatial.h"

namespace onnxc {
namespace {

using ConvFn = void (*)(const ConvParams&, const float*, const float*, const float*, float*, void*);
using ConvEpilogueFn = void (*)(const ConvParams&, const float*, const float*, const float*, float*,
                                void*, const EpilogueSpec&, const float*);

// A kernel of onnxc/conv.h: its name and, for the float variants, its address (for evaluate).
struct ConvKernel {
  const char* name;
  ConvFn f32;                   // null: the templated reference, instantiated for the node's type
  ConvEpilogueFn f32_epilogue;  // null: the kernel takes no fused epilogue
};

// The fused forms, for evaluate(): the epilogue's activation picked at run time. Constant folding
// runs the GEMM convolutions with the hosted row's tile (6x16): every tile sums each output's
// products in the same order, so the folded values are those the target's row computes.
void conv_gemm_fused(const ConvParams& p, const float* x, const float* w, const float* b, float* y,
                     void* scratch, const EpilogueSpec& e, const float* residual) {
  with_epilogue(e, [&](const auto& typed) {
    f32_conv_6x16__scalar(p, x, w, b, y, scratch, typed, residual);
  });
}
void dwconv_fused(const ConvParams& p, const float* x, const float* w, const float* b, float* y,
                  void* scratch, const EpilogueSpec& e, const float* residual) {
  with_epilogue(e, [&](const auto& typed) {
    f32_dwconv_any__scalar(p, x, w, b, y, scratch, typed, residual);
  });
}

const ConvKernel kConvRef = {"conv_ref", nullptr, nullptr};
// (Emitted as the conv row select-kernels or infer() chose: ConvState::variant.)
const ConvKernel kConvGemm = {"f32_conv_6x16__scalar", f32_conv_6x16__scalar, conv_gemm_fused};
const ConvKernel kConvDepthwise = {"f32_dwconv_any__scalar", f32_dwconv_any__scalar, dwconv_fused};
const ConvKernel kConvTransposeRef = {"conv_transpose_ref", nullptr, nullptr};
// (Emitted with the target's GEMM tile: ConvState::gemm_tile.)
const ConvKernel kConvTransposeGemm = {"f32_convtranspose_gemm__scalar",
                                       f32_convtranspose_gemm__scalar<EvaluateGemmTile>, nullptr};

// ConvTranspose's column tiles (GEMM outputs scattered into Y) stay under about this size.
constexpr int64_t kColumnTileBytes = 2 << 20;
// Conv's GEMM packs B for up to this many output positions at a time (measured best among
// 160 to 1024 on ResNet-18, MobileNet-v2 and SqueezeNet layers).
constexpr int64_t kConvPositionBlock = 512;

// Splits `positions` into equal blocks of at most `widest` (a remainder block as narrow as a
// few positions would waste the GEMM's register tiles).
int64_t equal_blocks(int64_t positions, int64_t widest) {
  const int64_t blocks = (positions + widest - 1) / std::max<int64_t>(widest, 1);
  return std::max<int64_t>(1, (positions + blocks - 1) / std::max<int64_t>(blocks, 1));
}

// The Conv GEMM's blocks, fitted to the target's scratch budget (onnxc/conv.h sizes the
// workspace from them): positions in blocks of up to kConvPositionBlock (the desktop optimum) and
// the full depth up to kConvDepthBlock; while the workspace does not fit, blocks narrow to 128
// positions, then slices get shallower down to 256 rows, then blocks narrow to 32 positions and
// slices to 8 rows (narrow blocks waste the register tiles' width, shallow slices rewrite Y more
// often; nothing smaller is tried).
void fit_gemm_blocks(ConvParams& p, int64_t positions, size_t budget) {
  const auto fits = [&] { return static_cast<size_t>(conv_gemm_scratch_bytes(p)) <= budget; };
  const int64_t depth = p.c_in / p.group * p.kernel[0] * p.kernel[1] * p.kernel[2];
  p.depth_block = 0;
  int64_t widest = kConvPositionBlock;
  p.tile = equal_blocks(positions, widest);
  const auto narrow_to = [&](int64_t narrowest) {
    while (!fits() && widest / 2 >= narrowest) p.tile = equal_blocks(positions, widest /= 2);
  };
  const auto shallow_to = [&](int64_t shallowest) {
    int64_t block = p.depth_block ? p.depth_block : std::min<int64_t>(depth, kConvDepthBlock);
    while (!fits() && block / 2 >= shallowest) p.depth_block = block /= 2;
  };
  narrow_to(128);
  shallow_to(256);
  narrow_to(32);
  shallow_to(8);
}

// Winograd F(4x4, 3x3) replaces the GEMM where it pays (measured on one AVX-512 core against the
// 8x32 GEMM: 2.9-3.4x on ResNet's 56x56 to 14x14 layers, 2.1x at 13x13, 1.7x with 16 input
// channels; 1.24x at 7x7, where 4 tiles leave its register tiles half empty and its filters, 4x
// the size of W, stream from memory; on one AVX2 + FMA core, Zen 3, against the 6x16 GEMM: 1.3-1.5x
// on ResNet-18's 56x56 to 14x14 layers): 3x3, stride 1, one group, at least 16 tiles per image
// and 16 channels in and out. Its row is for x86-64 with AVX2 or AVX-512 (variants.h,
// vector_fma): not measured on the baseline's copies or on aarch64.
constexpr int64_t kWinogradMinTiles = 16;
constexpr int64_t kWinogradMinChannels = 16;
// A Winograd block keeps at least this many tiles even where it then exceeds the target's cache
// budget: each block reads all the transformed filters once, so smaller blocks cost more than a
// block spilling L2. (Zen 3, 512 KB L2, ResNet-18's 14x14 layers with 256 channels: blocks of 8
// tiles, 0.7 MB, 2.8 ms; of 4 tiles, which fit, 4.6 ms, the GEMM's time.)
constexpr int64_t kWinogradMinBlockTiles = 8;
// Bands (4 output rows) per Winograd block: the fewest holding 16 tiles, halved while the scratch
// exceeds the target's cache budget and the halved block still holds kWinogradMinBlockTiles, and
// while it exceeds --max-scratch (a hard cap); 0 when one band exceeds that cap.
int64_t winograd_bands(ConvParams p, const Target& target) {
  const int64_t tiles_w = (p.out[2] + 3) / 4, bands = (p.out[1] + 3) / 4;
  const size_t cap = target.max_scratch ? target.max_scratch : SIZE_MAX;
  p.tile = std::min<int64_t>(bands, (kWinogradMinTiles + tiles_w - 1) / tiles_w);
  auto scratch = [&] { return static_cast<size_t>(f32_conv_winograd_scratch_bytes(p)); };
  while (p.tile > 1 && (scratch() > cap || (scratch() > target.cache_bytes &&
                                            (p.tile + 1) / 2 * tiles_w >= kWinogradMinBlockTiles)))
    p.tile = (p.tile + 1) / 2;
  return scratch() <= cap ? p.tile : 0;
}
bool winograd_pays(const ConvParams& p) {
  const int64_t tiles = ((p.out[1] + 3) / 4) * ((p.out[2] + 3) / 4);
  return f32_conv_winograd_applies(p) && tiles >= kWinogradMinTiles &&
         p.c_in >= kWinogradMinChannels && p.c_out >= kWinogradMinChannels;
}
bool is_winograd(const KernelVariant* v) {
  return v && v->fits == KernelFit::winograd;
}

struct ConvState : OpState {
  ConvParams p{};
  const ConvKernel* kernel = &kConvRef;
  EpilogueSpec epilogue{};  // fused by a pass (Conv only)
  // The row it runs: select-kernels' choice, else (GEMM convolutions) infer()'s, the first row
  // that fits the weights as stored; emitted instead of kernel.
  const KernelVariant* variant = nullptr;
  const KernelVariant* gemm_tile = nullptr;  // ConvTranspose: the target's blocked GEMM row
  int tasks = 1;               // parts the variant runs in (onnxc/parallel.h); set with the variant
  int64_t winograd_bands = 0;  // > 0: Winograd pays and fits, in blocks of this many bands
};

// The grids the parallel forms run (onnxc/kernels_parallel.h, onnxc/conv_winograd.h): the same
// constant expressions, so the shares are of the costs those grids were picked by.
PartsPlan winograd_parts(const ConvParams& p, int tasks) {
  const WinogradGrid g = winograd_grid(p, tasks);
  return {fmt::format("{} band blocks x {} channel panels", g.block_groups, g.panel_groups),
          static_cast<double>(winograd_part_cost(p, g)) /
              static_cast<double>(winograd_part_cost(p, {1, 1}))};
}

PartsPlan gemm_parts(const ConvState& s, int tasks) {
  const std::string& tile = s.variant->tile;
  const index_t mr = tile_rows(tile.c_str()), nr = std::stoll(tile.substr(tile.find('x') + 1));
  const ConvGrid g = conv_gemm_grid(s.p, mr, nr, tasks);
  const index_t positions = s.p.out[0] * s.p.out[1] * s.p.out[2], rows = s.p.c_out / s.p.group;
  const index_t depth = s.p.c_in / s.p.group * s.p.kernel[0] * s.p.kernel[1] * s.p.kernel[2];
  return {fmt::format("{} position groups x {} channel groups", g.position_groups, g.row_groups),
          static_cast<double>(conv_part_cost(positions, rows, depth, mr, nr, g)) /
              static_cast<double>(conv_part_cost(positions, rows, depth, mr, nr, {1, 1}))};
}

// Multiply-adds x 2 of a convolution.
double conv_flops(const ConvParams& p) {
  return 2.0 * static_cast<double>(p.batch * p.c_out) * static_cast<double>(p.c_in / p.group) *
         static_cast<double>(p.out[0] * p.out[1] * p.out[2]) *
         static_cast<double>(p.kernel[0] * p.kernel[1] * p.kernel[2]);
}

// What kernel choice reads of a float Conv (the weights taken as stored, not constant).
KernelQuery conv_query(const ConvState& s) {
  KernelQuery q;
  const bool depthwise = s.kernel == &kConvDepthwise;
  q.families = {depthwise ? "dwconv" : "conv"};
  q.conv = &s.p;
  q.winograd_fits = s.winograd_bands > 0;
  q.flops = conv_flops(s.p);
  if (depthwise) q.max_parts = s.p.batch == 1 ? s.p.c_in : 1;
  return q;
}

// Conv's types: float16, float, double; bfloat16 from opset 22.
bool check_types(InferContext& ctx) {
  const DataType t = ctx.input(0)->dtype;
  const bool ok = t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 ||
                  (t == DataType::kBFloat16 && ctx.opset() >= 22);
  if (!ok)
    return ctx.fail("X has type {}; Conv takes float16, float, double{}", dtype_name(t),
                    ctx.opset() >= 22 ? ", bfloat16" : " (bfloat16 from opset 22)");
  for (size_t i = 1; i < 3; ++i)
    if (ctx.input(i) && ctx.input(i)->dtype != t)
      return ctx.fail("{} has type {}, X has {}: they must match", i == 1 ? "W" : "B",
                      dtype_name(ctx.input(i)->dtype), dtype_name(t));
  return true;
}

// Checks the ranks of X and W (N, C, 1 to 3 spatial dims) and the bias shape.
bool check_shapes(InferContext& ctx, int64_t c_out) {
  const Shape &xs = ctx.input(0)->shape, &ws = ctx.input(1)->shape;
  if (xs.size() < 3 || xs.size() > 5)
    return ctx.fail("X must be N x C x D1 [x D2 [x D3]] (1 to 3 spatial dims), has shape {}",
                    shape_str(xs));
  if (ws.size() != xs.size())
    return ctx.fail("W has rank {}, X has rank {}: they must match", ws.size(), xs.size());
  const Value* b = ctx.input(2);
  if (b && (b->shape.size() != 1 || b->shape[0] != c_out))
    return ctx.fail("B has shape {}, expected [{}] (one bias per output channel)",
                    shape_str(b->shape), c_out);
  return true;
}

// The kernel extents: W's spatial dims; a kernel_shape attribute must agree with them.
bool kernel_extents(InferContext& ctx, std::vector<int64_t>& kernel) {
  const Shape& ws = ctx.input(1)->shape;
  kernel.assign(ws.begin() + 2, ws.end());
  if (ctx.has_attr("kernel_shape") && ctx.attr_ints("kernel_shape") != kernel)
    return ctx.fail("kernel_shape {} does not match W's spatial dims {}",
                    cpp_ints(ctx.attr_ints("kernel_shape")), cpp_ints(kernel));
  return true;
}

// Copies a spatial vector into a 3-entry array, `fill` in front.
void to3(const std::vector<int64_t>& v, int64_t fill, index_t* out) {
  const size_t lead = 3 - v.size();
  for (size_t i = 0; i < 3; ++i) out[i] = i < lead ? fill : v[i - lead];
}

std::string arr3(const index_t* v) {
  return fmt::format("{{{}, {}, {}}}", v[0], v[1], v[2]);
}

// One comment per field, in declaration order.
std::string params_literal(const ConvParams& p) {
  return fmt::format(
      "{{/*batch=*/{}, /*c_in=*/{}, /*c_out=*/{}, /*group=*/{}, /*in=*/{}, /*out=*/{}, "
      "/*kernel=*/{}, /*stride=*/{}, /*dilation=*/{}, /*pad=*/{}, /*tile=*/{}{}}}",
      p.batch, p.c_in, p.c_out, p.group, arr3(p.in), arr3(p.out), arr3(p.kernel), arr3(p.stride),
      arr3(p.dilation), arr3(p.pad), p.tile,
      p.depth_block ? fmt::format(", /*depth_block=*/{}", p.depth_block) : "");
}

// The convolution kernels' element types (float16 and bfloat16 compute in float).
constexpr TypeSet kConvTypes = kFloatTypes | kHalfTypes;

// Shared by Conv and ConvTranspose: the statement calling the node's kernel, and folding.
class ConvLikeOp : public OpHandler {
 public:
  bool evaluate(const Node& node, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = node.state_as<ConvState>();
    std::vector<unsigned char> scratch(node.scratch_bytes);
    // A fused residual (infer() accepts epilogues on float kernels only).
    const float* r = in.size() > kResidualInput && in[kResidualInput]
                         ? in[kResidualInput]->as<float>()
                         : nullptr;
    if (is_winograd(s.variant)) {  // W is the transformed filters (pack-weights)
      with_epilogue(s.epilogue, [&](const auto& e) {
        f32_conv_wino4x4__scalar(s.p, in[0]->as<float>(), in[1]->as<float>(),
                                 in.size() > 2 && in[2] ? in[2]->as<float>() : nullptr,
                                 out[0].as<float>(), scratch.data(), e, r);
      });
      return true;
    }
    return visit_dtype<kConvTypes>(in[0]->dtype, [&](auto tag) {
      using T = decltype(tag);
      const T* b = in.size() > 2 && in[2] ? in[2]->as<T>() : nullptr;
      if constexpr (std::is_same_v<T, float>) {
        if (has_epilogue(s.epilogue)) {
          s.kernel->f32_epilogue(s.p, in[0]->as<float>(), in[1]->as<float>(), b, out[0].as<float>(),
                                 scratch.data(), s.epilogue, r);
          return;
        }
        if (s.kernel->f32) {
          s.kernel->f32(s.p, in[0]->as<float>(), in[1]->as<float>(), b, out[0].as<float>(),
                        scratch.data());
          return;
        }
      }
      if (s.kernel == &kConvTransposeRef)
        conv_transpose_ref<T>(s.p, in[0]->as<T>(), in[1]->as<T>(), b, out[0].as<T>(), nullptr);
      else
        conv_ref<T>(s.p, in[0]->as<T>(), in[1]->as<T>(), b, out[0].as<T>(), nullptr);
    });
  }

  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<ConvState>();
    ctx.include("onnxc/conv.h");
    ctx.line("static constexpr onnxc::ConvParams p = {};", params_literal(s.p));
    if (s.variant) ctx.include(s.variant->header);
    if (s.tasks > 1) ctx.include("onnxc/kernels_parallel.h");
    const std::string fn =
        s.variant       ? s.variant->name
        : s.gemm_tile   ? fmt::format("{}<{}>", s.kernel->name, gemm_tile_type(*s.gemm_tile))
        : s.kernel->f32 ? s.kernel->name
                        : fmt::format("{}<{}>", s.kernel->name, dtype_cpp(ctx.input(0)->dtype));
    if (has_epilogue(s.epilogue) || s.tasks > 1) {  // the parallel form takes an epilogue
      ctx.line("{}", epilogue_declaration(ctx, s.epilogue));
      ctx.line("onnxc::{}(p, {}, {}, {}, {}, {}, e, {}{});", fn, ctx.in(0), ctx.in(1), ctx.in(2),
               ctx.out(0), ctx.scratch(), ctx.in(kResidualInput),
               s.tasks > 1 ? parallel_args(s.tasks) : "");
      return;
    }
    ctx.line("onnxc::{}(p, {}, {}, {}, {}, {});", fn, ctx.in(0), ctx.in(1), ctx.in(2), ctx.out(0),
             ctx.scratch());
  }
};

// ---- Conv --------------------------------------------------------------------------------------

class ConvOp final : public ConvLikeOp {
 public:
  bool infer(InferContext& ctx) const override {
    // A 4th input is a fused residual (see ops/epilogue.h).
    if (!ctx.check_arity(2, 4, 1, 1) || !check_types(ctx)) return false;
    const Shape &xs = ctx.input(0)->shape, &ws = ctx.input(1)->shape;
    if (!check_shapes(ctx, ws.empty() ? 0 : ws[0])) return false;
    const int64_t group = ctx.attr_int("group", 1);
    if (group < 1) return ctx.fail("group must be >= 1, is {}", group);
    if (xs[1] % group || ws[0] % group || ws[1] * group != xs[1])
      return ctx.fail(
          "channels do not split into {} groups: X has {} channels, W is {} (needs W[1] * group "
          "== C and group dividing M)",
          group, xs[1], shape_str(ws), group);
    std::vector<int64_t> kernel;
    WindowGeometry g;
    const std::vector<int64_t> in(xs.begin() + 2, xs.end());
    if (!kernel_extents(ctx, kernel) || !window_geometry(ctx, in, kernel, false, g)) return false;

    auto& s = ctx.make_state<ConvState>();
    ConvParams& p = s.p;
    p.batch = xs[0], p.c_in = xs[1], p.c_out = ws[0], p.group = group;
    to3(in, 1, p.in), to3(g.out, 1, p.out), to3(g.kernel, 1, p.kernel);
    to3(g.stride, 1, p.stride), to3(g.dilation, 1, p.dilation), to3(g.pad_begin, 0, p.pad);
    if (ctx.input(0)->dtype == DataType::kFloat) {
      if (p.c_in == p.group) {
        s.kernel = &kConvDepthwise;
        ctx.request_scratch(static_cast<size_t>(conv_dw_scratch_bytes(p)));
      } else {
        s.kernel = &kConvGemm;
        fit_gemm_blocks(p, shape_numel(g.out), ctx.target().scratch_budget());
        ctx.request_scratch(static_cast<size_t>(conv_gemm_scratch_bytes(p)));
        // (Microcontrollers' kernel stack holds no Winograd tile.)
        if (winograd_pays(p) && !ctx.target().is_microcontroller())
          s.winograd_bands = winograd_bands(p, ctx.target());
        KernelQuery q = conv_query(s);  // the weights as stored: no Winograd
        q.winograd_fits = false;
        s.variant = first_fitting_variant(q, ctx.target());
      }
    }
    Shape out = {p.batch, p.c_out};
    out.insert(out.end(), g.out.begin(), g.out.end());
    if (!infer_epilogue(ctx, out, s.epilogue)) return false;
    ctx.set_output(0, ctx.input(0)->dtype, out);
    return true;
  }

  // The float GEMM and depthwise kernels run the rows of families "conv" and "dwconv"
  // (onnxc/variants.h says which row takes which shape and target). A depthwise convolution
  // splits one image's input channels (it needs one per part); Winograd needs constant filters
  // (pack-weights transforms them) and the blocks infer() fitted.
  KernelQuery describe_kernel_query(const Node& node) const override {
    const auto& s = node.state_as<ConvState>();
    if (s.kernel != &kConvDepthwise && s.kernel != &kConvGemm) return {};
    KernelQuery q = conv_query(s);
    q.constant_weights = node.inputs[1]->is_constant();
    return q;
  }
  int kernel_tasks(const Node& node) const override { return node.state_as<ConvState>().tasks; }
  PartsPlan parts_plan(const Node& node) const override {
    const auto& s = node.state_as<ConvState>();
    if (s.tasks > 1 && is_winograd(s.variant)) return winograd_parts(s.p, s.tasks);
    if (s.tasks > 1 && s.kernel == &kConvGemm && s.variant) return gemm_parts(s, s.tasks);
    return OpHandler::parts_plan(node);  // depthwise: channels
  }
  size_t use_kernel(Node& node, const KernelVariant& v, int tasks) const override {
    auto& s = static_cast<ConvState&>(*node.state);
    s.variant = &v;
    s.tasks = tasks;
    if (is_winograd(&v)) return use_winograd(s);
    const index_t bytes = s.kernel == &kConvGemm            ? conv_gemm_scratch_bytes(s.p)
                          : v.fits == KernelFit::dwconv_kxk ? f32_dwconv_kxk_scratch_bytes(s.p)
                                                            : conv_dw_scratch_bytes(s.p);
    if (s.tasks == 1) return static_cast<size_t>(bytes);
    return static_cast<size_t>(s.tasks * task_scratch_bytes(bytes));  // a slice per part
  }
  std::vector<PackedInput> packed_inputs(const Node& node) const override {
    const auto& s = node.state_as<ConvState>();
    if (!is_winograd(s.variant)) return {};
    Tensor packed = Tensor::zeros(DataType::kFloat, {winograd_weight_floats(s.p)});
    pack_winograd_weights(s.p, node.inputs[1]->constant->as<float>(), packed.as<float>());
    return {{1, std::move(packed)}};
  }

 private:
  // Winograd's parts are a grid of blocks of bands x channel panels (winograd_grid): with
  // threads, blocks get narrower while that lowers the largest part's cost (fewer bands per
  // block give more blocks to split, but fill the register tiles less).
  static size_t use_winograd(ConvState& s) {
    s.p.tile = s.winograd_bands;
    if (s.tasks > 1) {
      ConvParams q = s.p;
      index_t best_cost = winograd_part_cost(s.p, winograd_grid(s.p, s.tasks));
      for (q.tile = s.winograd_bands - 1; q.tile >= 1; --q.tile) {
        const index_t cost = winograd_part_cost(q, winograd_grid(q, s.tasks));
        if (cost < best_cost) s.p.tile = q.tile, best_cost = cost;
      }
      const WinogradGrid g = winograd_grid(s.p, s.tasks);
      s.tasks = static_cast<int>(g.block_groups * g.panel_groups);
    }
    const index_t bytes = f32_conv_winograd_scratch_bytes(s.p);
    return static_cast<size_t>(s.tasks == 1 ? bytes : s.tasks * task_scratch_bytes(bytes));
  }
};

// ---- ConvTranspose -----------------------------------------------------------------------------

class ConvTransposeOp final : public ConvLikeOp {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(2, 3, 1, 1) || !check_types(ctx)) return false;
    const Shape &xs = ctx.input(0)->shape, &ws = ctx.input(1)->shape;
    const int64_t group = ctx.attr_int("group", 1);
    if (group < 1) return ctx.fail("group must be >= 1, is {}", group);
    if (!check_shapes(ctx, ws.size() > 1 ? ws[1] * group : 0)) return false;
    if (ws[0] != xs[1] || xs[1] % group)
      return ctx.fail("W is {} but X has {} channels: W[0] must equal C, and group ({}) divide it",
                      shape_str(ws), xs[1], group);
    std::vector<int64_t> kernel;
    if (!kernel_extents(ctx, kernel)) return false;
    const size_t n = kernel.size();
    const std::vector<int64_t> in(xs.begin() + 2, xs.end());
    std::vector<int64_t> stride = ctx.attr_ints("strides", std::vector<int64_t>(n, 1));
    std::vector<int64_t> dilation = ctx.attr_ints("dilations", std::vector<int64_t>(n, 1));
    std::vector<int64_t> pads = ctx.attr_ints("pads", std::vector<int64_t>(2 * n, 0));
    std::vector<int64_t> out_pad = ctx.attr_ints("output_padding", std::vector<int64_t>(n, 0));
    std::vector<int64_t> out_shape = ctx.attr_ints("output_shape");
    const std::string auto_pad = ctx.attr_string("auto_pad", "NOTSET");
    if (stride.size() != n || dilation.size() != n || pads.size() != 2 * n || out_pad.size() != n)
      return ctx.fail(
          "strides, dilations, pads and output_padding must have {}, {}, {} and {} values", n, n,
          2 * n, n);
    if (out_shape.size() == n + 2) out_shape.erase(out_shape.begin(), out_shape.begin() + 2);
    if (!out_shape.empty() && out_shape.size() != n)
      return ctx.fail("output_shape must have {} values (the spatial dims), has {}", n,
                      out_shape.size());
    if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" &&
        auto_pad != "VALID")
      return ctx.fail("auto_pad '{}' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID",
                      auto_pad);
    const bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
    std::vector<int64_t> out(n), pad_begin(n);
    for (size_t i = 0; i < n; ++i) {
      if (stride[i] < 1 || dilation[i] < 1 || kernel[i] < 1)
        return ctx.fail("kernel, strides and dilations must be positive");
      if (pads[i] < 0 || pads[i + n] < 0 || out_pad[i] < 0)
        return ctx.fail("pads and output_padding must be non-negative");
    }
    // The full output size, stride * (in - 1) + output_padding + (kernel - 1) * dilation + 1,
    // overflow-checked: hostile strides or dilations must not wrap it into a plausible size.
    std::vector<int64_t> full(n);
    for (size_t i = 0; i < n; ++i) {
      int64_t a = 0, b = 0, same_out = 0;
      if (!checked_mul(stride[i], in[i] - 1, &a) || !checked_mul(kernel[i] - 1, dilation[i], &b) ||
          !checked_add(a, b, &a) || !checked_add(a, out_pad[i], &a) ||
          !checked_add(a, 1, &full[i]) || !checked_mul(in[i], stride[i], &same_out))
        return ctx.fail("output spatial dim {} overflows int64 (strides {}, dilations {})", i,
                        stride[i], dilation[i]);
      if (same && out_shape.size() < n)  // SAME: the output is the input times the stride
        out_shape.push_back(same_out);
    }
    for (size_t i = 0; i < n; ++i) {
      if (!out_shape.empty()) {
        // Padding from the requested size; a size beyond the full output gets bias-only ends.
        out[i] = out_shape[i];
        const int64_t total = std::max<int64_t>(0, full[i] - out[i]);
        pad_begin[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      } else {
        if (auto_pad == "VALID") pads[i] = pads[i + n] = 0;
        if (!checked_sub(full[i], pads[i], &out[i]) || !checked_sub(out[i], pads[i + n], &out[i]))
          out[i] = 0;  // pads far beyond the output: refused just below
        pad_begin[i] = pads[i];
      }
      if (out[i] < 1)
        return ctx.fail("output spatial dim {} would be {}; it must be positive", i, out[i]);
    }

    auto& s = ctx.make_state<ConvState>();
    ConvParams& p = s.p;
    p.batch = xs[0], p.c_in = xs[1], p.c_out = ws[1] * group, p.group = group;
    to3(in, 1, p.in), to3(out, 1, p.out), to3(kernel, 1, p.kernel);
    to3(stride, 1, p.stride), to3(dilation, 1, p.dilation), to3(pad_begin, 0, p.pad);
    s.kernel = &kConvTransposeRef;
    if (ctx.input(0)->dtype == DataType::kFloat) {
      s.kernel = &kConvTransposeGemm;
      s.gemm_tile = &blocked_gemm_variant(ctx.target());
      const int64_t rows = ws[1] * p.kernel[0] * p.kernel[1] * p.kernel[2];
      const int64_t tile_bytes =
          std::min<int64_t>(kColumnTileBytes, static_cast<int64_t>(ctx.target().scratch_budget()));
      p.tile = equal_blocks(shape_numel(in), std::max<int64_t>(64, tile_bytes / (4 * rows)));
      ctx.request_scratch(static_cast<size_t>(conv_transpose_scratch_bytes(p)));
    }
    Shape y = {p.batch, p.c_out};
    y.insert(y.end(), out.begin(), out.end());
    ctx.set_output(0, ctx.input(0)->dtype, y);
    return true;
  }
};

const ConvOp kConv;
const ConvTransposeOp kConvTranspose;

}  // namespace

std::vector<OpRegistration> conv_ops() {
  return {{"", "Conv", 1, kMaxOpset, &kConv}, {"", "ConvTranspose", 1, kMaxOpset, &kConvTranspose}};
}

}  // namespace onnxc
