# A graph input of 2^31 x 2^31 x 2^31 floats: check once said "valid" for every size overflow.
# command: check
# expect-exit: 1
# expect: graph input 'x' of shape 2147483648x2147483648x2147483648 has more elements than int64
import sys

import onnx
from onnx import TensorProto, helper

big = [2**31] * 3
graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "overflow",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, big)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, big)])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])
