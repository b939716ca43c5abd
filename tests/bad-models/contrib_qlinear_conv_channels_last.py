# com.microsoft QLinearConv with channels_last=1 (NHWC), a layout of the machine that saved the
# model: refused with how to get a portable model (issue 35).
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'qconv' \(com\.microsoft QLinearConv\): channels_last=1 is a layout of the machine that saved the model; save the session at optimization level `extended` for a portable model
import numpy as np
from onnx import TensorProto, helper, numpy_helper

from _lib import model, save, value

U8 = TensorProto.UINT8
inits = [numpy_helper.from_array(np.float32(0.1), "s"), numpy_helper.from_array(np.uint8(128), "z"),
         numpy_helper.from_array(np.full((4, 4, 1, 1), 130, np.uint8), "w")]
nodes = [helper.make_node("QLinearConv", ["x", "s", "z", "w", "s", "z", "s", "z"], ["y"],
                          name="qconv", domain="com.microsoft", channels_last=1)]
m = model(nodes, [value("x", [1, 4, 4, 4], U8)], [value("y", [1, 4, 4, 4], U8)], inits)
m.opset_import.append(helper.make_opsetid("com.microsoft", 1))
save(m)
