"""Writes the models the Cortex-M example runs besides the README's CNN:
  kws.onnx    a keyword-spotting DS-CNN (the "small" model of Hello Edge, Zhang et al. 2017):
              1x1x49x10 MFCC features, a 10x4 stride-2 conv to 64 channels, 4 depthwise-separable
              blocks (BatchNorm, Relu), average pooling, a 12-way classifier; ~23k weights
  kws_int8.onnx  the same network quantized as quantization tools write it (QDQ form): BatchNorm
              folded into the convolutions, int8 weights symmetric per output channel, int8
              activations per tensor (the input symmetric, Relu outputs with zero point -128),
              scales calibrated on 16 inputs drawn as the example's (uniform in [-1, 1)); float
              input and output, quantized and dequantized at the ends
  cnn_int8.onnx  a small CIFAR-sized image CNN in the same QDQ form, quantized the same way:
              float 1x3x32x32 input, a 3x3 conv to 16 channels, a depthwise 3x3 stride 2 (pad 1),
              a pointwise conv to 32, a depthwise 3x3 stride 2 (no pad: 16x16 -> 7x7), a pointwise
              conv to 64 (each with Relu), global average pooling, a 10-way Gemm; ~4k weights
  small.onnx  a conformance-sized graph of the ops whose float kernels used double math:
              BatchNormalization, AveragePool, Gemm with alpha and beta, Softmax
Weights are deterministic (numpy seed 0; cnn_int8's, seed 2; the calibration inputs, seed 1)."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(0)


def weight(name, *shape, scale=0.2):
    return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)


def bn_params(prefix, c):
    return [numpy_helper.from_array((1 + 0.1 * rng.standard_normal(c)).astype(np.float32), prefix + "_s"),
            numpy_helper.from_array((0.1 * rng.standard_normal(c)).astype(np.float32), prefix + "_b"),
            numpy_helper.from_array((0.1 * rng.standard_normal(c)).astype(np.float32), prefix + "_m"),
            numpy_helper.from_array((1 + 0.1 * rng.random(c)).astype(np.float32), prefix + "_v")]


def kws():
    nodes, inits = [], []
    c = 64
    inits += [weight("c0_w", c, 1, 10, 4), weight("c0_b", c)]
    nodes.append(helper.make_node("Conv", ["mfcc", "c0_w", "c0_b"], ["x0"], pads=[4, 1, 5, 2], strides=[2, 2]))
    nodes.append(helper.make_node("Relu", ["x0"], ["r0"]))
    x = "r0"
    for i in range(4):
        inits += [weight(f"dw{i}_w", c, 1, 3, 3), weight(f"pw{i}_w", c, c, 1, 1, scale=0.1)]
        inits += bn_params(f"bn{i}a", c) + bn_params(f"bn{i}b", c)
        nodes.append(helper.make_node("Conv", [x, f"dw{i}_w"], [f"d{i}"], group=c, pads=[1, 1, 1, 1]))
        nodes.append(helper.make_node("BatchNormalization", [f"d{i}"] + [f"bn{i}a_{k}" for k in "sbmv"], [f"da{i}"]))
        nodes.append(helper.make_node("Relu", [f"da{i}"], [f"dr{i}"]))
        nodes.append(helper.make_node("Conv", [f"dr{i}", f"pw{i}_w"], [f"p{i}"]))
        nodes.append(helper.make_node("BatchNormalization", [f"p{i}"] + [f"bn{i}b_{k}" for k in "sbmv"], [f"pa{i}"]))
        nodes.append(helper.make_node("Relu", [f"pa{i}"], [f"pr{i}"]))
        x = f"pr{i}"
    inits += [weight("fc_w", 12, c), weight("fc_b", 12)]
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["g"]))
    nodes.append(helper.make_node("Flatten", ["g"], ["f"]))
    nodes.append(helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["logits"], transB=1))
    graph = helper.make_graph(nodes, "kws", [helper.make_tensor_value_info("mfcc", TensorProto.FLOAT, [1, 1, 49, 10])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 12])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


# ---- int8 models in QDQ form: kws_int8 (kws() quantized) and cnn_int8 --------------------------

def conv2d(x, w, b, stride=(1, 1), pads=(0, 0, 0, 0), group=1):
    """The float convolution of x [C, H, W] by w [M, C/group, KH, KW] (pads: top, left, bottom,
    right), for calibration."""
    c, m, kh, kw = x.shape[0], w.shape[0], w.shape[2], w.shape[3]
    xp = np.pad(x, ((0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (xp.shape[1] - kh) // stride[0] + 1
    ow = (xp.shape[2] - kw) // stride[1] + 1
    cg, mg = c // group, m // group
    y = np.zeros((m, oh, ow), np.float64)
    for g in range(group):
        xs = xp[g * cg:(g + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                tap = xs[:, i:i + stride[0] * oh:stride[0], j:j + stride[1] * ow:stride[1]]
                y[g * mg:(g + 1) * mg] += np.einsum("mc,chw->mhw", w[g * mg:(g + 1) * mg, :, i, j], tap)
    return y + b.reshape(-1, 1, 1)


def fold_bn(w, b, params):
    s, beta, mean, var = params
    k = s / np.sqrt(var + 1e-5)
    return w * k.reshape(-1, 1, 1, 1), (b - mean) * k + beta


def calibrate(input_name, input_shape, layers, fc_w, fc_b):
    """The largest magnitude of each activation of a conv_relu_net() network (float, in float64)
    over 16 inputs drawn as the example's (uniform in [-1, 1), seed 1): keyed by the input's name,
    each layer's name, "g" (the pooled values) and "logits"."""
    calib = np.random.default_rng(1).uniform(-1, 1, (16, *input_shape[1:]))
    peaks = {input_name: np.abs(calib).max()}
    pooled = []
    for x in calib:
        for name, w, b, kw in layers:
            x = np.maximum(conv2d(x, w, b, **kw), 0)
            peaks[name] = max(peaks.get(name, 0), x.max())
        pooled.append(x.mean(axis=(1, 2)))
    pooled = np.array(pooled)
    peaks["g"] = pooled.max()
    logits = pooled @ fc_w.T + fc_b
    peaks["logits"] = np.abs(logits).max()
    return peaks


class QdqGraph:
    """Nodes and initializers of a graph in QDQ form, as quantization tools write it."""

    def __init__(self):
        self.nodes, self.inits = [], []

    def const(self, name, array):
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def qdq(self, x, name, scale, zp):  # x -> QuantizeLinear -> DequantizeLinear, as tools place them
        s, z = self.const(name + "_scale", np.float32(scale)), self.const(name + "_zp", np.int8(zp))
        self.nodes.append(helper.make_node("QuantizeLinear", [x, s, z], [name + "_q"]))
        self.nodes.append(helper.make_node("DequantizeLinear", [name + "_q", s, z], [name + "_dq"]))
        return name + "_dq"

    def weight(self, name, w):  # int8 per output channel, symmetric; dequantized in the graph
        scale = (np.abs(w).reshape(w.shape[0], -1).max(1) / 127).astype(np.float32)
        q = np.clip(np.rint(w / scale.reshape((-1,) + (1,) * (w.ndim - 1))), -127, 127).astype(np.int8)
        self.const(name + "_q", q), self.const(name + "_scale", scale)
        self.const(name + "_zp", np.zeros(w.shape[0], np.int8))
        self.nodes.append(helper.make_node("DequantizeLinear", [name + "_q", name + "_scale", name + "_zp"],
                                           [name + "_dq"], axis=0))
        return name + "_dq"


def conv_relu_net(graph_name, input_name, input_shape, layers, fc_w, fc_b):
    """The QDQ int8 model of a float network: convolutions each followed by Relu (layers: name,
    weights [M, C/group, KH, KW], bias, conv2d() keywords), GlobalAveragePool, Flatten and a Gemm
    (fc_w [N, C], transB=1) to the float logits. int8 weights symmetric per output channel, float
    biases, int8 activations per tensor calibrated with calibrate(): the input symmetric, Relu and
    pool outputs with zero point -128, the logits symmetric; quantized and dequantized at the
    ends."""
    peaks = calibrate(input_name, input_shape, layers, fc_w, fc_b)
    g = QdqGraph()
    x = g.qdq(input_name, input_name, peaks[input_name] / 127, 0)
    for name, w, b, kw in layers:
        attrs = dict(strides=list(kw.get("stride", (1, 1))), pads=list(kw.get("pads", (0, 0, 0, 0))),
                     group=kw.get("group", 1))
        bias = g.const(name + "_b", b.astype(np.float32))
        g.nodes.append(helper.make_node("Conv", [x, g.weight(name + "_w", w), bias], [name + "_y"], **attrs))
        g.nodes.append(helper.make_node("Relu", [name + "_y"], [name + "_r"]))
        x = g.qdq(name + "_r", name, peaks[name] / 255, -128)
    g.nodes.append(helper.make_node("GlobalAveragePool", [x], ["g"]))
    x = g.qdq("g", "g", peaks["g"] / 255, -128)
    g.nodes.append(helper.make_node("Flatten", [x], ["flat"]))
    w = g.weight("fc_w", fc_w)  # [N, C], per output channel (axis 0), read with transB
    g.nodes.append(helper.make_node("Gemm", ["flat", w, g.const("fc_b", fc_b.astype(np.float32))],
                                    ["fc_y"], transB=1))
    x = g.qdq("fc_y", "logits", peaks["logits"] / 127, 0)
    g.nodes.append(helper.make_node("Identity", [x], ["logits"]))
    graph = helper.make_graph(g.nodes, graph_name,
                              [helper.make_tensor_value_info(input_name, TensorProto.FLOAT, input_shape)],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, fc_w.shape[0]])],
                              g.inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def kws_int8():
    f = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in kws().graph.initializer}
    bn = lambda name: [f[f"{name}_{k}"] for k in "sbmv"]
    c = 64
    layers = [("c0", f["c0_w"], f["c0_b"], dict(stride=(2, 2), pads=(4, 1, 5, 2)))]
    for i in range(4):
        layers.append((f"dw{i}", *fold_bn(f[f"dw{i}_w"], np.zeros(c), bn(f"bn{i}a")), dict(pads=(1, 1, 1, 1), group=c)))
        layers.append((f"pw{i}", *fold_bn(f[f"pw{i}_w"], np.zeros(c), bn(f"bn{i}b")), {}))
    return conv_relu_net("kws_int8", "mfcc", [1, 1, 49, 10], layers, f["fc_w"], f["fc_b"])


def cnn_int8():
    """A small CIFAR-sized image CNN with float weights of its own (He-scaled normal, numpy seed 2,
    rounded to float32), quantized as kws_int8."""
    r = np.random.default_rng(2)
    f32 = lambda a: a.astype(np.float32).astype(np.float64)
    conv_w = lambda m, c, k: f32(r.standard_normal((m, c, k, k)) * np.sqrt(2 / (c * k * k)))
    bias = lambda m: f32(0.05 * r.standard_normal(m))
    layers = [("c0", conv_w(16, 3, 3), bias(16), dict(pads=(1, 1, 1, 1))),
              ("dw1", conv_w(16, 1, 3), bias(16), dict(stride=(2, 2), pads=(1, 1, 1, 1), group=16)),
              ("pw1", conv_w(32, 16, 1), bias(32), {}),
              ("dw2", conv_w(32, 1, 3), bias(32), dict(stride=(2, 2), group=32)),
              ("pw2", conv_w(64, 32, 1), bias(64), {})]
    fc_w = f32(r.standard_normal((10, 64)) * np.sqrt(1 / 64))
    return conv_relu_net("cnn_int8", "image", [1, 3, 32, 32], layers, fc_w, bias(10))


def small():
    inits = bn_params("bn", 4) + [weight("fc_w", 36, 10), weight("fc_b", 10)]
    nodes = [
        helper.make_node("BatchNormalization", ["x", "bn_s", "bn_b", "bn_m", "bn_v"], ["b"], epsilon=1e-3),
        helper.make_node("AveragePool", ["b"], ["p"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
                         count_include_pad=0),
        helper.make_node("Flatten", ["p"], ["f"]),
        helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["g"], alpha=0.7, beta=1.3),
        helper.make_node("Softmax", ["g"], ["y"], axis=1),
    ]
    graph = helper.make_graph(nodes, "small", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4, 6, 6])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 10])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


if __name__ == "__main__":
    out = sys.argv[1]
    for name, model in (("kws", kws()), ("small", small()), ("kws_int8", kws_int8()), ("cnn_int8", cnn_int8())):
        onnx.checker.check_model(model)
        onnx.save(model, f"{out}/{name}.onnx")
