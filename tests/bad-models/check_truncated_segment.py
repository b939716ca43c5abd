# An initializer whose segment names elements [0, 3) of 4 but holds only 2: check once said
# "valid". Refused.
# command: check
# expect-exit: 1
# expect: initializer 'b': segment \[0, 3\) needs 3 elements but its data holds 2
import sys

import onnx
from onnx import TensorProto, helper

b = TensorProto(name="b", data_type=TensorProto.FLOAT, dims=[4], float_data=[1.0, 2.0])
b.segment.begin = 0
b.segment.end = 3
graph = helper.make_graph([helper.make_node("Add", ["x", "b"], ["y"])], "segment",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])], [b])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])
