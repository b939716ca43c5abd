"""Writes the models the Cortex-M example runs besides the README's CNN:
  kws.onnx    a keyword-spotting DS-CNN (the "small" model of Hello Edge, Zhang et al. 2017):
              1x1x49x10 MFCC features, a 10x4 stride-2 conv to 64 channels, 4 depthwise-separable
              blocks (BatchNorm, Relu), average pooling, a 12-way classifier; ~23k weights
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
    for name, model in (("kws", kws()), ("small", small())):
        onnx.checker.check_model(model)
        onnx.save(model, f"{out}/{name}.onnx")
