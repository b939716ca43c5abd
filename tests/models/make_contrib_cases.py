#!/usr/bin/python3
"""Builds one small model per com.microsoft op that onnxc expands (issue 35, frontend/contrib_*)
as ONNX backend-test cases: model.onnx + test_data_set_0/input_K.{pb,bin} + inputs.json.
onnxruntime-node (bench/ort_reference.js) then computes the expected outputs, so that onnxc is
checked against ORT itself, not against a formula re-derived here.
  make_contrib_cases.py OUT_DIR            # the cases
  make_contrib_cases.py --expect OUT_DIR   # ORT's output_K.bin -> test_data_set_0/output_K.pb

Models are built with the onnx helper (Debian's python3-onnx); inputs are random with a fixed
seed, quantized ones uint8 with scales and zero points as initializers, as the QOperator
quantizer writes them.
"""
import json
import os
import sys

import numpy as np
from onnx import TensorProto, helper, load_model, numpy_helper, save_model, save_tensor

MS = "com.microsoft"
OPSET = 17
rng = np.random.default_rng(35)
ELEM = {np.float32: TensorProto.FLOAT, np.uint8: TensorProto.UINT8, np.int8: TensorProto.INT8,
        np.int32: TensorProto.INT32, np.int64: TensorProto.INT64, np.bool_: TensorProto.BOOL}
ORT_TYPE = {np.float32: "float32", np.uint8: "uint8", np.int8: "int8", np.int32: "int32",
            np.int64: "int64", np.bool_: "bool"}


def rand(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def rand_u8(*shape):
    return rng.integers(0, 256, shape).astype(np.uint8)


class Case:
    """One model: graph inputs fed at run time, initializers baked in, com.microsoft nodes."""

    def __init__(self, name):
        self.name, self.nodes, self.inputs, self.feeds, self.inits, self.outputs = \
            name, [], [], [], [], []
        self.opset = OPSET  # the ai.onnx opset the model imports

    def feed(self, name, array):
        self.inputs.append(helper.make_tensor_value_info(name, ELEM[array.dtype.type],
                                                         list(array.shape)))
        self.feeds.append((name, array))
        return name

    def const(self, name, array):
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op, inputs, outputs, domain=MS, **attrs):
        self.nodes.append(helper.make_node(op, inputs, outputs, name=op.lower(), domain=domain,
                                           **attrs))

    def output(self, name, elem=TensorProto.FLOAT):
        self.outputs.append(helper.make_tensor_value_info(name, elem, None))

    def save(self, root):
        folder = os.path.join(root, self.name)
        data = os.path.join(folder, "test_data_set_0")
        os.makedirs(data)
        graph = helper.make_graph(self.nodes, self.name, self.inputs, self.outputs, self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset),
                                                        helper.make_opsetid(MS, 1)])
        model.ir_version = 8
        save_model(model, os.path.join(folder, "model.onnx"))
        specs = []
        for k, (name, array) in enumerate(self.feeds):
            save_tensor(numpy_helper.from_array(array, name), os.path.join(data, f"input_{k}.pb"))
            array.tofile(os.path.join(data, f"input_{k}.bin"))
            specs.append({"name": name, "type": ORT_TYPE[array.dtype.type],
                          "shape": list(array.shape)})
        with open(os.path.join(data, "inputs.json"), "w") as f:
            json.dump(specs, f)


# ---- session-optimizer fusions and the Gelu family (contrib_fused.cpp) ------------------------

def fused_cases():
    c = Case("fused_conv_relu")
    c.node("FusedConv", [c.feed("x", rand(1, 3, 8, 8)), c.const("w", rand(4, 3, 3, 3)),
                         c.const("b", rand(4))], ["y"], activation="Relu", pads=[1, 1, 1, 1])
    c.output("y")
    yield c
    c = Case("fused_conv_sum_leaky_relu")
    c.node("FusedConv", [c.feed("x", rand(1, 3, 6, 6)), c.const("w", rand(4, 3, 3, 3)),
                         c.const("b", rand(4)), c.feed("z", rand(1, 4, 4, 4))], ["y"],
           activation="LeakyRelu", activation_params=[0.2])
    c.output("y")
    yield c
    c = Case("fused_gemm_relu")
    c.node("FusedGemm", [c.feed("a", rand(4, 5)), c.const("b", rand(3, 5)), c.const("c", rand(3))],
           ["y"], transB=1, alpha=0.5, beta=1.0, activation="Relu")
    c.output("y")
    yield c
    c = Case("fused_matmul_alpha")
    c.node("FusedMatMul", [c.feed("a", rand(2, 3, 4)), c.feed("b", rand(2, 4, 5))], ["y"],
           alpha=0.7)
    c.output("y")
    yield c
    c = Case("fused_matmul_transposed")
    c.node("FusedMatMul", [c.feed("a", rand(2, 4, 3)), c.feed("b", rand(2, 5, 4))], ["y"],
           transA=1, transB=1, alpha=1.5)
    c.output("y")
    yield c
    c = Case("transpose_matmul")
    c.node("TransposeMatMul", [c.feed("a", rand(4, 3)), c.const("b", rand(4, 6))], ["y"], transA=1)
    c.output("y")
    yield c
    for op, extra in (("Gelu", []), ("BiasGelu", ["bias"]), ("FastGelu", ["bias"]),
                      ("FastGelu", []), ("QuickGelu", [])):
        c = Case(f"{op.lower()}{'_bias' if extra and op == 'FastGelu' else ''}")
        inputs = [c.feed("x", 2 * rand(2, 3, 8))] + [c.const(n, rand(8)) for n in extra]
        attrs = {"alpha": 1.702} if op == "QuickGelu" else {}
        c.node(op, inputs, ["y"], **attrs)
        c.output("y")
        yield c


# ---- transformer fusions (contrib_transformer.cpp) --------------------------------------------

def transformer_cases():
    c = Case("skip_layer_norm")
    c.node("SkipLayerNormalization",
           [c.feed("x", rand(2, 3, 8)), c.feed("skip", rand(2, 3, 8)), c.const("gamma", rand(8)),
            c.const("beta", rand(8)), c.const("bias", rand(8))], ["y", "", "", "sum"],
           epsilon=1e-5)
    c.output("y")
    c.output("sum")
    yield c
    c = Case("skip_simplified_layer_norm")
    c.node("SkipSimplifiedLayerNormalization",
           [c.feed("x", rand(2, 3, 8)), c.feed("skip", rand(2, 3, 8)), c.const("gamma", rand(8))],
           ["y"], epsilon=1e-6)
    c.output("y")
    yield c
    c = Case("simplified_layer_norm")
    c.node("SimplifiedLayerNormalization", [c.feed("x", rand(2, 3, 8)), c.const("scale", rand(8))],
           ["y"], domain="", axis=-1, epsilon=1e-5)
    c.output("y")
    yield c
    c = Case("multi_head_attention")
    c.node("MultiHeadAttention", [c.feed("q", rand(2, 3, 8)), c.feed("k", rand(2, 5, 8)),
                                  c.feed("v", rand(2, 5, 8))], ["y"], num_heads=2)
    c.output("y")
    yield c
    c = Case("multi_head_attention_bias_masks")
    c.node("MultiHeadAttention",
           [c.feed("q", rand(2, 3, 8)), c.feed("k", rand(2, 5, 8)), c.feed("v", rand(2, 5, 6)),
            c.const("bias", rand(22)),
            c.feed("key_padding_mask", np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 0]], np.int32)),
            c.feed("attention_bias", rand(1, 2, 3, 5))], ["y"], num_heads=2)
    c.output("y")
    yield c
    c = Case("multi_head_attention_lengths_scale")
    c.node("MultiHeadAttention",
           [c.feed("q", rand(2, 3, 8)), c.feed("k", rand(2, 5, 8)), c.feed("v", rand(2, 5, 8)),
            "", c.feed("key_lengths", np.array([5, 2], np.int32))], ["y"], num_heads=4, scale=0.3)
    c.output("y")
    yield c
    for name, shape, pos, half, attrs in (
            ("rotary_embedding", (2, 4, 16), rng.integers(0, 10, (2, 4)), 4, {"num_heads": 2}),
            ("rotary_embedding_interleaved_partial", (2, 4, 16), rng.integers(0, 10, (2, 4)), 2,
             {"num_heads": 2, "rotary_embedding_dim": 4, "interleaved": 1}),
            ("rotary_embedding_4d_offset", (1, 2, 3, 8), np.array([2]), 4, {})):
        c = Case(name)
        angles = np.arange(10)[:, None] * (10000.0 ** (-np.arange(half) / half))[None, :]
        c.node("RotaryEmbedding", [c.feed("x", rand(*shape)), c.feed("pos", pos.astype(np.int64)),
                                   c.const("cos", np.cos(angles).astype(np.float32)),
                                   c.const("sin", np.sin(angles).astype(np.float32))], ["y"],
               **attrs)
        c.output("y")
        yield c
    c = Case("embed_layer_norm")
    c.node("EmbedLayerNormalization",
           [c.feed("ids", rng.integers(0, 20, (2, 5)).astype(np.int32)),
            c.feed("segments", rng.integers(0, 2, (2, 5)).astype(np.int32)),
            c.const("word", rand(20, 8)), c.const("position", rand(16, 8)),
            c.const("segment", rand(2, 8)), c.const("gamma", rand(8)), c.const("beta", rand(8)),
            c.feed("mask", np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], np.int32))],
           ["y", "mask_index", "sum"], epsilon=1e-12)
    c.output("y")
    c.output("mask_index", TensorProto.INT32)
    c.output("sum")
    yield c
    c = Case("embed_layer_norm_no_segment_no_mask")
    c.node("EmbedLayerNormalization",
           [c.feed("ids", rng.integers(0, 20, (2, 5)).astype(np.int32)), "",
            c.const("word", rand(20, 8)), c.const("position", rand(16, 8)), "",
            c.const("gamma", rand(8)), c.const("beta", rand(8))], ["y", "mask_index"])
    c.output("y")
    c.output("mask_index", TensorProto.INT32)
    yield c
    for name, mask in (("attention", None),
                       ("attention_mask_end", np.array([4, 2], np.int32)),
                       ("attention_mask_2d", np.array([[1, 1, 1, 0], [1, 1, 0, 0]], np.int32))):
        c = Case(name)
        inputs = [c.feed("x", rand(2, 4, 8)), c.const("w", 0.3 * rand(8, 24)),
                  c.const("b", rand(24))]
        if mask is not None:
            inputs.append(c.feed("mask", mask))
        c.node("Attention", inputs, ["y"], num_heads=2)
        c.output("y")
        yield c


# ---- quantized ops with float outputs (contrib_transformer.cpp; DynamicQuantizeLSTM: qlinear) -

def rand_i8(*shape):
    return rng.integers(-128, 128, shape).astype(np.int8)


def quantized_float_output_cases():
    # QAttention: uint8 input (the only input type ORT's CPU kernel registers), int8 or uint8
    # weights with per-tensor or per-column scales and zero points, the mask forms of Attention.
    for name, (b, s, d, hidden, heads), signed, per_column, mask in (
            ("qattention", (2, 4, 8, 8, 2), True, False, None),
            ("qattention_u8_per_column_mask_end", (2, 4, 8, 8, 2), False, True,
             np.array([4, 2], np.int32)),
            ("qattention_i8_per_column_mask_2d", (1, 5, 6, 16, 4), True, True,
             np.array([[1, 1, 1, 0, 1]], np.int32)),
            ("qattention_u8_mask_3d", (2, 3, 8, 12, 3), False, False,
             rng.integers(0, 2, (2, 3, 3)).astype(np.int32) | np.eye(3, dtype=np.int32))):
        c = Case(name)
        n = 3 * hidden
        w = rand_i8(d, n) if signed else rand_u8(d, n)
        wscale = (0.005 + 0.01 * rng.random(n)).astype(np.float32) if per_column \
            else np.float32(0.01)
        wzp_type = np.int8 if signed else np.uint8
        if per_column:
            wzp = (rng.integers(-3, 4, n) if signed else rng.integers(120, 136, n)).astype(wzp_type)
        else:
            wzp = wzp_type(0 if signed else 128)
        inputs = [c.feed("x", rand_u8(b, s, d)), c.const("w", w), c.const("bias", rand(n)),
                  c.const("x_scale", np.float32(0.02)), c.const("w_scale", wscale),
                  c.feed("mask", mask) if mask is not None else "",
                  c.const("x_zp", np.uint8(128)), c.const("w_zp", wzp)]
        c.node("QAttention", inputs, ["y"], num_heads=heads)
        c.output("y")
        yield c
    # QEmbedLayerNormalization: uint8 or int8 tables, with and without segments and a mask.
    for name, signed, segments, mask in (
            ("qembed_layer_norm", False, True, np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]],
                                                        np.int32)),
            ("qembed_layer_norm_i8_no_segment_no_mask", True, False, None)):
        c = Case(name)
        table = rand_i8 if signed else rand_u8
        zp = np.int8 if signed else np.uint8
        names = ("word", "position", "segment", "gamma", "beta")
        shapes = ((20, 8), (16, 8), (2, 8), (8,), (8,))
        tables = [c.const(t, table(*shape)) if t != "segment" or segments else ""
                  for t, shape in zip(names, shapes)]
        scales = [c.const(t + "_scale", np.float32(0.01 + 0.01 * k)) if tables[k] else ""
                  for k, t in enumerate(names)]
        zps = [c.const(t + "_zp", zp(rng.integers(-5, 5) if signed else rng.integers(120, 136)))
               if tables[k] else "" for k, t in enumerate(names)]
        inputs = [c.feed("ids", rng.integers(0, 20, (2, 5)).astype(np.int32)),
                  c.feed("segments", rng.integers(0, 2, (2, 5)).astype(np.int32)) if segments
                  else ""] + tables + [c.feed("mask", mask) if mask is not None else ""]
        c.node("QEmbedLayerNormalization", inputs + scales + zps, ["y", "mask_index"],
               epsilon=1e-12)
        c.output("y")
        c.output("mask_index", TensorProto.INT32)
        yield c

    # DynamicQuantizeLSTM: W (D, I, 4H) and R (D, H, 4H), int8 (zero point 0) or uint8 (one zero
    # point, as ORT requires per row), scales per direction or per row; ORT quantizes X and H
    # at every step (onnxc/qrecurrent.h). extra: B, initial_h, initial_c; lens: sequence_lens;
    # peep: P and clip; outputs: the ones the node has ("" for none: ORT then runs in Y_h).
    # max(sequence_lens) < seq_length in the reverse case: ORT quantizes only the rows it runs.
    # uint8 weights per direction: one zero point each, drawn.
    for name, (seq, batch, inp, hid), direction, signed, per_row, extra, lens, peep, outputs in (
            ("dynamic_quantize_lstm", (4, 2, 3, 5), "forward", True, False, False, None, False,
             ("y", "y_h", "y_c")),
            ("dynamic_quantize_lstm_u8_bidirectional_per_row", (3, 2, 4, 3), "bidirectional",
             False, True, True, None, False, ("y", "y_h", "y_c")),
            ("dynamic_quantize_lstm_i8_reverse_per_row_lens", (5, 3, 6, 4), "reverse", True, True,
             True, [3, 1, 2], False, ("y", "y_h", "y_c")),
            ("dynamic_quantize_lstm_u8_lens_no_y", (4, 3, 5, 6), "forward", False, False, True,
             [4, 1, 3], False, ("", "y_h", "y_c")),
            ("dynamic_quantize_lstm_i8_bidirectional_lens_peephole", (6, 4, 16, 8),
             "bidirectional", True, False, True, [6, 3, 5, 1], True, ("y", "y_h", "y_c")),
            ("dynamic_quantize_lstm_u8_reverse_y_h_only", (7, 5, 12, 10), "reverse", False, True,
             False, None, False, ("", "y_h")),
            ("dynamic_quantize_lstm_u8_bidirectional_activations", (4, 2, 5, 4), "bidirectional",
             False, False, True, None, False, ("y", "y_h", "y_c"))):
        c = Case(name)
        d = 2 if direction == "bidirectional" else 1

        def qweights(prefix, k):
            q = rand_i8(d, k, 4 * hid) if signed else rand_u8(d, k, 4 * hid)
            shape = (d, 4 * hid) if per_row else (d,)
            zp = np.zeros(shape, np.int8) if signed else np.full(shape, 128, np.uint8)
            if not signed and not per_row:
                zp = rng.integers(100, 156, shape).astype(np.uint8)
            return c.const(prefix, q), c.const(prefix + "_scale", (
                0.002 + 0.004 * rng.random(shape)).astype(np.float32)), c.const(prefix + "_zp", zp)
        w, w_scale, w_zp = qweights("w", inp)
        r, r_scale, r_zp = qweights("r", hid)
        inputs = [c.feed("x", rand(seq, batch, inp)), w, r]
        inputs.append(c.const("b", 0.1 * rand(d, 8 * hid)) if extra else "")
        inputs.append(c.feed("lens", np.array(lens, np.int32)) if lens else "")
        inputs += [c.feed("h0", 0.5 * rand(d, batch, hid)), c.feed("c0", 0.5 * rand(d, batch, hid))] \
            if extra else ["", ""]
        inputs.append(c.const("p", 0.3 * rand(d, 3 * hid)) if peep else "")
        attrs = dict(hidden_size=hid, direction=direction)
        if peep:
            attrs["clip"] = 2.5
        if name.endswith("_activations"):  # each direction its own, alpha/beta; input_forget
            attrs.update(activations=["HardSigmoid", "Tanh", "Softsign", "Sigmoid", "LeakyRelu",
                                      "Tanh"], activation_alpha=[0.3, 0.05],
                         activation_beta=[0.4], input_forget=1)
        c.node("DynamicQuantizeLSTM", inputs + [w_scale, w_zp, r_scale, r_zp], list(outputs),
               **attrs)
        for o in outputs:
            if o:
                c.output(o)
        yield c


# ---- QOperator quantized ops (contrib_qlinear.cpp) --------------------------------------------

def qparams(c, prefix, scale, zero_point, dtype=np.uint8):
    return [c.const(prefix + "_scale", np.float32(scale)),
            c.const(prefix + "_zp", dtype(zero_point))]


# The QLinearSoftmax / QLinearWhere cases below draw from their own generator, so that adding them
# left every other case's data as it was.
rng_softmax_where = np.random.default_rng(3535)


def rand8(dtype, shape, gen=rng_softmax_where):
    info = np.iinfo(dtype)
    return gen.integers(info.min, info.max + 1, shape).astype(dtype)


def qlinear_softmax_cases():
    """QLinearSoftmax beyond qlinear_softmax: int8, an axis not last (opset 13: that axis alone;
    opset 12: the dims from it on, in a model of opset 12), an opset attribute before 13 on the last
    axis of an opset-17 model, rows of 2 to 300 codes, output scales not 1 / integer (ORT
    multiplies by floor(1 / y_scale)), and an opset attribute whose semantics differ from the
    model's Softmax's off the last axis (12 in a model of 17, 13 in a model of 12)."""
    for name, dtype, shape, axis, opset, model_opset, xq, yq in (
            ("qlinear_softmax_i8_axis1", np.int8, (2, 5, 7), 1, 13, OPSET, (0.08, 0), (1 / 256, -128)),
            ("qlinear_softmax_u8_opset12_axis1", np.uint8, (3, 4, 6), 1, 12, 12, (0.03, 128),
             (1 / 256, 0)),
            ("qlinear_softmax_u8_opset11_last", np.uint8, (5, 33), -1, 11, OPSET, (0.05, 128),
             (0.0039, 0)),
            ("qlinear_softmax_i8_rows_300", np.int8, (4, 300), -1, 13, OPSET, (0.02, 0),
             (0.0041, -100)),
            ("qlinear_softmax_u8_rows_2", np.uint8, (40, 2), -1, 13, OPSET, (0.1, 0), (1 / 256, 0)),
            # The op's semantics other than the model's Softmax's, off the last axis.
            ("qlinear_softmax_u8_opset12_in_opset17_axis1", np.uint8, (2, 3, 4, 5), 1, 12, OPSET,
             (0.06, 128), (1 / 256, 0)),
            ("qlinear_softmax_i8_opset13_in_opset12_axis1", np.int8, (2, 6, 5), 1, 13, 12,
             (0.04, 0), (1 / 256, -128))):
        c = Case(name)
        c.opset = model_opset
        c.node("QLinearSoftmax", [c.feed("x", rand8(dtype, shape))] + qparams(c, "x", xq[0], xq[1], dtype) +
               qparams(c, "y", yq[0], yq[1], dtype), ["y"], axis=axis, opset=opset)
        c.output("y", TensorProto.UINT8 if dtype == np.uint8 else TensorProto.INT8)
        yield c


def qlinear_where_cases():
    """QLinearWhere beyond qlinear_where: int8; an operand of the output's scale and zero point
    (copied) beside one requantized; both copied; a condition and operands that broadcast."""
    for name, dtype, a_params, b_params, shapes in (
            ("qlinear_where_i8_copy_a", np.int8, (0.06, -8), (0.03, -28), ((2, 6), (2, 6), (2, 6))),
            ("qlinear_where_u8_copy_both", np.uint8, (0.06, 120), (0.06, 120),
             ((2, 6), (2, 6), (2, 6))),
            ("qlinear_where_u8_broadcast", np.uint8, (0.05, 128), (0.02, 90),
             ((3, 1), (3, 8), (1, 8)))):
        c = Case(name)
        cond_shape, a_shape, b_shape = shapes
        cond = rng_softmax_where.integers(0, 2, cond_shape).astype(bool)
        c.node("QLinearWhere", [c.feed("cond", cond)] +
               [c.feed("a", rand8(dtype, a_shape))] + qparams(c, "a", *a_params, dtype) +
               [c.feed("b", rand8(dtype, b_shape))] + qparams(c, "b", *b_params, dtype) +
               qparams(c, "y", 0.06, 120 if dtype == np.uint8 else -8, dtype), ["y"])
        c.output("y", TensorProto.UINT8 if dtype == np.uint8 else TensorProto.INT8)
        yield c


def qlinear_cases():
    for op in ("QLinearAdd", "QLinearMul"):
        c = Case(op.lower())
        c.node(op, [c.feed("a", rand_u8(2, 8))] + qparams(c, "a", 0.05, 128) +
               [c.feed("b", rand_u8(2, 8))] + qparams(c, "b", 0.04, 120) +
               qparams(c, "y", 0.1 if op == "QLinearAdd" else 0.5, 128), ["y"])
        c.output("y", TensorProto.UINT8)
        yield c
    c = Case("qlinear_sigmoid")
    c.node("QLinearSigmoid", [c.feed("x", rand_u8(2, 8))] + qparams(c, "x", 0.05, 128) +
           qparams(c, "y", 1 / 256, 0), ["y"])
    c.output("y", TensorProto.UINT8)
    yield c
    c = Case("qlinear_leaky_relu")
    c.node("QLinearLeakyRelu", [c.feed("x", rand_u8(2, 8))] + qparams(c, "x", 0.05, 128) +
           qparams(c, "y", 0.04, 100), ["y"], alpha=0.1)
    c.output("y", TensorProto.UINT8)
    yield c
    c = Case("qlinear_global_average_pool")
    c.node("QLinearGlobalAveragePool", [c.feed("x", rand_u8(1, 4, 5, 5))] +
           qparams(c, "x", 0.05, 128) + qparams(c, "y", 0.03, 120), ["y"], channels_last=0)
    c.output("y", TensorProto.UINT8)
    yield c
    c = Case("qlinear_concat")
    c.node("QLinearConcat", qparams(c, "y", 0.06, 125) +
           [c.feed("a", rand_u8(1, 2, 3))] + qparams(c, "a", 0.05, 128) +
           [c.feed("b", rand_u8(1, 3, 3))] + qparams(c, "b", 0.07, 110), ["y"], axis=1)
    c.output("y", TensorProto.UINT8)
    yield c
    c = Case("qlinear_conv")
    c.node("QLinearConv", [c.feed("x", rand_u8(1, 3, 6, 6))] + qparams(c, "x", 0.02, 128) +
           [c.const("w", rand_u8(4, 3, 3, 3))] + qparams(c, "w", 0.01, 127) +
           qparams(c, "y", 0.1, 128) +
           [c.const("b", rng.integers(-500, 500, 4).astype(np.int32))], ["y"], pads=[1, 1, 1, 1])
    c.output("y", TensorProto.UINT8)
    yield c
    c = Case("qlinear_average_pool")
    # Scales whose ratio makes no average fall exactly halfway between two codes: where one
    # does, the code depends on the order of float operations (ORT sums dequantized floats and
    # divides; onnxc accumulates in double), not on the op's definition.
    c.node("QLinearAveragePool", [c.feed("x", rand_u8(1, 3, 6, 6))] + qparams(c, "x", 0.05, 128) +
           qparams(c, "y", 0.037, 120), ["y"], kernel_shape=[3, 3], strides=[2, 2],
           pads=[1, 1, 1, 1], count_include_pad=0)
    c.output("y", TensorProto.UINT8)
    yield c
    c = Case("qlinear_softmax")
    c.node("QLinearSoftmax", [c.feed("x", rand_u8(2, 3, 10))] + qparams(c, "x", 0.05, 128) +
           qparams(c, "y", 1 / 256, 0), ["y"], axis=-1, opset=13)
    c.output("y", TensorProto.UINT8)
    yield c
    yield from qlinear_softmax_cases()
    c = Case("qlinear_where")
    c.node("QLinearWhere", [c.feed("cond", rng.integers(0, 2, (2, 6)).astype(bool))] +
           [c.feed("a", rand_u8(2, 6))] + qparams(c, "a", 0.05, 128) +
           [c.feed("b", rand_u8(2, 6))] + qparams(c, "b", 0.03, 100) + qparams(c, "y", 0.06, 120),
           ["y"])
    c.output("y", TensorProto.UINT8)
    yield c
    yield from qlinear_where_cases()
    c = Case("matmul_integer_to_float")
    c.node("MatMulIntegerToFloat",
           [c.feed("a", rand_u8(3, 6)), c.const("b", rng.integers(-128, 128, (6, 4)).astype(np.int8)),
            c.const("a_scale", np.float32(0.02)),
            c.const("b_scale", np.array([0.01, 0.02, 0.015, 0.03], np.float32)),
            c.const("a_zp", np.uint8(128)), c.const("b_zp", np.zeros(4, np.int8)),
            c.const("bias", rand(4))], ["y"])
    c.output("y")
    yield c
    c = Case("dynamic_quantize_matmul")
    c.node("DynamicQuantizeMatMul",
           [c.feed("a", rand(3, 6)), c.const("b", rng.integers(-128, 128, (6, 4)).astype(np.int8)),
            c.const("b_scale", np.float32(0.01)), c.const("b_zp", np.int8(0)),
            c.const("bias", rand(4))], ["y"])
    c.output("y")
    yield c
    for name, k, zero_points, bias in (("matmul_nbits", 32, None, False),
                                       ("matmul_nbits_zero_points_bias", 40, "packed", True)):
        n, block = 6, 16
        blocks = (k + block - 1) // block
        codes = rng.integers(0, 16, (n, blocks, block)).astype(np.uint8)
        c = Case(name)
        inputs = [c.feed("a", rand(3, k)),
                  c.const("b", (codes[..., 0::2] | (codes[..., 1::2] << 4)).astype(np.uint8)),
                  c.const("scales", (0.01 + 0.05 * rng.random((n, blocks))).astype(np.float32))]
        if zero_points == "packed":
            zp = rng.integers(0, 16, (n, 2 * ((blocks + 1) // 2))).astype(np.uint8)
            inputs.append(c.const("zero_points", (zp[:, 0::2] | (zp[:, 1::2] << 4)).reshape(-1)))
        if bias:  # inputs 3 (zero points) and 4 (g_idx) absent or given, then 5
            inputs += [""] * (5 - len(inputs)) + [c.const("bias", rand(n))]
        c.node("MatMulNBits", inputs, ["y"], K=k, N=n, bits=4, block_size=block)
        c.output("y")
        yield c
    c = Case("qgemm_quantized")
    c.node("QGemm", [c.feed("a", rand_u8(3, 5))] + qparams(c, "a", 0.02, 128) +
           [c.const("b", rand_u8(4, 5))] + qparams(c, "b", 0.01, 127) +
           [c.const("c", rng.integers(-500, 500, 4).astype(np.int32))] + qparams(c, "y", 0.05, 128),
           ["y"], transB=1)
    c.output("y", TensorProto.UINT8)
    yield c
    c = Case("qgemm_float")
    c.node("QGemm", [c.feed("a", rand_u8(3, 5))] + qparams(c, "a", 0.02, 128) +
           [c.const("b", rand_u8(5, 4))] + qparams(c, "b", 0.01, 127)
           + [c.const("c", rng.integers(-500, 500, 4).astype(np.int32))], ["y"], alpha=0.5)
    c.output("y")
    yield c


# ---- Attention and MultiHeadAttention state, causal and mask forms (contrib_attention.cpp) ----

def attention_state_cases():
    # Attention: unidirectional=1 (ORT's causal mask: the lowest float, the last query unmasked),
    # past (2, B, N, P, h) -> present (2, B, N, P + S, h), the mask_index forms over P + S keys.
    b, s, n, h, p = 2, 3, 2, 4, 2
    d = n * h
    ends_starts = np.array([3, 2, 0, 1], np.int32)  # ends of both batches, then starts
    for name, mask, past, present, attrs in (
            ("attention_causal", None, False, False, {"unidirectional": 1}),
            ("attention_present_only", None, False, True, {}),
            ("attention_past_present", None, True, True, {}),
            ("attention_past_causal_one_query", None, True, True, {"unidirectional": 1}),
            ("attention_past_causal_mask_2d", np.array([[1, 1, 1, 1, 0], [0, 1, 1, 1, 1]]),
             True, True, {"unidirectional": 1}),
            ("attention_past_mask_end", np.array([4, 2]), True, True, {}),
            ("attention_mask_start_end", ends_starts, False, False, {}),
            ("attention_mask_start_end_causal", ends_starts, False, False, {"unidirectional": 1}),
            ("attention_mask_3d_causal", rng.random((b, s, s)) > 0.3, False, False,
             {"unidirectional": 1}),
            ("attention_mask_filter_value", np.array([[1, 1, 0], [1, 0, 0]]), False, False,
             {"mask_filter_value": -1.0})):
        c = Case(name)
        seq = 1 if name.endswith("one_query") else s
        inputs = [c.feed("x", rand(b, seq, d)), c.const("w", 0.3 * rand(d, 3 * d)),
                  c.const("b", rand(3 * d)),
                  c.feed("mask", mask.astype(np.int32)) if mask is not None else ""]
        if past:
            inputs.append(c.feed("past", rand(2, b, n, p, h)))
        while inputs[-1] == "":
            inputs.pop()
        outputs = ["y", "present"] if present else ["y"]
        c.node("Attention", inputs, outputs, num_heads=n, **attrs)
        for o in outputs:
            c.output(o)
        yield c
    # MultiHeadAttention: unidirectional=1 (self and cross attention), 4-D key/value (B, N, L, H)
    # (no K/V bias), past_key/past_value (B, N, P, H) -> present_key/present_value, 3-D masks.
    kv = 4
    def mha(name, inputs, outputs=("y",), **attrs):
        c = Case(name)
        c.node("MultiHeadAttention", [x(c) if callable(x) else x for x in inputs], list(outputs),
               num_heads=n, **attrs)
        for o in outputs:
            c.output(o)
        return c
    q = lambda c: c.feed("q", rand(b, s, d))
    k3 = lambda c: c.feed("k", rand(b, s, d))
    v3 = lambda c: c.feed("v", rand(b, s, d))
    k4 = lambda c: c.feed("k", rand(b, n, kv, h))
    v4 = lambda c: c.feed("v", rand(b, n, kv, h))
    past_kv = [lambda c: c.feed("past_key", rand(b, n, p, h)),
               lambda c: c.feed("past_value", rand(b, n, p, h))]
    present = ("y", "present_key", "present_value")
    yield mha("multi_head_attention_causal", [q, k3, v3], unidirectional=1)
    yield mha("multi_head_attention_causal_cross",
              [q, lambda c: c.feed("k", rand(b, kv, d)), lambda c: c.feed("v", rand(b, kv, d))],
              unidirectional=1)
    yield mha("multi_head_attention_kv_4d_bias_mask",
              [q, k4, v4, lambda c: c.const("bias", rand(3 * d)),
               lambda c: c.feed("key_padding_mask", np.array([[1, 1, 1, 0], [1, 1, 0, 0]],
                                                              np.int32))])
    yield mha("multi_head_attention_kv_4d_present", [q, k4, v4], present)
    yield mha("multi_head_attention_kv_4d_past", [q, k4, v4, "", "", ""] + past_kv, present)
    yield mha("multi_head_attention_past_present",
              [q, k3, v3, lambda c: c.const("bias", rand(3 * d)), "", ""] + past_kv, present)
    yield mha("multi_head_attention_past_causal_masks",
              [q, k3, v3, "",
               lambda c: c.feed("key_padding_mask", np.array([[1, 1, 1, 1, 0], [0, 1, 1, 1, 1]],
                                                              np.int32)),
               lambda c: c.feed("attention_bias", rand(1, n, s, p + s))] + past_kv, present,
              unidirectional=1)
    mask_3d = (rng.random((b, s, kv)) > 0.3).astype(np.int32)
    yield mha("multi_head_attention_mask_3d",
              [q, lambda c: c.feed("k", rand(b, kv, d)), lambda c: c.feed("v", rand(b, kv, d)), "",
               lambda c: c.feed("key_padding_mask", mask_3d)])


def qattention_state_cases():
    # QAttention with Attention's state and mask forms (one AttentionCPUBase in ORT):
    # unidirectional=1, past (2, B, N, P, h) -> present (2, B, N, P + S, h), 1-D end then start
    # positions (2B), a 2-D mask over P + S keys; uint8 input, int8 or uint8 weights.
    b, s, n, h, p = 2, 3, 2, 4, 2
    d = n * h
    for name, seq, signed, mask, past, present, attrs in (
            ("qattention_causal", s, True, None, False, False, {"unidirectional": 1}),
            ("qattention_u8_present_only", s, False, None, False, True, {}),
            ("qattention_past_present", s, True, None, True, True, {}),
            ("qattention_past_causal_one_query", 1, True, None, True, True,
             {"unidirectional": 1}),
            ("qattention_u8_past_causal_mask_2d", s, False,
             np.array([[1, 1, 1, 1, 0], [0, 1, 1, 1, 1]]), True, True, {"unidirectional": 1}),
            ("qattention_mask_start_end", s, True, np.array([3, 2, 0, 1]), False, False, {}),
            ("qattention_mask_start_end_causal", s, False, np.array([3, 2, 1, 0]), False,
             False, {"unidirectional": 1})):
        c = Case(name)
        w = rand_i8(d, 3 * d) if signed else rand_u8(d, 3 * d)
        inputs = [c.feed("x", rand_u8(b, seq, d)), c.const("w", w), c.const("bias", rand(3 * d)),
                  c.const("x_scale", np.float32(0.02)), c.const("w_scale", np.float32(0.01)),
                  c.feed("mask", mask.astype(np.int32)) if mask is not None else "",
                  c.const("x_zp", np.uint8(128)),
                  c.const("w_zp", np.int8(0) if signed else np.uint8(128)),
                  c.feed("past", rand(2, b, n, p, h)) if past else ""]
        while inputs[-1] == "":
            inputs.pop()
        outputs = ["y", "present"] if present else ["y"]
        c.node("QAttention", inputs, outputs, num_heads=n, **attrs)
        for o in outputs:
            c.output(o)
        yield c


def qgemm_float_cases():
    # QGemm with a float output, run in integers as ORT's kernel: transA and transB on the 8-bit
    # tensors, int8 B with per-column scales, uint8 B with per-column zero points, C and alpha.
    c = Case("qgemm_float_transposed_i8_per_column")
    c.node("QGemm", [c.feed("a", rand_u8(5, 3))] + qparams(c, "a", 0.03, 120) +
           [c.const("b", rand_i8(4, 5)),
            c.const("b_scale", (0.005 + 0.01 * rng.random(4)).astype(np.float32)),
            c.const("b_zp", np.zeros(4, np.int8))], ["y"], transA=1, transB=1)
    c.output("y")
    yield c
    c = Case("qgemm_float_u8_per_column_zero_points_alpha")
    c.node("QGemm", [c.feed("a", rand_u8(3, 6))] + qparams(c, "a", 0.02, 128) +
           [c.const("b", rand_u8(6, 4)),
            c.const("b_scale", (0.005 + 0.01 * rng.random(4)).astype(np.float32)),
            c.const("b_zp", rng.integers(120, 136, 4).astype(np.uint8)),
            c.const("c", rng.integers(-500, 500, 4).astype(np.int32))], ["y"], alpha=2.0)
    c.output("y")
    yield c


def expect(root):
    """ORT's raw outputs (output_K.bin, typed in outputs.json) as output_K.pb, and their shapes
    declared on the model's outputs (onnxc then checks that its inferred shapes agree)."""
    types = {"float32": np.float32, "uint8": np.uint8, "int8": np.int8, "int32": np.int32,
             "int64": np.int64}
    for name in sorted(os.listdir(root)):
        data = os.path.join(root, name, "test_data_set_0")
        with open(os.path.join(data, "outputs.json")) as f:
            outputs = json.load(f)
        path = os.path.join(root, name, "model.onnx")
        model = load_model(path)
        for declared, o in zip(model.graph.output, outputs):
            for d in o["shape"]:
                declared.type.tensor_type.shape.dim.add().dim_value = d
        save_model(model, path)
        for k, o in enumerate(outputs):
            y = np.fromfile(os.path.join(data, f"output_{k}.bin"), dtype=types[o["type"]])
            y = y.reshape(o["shape"])
            save_tensor(numpy_helper.from_array(y, o["name"]), os.path.join(data, f"output_{k}.pb"))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--expect":
        return expect(sys.argv[2])
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    # New groups go last: the shared generator keeps the earlier cases' inputs unchanged.
    for group in (fused_cases, transformer_cases, qlinear_cases, quantized_float_output_cases,
                  attention_state_cases, qattention_state_cases, qgemm_float_cases):
        for case in group():
            case.save(sys.argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
