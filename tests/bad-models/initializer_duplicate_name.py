# Two initializers named 'w': every name is defined once (SSA).
# command: check
# expect-exit: 1
# expect: model\.onnx: main graph initializer 'w' is assigned more than once \(graphs are SSA\)
from onnx import helper

from _lib import FLOAT, model, save, value

w = helper.make_tensor('w', FLOAT, [2], [1.0, 2.0])
nodes = [helper.make_node('Add', ['x', 'w'], ['y'], name='add')]
save(model(nodes, [value('x', [2])], [value('y', [2])], initializers=[w, w]))
