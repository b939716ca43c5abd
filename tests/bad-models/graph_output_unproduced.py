# A graph output 'z' that no node, input or initializer produces.
# command: check
# expect-exit: 1
# expect: model\.onnx: main graph output 'z' is not produced by any node, input or initializer
from onnx import helper

from _lib import model, save, value

save(model([helper.make_node('Relu', ['x'], ['y'], name='relu')], [value('x', [2])],
           [value('y', [2]), value('z', [2])]))
