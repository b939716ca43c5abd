# Relu's only output named '': an empty name marks an omitted optional output, and Relu's Y is
# required.
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'a' \(Relu\): required output 0 has an empty name \(only optional outputs may be omitted\)
from onnx import helper

from _lib import model, save, value

nodes = [helper.make_node('Relu', ['x'], [''], name='a'),
         helper.make_node('Abs', ['x'], ['y'], name='b')]
save(model(nodes, [value('x', [2])], [value('y', [2])]))
