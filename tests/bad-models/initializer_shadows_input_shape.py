# A float initializer of shape 2x2 named like the graph input 'x' declared float[4]. Refused.
# command: compile
# expect-exit: 1
# expect: graph input 'x' is declared float\[4\] but the initializer of that name is float\[2x2\]
import sys

import onnx
from onnx import TensorProto, helper

graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "shadow_shape",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["a", "b"])],
                          [helper.make_tensor("x", TensorProto.FLOAT, [2, 2], [1, 2, 3, 4])])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])
