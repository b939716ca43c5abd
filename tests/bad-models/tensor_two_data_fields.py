# An initializer with both float_data and raw_data.
# command: check
# expect-exit: 1
# expect: model\.onnx: main graph initializer 'w': holds data in 2 fields; a tensor uses exactly one
from onnx import helper

from _lib import FLOAT, model, save, value

w = helper.make_tensor('w', FLOAT, [2], [1.0, 2.0])
w.raw_data = b'\0' * 8
nodes = [helper.make_node('Add', ['x', 'w'], ['y'], name='add')]
save(model(nodes, [value('x', [2])], [value('y', [2])], initializers=[w]))
