#!/usr/bin/python3
"""Exports the benchmark models of bench/run to ONNX (opset 17) with Debian's python3-torch.

  make_models.py OUT_DIR [NAME...]   # OUT_DIR/NAME.onnx + OUT_DIR/NAME.json (input names, shapes)

Weights are random with a fixed seed (nothing is downloaded): they do not change the speed.
A model already in OUT_DIR is kept (the cache); `make_models.py --list` prints the names."""
import json
import os
import sys

import numpy as np


def torchvision_model(name):
    import torchvision
    return getattr(torchvision.models, name)(), [("input", (1, 3, 224, 224), "float32")]


def bert_encoder():
    """BERT-style: token + position embeddings, LayerNorm, 4 post-norm encoder layers (d_model 256,
    4 heads, FFN 1024, GELU), pooled by the first token through tanh."""
    import torch
    nn = torch.nn

    class Bert(nn.Module):
        def __init__(self, vocab=8000, seq=128, d=256):
            super().__init__()
            self.tok = nn.Embedding(vocab, d)
            self.pos = nn.Parameter(torch.randn(1, seq, d) * 0.02)
            self.norm = nn.LayerNorm(d)
            layer = nn.TransformerEncoderLayer(d, 4, 1024, dropout=0.0, activation="gelu",
                                               batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, 4, enable_nested_tensor=False)
            self.pool = nn.Linear(d, d)

        def forward(self, ids):
            h = self.norm(self.tok(ids) + self.pos)
            h = self.encoder(h)
            return torch.tanh(self.pool(h[:, 0]))

    return Bert(), [("input_ids", (1, 128), "int64")]


def lstm_model():
    """A 2-layer LSTM over 100 steps of 40 features (hidden 256), classified from the last step."""
    import torch
    nn = torch.nn

    class Lstm(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(40, 256, num_layers=2, batch_first=True)
            self.fc = nn.Linear(256, 12)

        def forward(self, x):
            y, _ = self.lstm(x)
            return self.fc(y[:, -1])

    return Lstm(), [("input", (1, 100, 40), "float32")]


def mlp():
    """3 Linear layers 784-512-256-10 with ReLU, GELU and Softmax, batch 8 (as compare_with_ort.sh)."""
    import torch
    nn = torch.nn
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.GELU(),
                         nn.Linear(256, 10), nn.Softmax(dim=1)), [("input", (8, 784), "float32")]


def kws_cnn():
    """Keyword spotting DS-CNN (as in 'Hello Edge', ARM 2017) on 49x10 MFCCs: a 10x4 stride-2
    conv, 4 depthwise-separable blocks of 64 channels, average pool, 12 classes."""
    import torch
    nn = torch.nn
    layers = [nn.Conv2d(1, 64, (10, 4), stride=2, padding=(5, 1)), nn.BatchNorm2d(64), nn.ReLU()]
    for _ in range(4):
        layers += [nn.Conv2d(64, 64, 3, padding=1, groups=64), nn.BatchNorm2d(64), nn.ReLU(),
                   nn.Conv2d(64, 64, 1), nn.BatchNorm2d(64), nn.ReLU()]
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 12)]
    return nn.Sequential(*layers), [("input", (1, 1, 49, 10), "float32")]


MODELS = {
    "resnet18": lambda: torchvision_model("resnet18"),
    "resnet50": lambda: torchvision_model("resnet50"),
    "mobilenet_v2": lambda: torchvision_model("mobilenet_v2"),
    "mobilenet_v3_small": lambda: torchvision_model("mobilenet_v3_small"),
    "efficientnet_b0": lambda: torchvision_model("efficientnet_b0"),
    "shufflenet_v2_x1_0": lambda: torchvision_model("shufflenet_v2_x1_0"),
    "squeezenet1_1": lambda: torchvision_model("squeezenet1_1"),
    "bert_encoder": bert_encoder,
    "lstm": lstm_model,
    "mlp": mlp,
    "kws_cnn": kws_cnn,
}


def export(name, out_dir):
    import torch
    torch.manual_seed(0)
    model, inputs = MODELS[name]()
    model.eval()
    args = []
    for _, shape, dtype in inputs:
        if dtype == "int64":
            args.append(torch.randint(0, 8000, shape, dtype=torch.int64))
        else:
            args.append(torch.randn(shape))
    path = os.path.join(out_dir, name + ".onnx")
    # Not under no_grad: there, nn.TransformerEncoderLayer takes a fused fast path that has no
    # ONNX export.
    torch.onnx.export(model, tuple(args), path + ".part", opset_version=17,
                      input_names=[n for n, _, _ in inputs], output_names=["output"])
    os.replace(path + ".part", path)
    with open(os.path.join(out_dir, name + ".json"), "w") as f:
        json.dump([{"name": n, "shape": list(s), "dtype": d} for n, s, d in inputs], f)


def main():
    if sys.argv[1:] == ["--list"]:
        print(" ".join(MODELS))
        return
    out_dir, names = sys.argv[1], sys.argv[2:] or list(MODELS)
    os.makedirs(out_dir, exist_ok=True)
    failed = False
    for name in names:
        if name not in MODELS:
            sys.exit(f"make_models.py: unknown model '{name}' (known: {' '.join(MODELS)})")
        if os.path.exists(os.path.join(out_dir, name + ".onnx")):
            continue
        print(f"make_models.py: exporting {name}", file=sys.stderr, flush=True)
        try:
            export(name, out_dir)
        except Exception as e:  # one model's failure is reported, the others still export
            failed = True
            print(f"make_models.py: {name}: export failed: {str(e).splitlines()[0]}",
                  file=sys.stderr, flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    np.random.seed(0)
    main()
