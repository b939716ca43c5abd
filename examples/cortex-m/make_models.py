"""Writes the models the Cortex-M example runs besides the README's CNN:
  kws.onnx    a keyword-spotting DS-CNN (the "small" model of Hello Edge, Zhang et al. 2017):
              1x1x49x10 MFCC features, a 10x4 stride-2 conv to 64 channels, 4 depthwise-separable
              blocks (BatchNorm, Relu), average pooling, a 12-way classifier; ~23k weights
  kws_int8.onnx  the same network quantized as quantization tools write it (QDQ form): BatchNorm
              folded into the convolutions, int8 weights symmetric per output channel, int8
              activations per tensor (the input symmetric, Relu outputs with zero point -128),
              scales calibrated on 16 inputs drawn as the example's (uniform in [-1, 1)); float
              input and output, quantized and dequantized at the ends
  small.onnx  a conformance-sized graph of the ops whose float kernels used double math:
              BatchNormalization, AveragePool, Gemm with alpha and beta, Softmax
Weights are deterministic (numpy seed 0)."""
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


# ---- kws_int8: kws() quantized -----------------------------------------------------------------

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


def kws_int8():
    f = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in kws().graph.initializer}
    bn = lambda name: [f[f"{name}_{k}"] for k in "sbmv"]
    c = 64
    layers = [("c0", f["c0_w"], f["c0_b"], dict(stride=(2, 2), pads=(4, 1, 5, 2)))]
    for i in range(4):
        layers.append((f"dw{i}", *fold_bn(f[f"dw{i}_w"], np.zeros(c), bn(f"bn{i}a")), dict(pads=(1, 1, 1, 1), group=c)))
        layers.append((f"pw{i}", *fold_bn(f[f"pw{i}_w"], np.zeros(c), bn(f"bn{i}b")), {}))

    # Calibration: the largest magnitude of each activation over 16 inputs.
    calib = np.random.default_rng(1).uniform(-1, 1, (16, 1, 49, 10))
    peaks = {"mfcc": np.abs(calib).max()}
    pooled = []
    for x in calib:
        for name, w, b, kw in layers:
            x = np.maximum(conv2d(x, w, b, **kw), 0)
            peaks[name] = max(peaks.get(name, 0), x.max())
        pooled.append(x.mean(axis=(1, 2)))
    pooled = np.array(pooled)
    peaks["g"] = pooled.max()
    logits = pooled @ f["fc_w"].T + f["fc_b"]
    peaks["logits"] = np.abs(logits).max()

    nodes, inits = [], []

    def const(name, array):
        inits.append(numpy_helper.from_array(array, name))
        return name

    def qdq(x, name, scale, zp):  # x -> QuantizeLinear -> DequantizeLinear, as tools place them
        s, z = const(name + "_scale", np.float32(scale)), const(name + "_zp", np.int8(zp))
        nodes.append(helper.make_node("QuantizeLinear", [x, s, z], [name + "_q"]))
        nodes.append(helper.make_node("DequantizeLinear", [name + "_q", s, z], [name + "_dq"]))
        return name + "_dq"

    def weight(name, w):  # int8 per output channel, symmetric; dequantized in the graph
        scale = (np.abs(w).reshape(w.shape[0], -1).max(1) / 127).astype(np.float32)
        q = np.clip(np.rint(w / scale.reshape((-1,) + (1,) * (w.ndim - 1))), -127, 127).astype(np.int8)
        const(name + "_q", q), const(name + "_scale", scale), const(name + "_zp", np.zeros(w.shape[0], np.int8))
        nodes.append(helper.make_node("DequantizeLinear", [name + "_q", name + "_scale", name + "_zp"],
                                      [name + "_dq"], axis=0))
        return name + "_dq"

    x = qdq("mfcc", "mfcc", peaks["mfcc"] / 127, 0)
    for name, w, b, kw in layers:
        attrs = dict(strides=list(kw.get("stride", (1, 1))), pads=list(kw.get("pads", (0, 0, 0, 0))),
                     group=kw.get("group", 1))
        bias = const(name + "_b", b.astype(np.float32))
        nodes.append(helper.make_node("Conv", [x, weight(name + "_w", w), bias], [name + "_y"], **attrs))
        nodes.append(helper.make_node("Relu", [name + "_y"], [name + "_r"]))
        x = qdq(name + "_r", name, peaks[name] / 255, -128)
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["g"]))
    x = qdq("g", "g", peaks["g"] / 255, -128)
    nodes.append(helper.make_node("Flatten", [x], ["flat"]))
    fc_w = weight("fc_w", f["fc_w"])  # [12, 64], per output channel (axis 0), read with transB
    nodes.append(helper.make_node("Gemm", ["flat", fc_w, const("fc_b", f["fc_b"].astype(np.float32))],
                                  ["fc_y"], transB=1))
    x = qdq("fc_y", "logits", peaks["logits"] / 127, 0)
    nodes.append(helper.make_node("Identity", [x], ["logits"]))
    graph = helper.make_graph(nodes, "kws_int8", [helper.make_tensor_value_info("mfcc", TensorProto.FLOAT, [1, 1, 49, 10])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 12])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


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
    for name, model in (("kws", kws()), ("small", small()), ("kws_int8", kws_int8())):
        onnx.checker.check_model(model)
        onnx.save(model, f"{out}/{name}.onnx")
