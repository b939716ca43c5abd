# An op 'Relux' that ai.onnx does not define.
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'a' \(Relux\): op Relux \(ai\.onnx\) is not supported
from onnx import helper

from _lib import model, save, value

nodes = [helper.make_node('Relux', ['x'], ['y'], name='a')]
save(model(nodes, [value('x', [2])], [value('y', [2])]))
