#!/usr/bin/python3
"""Exports the comparison models and lays each out as an ONNX backend-test case whose expected
output comes from onnxruntime (see ort_reference.js), so `onnxc test` checks onnxc against ORT.

  make_cases.py export OUT_DIR   # model.onnx + test_data_set_0/input_0.pb (+ input_0.bin for node)
  make_cases.py expect OUT_DIR   # ORT's output_K.bin -> test_data_set_0/output_K.pb

Models: torchvision resnet18, mobilenet_v2, mobilenet_v3_small (HardSwish), efficientnet_b0
(SiLU, squeeze-excitation), squeezenet1_1 (random weights, seeded: nothing is
downloaded) and a 3-layer MLP, exported by Debian's python3-torch at opset 13."""
import json
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def export(out_dir):
    import torch
    import torchvision

    torch.manual_seed(0)
    mlp = torch.nn.Sequential(
        torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 256), torch.nn.GELU(),
        torch.nn.Linear(256, 10), torch.nn.Softmax(dim=1))
    models = {
        "resnet18": (torchvision.models.resnet18(), (1, 3, 224, 224)),
        "mobilenet_v2": (torchvision.models.mobilenet_v2(), (1, 3, 224, 224)),
        "mobilenet_v3_small": (torchvision.models.mobilenet_v3_small(), (1, 3, 224, 224)),
        "efficientnet_b0": (torchvision.models.efficientnet_b0(), (1, 3, 224, 224)),
        "squeezenet1_1": (torchvision.models.squeezenet1_1(), (1, 3, 224, 224)),
        "mlp": (mlp, (8, 784)),
    }
    rng = np.random.default_rng(0)
    for name, (model, shape) in models.items():
        model.eval()
        case = os.path.join(out_dir, name)
        data = os.path.join(case, "test_data_set_0")
        os.makedirs(data, exist_ok=True)
        x = rng.standard_normal(shape).astype(np.float32)
        torch.onnx.export(model, torch.from_numpy(x), os.path.join(case, "model.onnx"),
                          opset_version=13, input_names=["input"], output_names=["output"])
        onnx.save_tensor(numpy_helper.from_array(x, "input"), os.path.join(data, "input_0.pb"))
        x.tofile(os.path.join(data, "input_0.bin"))
        with open(os.path.join(data, "inputs.json"), "w") as f:
            json.dump([{"name": "input", "shape": list(shape)}], f)


def expect(out_dir):
    for name in sorted(os.listdir(out_dir)):
        data = os.path.join(out_dir, name, "test_data_set_0")
        with open(os.path.join(data, "outputs.json")) as f:
            outputs = json.load(f)
        for k, o in enumerate(outputs):
            y = np.fromfile(os.path.join(data, f"output_{k}.bin"), dtype=np.float32)
            y = y.reshape(o["shape"])
            onnx.save_tensor(numpy_helper.from_array(y, o["name"]), os.path.join(data, f"output_{k}.pb"))


if __name__ == "__main__":
    {"export": export, "expect": expect}[sys.argv[1]](sys.argv[2])
