"""Helpers shared by the bad-model generators (not a case: the runner skips names starting with
'_'). A generator is run as `/usr/bin/python3 CASE.py OUT.onnx`; its folder is on sys.path."""
import os
import sys

import onnx
from onnx import TensorProto, helper

FLOAT = TensorProto.FLOAT
INT64 = TensorProto.INT64


def out_path():
    """The model path the runner asked for (argv[1])."""
    if len(sys.argv) != 2:
        sys.exit("usage: %s OUT.onnx" % sys.argv[0])
    return sys.argv[1]


def out_dir():
    """The folder of the model: side files (external data, links) go here."""
    return os.path.dirname(os.path.abspath(out_path()))


def value(name, dims, dtype=FLOAT):
    return helper.make_tensor_value_info(name, dtype, dims)


def model(nodes, inputs, outputs, initializers=(), opset=17, name="g"):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                             producer_name="bad-models")


def relu_model(in_dims=(2, 3), out_dims=(2, 3)):
    """x -> Relu -> y: the smallest valid model, for cases about files and flags."""
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [value("x", list(in_dims))],
                 [value("y", list(out_dims))])


def save(m, path=None):
    """Writes the model without the checker (the point is that it is bad)."""
    with open(path or out_path(), "wb") as f:
        f.write(m.SerializeToString())


def save_bytes(data, path=None):
    with open(path or out_path(), "wb") as f:
        f.write(data)
