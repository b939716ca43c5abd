# A sparse initializer of dense shape 3x4 with a linear index 12 (past the 12 elements): check
# once said "valid". Refused by check (and compile, which runs the same validator).
# command: check
# expect-exit: 1
# expect: sparse initializer 's': sparse index 12 of value 1 is out of range \[0, 12\)
import sys

import onnx
from onnx import TensorProto, helper

values = helper.make_tensor("s", TensorProto.FLOAT, [2], [1.0, 2.0])
indices = helper.make_tensor("s_indices", TensorProto.INT64, [2], [0, 12])
sparse = helper.make_sparse_tensor(values, indices, [3, 4])
graph = helper.make_graph([helper.make_node("Add", ["x", "s"], ["y"])], "sparse_oob",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])],
                          sparse_initializer=[sparse])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])
