# Softmax's axis given as a float (1.0): the schema says INT.
# command: check
# expect-exit: 1
# expect: model\.onnx: node 'sm' \(Softmax\): attribute 'axis' is FLOAT; Softmax-13 declares it INT
from onnx import helper

from _lib import model, save, value

nodes = [helper.make_node('Softmax', ['x'], ['y'], name='sm', axis=1.0)]
save(model(nodes, [value('x', [2, 3])], [value('y', [2, 3])]))
