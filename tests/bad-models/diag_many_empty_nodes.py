# 200k nodes with no op_type: at most --max-errors (default 20) errors, then the count of the rest,
# without holding every message (issue 18: 4 MB of these gave 360 MB of stderr and 1.5 GB of RAM).
# command: check
# expect-exit: 1
# expect: \.\.\. and \d+ more errors
# max-rss-mb: 400
from onnx import helper

from _lib import model, save, value

nodes = [helper.make_node("", [], []) for _ in range(200000)]
save(model(nodes, [value("x", [1])], [value("x_out", [1])]))
