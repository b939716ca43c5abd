# AveragePool with strides [1, 0].
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'pool' \(AveragePool\): kernel, strides and dilations must be positive
from onnx import helper

from _lib import model, save, value

def pool(op, **attrs):
    n = helper.make_node(op, ['x'], ['y'], name='pool', **attrs)
    return model([n], [value('x', [1, 1, 8, 8])], [value('y', [1, 1, 'H', 'W'])])

save(pool('AveragePool', kernel_shape=[2, 2], strides=[1, 0]))
