# Names with newlines, NUL, other control bytes and invalid UTF-8 are escaped in errors: each
# error stays one line and the bytes appear as C escapes.
# command: compile
# expect-exit: 1
# expect: node 'evil\\nline2\\x00nul\\x01\\xFF\\xFE' \(NoSuchOp\)
from onnx import helper

from _lib import model, value

name = "evil\nline2\0nul\x01ZZ"
nodes = [helper.make_node("NoSuchOp", ["x"], ["y"], name=name)]
data = model(nodes, [value("x", [1])], [value("y", [1])]).SerializeToString()
# protobuf's Python API only takes valid UTF-8: patch two bytes into invalid ones afterwards.
from _lib import save_bytes

save_bytes(data.replace(b"\x01ZZ", b"\x01\xff\xfe"))
