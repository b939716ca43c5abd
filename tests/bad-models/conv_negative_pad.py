# Conv with pads [-1, 0, 0, 0]: negative padding is not a thing.
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'conv' \(Conv\): pads must be non-negative
from onnx import helper

from _lib import FLOAT, model, save, value


def conv(**attrs):
    w = helper.make_tensor('w', FLOAT, [1, 1, 3, 3], [1.0] * 9)
    n = helper.make_node('Conv', ['x', 'w'], ['y'], name='conv', **attrs)
    return model([n], [value('x', [1, 1, 8, 8])], [value('y', [1, 1, 'H', 'W'])], initializers=[w])

save(conv(pads=[-1, 0, 0, 0]))
