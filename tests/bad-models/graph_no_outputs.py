# A main graph with nodes but no outputs: the generated run() would compute nothing a caller can
# read. Refused by the validator.
# command: check
# expect-exit: 1
# expect: model\.onnx: main graph has no outputs
from onnx import helper

from _lib import model, save, value

save(model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [value("x", [2])], []))
