# ConstantOfShape([1e9]): a 100-byte model once took 17.7 s and 3.9 GB to fold. Folding has a
# 16 MiB budget checked before allocating, so the 4 GB splat stays a run-time fill (compile takes
# milliseconds); here --max-bytes 1000000 then refuses the 4e9-byte output before codegen.
# command: compile --max-bytes 1000000
# expect-exit: 1
# expect: tensor 'y' \(float\[1000000000\]\) needs 4000000000 bytes, more than --max-bytes 1000000
import sys

import onnx
from onnx import TensorProto, helper

nodes = [
    helper.make_node("Constant", [], ["shape"],
                     value=helper.make_tensor("shape_v", TensorProto.INT64, [1], [10**9])),
    helper.make_node("ConstantOfShape", ["shape"], ["y"],
                     value=helper.make_tensor("fill", TensorProto.FLOAT, [1], [1.0])),
]
graph = helper.make_graph(nodes, "cos_1e9", [],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n"])])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])
