# ai.onnx opset 0: operator set versions start at 1.
# command: check
# expect-exit: 1
# expect: model\.onnx: model opset_import of domain 'ai\.onnx' has version 0; versions start at 1
from onnx import helper

from _lib import model, save, value

save(model([helper.make_node('Relu', ['x'], ['y'], name='relu')], [value('x', [2])],
           [value('y', [2])], opset=0))
