# A 300k-entry `perm` on Transpose is quoted truncated ("...") in the error, not echoed as one
# multi-megabyte line (issue 18: a 5M-entry perm gave a 44 MB line).
# command: compile
# expect-exit: 1
# expect: node 'tr' \(Transpose\).*\.\.\.
from onnx import helper

from _lib import model, save, value

perm = list(range(300000))
nodes = [helper.make_node("Transpose", ["x"], ["y"], name="tr", perm=perm)]
save(model(nodes, [value("x", [2, 3])], [value("y", [3, 2])]))
