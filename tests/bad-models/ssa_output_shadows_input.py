# A node writes 'x', the name of a graph input: SSA is broken.
# command: check
# expect-exit: 1
# expect: model\.onnx: node 'a' \(Relu\): output 'x' is assigned more than once \(graphs are SSA\)
from onnx import helper

from _lib import model, save, value

nodes = [helper.make_node('Relu', ['x'], ['x'], name='a'),
         helper.make_node('Abs', ['x'], ['y'], name='c')]
save(model(nodes, [value('x', [2])], [value('y', [2])]))
