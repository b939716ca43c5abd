#!/usr/bin/python3
"""Writes expected.h: the outputs of the consumer's two models computed by PyTorch (an independent
implementation, not onnxc) from the weights stored in the .onnx files, for the inputs main.cpp
feeds: the CNN gets an image of arange(n)/n, the MLP gets features[i] = (i % 7 - 3) / 4.
Run once after changing a model, then clang-format it:
    make_expected.py tiny_cnn.onnx mlp.onnx > expected.h && clang-format -i expected.h"""
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import numpy_helper


def weights(path):
    return {t.name: torch.from_numpy(numpy_helper.to_array(t).copy())
            for t in onnx.load(path).graph.initializer}


def cnn(w):
    n = 3 * 32 * 32
    x = (torch.arange(n, dtype=torch.float32) / n).reshape(1, 3, 32, 32)
    x = F.conv2d(x, w["conv1_w"], w["conv1_b"], padding=1)
    x = F.batch_norm(x, w["bn_mean"], w["bn_var"], w["bn_scale"], w["bn_bias"], eps=1e-5)
    x = F.max_pool2d(F.relu(x), 2, 2)
    x = F.relu(F.conv2d(x, w["conv2_w"], w["conv2_b"], padding=1, stride=2))
    x = x.mean(dim=(2, 3))
    return F.softmax(F.linear(x, w["fc_w"], w["fc_b"]), dim=1)


def mlp(w):
    x = ((torch.arange(64) % 7 - 3).to(torch.float32) / 4).reshape(1, 64)
    k = 0
    while f"w{k}" in w:
        x = F.linear(x, w[f"w{k}"], w[f"b{k}"])
        if f"w{k + 1}" in w:
            x = F.relu(x)
        k += 1
    return F.softmax(x, dim=1)


def array(name, values):
    body = ", ".join(f"{float(v):.9g}f" for v in values.flatten().tolist())
    return f"constexpr float {name}[] = {{{body}}};\n"


def main(cnn_path, mlp_path):
    with torch.no_grad():
        sys.stdout.write("// Written by make_expected.py (PyTorch reference outputs). Do not edit.\n"
                         "#pragma once\n\n"
                         + array("kCnnExpected", cnn(weights(cnn_path)).numpy())
                         + array("kMlpExpected", mlp(weights(mlp_path)).numpy()))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
