# A graph input whose name holds a newline and a carriage return, left unpinned: the error quotes
# the name escaped, on one line.
# command: compile
# expect-exit: 1
# expect: unresolved dim 'N' of graph input 'in\\nput\\r' \(axis 0\)
from onnx import helper

from _lib import model, save, value

nodes = [helper.make_node("Relu", ["in\nput\r"], ["y"], name="relu")]
save(model(nodes, [value("in\nput\r", ["N"])], [value("y", ["N"])]))
