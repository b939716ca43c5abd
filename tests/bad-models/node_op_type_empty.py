# A node with an empty op_type: every node names its operator.
# command: check
# expect-exit: 1
# expect: model\.onnx: node 'a' \(\?\): op_type is empty; every node names its operator
from onnx import helper

from _lib import model, save, value

nodes = [helper.make_node('', ['x'], ['y'], name='a')]
save(model(nodes, [value('x', [2])], [value('y', [2])]))
