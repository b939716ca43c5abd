# A graph input of shape [2, -3]: dims are non-negative.
# command: check
# expect-exit: 1
# expect: model\.onnx: main graph input 'x' has negative size -3 in dimension 1
from onnx import helper

from _lib import model, save, value

save(model([helper.make_node('Relu', ['x'], ['y'], name='relu')], [value('x', [2, -3])],
           [value('y', [2, 3])]))
