#!/usr/bin/python3
"""The int8 models of the Cortex-M comparison (examples/cortex-m/make_models.py: kws_int8, the
DS-CNN, and cnn_int8, the image CNN; issue 39) as ONNX backend-test cases, for CTest `int8_ort`:
onnxruntime-node runs their QDQ graphs for the expected outputs, which onnxc's integer code
(lower-qdq, the s8 kernel rows) must match within one step of the output's quantization scale.
  make_int8_cases.py OUT_DIR            # the cases; OUT_DIR/NAME/atol holds that step
  make_int8_cases.py --expect OUT_DIR   # ORT's output_K.bin -> test_data_set_0/output_K.pb
Inputs are uniform in [-1, 1), the range the models were calibrated for (fixed seed)."""
import importlib.util
import os
import sys

import numpy as np
from onnx import numpy_helper

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


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--expect":
        return make_contrib_cases.expect(sys.argv[2])
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for seed, (name, build) in enumerate((("kws_int8", cortex_m_models.kws_int8),
                                          ("cnn_int8", cortex_m_models.cnn_int8))):
        save(sys.argv[1], name, build(), 100 + seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
