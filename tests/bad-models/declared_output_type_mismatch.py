# The model declares an int64 output, but Relu of a float input writes floats into it. Refused.
# command: compile
# expect-exit: 1
# expect: graph output 'y' is declared int64\[4\] but inference gives float\[4\]
import sys

import onnx
from onnx import TensorProto, helper

graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "decl_type",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                          [helper.make_tensor_value_info("y", TensorProto.INT64, [4])])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])
