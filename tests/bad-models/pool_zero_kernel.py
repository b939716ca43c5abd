# MaxPool with kernel_shape [0, 2]: an empty window has no maximum.
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'pool' \(MaxPool\): kernel, strides and dilations must be positive
from onnx import helper

from _lib import model, save, value

def pool(op, **attrs):
    n = helper.make_node(op, ['x'], ['y'], name='pool', **attrs)
    return model([n], [value('x', [1, 1, 8, 8])], [value('y', [1, 1, 'H', 'W'])])

save(pool('MaxPool', kernel_shape=[0, 2]))
