# An initializer of data_type 0 (UNDEFINED).
# command: check
# expect-exit: 1
# expect: model\.onnx: main graph initializer 'w': invalid data_type 0 \(valid: 1\.\.26\)
from onnx import helper

from _lib import FLOAT, model, save, value

w = helper.make_tensor('w', FLOAT, [2], [1.0, 2.0])
w.data_type = 0
nodes = [helper.make_node('Add', ['x', 'w'], ['y'], name='add')]
save(model(nodes, [value('x', [2])], [value('y', [2])], initializers=[w]))
