# An initializer without a name: nothing can refer to it.
# command: check
# expect-exit: 1
# expect: model\.onnx: main graph: initializer has no name
from onnx import helper

from _lib import FLOAT, model, save, value

w = helper.make_tensor('', FLOAT, [2], [1.0, 2.0])
nodes = [helper.make_node('Relu', ['x'], ['y'], name='relu')]
save(model(nodes, [value('x', [2])], [value('y', [2])], initializers=[w]))
