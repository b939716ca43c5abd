# A node writes 'w', the name of an initializer: SSA is broken.
# command: check
# expect-exit: 1
# expect: model\.onnx: node 'a' \(Relu\): output 'w' is assigned more than once \(graphs are SSA\)
from onnx import helper

from _lib import FLOAT, model, save, value

w = helper.make_tensor('w', FLOAT, [2], [1.0, 2.0])
nodes = [helper.make_node('Relu', ['x'], ['w'], name='a'),
         helper.make_node('Add', ['x', 'w'], ['y'], name='add')]
save(model(nodes, [value('x', [2])], [value('y', [2])], initializers=[w]))
