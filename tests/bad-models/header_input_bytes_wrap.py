# A graph input of 2^62 floats once compiled to a header claiming kInputBytes {0} (the byte
# count wrapped): a caller sizing buffers from it corrupts memory. Refused before any sizing.
# command: compile
# expect-exit: 1
# expect: graph input 'x' of shape 4611686018427387904 .*at most 2\^40 bytes
import sys

import onnx
from onnx import TensorProto, helper

graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "wrap_in",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2**62])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n"])])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])
