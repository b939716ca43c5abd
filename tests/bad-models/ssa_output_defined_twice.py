# Two nodes both write 'h': static single assignment is broken.
# command: check
# expect-exit: 1
# expect: model\.onnx: node 'b' \(Neg\): output 'h' is assigned more than once \(graphs are SSA\)
from onnx import helper

from _lib import model, save, value

nodes = [helper.make_node('Relu', ['x'], ['h'], name='a'),
         helper.make_node('Neg', ['x'], ['h'], name='b'),
         helper.make_node('Abs', ['h'], ['y'], name='c')]
save(model(nodes, [value('x', [2])], [value('y', [2])]))
