# ReorderInput (com.microsoft) converts to the NCHWc layout of the machine that saved the model
# (level `all`): refused by name with how to get a portable model (issue 35).
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'reorder' \(com\.microsoft ReorderInput\): NCHWc blocked layout of the machine that saved the model \(a session saved at optimization level `all`\); save the session at level `extended` for a portable model
from onnx import helper

from _lib import model, save, value

nodes = [helper.make_node("ReorderInput", ["x"], ["y"], name="reorder", domain="com.microsoft")]
m = model(nodes, [value("x", [1, 8, 4, 4])], [value("y", [1, 8, 4, 4])])
m.opset_import.append(helper.make_opsetid("com.microsoft", 1))
save(m)
