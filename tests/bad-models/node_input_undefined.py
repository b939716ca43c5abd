# Node 'a' reads 'ghost', which nothing defines.
# command: check
# expect-exit: 1
# expect: model\.onnx: node 'a' \(Add\): input 'ghost' is not defined by any node, graph input or initializer
from onnx import helper

from _lib import model, save, value

nodes = [helper.make_node('Add', ['x', 'ghost'], ['y'], name='a')]
save(model(nodes, [value('x', [2])], [value('y', [2])]))
