# A node with no outputs at all.
# command: check
# expect-exit: 1
# expect: model\.onnx: node 'a' \(Relu\): node has no outputs
from onnx import helper

from _lib import model, save, value

nodes = [helper.make_node('Relu', ['x'], [], name='a'),
         helper.make_node('Abs', ['x'], ['y'], name='b')]
save(model(nodes, [value('x', [2])], [value('y', [2])]))
