# A model-local function F whose body calls F: check once said "valid". Refused.
# command: check
# expect-exit: 1
# expect: function 'local:F' calls itself \(local:F -> local:F\)
import sys

import onnx
from onnx import TensorProto, helper

body = [helper.make_node("F", ["a"], ["b"], domain="local")]
f = helper.make_function("local", "F", ["a"], ["b"], body,
                         [helper.make_opsetid("", 17), helper.make_opsetid("local", 1)])
graph = helper.make_graph([helper.make_node("F", ["x"], ["y"], domain="local")], "recursive",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
model = helper.make_model(graph, functions=[f],
                          opset_imports=[helper.make_opsetid("", 17),
                                         helper.make_opsetid("local", 1)])
onnx.save(model, sys.argv[1])
