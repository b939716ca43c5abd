# A float[2,3] initializer holding 5 float_data values.
# command: check
# expect-exit: 1
# expect: model\.onnx: main graph initializer 'w': has 5 entries in float_data; its dims need 6
from onnx import helper

from _lib import FLOAT, model, save, value

w = helper.make_tensor('w', FLOAT, [2, 3], [1.0] * 6)
del w.float_data[5]
nodes = [helper.make_node('Add', ['x', 'w'], ['y'], name='add')]
save(model(nodes, [value('x', [2, 3])], [value('y', [2, 3])], initializers=[w]))
