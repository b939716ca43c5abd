# The model declares a 1-float output, but Relu of a 4-float input writes 4 floats: a caller that
# sizes its buffer from the declaration gets 16 bytes written into 4. Refused, naming both.
# command: compile
# expect-exit: 1
# expect: graph output 'y' is declared float\[1\] but inference gives float\[4\]
import sys

import onnx
from onnx import TensorProto, helper

graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "decl_shape",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])
