# A float initializer whose values sit in int64_data.
# command: check
# expect-exit: 1
# expect: model\.onnx: main graph initializer 'w': float data belongs in float_data, not int64_data
from onnx import helper

from _lib import FLOAT, model, save, value

w = helper.make_tensor('w', FLOAT, [2], [1.0, 2.0])
w.ClearField('float_data')
w.int64_data[:] = [1, 2]
nodes = [helper.make_node('Add', ['x', 'w'], ['y'], name='add')]
save(model(nodes, [value('x', [2])], [value('y', [2])], initializers=[w]))
