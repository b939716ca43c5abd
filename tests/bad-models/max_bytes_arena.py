# --max-bytes bounds every size the header states: here the 4096-byte intermediate of a 1024-float
# chain does not fit 1024 bytes, so the compile is refused before codegen.
# command: compile --max-bytes 1024
# expect-exit: 1
# expect: needs 4096 bytes, more than --max-bytes 1024
import sys

import onnx
from onnx import TensorProto, helper

nodes = [helper.make_node("Relu", ["x"], ["h"]), helper.make_node("Neg", ["h"], ["y"])]
graph = helper.make_graph(nodes, "budget",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1024])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1024])])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])
