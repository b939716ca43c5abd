# A session saved at optimization level `all` writes com.microsoft.nchwc ops: a blocked layout of
# the machine that saved it. Refused by name with how to get a portable model (issue 35).
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'conv' \(com\.microsoft\.nchwc Conv\): NCHWc blocked layout of the machine that saved the model \(a session saved at optimization level `all`\); save the session at level `extended` for a portable model
from onnx import helper

from _lib import model, save, value

nodes = [helper.make_node("Conv", ["x", "w"], ["y"], name="conv", domain="com.microsoft.nchwc")]
m = model(nodes, [value("x", [1, 8, 4, 4]), value("w", [8, 8, 1, 1])], [value("y", [1, 8, 4, 4])])
m.opset_import.append(helper.make_opsetid("com.microsoft.nchwc", 1))
save(m)
