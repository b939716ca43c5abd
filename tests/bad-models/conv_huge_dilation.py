# Conv with dilations [2^62, 1]: the dilated window (3-1)*2^62+1 overflows int64.
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'conv' \(Conv\): dilations value 4611686018427387904 is larger than 2147483647 \(2\^31 - 1\)
from onnx import helper

from _lib import FLOAT, model, save, value


def conv(**attrs):
    w = helper.make_tensor('w', FLOAT, [1, 1, 3, 3], [1.0] * 9)
    n = helper.make_node('Conv', ['x', 'w'], ['y'], name='conv', **attrs)
    return model([n], [value('x', [1, 1, 8, 8])], [value('y', [1, 1, 'H', 'W'])], initializers=[w])

save(conv(dilations=[2**62, 1]))
