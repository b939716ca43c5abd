# Conv with kernel_shape [0, 0] contradicting its 3x3 weights.
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'conv' \(Conv\): kernel_shape \{0, 0\} does not match W's spatial dims \{3, 3\}
from onnx import helper

from _lib import FLOAT, model, save, value


def conv(**attrs):
    w = helper.make_tensor('w', FLOAT, [1, 1, 3, 3], [1.0] * 9)
    n = helper.make_node('Conv', ['x', 'w'], ['y'], name='conv', **attrs)
    return model([n], [value('x', [1, 1, 8, 8])], [value('y', [1, 1, 'H', 'W'])], initializers=[w])

save(conv(kernel_shape=[0, 0]))
