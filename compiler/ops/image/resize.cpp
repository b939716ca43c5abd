// Resize (10, 11, 13, 18, 19) and Upsample (7, 9). The output shape and every sampling position
// are known at compile time (scales, sizes and roi must be constants), so infer() builds per-axis
// tap tables -- input offsets and weights for each output position along each axis -- and the
// kernels in onnxc/resize.h only walk them (see there).
//
// Per axis, with x the output coordinate, the source coordinate x_ori follows
// coordinate_transformation_mode (half_pixel by default from opset 11; asymmetric for Upsample
// and Resize-10; tf_half_pixel_for_nn only at 11-12); the taps are the 2m input positions around
// x_ori (m = 1 for nearest and linear, 2 for cubic, more for antialiased downsampling), clamped to
// the edge, optionally with outside taps excluded and the weights renormalized (exclude_outside).
#include "onnxc/resize.h"

#include <algorithm>
#include <cmath>

#include "ops/dispatch.h"
#include "ops/half_compute.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

enum class Mode { kNearest, kLinear, kCubic };
enum class Coord {
  kHalfPixel,
  kHalfPixelSymmetric,
  kPytorchHalfPixel,
  kAlignCorners,
  kAsymmetric,
  kTfCrop,
  kTfHalfPixelForNn  // opsets 11-12 only
};
enum class Nearest { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil, kSimple };

struct Config {
  Mode mode = Mode::kNearest;
  Coord coord = Coord::kHalfPixel;
  Nearest nearest = Nearest::kRoundPreferFloor;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  bool antialias = false;
};

struct AxisSpec {
  int64_t in = 1, out = 1;
  double scale = 1.0;
  double roi_start = 0.0, roi_end = 1.0;
};

struct ResizeState : OpState {
  ResizeParams p{};
  bool nearest = false;
  std::vector<int64_t> off;  // all axes' offset tables, concatenated
  std::vector<double> w;     // their weights (empty for nearest)
  HalfPlan half;
};

// The source coordinate of output position x along one axis.
double source_coord(const Config& c, const AxisSpec& a, int64_t x) {
  const double in = static_cast<double>(a.in), xd = static_cast<double>(x);
  const double out_width = a.scale * in;  // the real-valued resized length
  switch (c.coord) {
    case Coord::kAlignCorners:
      return out_width == 1 ? 0.0 : xd * (in - 1) / (out_width - 1);
    case Coord::kAsymmetric:
      return xd / a.scale;
    case Coord::kTfCrop: {
      const double span = a.roi_end - a.roi_start;
      const double v =
          out_width == 1 ? span * (in - 1) / 2 : xd * span * (in - 1) / (out_width - 1);
      return v + a.roi_start * (in - 1);
    }
    case Coord::kPytorchHalfPixel:
      return out_width == 1 ? -0.5 : (xd + 0.5) / a.scale - 0.5;
    case Coord::kHalfPixel:
      return (xd + 0.5) / a.scale - 0.5;
    case Coord::kTfHalfPixelForNn:
      return (xd + 0.5) / a.scale;
    case Coord::kHalfPixelSymmetric: {
      const double adjustment = static_cast<double>(a.out) / out_width;
      const double offset = in / 2 * (1 - adjustment);
      return offset + (xd + 0.5) / a.scale - 0.5;
    }
  }
  return 0.0;
}

double cubic_weight(double x, double A) {  // Keys' cubic convolution kernel
  x = std::fabs(x);
  if (x <= 1) return ((A + 2) * x - (A + 3)) * x * x + 1;
  if (x < 2) return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
  return 0.0;
}

// Weights of the 2m taps b-m+1 .. b+m for a source coordinate b + ratio, ratio in (0, 1].
std::vector<double> tap_weights(const Config& c, double ratio, double scale, bool upsampling_axis) {
  switch (c.mode) {
    case Mode::kNearest: {
      bool upper = false;
      if (ratio == 1.0) {
        upper = true;
      } else {
        switch (c.nearest) {
          case Nearest::kRoundPreferFloor:
            upper = ratio > 0.5;
            break;
          case Nearest::kRoundPreferCeil:
            upper = ratio >= 0.5;
            break;
          case Nearest::kFloor:
            upper = false;
            break;
          case Nearest::kCeil:
            upper = true;
            break;
          case Nearest::kSimple:
            upper = !upsampling_axis;
            break;
        }
      }
      return {upper ? 0.0 : 1.0, upper ? 1.0 : 0.0};
    }
    case Mode::kLinear: {
      if (!c.antialias || scale >= 1.0) return {1 - ratio, ratio};
      const int64_t start = static_cast<int64_t>(std::floor(-1 / scale) + 1);
      const int64_t n = 2 - 2 * start;
      std::vector<double> w;
      double sum = 0;
      for (int64_t i = 0; i < n; ++i) {
        const double v =
            std::clamp(1 - std::fabs((static_cast<double>(start + i) - ratio) * scale), 0.0, 1.0);
        w.push_back(v);
        sum += v;
      }
      for (double& v : w) v /= sum;
      return w;
    }
    case Mode::kCubic: {
      if (!c.antialias || scale >= 1.0)
        return {cubic_weight(ratio + 1, c.cubic_a), cubic_weight(ratio, c.cubic_a),
                cubic_weight(1 - ratio, c.cubic_a), cubic_weight(2 - ratio, c.cubic_a)};
      const int64_t start = static_cast<int64_t>(std::floor(-2 / scale) + 1);
      const int64_t n = 2 - 2 * start;
      std::vector<double> w;
      double sum = 0;
      for (int64_t i = 0; i < n; ++i) {
        const double v = cubic_weight(scale * (static_cast<double>(start + i) - ratio), c.cubic_a);
        w.push_back(v);
        sum += v;
      }
      for (double& v : w) v /= sum;
      return w;
    }
  }
  return {};
}

// One axis's table: for each output position, `taps` (offset, weight) pairs; the offset is the
// input index times `stride`, -1 in the first pair for an extrapolated position.
void build_axis(const Config& c, const AxisSpec& a, int64_t stride, bool nearest,
                std::vector<int64_t>& off, std::vector<double>& w, int64_t& taps) {
  std::vector<std::vector<std::pair<int64_t, double>>> rows(static_cast<size_t>(a.out));
  for (int64_t x = 0; x < a.out; ++x) {
    auto& row = rows[static_cast<size_t>(x)];
    const double xo = source_coord(c, a, x);
    if (c.coord == Coord::kTfCrop && (xo < 0 || xo > static_cast<double>(a.in - 1))) {
      row.push_back({-1, 0.0});
      continue;
    }
    double b = std::floor(xo), ratio = xo - b;
    if (ratio == 0) {
      b -= 1;
      ratio = 1;
    }
    std::vector<double> cw = tap_weights(c, ratio, a.scale, a.scale >= 1.0);
    const int64_t m = static_cast<int64_t>(cw.size()) / 2;
    const int64_t first = static_cast<int64_t>(b) - m + 1;
    if (c.exclude_outside) {
      double sum = 0;
      for (size_t j = 0; j < cw.size(); ++j) {
        const int64_t i = first + static_cast<int64_t>(j);
        if (i < 0 || i >= a.in) cw[j] = 0;
        sum += cw[j];
      }
      for (double& v : cw) v /= sum;
    }
    for (size_t j = 0; j < cw.size(); ++j) {
      if (cw[j] == 0) continue;
      const int64_t i = std::clamp<int64_t>(first + static_cast<int64_t>(j), 0, a.in - 1);
      row.push_back({i * stride, cw[j]});
    }
    if (row.empty())
      row.push_back({std::clamp<int64_t>(static_cast<int64_t>(b) + 1, 0, a.in - 1) * stride, 0.0});
  }
  taps = 1;
  if (!nearest)
    for (const auto& r : rows) taps = std::max<int64_t>(taps, static_cast<int64_t>(r.size()));
  for (const auto& r : rows)
    for (int64_t t = 0; t < taps; ++t) {
      // Pads short rows with weight-0 repeats of their last tap.
      const auto& e =
          r[static_cast<size_t>(std::min<int64_t>(t, static_cast<int64_t>(r.size()) - 1))];
      off.push_back(t == 0 || e.first >= 0 ? e.first : 0);
      if (!nearest) w.push_back(t < static_cast<int64_t>(r.size()) ? e.second : 0.0);
    }
}

// Reads a constant float input as doubles; nullptr-safe (absent or empty gives {}).
bool const_doubles(InferContext& ctx, size_t i, const char* what, std::vector<double>& v,
                   bool& present) {
  present = false;
  if (!ctx.has_input(i)) return true;
  const Value* in = ctx.input(i);
  if (in->has_shape && in->numel() == 0) return true;
  const Tensor* t = ctx.constant_input(i);
  if (!t)
    return ctx.fail("{} input must be a constant (it decides the output shape and sampling)", what);
  if (t->dtype != DataType::kFloat && t->dtype != DataType::kDouble)
    return ctx.fail("{} input must be float or double, is {}", what, dtype_name(t->dtype));
  for (int64_t k = 0; k < t->numel(); ++k) v.push_back(t->double_at(k));
  present = true;
  return true;
}

// mode: nearest, linear (Upsample's "bilinear" too) or, from opset 11, cubic; interpolation
// other than nearest reads float types only.
bool parse_mode(InferContext& ctx, bool upsample, bool legacy, DataType t, Config& c) {
  const std::string mode = ctx.attr_string("mode", "nearest");
  if (mode == "nearest")
    c.mode = Mode::kNearest;
  else if (mode == "linear" || (upsample && mode == "bilinear"))
    c.mode = Mode::kLinear;
  else if (mode == "cubic" && !legacy)
    c.mode = Mode::kCubic;
  else
    return ctx.fail("mode '{}' is not one of nearest, linear{}", mode, legacy ? "" : ", cubic");
  if (c.mode != Mode::kNearest && !(t == DataType::kFloat || t == DataType::kDouble || is_half(t)))
    return ctx.fail(
        "{} interpolation of {} tensors is not supported (float types only; nearest takes any "
        "type)",
        mode, dtype_name(t));
  if (t == DataType::kString) return ctx.fail("string tensors are not supported");
  return true;
}

// coordinate_transformation_mode, as each opset allows it.
bool parse_coord(InferContext& ctx, int opset, Config& c) {
  const std::string coord = ctx.attr_string("coordinate_transformation_mode", "half_pixel");
  if (coord == "half_pixel")
    c.coord = Coord::kHalfPixel;
  else if (coord == "half_pixel_symmetric" && opset >= 19)
    c.coord = Coord::kHalfPixelSymmetric;
  else if (coord == "pytorch_half_pixel")
    c.coord = Coord::kPytorchHalfPixel;
  else if (coord == "align_corners")
    c.coord = Coord::kAlignCorners;
  else if (coord == "asymmetric")
    c.coord = Coord::kAsymmetric;
  else if (coord == "tf_crop_and_resize")
    c.coord = Coord::kTfCrop;
  else if (coord == "tf_half_pixel_for_nn" && opset < 13)
    c.coord = Coord::kTfHalfPixelForNn;
  else
    return ctx.fail("coordinate_transformation_mode '{}' is not supported at opset {}", coord,
                    opset);
  return true;
}

// Resize from opset 11: coordinates, nearest rounding, the cubic coefficient, and from opset 18
// antialias, axes and keep_aspect_ratio_policy.
bool parse_sampling(InferContext& ctx, int opset, Config& c, std::vector<int64_t>& axes,
                    std::string& policy) {
  if (!parse_coord(ctx, opset, c)) return false;
  const std::string nm = ctx.attr_string("nearest_mode", "round_prefer_floor");
  if (nm == "round_prefer_floor")
    c.nearest = Nearest::kRoundPreferFloor;
  else if (nm == "round_prefer_ceil")
    c.nearest = Nearest::kRoundPreferCeil;
  else if (nm == "floor")
    c.nearest = Nearest::kFloor;
  else if (nm == "ceil")
    c.nearest = Nearest::kCeil;
  else
    return ctx.fail(
        "nearest_mode '{}' is not one of round_prefer_floor, round_prefer_ceil, floor, ceil", nm);
  c.cubic_a = ctx.attr_float("cubic_coeff_a", -0.75f);
  c.exclude_outside = ctx.attr_int("exclude_outside", 0) != 0;
  if (opset < 18) return true;
  c.antialias = ctx.attr_int("antialias", 0) != 0;
  if (c.antialias && c.mode == Mode::kNearest)
    return ctx.fail("antialias is only defined for linear and cubic modes");
  axes = ctx.attr_ints("axes");
  policy = ctx.attr_string("keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    return ctx.fail("keep_aspect_ratio_policy '{}' is not one of stretch, not_larger, not_smaller",
                    policy);
  return true;
}

// The axes resized: the attribute's, normalized and distinct, or every axis.
bool resized_axes(InferContext& ctx, int64_t rank, std::vector<int64_t>& axes) {
  if (axes.empty())
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  for (int64_t& a : axes)
    if (!ctx.normalize_axis(a, rank, "axes")) return false;
  for (size_t i = 0; i < axes.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (axes[i] == axes[j]) return ctx.fail("axes has {} twice", axes[i]);
  return true;
}

// What the output size comes from: scales (an attribute before Upsample-9, else an input) or
// sizes, and tf_crop_and_resize's roi; one value per resized axis.
struct ResizeTargets {
  std::vector<double> scales, roi;
  std::vector<int64_t> sizes;
  bool has_scales = false, has_sizes = false, has_roi = false;
};

bool read_targets(InferContext& ctx, bool scales_attr, bool legacy, const Config& c, size_t na,
                  ResizeTargets& r) {
  if (scales_attr) {
    for (float f : ctx.attr_floats("scales")) r.scales.push_back(f);
    r.has_scales = !r.scales.empty();
  } else if (legacy) {
    if (!const_doubles(ctx, 1, "scales", r.scales, r.has_scales)) return false;
  } else {
    if (!const_doubles(ctx, 2, "scales", r.scales, r.has_scales)) return false;
    if (ctx.has_input(3) && !(ctx.input(3)->has_shape && ctx.input(3)->numel() == 0)) {
      const Tensor* st = ctx.constant_input(3);
      if (!st) return ctx.fail("sizes input must be a constant (it decides the output shape)");
      r.sizes = st->to_ints();
      r.has_sizes = true;
    }
    if (c.coord == Coord::kTfCrop && !const_doubles(ctx, 1, "roi", r.roi, r.has_roi)) return false;
  }
  if (r.has_scales == r.has_sizes)
    return ctx.fail("exactly one of scales and sizes must be given (non-empty)");
  if (r.has_scales && r.scales.size() != na)
    return ctx.fail("scales has {} values, expected {}", r.scales.size(), na);
  if (r.has_sizes && r.sizes.size() != na)
    return ctx.fail("sizes has {} values, expected {}", r.sizes.size(), na);
  if (r.has_roi && r.roi.size() != 2 * na)
    return ctx.fail("roi has {} values, expected {} (starts then ends)", r.roi.size(), 2 * na);
  if (c.coord == Coord::kTfCrop && !r.has_roi)
    return ctx.fail("tf_crop_and_resize needs the roi input");
  return true;
}

// Each axis's input and output size, scale and roi; keep_aspect_ratio_policy then gives the
// resized axes one common scale.
bool axis_specs(InferContext& ctx, const Shape& in, const std::vector<int64_t>& axes,
                const ResizeTargets& r, bool upsample, const std::string& policy,
                std::vector<AxisSpec>& spec) {
  spec.assign(in.size(), AxisSpec{});
  for (size_t d = 0; d < in.size(); ++d) spec[d].in = spec[d].out = in[d];
  const size_t na = axes.size();
  for (size_t i = 0; i < na; ++i) {
    AxisSpec& a = spec[static_cast<size_t>(axes[i])];
    if (r.has_roi) {
      a.roi_start = r.roi[i];
      a.roi_end = r.roi[na + i];
    }
    if (r.has_scales) {
      if (!(r.scales[i] > 0)) return ctx.fail("scale {} is not positive", r.scales[i]);
      if (upsample && r.scales[i] < 1) return ctx.fail("Upsample scale {} is below 1", r.scales[i]);
      a.scale = r.scales[i];
      a.out = static_cast<int64_t>(std::floor(r.scales[i] * static_cast<double>(a.in)));
    } else {
      if (r.sizes[i] < 0) return ctx.fail("size {} is negative", r.sizes[i]);
      if (a.in == 0) return ctx.fail("cannot resize an empty axis");
      a.out = r.sizes[i];
      a.scale = static_cast<double>(r.sizes[i]) / static_cast<double>(a.in);
    }
  }
  if (r.has_sizes && policy != "stretch") {
    double s = spec[static_cast<size_t>(axes[0])].scale;
    for (int64_t a : axes) {
      const double v = spec[static_cast<size_t>(a)].scale;
      s = policy == "not_larger" ? std::min(s, v) : std::max(s, v);
    }
    for (int64_t a : axes) {
      AxisSpec& sp = spec[static_cast<size_t>(a)];
      sp.scale = s;
      sp.out = static_cast<int64_t>(s * static_cast<double>(sp.in) + 0.5);
    }
  }
  for (const AxisSpec& a : spec)
    if (a.in == 0 && a.out > 0) return ctx.fail("cannot resize an empty axis");
  return true;
}

class ResizeOp final : public OpHandler {
 public:
  explicit ResizeOp(bool upsample) : upsample_(upsample) {}

  bool infer(InferContext& ctx) const override {
    const int opset = ctx.opset();
    const bool legacy = upsample_ || opset < 11;  // asymmetric, no roi/sizes
    const bool scales_attr = upsample_ && opset < 9;
    if (!ctx.check_arity(1, scales_attr ? 1 : legacy ? 2 : 4, 1, 1)) return false;
    const Value* x = ctx.input(0);
    const DataType t = x->dtype;
    const int64_t rank = static_cast<int64_t>(x->shape.size());
    if (rank < 1 || rank > kMaxRank)
      return ctx.fail("input rank {} is not in [1, {}]", rank, kMaxRank);
    Config c;
    if (!parse_mode(ctx, upsample_, legacy, t, c)) return false;
    std::vector<int64_t> axes;
    std::string policy = "stretch";
    if (legacy) {
      c.coord = Coord::kAsymmetric;
      c.nearest = Nearest::kSimple;
    } else if (!parse_sampling(ctx, opset, c, axes, policy)) {
      return false;
    }
    ResizeTargets targets;
    std::vector<AxisSpec> spec;
    if (!resized_axes(ctx, rank, axes) ||
        !read_targets(ctx, scales_attr, legacy, c, axes.size(), targets) ||
        !axis_specs(ctx, x->shape, axes, targets, upsample_, policy, spec))
      return false;

    auto& s = ctx.make_state<ResizeState>();
    s.nearest = c.mode == Mode::kNearest;
    s.p.rank = static_cast<int>(rank);
    s.p.extrapolation_value = legacy ? 0.0 : ctx.attr_float("extrapolation_value", 0.0f);
    if (is_half(t) && s.nearest && c.coord == Coord::kTfCrop && s.p.extrapolation_value != 0)
      return ctx.fail("a non-zero extrapolation_value for {} nearest resizing is not supported",
                      dtype_name(t));
    Shape out_shape;
    int64_t stride = 1;
    std::vector<int64_t> strides(static_cast<size_t>(rank));
    for (int64_t d = rank - 1; d >= 0; --d) {
      strides[static_cast<size_t>(d)] = stride;
      stride *= spec[static_cast<size_t>(d)].in;
    }
    for (int64_t d = 0; d < rank; ++d) {
      const AxisSpec& a = spec[static_cast<size_t>(d)];
      s.p.out_dims[d] = a.out;
      s.p.table[d] = static_cast<index_t>(s.off.size());
      int64_t taps = 1;
      if (a.in > 0) build_axis(c, a, strides[static_cast<size_t>(d)], s.nearest, s.off, s.w, taps);
      s.p.taps[d] = taps;
      out_shape.push_back(a.out);
    }
    if (s.off.empty()) s.off.push_back(0);
    if (!s.nearest && s.w.empty()) s.w.push_back(0);
    ctx.set_output(0, t, out_shape);
    if (!s.nearest) s.half = plan_half(ctx, {0}, {0});
    return true;
  }

  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    const auto& s = n.state_as<ResizeState>();
    std::vector<index_t> off(s.off.begin(), s.off.end());
    if (s.nearest)
      return visit_dtype<kAllPlain>(in[0]->dtype, [&](auto tag) {
        using T = decltype(tag);
        resize_nearest_ref(s.p, off.data(), in[0]->as<T>(), out[0].as<T>());
      });
    if (in[0]->dtype == DataType::kFloat) {
      std::vector<float> w(s.w.begin(), s.w.end());
      resize_ref(s.p, off.data(), w.data(), in[0]->as<float>(), out[0].as<float>());
      return true;
    }
    if (in[0]->dtype == DataType::kDouble) {
      resize_ref(s.p, off.data(), s.w.data(), in[0]->as<double>(), out[0].as<double>());
      return true;
    }
    return false;
  }

  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<ResizeState>();
    ctx.include("onnxc/resize.h");
    const ResizeParams& p = s.p;
    std::vector<int64_t> dims(p.out_dims, p.out_dims + p.rank), taps(p.taps, p.taps + p.rank),
        table(p.table, p.table + p.rank);
    ctx.line(
        "static constexpr onnxc::ResizeParams p = {{/*rank=*/{}, /*out_dims=*/{}, /*taps=*/{}, "
        "/*table=*/{}, /*extrapolation_value=*/{}}};",
        p.rank, cpp_ints(dims), cpp_ints(taps), cpp_ints(table), cpp_double(p.extrapolation_value));
    ctx.line("static constexpr onnxc::index_t off[] = {};", cpp_ints(s.off));
    if (s.nearest) {
      ctx.line("onnxc::resize_nearest_ref(p, off, {}, {});", ctx.in(0), ctx.out(0));
      return;
    }
    const bool dbl = ctx.input(0)->dtype == DataType::kDouble;
    std::string w;
    for (size_t i = 0; i < s.w.size(); ++i)
      w += (i ? ", " : "") + (dbl ? cpp_double(s.w[i]) : cpp_float(static_cast<float>(s.w[i])));
    ctx.line("static constexpr {} w[] = {{{}}};", dbl ? "double" : "float", w);
    const HalfNames n = emit_widen(ctx, s.half);
    ctx.line("onnxc::resize_ref(p, off, w, {}, {});", n.in(0), n.out(0));
    emit_narrow(ctx, s.half, n);
  }

 private:
  bool upsample_;
};

const ResizeOp kResize(false);
const ResizeOp kUpsample(true);

}  // namespace

std::vector<OpRegistration> resize_ops() {
  return {{"", "Resize", 10, kMaxOpset, &kResize}, {"", "Upsample", 7, 9, &kUpsample}};
}

}  // namespace onnxc
