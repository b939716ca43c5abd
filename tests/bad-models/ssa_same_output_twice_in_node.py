# One node lists output 'h' twice (Split with two outputs named alike).
# command: check
# expect-exit: 1
# expect: model\.onnx: node 'split' \(Split\): output 'h' is assigned more than once \(graphs are SSA\)
from onnx import helper

from _lib import model, save, value

nodes = [helper.make_node('Split', ['x'], ['h', 'h'], name='split', axis=0),
         helper.make_node('Abs', ['h'], ['y'], name='c')]
save(model(nodes, [value('x', [4])], [value('y', [2])]))
