# An int32 initializer named like the float graph input 'x' once silently replaced it. Refused.
# command: compile
# expect-exit: 1
# expect: graph input 'x' is declared float\[4\] but the initializer of that name is int32\[4\]
import sys

import onnx
from onnx import TensorProto, helper

graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "shadow",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
                          [helper.make_tensor("x", TensorProto.INT32, [4], [1, 2, 3, 4])])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])
