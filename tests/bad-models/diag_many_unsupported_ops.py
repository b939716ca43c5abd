# 100k nodes of an unsupported op through compile: 20 errors and a count, in bounded memory.
# command: compile
# expect-exit: 1
# expect: (?s)\A([^\n]*op NoSuchOp \(ai\.onnx\) is not supported\n){20}\.\.\. and 99980 more errors
# max-rss-mb: 600
from onnx import helper

from _lib import model, save, value

nodes = [helper.make_node("NoSuchOp", ["x"], ["y%d" % i]) for i in range(100000)]
save(model(nodes, [value("x", [1])], [value("y0", [1])]))
