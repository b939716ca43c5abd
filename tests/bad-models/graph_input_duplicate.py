# Two graph inputs named 'x': names are unique in a graph (SSA).
# command: check
# expect-exit: 1
# expect: model\.onnx: main graph input 'x' is assigned more than once \(graphs are SSA\)
from onnx import helper

from _lib import model, save, value

save(model([helper.make_node('Relu', ['x'], ['y'], name='relu')],
           [value('x', [2]), value('x', [2])], [value('y', [2])]))
