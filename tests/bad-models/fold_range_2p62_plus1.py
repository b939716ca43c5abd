# Range(0, 2^62 + 1, 1) folded at compile time once wrote past an 8-byte buffer (the output was
# allocated before its size was checked). Its 2^62 + 1 int64 elements must be refused up front.
# command: compile
# expect-exit: 1
# expect: Range.*output 'y' of shape 4611686018427387905.*at most 2\^40 bytes
import sys

import onnx
from onnx import TensorProto, helper


def scalar(name, value):
    return helper.make_node("Constant", [], [name],
                            value=helper.make_tensor(name + "_v", TensorProto.INT64, [], [value]))


nodes = [scalar("start", 0), scalar("limit", 2**62 + 1), scalar("delta", 1),
         helper.make_node("Range", ["start", "limit", "delta"], ["y"])]
graph = helper.make_graph(nodes, "range_huge", [],
                          [helper.make_tensor_value_info("y", TensorProto.INT64, ["n"])])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])
