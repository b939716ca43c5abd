# com.microsoft Attention with a 4-D mask_index (Megatron's (B, 1, max, max)): ORT's CPU kernel
# does not implement it ("4D mask in attention cpu kernel is not supported"), so neither does
# onnxc: refused with the rule (issue 35).
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'attention' \(com\.microsoft Attention\): 4-D mask_index 'mask' \(Megatron's \(B, 1, max, max\)\) is not supported: ORT's CPU kernel does not implement it either
import numpy as np
from onnx import TensorProto, helper, numpy_helper

from _lib import model, save, value

inits = [numpy_helper.from_array(np.zeros((8, 24), np.float32), "w"),
         numpy_helper.from_array(np.zeros(24, np.float32), "b")]
nodes = [helper.make_node("Attention", ["x", "w", "b", "mask"], ["y"], name="attention",
                          domain="com.microsoft", num_heads=2)]
m = model(nodes, [value("x", [1, 3, 8]), value("mask", [1, 1, 4, 4], TensorProto.INT32)],
          [value("y", [1, 3, 8])], inits)
m.opset_import.append(helper.make_opsetid("com.microsoft", 1))
save(m)
