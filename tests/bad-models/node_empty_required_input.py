# Add's second input named '': an empty name marks an omitted optional input, and B is required.
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'a' \(Add\): required input 1 is missing
from onnx import helper

from _lib import model, save, value

nodes = [helper.make_node('Add', ['x', ''], ['y'], name='a')]
save(model(nodes, [value('x', [2])], [value('y', [2])]))
