# ai.onnx opset 99: newer than the newest operator set onnxc knows.
# command: check
# expect-exit: 1
# expect: model\.onnx: model opset_import ai\.onnx version 99 is newer than the newest known \(28\)
from onnx import helper

from _lib import model, save, value

save(model([helper.make_node('Relu', ['x'], ['y'], name='relu')], [value('x', [2])],
           [value('y', [2])], opset=99))
