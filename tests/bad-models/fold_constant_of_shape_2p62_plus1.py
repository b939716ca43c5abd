# ConstantOfShape([2^62 + 1]) folded at compile time once wrote past a 4-byte buffer (the output
# was allocated before its size was checked, and 2^62 + 1 floats wrap to 4 bytes). Refused.
# command: compile
# expect-exit: 1
# expect: ConstantOfShape.*output 'y' of shape 4611686018427387905.*at most 2\^40 bytes
import sys

import onnx
from onnx import TensorProto, helper

nodes = [
    helper.make_node("Constant", [], ["shape"],
                     value=helper.make_tensor("shape_v", TensorProto.INT64, [1], [2**62 + 1])),
    helper.make_node("ConstantOfShape", ["shape"], ["y"],
                     value=helper.make_tensor("fill", TensorProto.FLOAT, [1], [1.0])),
]
graph = helper.make_graph(nodes, "cos_huge", [],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n"])])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])
