#!/usr/bin/python3
"""Builds the real-model cases of issue 13 with random, seeded weights (nothing is downloaded) and
lays each out like bench/make_cases.py: CASE/model.onnx + CASE/test_data_set_0/input_K.pb (+ the
input_K.bin/inputs.json that bench/ort_reference.js reads). The expected outputs come from
onnxruntime-node (bench/ort_reference.js, then `bench/make_cases.py expect`).

  make_models.py OUT_DIR

Cases (exporter: Debian's python3-torch 1.13, whose newest ONNX opset is 17):
  lstm_classifier       2-layer bidirectional LSTM over 16 frames + Linear head (torch, opset 17)
  gru_kws               Conv2d/BatchNorm/ReLU front end over 40x49 MFCC-like features, 2-layer
                        GRU, Linear head (torch, opset 17)
  unet                  small U-Net: MaxPool encoder, ConvTranspose and Resize (Upsample bilinear
                        and nearest) decoder, skip Concats (torch, opset 17)
  transformer_torch     pre-LN transformer block, attention spelled out as MatMul/Softmax, GELU
                        as Erf (torch, opset 17: LayerNormalization but no Gelu op yet)
  transformer_attention the same block and weights with LayerNormalization, Gelu (20) and
                        Attention (23), built with onnx.helper at opset 23 (torch 1.13 cannot
                        emit these ops)
  transformer_spelled   the same block and weights, onnx.helper at opset 23 with Gelu and
                        LayerNormalization but the attention spelled out (MatMul/Softmax)
  transformer_causal_torch / transformer_causal_attention
                        a causal (decoder) block: torch's masked_fill(-inf) before Softmax, and
                        the same weights with Attention(is_causal=1)
  qdq_cnn               QDQ CNN exported from torch fake-quant (opset 13): QuantizeLinear/
                        DequantizeLinear around two Convs and a MatMul; weights per-channel int8,
                        activations uint8 (per-tensor), the output requantized (checked within
                        one quantization step of the output, QDQ_OUTPUT_SCALE)
"""
import json
import os
import sys

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

QDQ_OUTPUT_SCALE = 2.0**-9  # scale of qdq_cnn's output: the CTest's atol for that case


def write_case(out_dir, name, model_path_writer, inputs):
    """inputs: list of (name, float32 array)."""
    case = os.path.join(out_dir, name)
    data = os.path.join(case, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    model_path_writer(os.path.join(case, "model.onnx"))
    specs = []
    for k, (iname, x) in enumerate(inputs):
        x = np.ascontiguousarray(x, dtype=np.float32)
        onnx.save_tensor(numpy_helper.from_array(x, iname), os.path.join(data, f"input_{k}.pb"))
        x.tofile(os.path.join(data, f"input_{k}.bin"))
        specs.append({"name": iname, "shape": list(x.shape)})
    with open(os.path.join(data, "inputs.json"), "w") as f:
        json.dump(specs, f)


def torch_case(out_dir, name, model, inputs, opset=17):
    model.eval()
    names = [n for n, _ in inputs]
    args = tuple(torch.from_numpy(x) for _, x in inputs)

    def writer(path):
        with torch.no_grad():
            torch.onnx.export(model, args, path, opset_version=opset, input_names=names,
                              output_names=["output"], do_constant_folding=True)

    write_case(out_dir, name, writer, inputs)


# ---- (1) LSTM sequence classifier -------------------------------------------------------------
class LstmClassifier(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(20, 32, num_layers=2, batch_first=True, bidirectional=True)
        self.head = torch.nn.Linear(64, 5)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.head(y[:, -1, :])


# ---- (2) GRU keyword spotter ------------------------------------------------------------------
class GruKws(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 8, 3, stride=(2, 1), padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.gru = torch.nn.GRU(8 * 20, 48, num_layers=2, batch_first=True)
        self.head = torch.nn.Linear(48, 12)

    def forward(self, x):  # x: (B, 1, 40 coefficients, 49 frames)
        y = torch.relu(self.bn(self.conv(x)))  # (B, 8, 20, 49)
        y = y.permute(0, 3, 1, 2).reshape(x.shape[0], 49, 8 * 20)
        y, _ = self.gru(y)
        return self.head(y[:, -1, :])


# ---- (3) small U-Net --------------------------------------------------------------------------
def block(cin, cout):
    return torch.nn.Sequential(
        torch.nn.Conv2d(cin, cout, 3, padding=1), torch.nn.BatchNorm2d(cout), torch.nn.ReLU(),
        torch.nn.Conv2d(cout, cout, 3, padding=1), torch.nn.ReLU())


class UNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.enc1, self.enc2, self.mid = block(3, 8), block(8, 16), block(16, 32)
        self.pool = torch.nn.MaxPool2d(2)
        self.up1 = torch.nn.ConvTranspose2d(32, 16, 2, stride=2)
        self.dec1 = block(32, 16)
        self.up2 = torch.nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        self.red2 = torch.nn.Conv2d(16, 8, 1)
        self.dec2 = block(16, 8)
        self.out = torch.nn.Conv2d(8, 2, 1)
        self.side = torch.nn.Conv2d(32, 2, 1)
        self.side_up = torch.nn.Upsample(scale_factor=4, mode="nearest")
        self.up_ac = torch.nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)

    def forward(self, x):  # (B, 3, 32, 32)
        s1 = self.enc1(x)  # 8 x 32 x 32
        s2 = self.enc2(self.pool(s1))  # 16 x 16 x 16
        m = self.mid(self.pool(s2))  # 32 x 8 x 8
        d1 = self.dec1(torch.cat([self.up1(m), s2], 1))  # 16 x 16 x 16
        d2 = self.dec2(torch.cat([self.red2(self.up2(d1)), s1], 1))  # 8 x 32 x 32
        side = self.side_up(self.side(m)) + self.up_ac(self.side_up(self.side(self.pool(m))))
        return self.out(d2) + side


# ---- (3b) ResNet basic block ---------------------------------------------------------------------
class BasicBlock(torch.nn.Module):
    """ResNet's basic block at 32 channels, 56x56: its 3x3 convolutions (58 MFLOP each) run by
    Winograd on AVX-512 targets, fused with the residual, and split over threads with --threads."""

    def __init__(self, ch=32):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(ch, ch, 3, padding=1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(ch)
        self.conv2 = torch.nn.Conv2d(ch, ch, 3, padding=1, bias=False)
        self.bn2 = torch.nn.BatchNorm2d(ch)

    def forward(self, x):  # (B, 32, 56, 56)
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + x)


# ---- (4) transformer block --------------------------------------------------------------------
D, HEADS, FFN, SEQ, BATCH = 32, 4, 64, 10, 2


class Block(torch.nn.Module):
    def __init__(self, causal=False):
        super().__init__()
        self.causal = causal
        self.ln1, self.ln2 = torch.nn.LayerNorm(D), torch.nn.LayerNorm(D)
        self.q, self.k, self.v, self.o = (torch.nn.Linear(D, D) for _ in range(4))
        self.fc1, self.fc2 = torch.nn.Linear(D, FFN), torch.nn.Linear(FFN, D)
        for ln in (self.ln1, self.ln2):  # non-trivial affine parameters
            torch.nn.init.uniform_(ln.weight, 0.5, 1.5)
            torch.nn.init.uniform_(ln.bias, -0.2, 0.2)

    def forward(self, x):  # (B, S, D)
        b, s, hd = x.shape[0], x.shape[1], D // HEADS
        h = self.ln1(x)

        def heads(t):
            return t.reshape(b, s, HEADS, hd).transpose(1, 2)

        q, k, v = heads(self.q(h)), heads(self.k(h)), heads(self.v(h))
        scores = torch.matmul(q, k.transpose(2, 3)) / float(np.sqrt(hd))
        if self.causal:  # query i sees keys 0..i
            future = torch.triu(torch.ones(s, s, dtype=torch.bool), diagonal=1)
            scores = scores.masked_fill(future, float("-inf"))
        a = torch.softmax(scores, dim=-1)
        a = torch.matmul(a, v).transpose(1, 2).reshape(b, s, D)
        x = x + self.o(a)
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.ln2(x))))


def helper_block(blk, attention_op):
    """The same block as Block, built with onnx.helper at opset 23 from blk's weights (the
    spelled-out form is only built for the non-causal block)."""
    assert attention_op or not blk.causal
    w = {}

    def init(name, t):
        w[name] = numpy_helper.from_array(t.detach().numpy().astype(np.float32), name)
        return name

    nodes = []

    def n(op, ins, outs, **attrs):
        nodes.append(helper.make_node(op, ins, outs, **attrs))
        return outs[0]

    def linear(x, lin, name):
        y = n("MatMul", [x, init(name + ".w", lin.weight.t())], [name + ".mm"])
        return n("Add", [y, init(name + ".b", lin.bias)], [name])

    def ln(x, mod, name):
        gamma, beta = init(name + ".g", mod.weight), init(name + ".b", mod.bias)
        return n("LayerNormalization", [x, gamma, beta], [name], axis=-1, epsilon=mod.eps)

    hd = D // HEADS
    h = ln("input", blk.ln1, "ln1")
    q, k, v = linear(h, blk.q, "q"), linear(h, blk.k, "k"), linear(h, blk.v, "v")
    if attention_op:
        a = n("Attention", [q, k, v], ["attn"], q_num_heads=HEADS, kv_num_heads=HEADS,
              is_causal=int(blk.causal))
    else:
        shape4 = "shape4"
        w["shape4"] = numpy_helper.from_array(np.array([0, 0, HEADS, hd], np.int64), "shape4")
        w["shape3"] = numpy_helper.from_array(np.array([0, 0, D], np.int64), "shape3")
        w["scale"] = numpy_helper.from_array(np.array(1.0 / np.sqrt(hd), np.float32), "scale")
        qh = n("Transpose", [n("Reshape", [q, shape4], ["q4"])], ["qh"], perm=[0, 2, 1, 3])
        kt = n("Transpose", [n("Reshape", [k, shape4], ["k4"])], ["kt"], perm=[0, 2, 3, 1])
        vh = n("Transpose", [n("Reshape", [v, shape4], ["v4"])], ["vh"], perm=[0, 2, 1, 3])
        s = n("Mul", [n("MatMul", [qh, kt], ["qk"]), "scale"], ["scores"])
        p = n("Softmax", [s], ["probs"], axis=-1)
        o = n("Transpose", [n("MatMul", [p, vh], ["pv"])], ["pvt"], perm=[0, 2, 1, 3])
        a = n("Reshape", [o, "shape3"], ["attn"])
    x1 = n("Add", ["input", linear(a, blk.o, "o")], ["x1"])
    f = n("Gelu", [linear(ln(x1, blk.ln2, "ln2"), blk.fc1, "fc1")], ["gelu"])
    n("Add", [x1, linear(f, blk.fc2, "fc2")], ["output"])
    graph = helper.make_graph(
        nodes, "transformer_block",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [BATCH, SEQ, D])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [BATCH, SEQ, D])],
        list(w.values()))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)],
                              producer_name="onnxc tests/models/make_models.py")
    model.ir_version = 10  # onnx 1.12's helper predates opset 23; ORT reads IR 10 models
    return model


# ---- (5) QDQ CNN (torch fake-quant export) ----------------------------------------------------
class QdqCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.fc = torch.nn.Linear(16 * 8 * 8, 10)
        self.act_scales = [0.03, 0.015, 0.004]  # input, conv1 out, conv2 out (uint8, zp 128/0/0)

        # per-output-channel symmetric int8 weight scales, constants of the exported graph
        layers = (("s1", self.conv1), ("s2", self.conv2), ("s3", self.fc))
        for name, w in ((name, layer.weight) for name, layer in layers):
            scale = (w.detach().abs().flatten(1).max(1).values / 127.0).float()
            self.register_buffer(name, scale)
            self.register_buffer("z" + name, torch.zeros(scale.shape, dtype=torch.int32))

    @staticmethod
    def fq_act(x, scale, zp):
        return torch.fake_quantize_per_tensor_affine(x, scale, zp, 0, 255)

    def fq_weight(self, w, name, axis):
        scale, zp = getattr(self, name), getattr(self, "z" + name)
        return torch.fake_quantize_per_channel_affine(w, scale, zp, axis, -128, 127)

    def forward(self, x):  # (B, 3, 16, 16)
        x = self.fq_act(x, self.act_scales[0], 128)
        x = torch.relu(torch.nn.functional.conv2d(x, self.fq_weight(self.conv1.weight, "s1", 0),
                                                  self.conv1.bias, padding=1))
        x = self.fq_act(x, self.act_scales[1], 0)
        x = torch.relu(torch.nn.functional.conv2d(x, self.fq_weight(self.conv2.weight, "s2", 0),
                                                  self.conv2.bias, stride=2, padding=1))
        x = self.fq_act(x, self.act_scales[2], 0).flatten(1)
        y = torch.matmul(x, self.fq_weight(self.fc.weight.t(), "s3", 1)) + self.fc.bias
        return torch.fake_quantize_per_tensor_affine(y, QDQ_OUTPUT_SCALE, 128, 0, 255)


def fold_weight_quantization(path):
    """Stores the QuantizeLinear of each constant float weight as its int8 tensor (round half to
    even, saturated), as quantization tools do, so DequantizeLinear reads an int8 initializer."""
    model = onnx.load(path)
    g = model.graph
    const = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    for node in g.node:
        if node.op_type == "Constant":
            const[node.output[0]] = numpy_helper.to_array(node.attribute[0].t)
    keep = []
    for node in g.node:
        if node.op_type == "QuantizeLinear" and all(i in const for i in node.input):
            w, scale, zp = (const[i] for i in node.input)
            axis = next((a.i for a in node.attribute if a.name == "axis"), 1)
            shape = [1] * w.ndim
            if scale.ndim == 1:
                shape[axis] = -1
            info = np.iinfo(zp.dtype)
            q = np.rint(w / scale.reshape(shape)) + zp.reshape(shape).astype(np.int64)
            q = np.clip(q, info.min, info.max).astype(zp.dtype)
            g.initializer.append(numpy_helper.from_array(q, node.output[0]))
        else:
            keep.append(node)
    del g.node[:]
    g.node.extend(keep)
    used = {i for n in g.node for i in n.input}
    live = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(live)
    onnx.save(model, path)


def main(out_dir):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)

    def randn(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    torch_case(out_dir, "lstm_classifier", LstmClassifier(), [("input", randn(2, 16, 20))])

    kws = GruKws()
    with torch.no_grad():  # non-trivial BatchNorm statistics
        kws.bn.running_mean.uniform_(-0.5, 0.5)
        kws.bn.running_var.uniform_(0.5, 2.0)
    torch_case(out_dir, "gru_kws", kws, [("input", randn(1, 1, 40, 49))])

    torch_case(out_dir, "unet", UNet(), [("input", randn(1, 3, 32, 32))])

    res = BasicBlock().eval()
    with torch.no_grad():  # non-trivial BatchNorm statistics
        for bn in (res.bn1, res.bn2):
            bn.running_mean.uniform_(-0.5, 0.5)
            bn.running_var.uniform_(0.5, 2.0)
    torch_case(out_dir, "resnet_block", res, [("input", randn(1, 32, 56, 56))])

    blk = Block().eval()
    x = randn(BATCH, SEQ, D)
    torch_case(out_dir, "transformer_torch", blk, [("input", x)])
    write_case(out_dir, "transformer_attention",
               lambda p: onnx.save(helper_block(blk, True), p), [("input", x)])
    write_case(out_dir, "transformer_spelled",
               lambda p: onnx.save(helper_block(blk, False), p), [("input", x)])
    causal = Block(causal=True).eval()
    torch_case(out_dir, "transformer_causal_torch", causal, [("input", x)])
    write_case(out_dir, "transformer_causal_attention",
               lambda p: onnx.save(helper_block(causal, True), p), [("input", x)])

    torch.manual_seed(5)  # qdq_cnn's activation scales were chosen for these weights and input
    torch_case(out_dir, "qdq_cnn", QdqCnn(), [("input", randn(1, 3, 16, 16))], opset=13)
    fold_weight_quantization(os.path.join(out_dir, "qdq_cnn", "model.onnx"))


if __name__ == "__main__":
    main(sys.argv[1])
