# Conv with strides [0, 1]: a zero stride divides by zero in the output size.
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'conv' \(Conv\): kernel, strides and dilations must be positive
from onnx import helper

from _lib import FLOAT, model, save, value


def conv(**attrs):
    w = helper.make_tensor('w', FLOAT, [1, 1, 3, 3], [1.0] * 9)
    n = helper.make_node('Conv', ['x', 'w'], ['y'], name='conv', **attrs)
    return model([n], [value('x', [1, 1, 8, 8])], [value('y', [1, 1, 'H', 'W'])], initializers=[w])

save(conv(strides=[0, 1]))
