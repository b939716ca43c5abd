# Node 'a' reads 'h' which node 'b' writes later in the list: nodes must be topologically sorted.
# command: check
# expect-exit: 1
# expect: model\.onnx: node 'a' \(Relu\): input 'h' is used before the node that produces it \(nodes must be in topological order\)
from onnx import helper

from _lib import model, save, value

nodes = [helper.make_node('Relu', ['h'], ['y'], name='a'),
         helper.make_node('Neg', ['x'], ['h'], name='b')]
save(model(nodes, [value('x', [2])], [value('y', [2])]))
