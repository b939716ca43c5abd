#include "driver/compare.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "onnxc/convert.h"

namespace onnxc {
namespace {

// Element i as double, for the types compared with a tolerance.
double element_as_double(const Tensor& t, int64_t i) {
  switch (t.dtype) {
    case DataType::kFloat:
      return t.as<float>()[i];
    case DataType::kDouble:
      return t.as<double>()[i];
    case DataType::kFloat16:
      return to_float(t.as<float16>()[i]);
    case DataType::kBFloat16:
      return to_float(t.as<bfloat16>()[i]);
    case DataType::kFloat8E4M3FN:
      return to_float(t.as<float8e4m3fn>()[i]);
    case DataType::kFloat8E4M3FNUZ:
      return to_float(t.as<float8e4m3fnuz>()[i]);
    case DataType::kFloat8E5M2:
      return to_float(t.as<float8e5m2>()[i]);
    case DataType::kFloat8E5M2FNUZ:
      return to_float(t.as<float8e5m2fnuz>()[i]);
    case DataType::kFloat8E8M0:
      return to_float(t.as<float8e8m0>()[i]);
    default:
      return t.int_at(i);
  }
}

bool compared_with_tolerance(DataType t) {
  // Every float format one element per byte or wider; packed 4-bit floats compare bit for bit.
  return is_float(t) && dtype_info(t).bits >= 8 && t != DataType::kComplex64 &&
         t != DataType::kComplex128;
}

}  // namespace

Comparison compare_tensors(const Tensor& actual, const Tensor& expected, const Tolerance& tol) {
  Comparison c;
  if (actual.dtype != expected.dtype) {
    c.ok = false;
    c.detail = fmt::format("type {} but expected {}", dtype_name(actual.dtype),
                           dtype_name(expected.dtype));
    return c;
  }
  if (actual.shape != expected.shape) {
    c.ok = false;
    c.detail =
        fmt::format("shape {} but expected {}", shape_str(actual.shape), shape_str(expected.shape));
    return c;
  }
  const int64_t n = expected.numel();
  if (expected.dtype == DataType::kString) {  // exact, byte for byte
    for (size_t i = 0; i < expected.strings.size(); ++i)
      if (i >= actual.strings.size() || actual.strings[i] != expected.strings[i]) {
        c.ok = false;
        c.detail =
            fmt::format("element {}: got '{}' expected '{}'", i,
                        i < actual.strings.size() ? actual.strings[i] : "", expected.strings[i]);
        return c;
      }
    return c;
  }
  if (!compared_with_tolerance(expected.dtype)) {
    // Exact: integers, bools and the 8/4/2-bit formats bit for bit.
    if (expected.dtype == DataType::kBool || is_integer(expected.dtype) ||
        dtype_info(expected.dtype).bits >= 8) {
      size_t elem = dtype_info(expected.dtype).bits / 8;
      for (int64_t i = 0; elem && i < n; ++i) {
        const uint8_t* a = actual.data.data() + i * elem;
        const uint8_t* e = expected.data.data() + i * elem;
        bool equal = std::memcmp(a, e, elem) == 0;
        if (expected.dtype == DataType::kBool) equal = (*a != 0) == (*e != 0);
        if (!equal) {
          c.ok = false;
          c.detail =
              fmt::format("element {}: got {} expected {}", i, elem <= 8 ? actual.int_at(i) : 0,
                          elem <= 8 ? expected.int_at(i) : 0);
          return c;
        }
      }
      if (elem) return c;
    }
    if (actual.data != expected.data) {
      c.ok = false;
      c.detail = "packed data differs";
    }
    return c;
  }
  double worst_excess = 0;
  for (int64_t i = 0; i < n; ++i) {
    double a = element_as_double(actual, i), e = element_as_double(expected, i);
    if (std::isnan(a) && std::isnan(e)) continue;
    if (std::isinf(e) || std::isinf(a)) {
      if (a == e) continue;
      c.ok = false;
      c.detail = fmt::format("element {}: got {} expected {}", i, a, e);
      return c;
    }
    double err = std::fabs(a - e), allowed = tol.atol + tol.rtol * std::fabs(e);
    if (std::isnan(a) || std::isnan(e) || err > allowed) {
      double excess = std::isnan(err) ? INFINITY : err - allowed;
      if (c.ok || excess > worst_excess) {
        worst_excess = excess;
        c.detail = fmt::format(
            "worst element {}: got {:.9g} expected {:.9g} (abs err {:.3g}, rel err {:.3g})", i, a,
            e, err, e != 0 ? err / std::fabs(e) : err);
      }
      c.ok = false;
    }
  }
  return c;
}

Comparison compare_random(const Tensor& actual, const Tensor& expected, const ValueRange& range) {
  Comparison c;
  if (actual.dtype != expected.dtype || actual.shape != expected.shape) {
    c.ok = false;
    c.detail =
        fmt::format("{}[{}] but expected {}[{}]", dtype_name(actual.dtype), shape_str(actual.shape),
                    dtype_name(expected.dtype), shape_str(expected.shape));
    return c;
  }
  for (int64_t i = 0; i < actual.numel(); ++i) {
    const double a = element_as_double(actual, i);
    if (!std::isfinite(a) || a < range.low || a > range.high ||
        (range.integral && a != std::floor(a))) {
      c.ok = false;
      c.detail = fmt::format("element {}: {} is outside the random op's range [{}, {}]{}", i, a,
                             range.low, range.high, range.integral ? " of whole numbers" : "");
      return c;
    }
  }
  return c;
}

}  // namespace onnxc
