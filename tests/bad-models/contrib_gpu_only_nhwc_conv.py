# NhwcConv exists only for ONNX Runtime's GPU execution providers: refused by name with what to do
# instead (issue 35), not as an unknown op.
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'nhwc' \(com\.microsoft NhwcConv\): this com\.microsoft op exists only for ONNX Runtime's GPU execution providers; save the model with the CPU provider
from onnx import helper

from _lib import model, save, value

nodes = [helper.make_node("NhwcConv", ["x", "w"], ["y"], name="nhwc", domain="com.microsoft")]
m = model(nodes, [value("x", [1, 4, 4, 8]), value("w", [8, 1, 1, 8])], [value("y", [1, 4, 4, 8])])
m.opset_import.append(helper.make_opsetid("com.microsoft", 1))
save(m)
