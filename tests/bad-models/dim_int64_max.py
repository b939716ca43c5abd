# --dim N=INT64_MAX once gave an element count of -4 in the generated header. Refused.
# command: compile --dim N=9223372036854775807
# expect-exit: 1
# expect: graph input 'x' of shape 9223372036854775807x4 has a negative dim or more elements than int64
import sys

import onnx
from onnx import TensorProto, helper

graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "dim_max",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])
