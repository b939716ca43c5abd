# Softmax with a misspelt attribute "axsi": ONNX's checker rejects attributes an op's schema does
# not declare (the default axis would silently be used). Refused by check and compile.
# command: check
# expect-exit: 1
# expect: node 'sm' \(Softmax\): unknown attribute 'axsi': Softmax-13 declares only axis
import sys

import onnx
from onnx import TensorProto, helper

graph = helper.make_graph([helper.make_node("Softmax", ["x"], ["y"], "sm", axsi=0)], "typo",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])
