# Two nodes feed each other (a cycle): no topological order exists.
# command: check
# expect-exit: 1
# expect: model\.onnx: node 'a' \(Add\): input 'q' is used before the node that produces it \(nodes must be in topological order\)
from onnx import helper

from _lib import model, save, value

nodes = [helper.make_node('Add', ['x', 'q'], ['p'], name='a'),
         helper.make_node('Neg', ['p'], ['q'], name='b'),
         helper.make_node('Abs', ['p'], ['y'], name='c')]
save(model(nodes, [value('x', [2])], [value('y', [2])]))
