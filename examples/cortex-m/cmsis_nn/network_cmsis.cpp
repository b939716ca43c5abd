// One of make_models.py's int8 networks (kws_int8, cnn_int8: convolutions with Relu, a global
// average pool, a classifier) run with Arm's CMSIS-NN: the yardstick that onnxc's build of the
// same model is measured against (compare_cmsis_nn.sh). The network is the table of
// cmsis_params.h, which export_cmsis.py writes from the ONNX model (weights in CMSIS-NN's
// layouts, int32 biases, per-channel multiplier/shift); this file walks it, the same code for
// every model. The counterpart of onnxc's generated code, with the same C entry point, so
// main_cmsis.cpp runs it the way main.cpp runs onnxc's models:
//   cmsis_run(inputs, outputs, workspace)
//     inputs[0]   the float input (NCHW, as the graph's), quantized here as the graph's
//                 QuantizeLinear does, into NHWC
//     outputs[0]  the float logits, dequantized as the graph's last DequantizeLinear does
//     outputs[1]  the int8 logits (before that dequantization)
//     workspace   cmsis_workspace_bytes(), 4-byte aligned: the two ping-pong activation
//                 buffers, then one scratch buffer shared by every layer
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"
#include "cmsis_params.h"

namespace {

using namespace cmsis_params;

constexpr std::size_t align4(std::size_t n) {
  return (n + 3) / 4 * 4;
}
constexpr std::size_t kScratchOffset = align4(kBufferABytes) + align4(kBufferBBytes);

cmsis_nn_dims nhwc(const Shape& s) {
  return {1, s.h, s.w, s.c};
}

// CMSIS-NN's quantization structs hold non-const pointers but only read through them: the tables
// stay constant (in flash) and are never written.
int32_t* table(const int32_t* p) {
  return const_cast<int32_t*>(p);
}

cmsis_nn_per_channel_quant_params quant(const ConvLayer& l) {
  return {table(l.multiplier), table(l.shift)};
}

cmsis_nn_conv_params conv_params(const ConvLayer& l) {
  cmsis_nn_conv_params p = {};
  p.input_offset = l.input_offset;
  p.output_offset = l.output_offset;
  p.stride = {l.stride.w, l.stride.h};
  p.padding = {l.pad.w, l.pad.h};
  p.dilation = {1, 1};
  p.activation = {l.act_min, l.act_max};
  return p;
}

cmsis_nn_dw_conv_params dw_params(const ConvLayer& l) {
  cmsis_nn_dw_conv_params p = {};
  p.input_offset = l.input_offset;
  p.output_offset = l.output_offset;
  p.ch_mult = 1;
  p.stride = {l.stride.w, l.stride.h};
  p.padding = {l.pad.w, l.pad.h};
  p.dilation = {1, 1};
  p.activation = {l.act_min, l.act_max};
  return p;
}

// Filter dims: [out, kh, kw, in] for a convolution, [1, kh, kw, ch] for a depthwise one.
cmsis_nn_dims filter_dims(const ConvLayer& l) {
  return l.depthwise ? cmsis_nn_dims{1, l.kernel.h, l.kernel.w, l.out.c}
                     : cmsis_nn_dims{l.out.c, l.kernel.h, l.kernel.w, l.in.c};
}

int32_t conv_scratch_bytes(const ConvLayer& l) {
  const cmsis_nn_dims in = nhwc(l.in), f = filter_dims(l), out = nhwc(l.out);
  if (l.depthwise) {
    const cmsis_nn_dw_conv_params p = dw_params(l);
    return arm_depthwise_conv_wrapper_s8_get_buffer_size(&p, &in, &f, &out);
  }
  const cmsis_nn_conv_params p = conv_params(l);
  return arm_convolve_wrapper_s8_get_buffer_size(&p, &in, &f, &out);
}

// The largest scratch any layer asks for through its *_get_buffer_size function.
int32_t scratch_bytes() {
  int32_t bytes = arm_avgpool_s8_get_buffer_size(1, kPoolIn.c);
  const cmsis_nn_dims fc_filter = {kFcIn, 1, 1, kFcOut};
  bytes = std::max(bytes, arm_fully_connected_s8_get_buffer_size(&fc_filter));
  for (const ConvLayer& l : kConvs) bytes = std::max(bytes, conv_scratch_bytes(l));
  return bytes;
}

arm_cmsis_nn_status run_conv(const ConvLayer& l, const cmsis_nn_context& ctx, const int8_t* in,
                             int8_t* out) {
  const cmsis_nn_dims in_dims = nhwc(l.in), f = filter_dims(l), out_dims = nhwc(l.out);
  const cmsis_nn_dims bias_dims = {1, 1, 1, l.out.c};
  const cmsis_nn_per_channel_quant_params q = quant(l);
  if (l.depthwise) {
    const cmsis_nn_dw_conv_params p = dw_params(l);
    return arm_depthwise_conv_wrapper_s8(&ctx, &p, &q, &in_dims, in, &f, l.weights, &bias_dims,
                                         l.bias, &out_dims, out);
  }
  const cmsis_nn_conv_params p = conv_params(l);
  return arm_convolve_wrapper_s8(&ctx, &p, &q, &in_dims, in, &f, l.weights, &bias_dims, l.bias,
                                 &out_dims, out);
}

// GlobalAveragePool: arm_avgpool_s8 over the whole plane keeps the input's quantization, so the
// averages are then requantized to the graph's pool output scale and zero point (what TFLite
// would do with a QUANTIZE op after AVERAGE_POOL_2D; see export_cmsis.py).
arm_cmsis_nn_status run_pool(const cmsis_nn_context& ctx, const int8_t* in, int8_t* out) {
  cmsis_nn_pool_params p = {};
  p.stride = {1, 1};
  p.padding = {0, 0};
  p.activation = {-128, 127};
  const cmsis_nn_dims in_dims = nhwc(kPoolIn), f = {1, kPoolIn.h, kPoolIn.w, 1};
  const cmsis_nn_dims out_dims = {1, 1, 1, kPoolIn.c};
  const arm_cmsis_nn_status s = arm_avgpool_s8(&ctx, &p, &in_dims, in, &f, &out_dims, out);
  for (int32_t c = 0; c < kPoolIn.c; ++c) {
    const int32_t v = arm_nn_requantize(out[c] - kPoolInputZeroPoint, kPoolMultiplier, kPoolShift) +
                      kPoolOutputZeroPoint;
    out[c] = static_cast<int8_t>(std::min<int32_t>(127, std::max<int32_t>(-128, v)));
  }
  return s;
}

arm_cmsis_nn_status run_fc(const cmsis_nn_context& ctx, const int8_t* in, int8_t* out) {
  cmsis_nn_fc_params p = {};
  p.input_offset = kFcInputOffset;
  p.filter_offset = 0;
  p.output_offset = kFcOutputOffset;
  p.activation = {kFcActMin, kFcActMax};
  const cmsis_nn_per_channel_quant_params q = {table(kFcMultiplier), table(kFcShift)};
  const cmsis_nn_dims in_dims = {1, 1, 1, kFcIn}, f = {kFcIn, 1, 1, kFcOut};
  const cmsis_nn_dims bias_dims = {1, 1, 1, kFcOut}, out_dims = {1, 1, 1, kFcOut};
#if defined(ARM_MATH_MVEI)
  // The Helium kernel starts each output from ctx.buf: the bias plus input_offset * sum(weights)
  // (arm_fully_connected_s8_get_buffer_size asks for it), which TFLM computes once when it
  // prepares the model; here every inference (a few hundred instructions, counted).
  arm_vector_sum_s8(static_cast<int32_t*>(ctx.buf), kFcIn, kFcOut, kFcWeights, kFcInputOffset, 0,
                    kFcBias);
#endif
  return arm_fully_connected_per_channel_s8(&ctx, &p, &q, &in_dims, in, &f, kFcWeights, &bias_dims,
                                            kFcBias, &out_dims, out);
}

// The graph's QuantizeLinear as onnxc computes it: x / scale in float, rounded half to even
// (the default rounding mode), plus the zero point, saturated; read in the graph's NCHW order and
// written NHWC (kInput.c is a constant: with one channel, as kws_int8's, a plain copy loop).
void quantize_input(const float* x, int8_t* q) {
  constexpr int32_t plane = kInput.h * kInput.w;
  for (int32_t c = 0; c < kInput.c; ++c) {
    for (int32_t i = 0; i < plane; ++i) {
      const float r =
          std::nearbyint(x[c * plane + i] / kInputScale) + static_cast<float>(kInputZeroPoint);
      q[i * kInput.c + c] = static_cast<int8_t>(std::min(127.0f, std::max(-128.0f, r)));
    }
  }
}

void dequantize_logits(const int8_t* q, float* y) {
  for (int32_t i = 0; i < kFcOut; ++i)
    y[i] = static_cast<float>(q[i] - kLogitsZeroPoint) * kLogitsScale;
}

}  // namespace

extern "C" std::size_t cmsis_workspace_bytes() {
  return kScratchOffset + static_cast<std::size_t>(scratch_bytes());
}

extern "C" int cmsis_run(const void* const* inputs, void* const* outputs, void* workspace) {
  int8_t* const base = static_cast<int8_t*>(workspace);
  int8_t* buffers[2] = {base, base + align4(kBufferABytes)};  // tensor i lives in buffer i % 2
  const cmsis_nn_context ctx = {base + kScratchOffset, scratch_bytes()};
  quantize_input(static_cast<const float*>(inputs[0]), buffers[0]);
  int t = 0;  // the buffer holding the current tensor
  for (const ConvLayer& l : kConvs) {
    if (run_conv(l, ctx, buffers[t], buffers[1 - t]) != ARM_CMSIS_NN_SUCCESS) return 1;
    t = 1 - t;
  }
  if (run_pool(ctx, buffers[t], buffers[1 - t]) != ARM_CMSIS_NN_SUCCESS) return 2;
  t = 1 - t;
  int8_t* const logits_q = static_cast<int8_t*>(outputs[1]);
  if (run_fc(ctx, buffers[t], logits_q) != ARM_CMSIS_NN_SUCCESS) return 3;
  dequantize_logits(logits_q, static_cast<float*>(outputs[0]));
  return 0;
}
