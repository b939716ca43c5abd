# An initializer with raw_data and also data_location EXTERNAL: the loader once silently replaced
# the inline bytes with the file's. Which one is the tensor? Refused.
# command: check
# expect-exit: 1
# expect: initializer 'b'.*holds inline data and external data
import os
import sys

import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
b = helper.make_tensor("b", TensorProto.FLOAT, [4], [1.0, 2.0, 3.0, 4.0], raw=False)
b.raw_data = bytes(16)
del b.float_data[:]
b.data_location = TensorProto.EXTERNAL
entry = b.external_data.add()
entry.key, entry.value = "location", "b.bin"
with open(os.path.join(os.path.dirname(os.path.abspath(out)), "b.bin"), "wb") as f:
    f.write(bytes(16))
graph = helper.make_graph([helper.make_node("Add", ["x", "b"], ["y"])], "both",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])], [b])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
with open(out, "wb") as f:  # not onnx.save: it would move the inline bytes to the .bin itself
    f.write(model.SerializeToString())
