# A 100 kB node name is quoted truncated in the error.
# command: compile
# expect-exit: 1
# expect: node 'aaaa[a]*\.\.\.' \(NoSuchOp\)
from onnx import helper

from _lib import model, save, value

nodes = [helper.make_node("NoSuchOp", ["x"], ["y"], name="a" * 100000)]
save(model(nodes, [value("x", [1])], [value("y", [1])]))
