# An initializer with dims [2, -2].
# command: check
# expect-exit: 1
# expect: model\.onnx: main graph initializer 'w': negative dimension -2
from onnx import helper

from _lib import FLOAT, model, save, value

w = helper.make_tensor('w', FLOAT, [2], [1.0, 2.0])
w.dims[:] = [2, -2]
nodes = [helper.make_node('Add', ['x', 'w'], ['y'], name='add')]
save(model(nodes, [value('x', [2])], [value('y', [2])], initializers=[w]))
