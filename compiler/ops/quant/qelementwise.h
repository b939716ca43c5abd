// The compile-time side of the integer elementwise ops (ops/quant/qelementwise.cpp): the
// parameters of onnxc::qlinear_add_ref and onnxc::qlinear_mul_ref, and the QScale multipliers of
// QLinearMul, QLinearConcat and QLinearAveragePool, which lower-qdq also asks before it forms
// those nodes.
#pragma once

#include <cstdint>

#include "ir/dtype.h"
#include "onnxc/quantize.h"
#include "ops/op.h"

namespace onnxc {

// QLinearAdd's multipliers and shift for these scales (see onnxc/quantize.h) and the clamp of
// `type` (int8 or uint8; y_min = y_zero_point when `relu`). False when a scale is not a positive
// finite number or the ratios a_scale / y_scale, b_scale / y_scale do not fit the integer form
// (the larger must lie in [2^-9, 2^11): a shift in [10, 30] then keeps the sum in int32 and the
// multipliers' rounding under a quarter step).
bool qlinear_add_params(double a_scale, double b_scale, double y_scale, int32_t a_zero_point,
                        int32_t b_zero_point, int32_t y_zero_point, DataType type, bool relu,
                        QAddParams& out);

// QLinearMul's multiplier and shift for these scales (see onnxc/quantize.h) and the clamp of
// `type` (int8 or uint8; y_min = y_zero_point when `relu`). False when a scale is not a positive
// finite number or M = a_scale * b_scale / y_scale lies outside [2^-32, 2^15) (a shift in [16, 62]
// puts round(M * 2^shift) in [2^30, 2^31)).
bool qlinear_mul_params(double a_scale, double b_scale, double y_scale, int32_t a_zero_point,
                        int32_t b_zero_point, int32_t y_zero_point, DataType type, bool relu,
                        QMulParams& out);

// The QScale of a factor m (onnxc/quantize.h): multiplier = round(m * 2^shift) in [2^30, 2^31)
// with shift in [16, 62]. False when m lies outside [2^-32, 2^15) (or is not a number).
bool qlinear_scale(double m, QScale& out);

// The single constant float scale at input i and the zero point (of `type`) at input i + 1 (0 when
// absent) of a quantized op's node; reports through ctx (naming the input) and returns false
// otherwise. Shared by the QLinear handlers (qelementwise.cpp, qpool.cpp).
bool quant_scale_and_zero_point(InferContext& ctx, size_t i, DataType type, double& scale,
                                int32_t& zero_point);

}  // namespace onnxc
