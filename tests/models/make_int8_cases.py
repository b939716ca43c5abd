#!/usr/bin/python3
"""The int8 models of the Cortex-M comparison (examples/cortex-m/make_models.py: kws_int8, the
DS-CNN, and cnn_int8, the image CNN; issue 39) and res_int8 (a residual block: an integer Add)
as ONNX backend-test cases, for CTest `int8_ort`:
onnxruntime-node runs their QDQ graphs for the expected outputs, which onnxc's integer code
(lower-qdq, the s8 kernel rows) must match within one step of the output's quantization scale.
  make_int8_cases.py OUT_DIR            # the cases; OUT_DIR/NAME/atol holds that step
  make_int8_cases.py --expect OUT_DIR   # ORT's output_K.bin -> test_data_set_0/output_K.pb
Inputs are uniform in [-1, 1), the range the models were calibrated for (fixed seed)."""
import importlib.util
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_contrib_cases  # noqa: E402  (Case, expect)

# examples/cortex-m/make_models.py, by path: this folder has a make_models.py of its own.
_spec = importlib.util.spec_from_file_location(
    "cortex_m_models", os.path.join(HERE, "..", "..", "examples", "cortex-m", "make_models.py"))
cortex_m_models = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cortex_m_models)


def save(root, name, model, seed):
    case = make_contrib_cases.Case(name)
    graph = model.graph
    x = graph.input[0]
    shape = [d.dim_value for d in x.type.tensor_type.shape.dim]
    case.feed(x.name, np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32))
    case.nodes, case.inits = list(graph.node), list(graph.initializer)
    case.output(graph.output[0].name)
    case.save(root)
    scale = next(numpy_helper.to_array(t) for t in graph.initializer if t.name == "logits_scale")
    with open(os.path.join(root, name, "atol"), "w") as f:
        f.write(f"{float(scale) * 1.0001:.9g}\n")  # one quantization step of the logits


def res_int8():
    """A residual block in QDQ form, as quantization tools write ResNets: conv+Relu, MaxPool (a,
    quantized with its input's scale, as tools do), conv (b), Relu(a + b), GlobalAveragePool,
    Gemm. The MaxPool runs on the int8 tensor and the Add becomes an integer QLinearAdd
    (lower-qdq); the Add's inputs and output have three different scales and zero points. Float weights of its own
    (numpy seed 3), activations calibrated on 16 inputs as kws_int8's."""
    m = cortex_m_models
    r = np.random.default_rng(3)
    f32 = lambda a: a.astype(np.float32).astype(np.float64)
    w0, b0 = f32(r.standard_normal((8, 4, 3, 3)) * 0.4), f32(0.1 * r.standard_normal(8))
    w1, b1 = f32(r.standard_normal((8, 8, 3, 3)) * 0.3), f32(0.1 * r.standard_normal(8))
    fc_w, fc_b = f32(r.standard_normal((5, 8)) * 0.5), f32(0.1 * r.standard_normal(5))
    pads = dict(pads=(1, 1, 1, 1))
    peaks = {k: 0.0 for k in ("x", "p", "b", "res", "g", "logits")}
    maxpool = lambda v: v.reshape(v.shape[0], v.shape[1] // 2, 2, v.shape[2] // 2, 2).max(axis=(2, 4))
    for x in np.random.default_rng(1).uniform(-1, 1, (16, 4, 8, 8)):
        p = np.maximum(m.conv2d(x, w0, b0, **pads), 0)
        a = maxpool(p)
        b = m.conv2d(a, w1, b1, **pads)
        res = np.maximum(a + b, 0)
        g = res.mean(axis=(1, 2))
        for k, v in (("x", x), ("p", p), ("b", b), ("res", res), ("g", g), ("logits", fc_w @ g + fc_b)):
            peaks[k] = max(peaks[k], np.abs(v).max())
    q = m.QdqGraph()
    x = q.qdq("x", "x", peaks["x"] / 127, 0)
    conv = lambda x, name, w, b: q.nodes.append(helper.make_node(
        "Conv", [x, q.weight(name + "_w", w), q.const(name + "_b", b.astype(np.float32))], [name + "_y"],
        pads=[1, 1, 1, 1]))
    conv(x, "c0", w0, b0)
    q.nodes.append(helper.make_node("Relu", ["c0_y"], ["c0_r"]))
    p = q.qdq("c0_r", "p", peaks["p"] / 255, -128)
    q.nodes.append(helper.make_node("MaxPool", [p], ["pool"], kernel_shape=[2, 2], strides=[2, 2]))
    a = q.qdq("pool", "a", peaks["p"] / 255, -128)
    conv(a, "c1", w1, b1)
    b = q.qdq("c1_y", "b", peaks["b"] / 127, 0)
    q.nodes.append(helper.make_node("Add", [a, b], ["sum"]))
    q.nodes.append(helper.make_node("Relu", ["sum"], ["sum_r"]))
    x = q.qdq("sum_r", "res", peaks["res"] / 255, -128)
    q.nodes.append(helper.make_node("GlobalAveragePool", [x], ["g"]))
    x = q.qdq("g", "g", peaks["g"] / 255, -128)
    q.nodes.append(helper.make_node("Flatten", [x], ["flat"]))
    q.nodes.append(helper.make_node("Gemm", ["flat", q.weight("fc_w", fc_w), q.const("fc_b", fc_b.astype(np.float32))],
                                    ["fc_y"], transB=1))
    x = q.qdq("fc_y", "logits", peaks["logits"] / 127, 0)
    q.nodes.append(helper.make_node("Identity", [x], ["logits"]))
    graph = helper.make_graph(q.nodes, "res_int8",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 5])], q.inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--expect":
        return make_contrib_cases.expect(sys.argv[2])
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for seed, (name, build) in enumerate((("kws_int8", cortex_m_models.kws_int8),
                                          ("cnn_int8", cortex_m_models.cnn_int8),
                                          ("res_int8", res_int8))):
        save(sys.argv[1], name, build(), 100 + seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
