# `--max-errors 3`: three errors, then one summary line for the rest.
# command: compile --max-errors 3
# expect-exit: 1
# expect: (?s)\A([^\n]*\n){3}\.\.\. and 7 more errors[^\n]*\n\Z
from onnx import helper

from _lib import model, save, value

nodes = [helper.make_node("NoSuchOp%d" % i, ["x"], ["y%d" % i], name="n%d" % i) for i in range(10)]
save(model(nodes, [value("x", [1])], [value("y0", [1])]))
