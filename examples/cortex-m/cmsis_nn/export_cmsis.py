#!/usr/bin/env python3
"""Writes the C++ header network_cmsis.cpp needs to run one of make_models.py's int8 QDQ
networks (kws_int8.onnx, cnn_int8.onnx: convolutions with Relu, GlobalAveragePool, Flatten, Gemm)
with CMSIS-NN:
    export_cmsis.py MODEL.onnx HEADER.h

The header is a table: the input's quantization, one row per convolution (network_cmsis.cpp walks
them in order), the pool's and the classifier's parameters; the model's name (the file's stem) is
the name the runs print. Reads the QDQ graph (QuantizeLinear -> DequantizeLinear around every
activation, int8 weights dequantized per output channel, float biases) and converts each layer
into CMSIS-NN's terms:
  - layouts: activations NHWC; conv filters [out_ch, kh, kw, in_ch]; depthwise [1, kh, kw, ch];
    the Gemm's B [N, C] (transB=1) is already CMSIS-NN's [out, in] filter;
  - biases: int32 in accumulator units, round_half_even(b / float32(x_scale * w_scale[c])) (the
    bias scale quantization tools store, a float32 product);
  - requantization: per output channel, multiplier and shift as TFLite's QuantizeMultiplier
    computes them from the double x_scale * w_scale[c] / y_scale (as TFLite Micro's
    PopulateConvolutionQuantizationParams does);
  - offsets in CMSIS-NN's convention: input_offset = -x_zp, output_offset = y_zp;
  - Relu + QuantizeLinear(zp) as the clamp [max(-128, zp), 127]; without Relu [-128, 127].
GlobalAveragePool: arm_avgpool_s8 averages int8 values in the input's quantization, but the graph
quantizes the pool's output with a scale of its own (g_scale != the last conv's scale). The header
gives a per-tensor requantization (multiplier/shift of pool_in_scale / pool_out_scale) that
network_cmsis.cpp applies to the averages after arm_avgpool_s8, as a separate int8 -> int8 requantize (TFLite's
QUANTIZE op) would: two roundings where the graph has one (the mean is rounded to the input's step
first), which costs at most about half an input step.
The float input is quantized on the device (network_cmsis.cpp) with the graph's input scale and
zero point, the way onnxc's generated code does (x / scale in float, rounded half to even,
saturated); the graph's input is NCHW, so the same loop transposes it to NHWC (for one channel,
as kws_int8's, that is the identity).
"""
import hashlib
import math
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper


class Graph:
    """Lookups over an ONNX graph: initializers, each tensor's producer and its consumers."""

    def __init__(self, model):
        self.inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
        self.producer = {o: n for n in model.graph.node for o in n.output}
        self.consumers = {}
        for n in model.graph.node:
            for i in n.input:
                self.consumers.setdefault(i, []).append(n)
        self.nodes = list(model.graph.node)
        self.input = model.graph.input[0].name
        self.input_shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]

    def sole_consumer(self, name, op):
        users = self.consumers.get(name, [])
        assert len(users) == 1 and users[0].op_type == op, f"{name}: expected one {op} consumer"
        return users[0]

    def dequantized(self, name):
        """(quantized tensor name, scale array, zero point array) of the DequantizeLinear that
        produces `name`."""
        dq = self.producer[name]
        assert dq.op_type == "DequantizeLinear", f"{name} is not dequantized"
        zp = self.inits[dq.input[2]] if len(dq.input) > 2 else np.zeros(1, np.int8)
        return dq.input[0], self.inits[dq.input[1]].astype(np.float32), zp

    def requantized_output(self, name):
        """(scale, zero point, relu) of `name` -> [Relu] -> QuantizeLinear, and the name of the
        DequantizeLinear output that the next layer reads."""
        node = self.consumers[name][0]
        relu = node.op_type == "Relu"
        if relu:
            node = self.sole_consumer(node.output[0], "QuantizeLinear")
        assert node.op_type == "QuantizeLinear", f"{name}: no QuantizeLinear"
        dq = self.sole_consumer(node.output[0], "DequantizeLinear")
        scale = float(self.inits[node.input[1]])
        zp = int(self.inits[node.input[2]])
        return scale, zp, relu, dq.output[0]


def quantize_multiplier(m):
    """TFLite's QuantizeMultiplier: m = q * 2^shift with q a Q31 in [2^30, 2^31), rounded half away
    from zero (TfLiteRound)."""
    if m == 0.0:
        return 0, 0
    q, shift = math.frexp(m)
    q_fixed = int(math.floor(abs(q) * (1 << 31) + 0.5)) * (1 if q > 0 else -1)
    if q_fixed == (1 << 31):
        q_fixed //= 2
        shift += 1
    if shift < -31:
        return 0, 0
    assert shift <= 30, f"multiplier {m} too large"
    return q_fixed, shift


def requantization(x_scale, w_scales, y_scale):
    pairs = [quantize_multiplier(float(np.float64(x_scale) * np.float64(w) / np.float64(y_scale)))
             for w in w_scales]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def int32_bias(b, x_scale, w_scales):
    bias_scale = (np.float32(x_scale) * w_scales.astype(np.float32)).astype(np.float64)
    q = np.rint(b.astype(np.float64) / bias_scale)
    assert np.all(np.abs(q) < 2**31), "bias does not fit int32"
    return q.astype(np.int64).tolist()


def clamp(relu, zp):
    return (max(-128, zp) if relu else -128), 127


def conv_layer(g, node, x_name, in_shape):
    """One Conv node as a CMSIS-NN (depthwise) convolution; returns (layer dict, output DQ name,
    output shape [h, w, c])."""
    _, x_scale, x_zp = g.dequantized(x_name)
    w_q_name, w_scale, _ = g.dequantized(node.input[1])
    w = g.inits[w_q_name]  # [M, C/group, KH, KW]
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    group = attrs.get("group", 1)
    stride = attrs.get("strides", [1, 1])
    pads = attrs.get("pads", [0, 0, 0, 0])  # top, left, bottom, right
    h, wd, c = in_shape
    kh, kw = w.shape[2], w.shape[3]
    out_h = (h + pads[0] + pads[2] - kh) // stride[0] + 1
    out_w = (wd + pads[1] + pads[3] - kw) // stride[1] + 1
    depthwise = group > 1
    assert not depthwise or (group == c == w.shape[0] and w.shape[1] == 1), "only depthwise groups"
    # CMSIS-NN takes the top/left pads; the bottom/right ones follow from the output size (the
    # last window may stop short of the declared pad, or of the input's last rows or columns: a
    # stride-2 conv never reads them).
    assert (out_h - 1) * stride[0] + kh - h - pads[0] <= pads[2]
    assert (out_w - 1) * stride[1] + kw - wd - pads[1] <= pads[3]
    filt = w.transpose(1, 2, 3, 0) if depthwise else w.transpose(0, 2, 3, 1)
    y_scale, y_zp, relu, y_name = g.requantized_output(node.output[0])
    mult, shift = requantization(float(x_scale), w_scale, y_scale)
    lo, hi = clamp(relu, y_zp)
    layer = dict(name=node.output[0].removesuffix("_y"), depthwise=depthwise,
                 in_shape=(h, wd, c), out_shape=(out_h, out_w, w.shape[0]), kernel=(kh, kw),
                 stride=tuple(stride), pad=(pads[0], pads[1]), input_offset=-int(x_zp),
                 output_offset=y_zp, act=(lo, hi), weights=filt.flatten().tolist(),
                 bias=int32_bias(g.inits[node.input[2]], float(x_scale), w_scale),
                 mult=mult, shift=shift)
    return layer, y_name, layer["out_shape"]


def pool_layer(g, node, x_name, in_shape):
    _, x_scale, x_zp = g.dequantized(x_name)
    y_scale, y_zp, relu, y_name = g.requantized_output(node.output[0])
    assert not relu
    mult, shift = quantize_multiplier(float(np.float64(x_scale) / np.float64(y_scale)))
    return dict(in_shape=in_shape, input_zp=int(x_zp), output_zp=y_zp, mult=mult, shift=shift,
                in_scale=float(x_scale), out_scale=y_scale), y_name


def fc_layer(g, node, x_name):
    _, x_scale, x_zp = g.dequantized(x_name)
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    assert attrs.get("transB", 0) == 1 and attrs.get("transA", 0) == 0
    w_q_name, w_scale, _ = g.dequantized(node.input[1])
    w = g.inits[w_q_name]  # [out, in]: CMSIS-NN's layout already
    y_scale, y_zp, relu, y_name = g.requantized_output(node.output[0])
    mult, shift = requantization(float(x_scale), w_scale, y_scale)
    return dict(in_features=w.shape[1], out_features=w.shape[0], input_offset=-int(x_zp),
                output_offset=y_zp, act=clamp(relu, y_zp), weights=w.flatten().tolist(),
                bias=int32_bias(g.inits[node.input[2]], float(x_scale), w_scale),
                mult=mult, shift=shift, out_scale=y_scale), y_name


def read_network(model):
    """Walks the graph from its input: the input quantization, the convolutions, the pool and the
    classifier, in order."""
    g = Graph(model)
    n, c, h, w = g.input_shape
    assert n == 1, "batch 1"
    quant = g.sole_consumer(g.input, "QuantizeLinear")
    net = dict(input_shape=(h, w, c), input_scale=float(g.inits[quant.input[1]]),
               input_zp=int(g.inits[quant.input[2]]), convs=[])
    x = g.sole_consumer(quant.output[0], "DequantizeLinear").output[0]
    shape = net["input_shape"]
    while True:
        node = g.consumers[x][0]
        if node.op_type == "Conv":
            layer, x, shape = conv_layer(g, node, x, shape)
            net["convs"].append(layer)
        elif node.op_type == "GlobalAveragePool":
            net["pool"], x = pool_layer(g, node, x, shape)
        elif node.op_type == "Flatten":
            x = node.output[0]
            g.producer[x] = g.producer[node.input[0]]  # Flatten of [1, C, 1, 1]: same int8 data
        elif node.op_type == "Gemm":
            net["fc"], x = fc_layer(g, node, x)
            return net
        else:
            raise SystemExit(f"export_cmsis.py: unexpected {node.op_type}")


def ping_pong(net):
    """Sizes of the two activation buffers: tensor i of the chain (the quantized input, each
    layer's output, the pooled values) lives in buffer i % 2, so each buffer is as large as the
    largest tensor it holds and every layer reads one and writes the other. The int8 logits go
    straight to the caller's output."""
    sizes = [math.prod(net["input_shape"])]
    sizes += [math.prod(layer["out_shape"]) for layer in net["convs"]]
    sizes += [net["pool"]["in_shape"][2]]
    return max(sizes[0::2]), max(sizes[1::2])


def c_array(ctype, name, values):
    rows = [", ".join(str(v) for v in values[i:i + 24]) for i in range(0, len(values), 24)]
    body = ",\n    ".join(rows)
    return f"alignas(4) const {ctype} {name}[{len(values)}] = {{\n    {body}}};\n"


def c_float(x):
    """An exact float literal (hexadecimal), with its decimal value as a comment."""
    return f"{float(np.float32(x)).hex()}f /* {np.float32(x)} */"


def braces(values):
    return "{" + ", ".join(str(v) for v in values) + "}"


def conv_source(i, layer):
    p = f"kConv{i}"
    arrays = (c_array("int8_t", p + "Weights", layer["weights"]) +
              c_array("int32_t", p + "Bias", layer["bias"]) +
              c_array("int32_t", p + "Multiplier", layer["mult"]) +
              c_array("int32_t", p + "Shift", layer["shift"]))
    fields = [f"\"{layer['name']}\"", str(layer["depthwise"]).lower()]
    fields += [braces(layer[k]) for k in ("in_shape", "out_shape", "kernel", "stride", "pad")]
    fields += [str(v) for v in (layer["input_offset"], layer["output_offset"], *layer["act"])]
    fields += [p + part for part in ("Weights", "Bias", "Multiplier", "Shift")]
    return arrays, "    {" + ", ".join(fields) + "},\n"


PREAMBLE = """\
// Generated by examples/cortex-m/cmsis_nn/export_cmsis.py from {model} (sha256 {sha}).
// Do not edit. The int8 network of {model} in CMSIS-NN's terms (see export_cmsis.py):
// NHWC activations, filters [out, kh, kw, in] (depthwise [1, kh, kw, ch]), int32 biases,
// per-channel multiplier/shift, offsets input_offset = -x_zp, output_offset = y_zp.
#pragma once

#include <cstdint>

namespace cmsis_params {{

// The name the runs print (the model file's stem, as onnxc's --name).
constexpr char kModelName[] = "{name}";

struct Shape {{
  int32_t h, w, c;
}};
struct Pair {{
  int32_t h, w;
}};
struct ConvLayer {{
  const char* name;
  bool depthwise;  // arm_depthwise_conv_wrapper_s8 (multiplier 1), else arm_convolve_wrapper_s8
  Shape in, out;
  Pair kernel, stride, pad;  // pad: top and left (CMSIS-NN infers bottom and right)
  int32_t input_offset, output_offset, act_min, act_max;
  const int8_t* weights;
  const int32_t* bias;
  const int32_t* multiplier;
  const int32_t* shift;
}};

// The graph's input QuantizeLinear: q = saturate(round_half_even(x / kInputScale) + zp), from
// the float input in the graph's NCHW order to the first layer's NHWC.
constexpr float kInputScale = {input_scale};
constexpr int32_t kInputZeroPoint = {input_zp};
constexpr Shape kInput = {{{ih}, {iw}, {ic}}};
// The two ping-pong activation buffers (tensor i of the chain lives in buffer i % 2).
constexpr int32_t kBufferABytes = {buf_a};
constexpr int32_t kBufferBBytes = {buf_b};

"""


def pool_source(pool):
    h, w, c = pool["in_shape"]
    return f"""
// GlobalAveragePool: arm_avgpool_s8 over the whole {h}x{w} plane (same quantization in and out:
// scale {pool['in_scale']:.9g}, zero point {pool['input_zp']}), then a per-tensor requantize to the
// graph's pool output (scale {pool['out_scale']:.9g}, zero point {pool['output_zp']}):
// q_out = saturate(requantize(q_avg - kPoolInputZeroPoint) + kPoolOutputZeroPoint).
constexpr Shape kPoolIn = {{{h}, {w}, {c}}};
constexpr int32_t kPoolInputZeroPoint = {pool['input_zp']};
constexpr int32_t kPoolOutputZeroPoint = {pool['output_zp']};
constexpr int32_t kPoolMultiplier = {pool['mult']};
constexpr int32_t kPoolShift = {pool['shift']};
"""


def fc_source(fc):
    return (f"""
// Gemm (transB=1) as arm_fully_connected_per_channel_s8: weights [out, in], per-channel scales.
constexpr int32_t kFcIn = {fc['in_features']};
constexpr int32_t kFcOut = {fc['out_features']};
constexpr int32_t kFcInputOffset = {fc['input_offset']};
constexpr int32_t kFcOutputOffset = {fc['output_offset']};
constexpr int32_t kFcActMin = {fc['act'][0]};
constexpr int32_t kFcActMax = {fc['act'][1]};
// The graph's last QuantizeLinear / DequantizeLinear: logits = (q - zp) * kLogitsScale.
constexpr float kLogitsScale = {c_float(fc['out_scale'])};
constexpr int32_t kLogitsZeroPoint = {fc['output_offset']};
""" + c_array("int8_t", "kFcWeights", fc["weights"]) + c_array("int32_t", "kFcBias", fc["bias"]) +
            c_array("int32_t", "kFcMultiplier", fc["mult"]) +
            c_array("int32_t", "kFcShift", fc["shift"]))


def header(net, model_path):
    sha = hashlib.sha256(open(model_path, "rb").read()).hexdigest()
    buf_a, buf_b = ping_pong(net)
    ih, iw, ic = net["input_shape"]
    name = os.path.splitext(os.path.basename(model_path))[0]
    text = PREAMBLE.format(model=os.path.basename(model_path), sha=sha, name=name,
                           input_scale=c_float(net["input_scale"]), input_zp=net["input_zp"],
                           ih=ih, iw=iw, ic=ic, buf_a=buf_a, buf_b=buf_b)
    rows = ""
    for i, layer in enumerate(net["convs"]):
        arrays, row = conv_source(i, layer)
        text += arrays
        rows += row
    text += f"\nconstexpr ConvLayer kConvs[{len(net['convs'])}] = {{\n{rows}}};\n"
    text += pool_source(net["pool"]) + fc_source(net["fc"])
    return text + "\n}  // namespace cmsis_params\n"


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: export_cmsis.py MODEL.onnx HEADER.h")
    net = read_network(onnx.load(sys.argv[1]))
    with open(sys.argv[2], "w") as f:
        f.write(header(net, sys.argv[1]))


if __name__ == "__main__":
    main()
