#!/usr/bin/python3
"""Exports torchvision models as a user gets them: a symbolic batch dim on the input and output
(`dynamic_axes`), random weights. For the `onnxc inspect` check of run_real_models.sh (issue 38).

Usage: export_symbolic.py OUT_DIR
"""
import os
import sys

import torch
import torchvision


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    for name in ("squeezenet1_1", "mobilenet_v2"):
        model = getattr(torchvision.models, name)(weights=None).eval()
        torch.onnx.export(model, torch.randn(1, 3, 224, 224), os.path.join(out, name + ".onnx"),
                          input_names=["image"], output_names=["logits"], opset_version=17,
                          dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}})


if __name__ == "__main__":
    main()
