#!/usr/bin/python3
"""Writes the consumer example's second model: a small MLP classifier
(Gemm-Relu-Gemm-Relu-Gemm-Softmax, 64 -> 32 -> 16 -> 10) with deterministic weights (numpy seed 11).
It shares Gemm, Relu and Softmax with the README's CNN (../make_example_model.py), so linking both
models into one program tests that two models with the same ops do not clash."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SIZES = [64, 32, 16, 10]


def weights():
    """The MLP's (W, b) pairs, W of shape [out, in]; also used by make_expected.py."""
    rng = np.random.default_rng(11)
    return [((rng.standard_normal((o, i)) * 0.3).astype(np.float32),
             (rng.standard_normal(o) * 0.1).astype(np.float32))
            for i, o in zip(SIZES, SIZES[1:])]


def main(out_path):
    nodes, inits, x = [], [], "features"
    for k, (w, b) in enumerate(weights()):
        inits += [numpy_helper.from_array(w, f"w{k}"), numpy_helper.from_array(b, f"b{k}")]
        nodes.append(helper.make_node("Gemm", [x, f"w{k}", f"b{k}"], [f"h{k}"], transB=1))
        x = f"h{k}"
        if k + 2 < len(SIZES):
            nodes.append(helper.make_node("Relu", [x], [f"r{k}"]))
            x = f"r{k}"
    nodes.append(helper.make_node("Softmax", [x], ["scores"], axis=1))
    graph = helper.make_graph(
        nodes, "mlp", [helper.make_tensor_value_info("features", TensorProto.FLOAT, [1, SIZES[0]])],
        [helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, SIZES[-1]])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="onnxc-example")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, out_path)


if __name__ == "__main__":
    main(sys.argv[1])
