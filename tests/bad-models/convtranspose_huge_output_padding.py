# ConvTranspose with output_padding [2^62, 0] (and strides [2^62, 1], so it is below the stride):
# overflows the output size.
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'conv' \(ConvTranspose\): output spatial dim 0 overflows int64 \(strides 4611686018427387905, dilations 1\)
from onnx import helper

from _lib import FLOAT, model, save, value


def conv(**attrs):
    w = helper.make_tensor('w', FLOAT, [1, 1, 3, 3], [1.0] * 9)
    n = helper.make_node('ConvTranspose', ['x', 'w'], ['y'], name='conv', **attrs)
    return model([n], [value('x', [1, 1, 8, 8])], [value('y', [1, 1, 'H', 'W'])], initializers=[w])

save(conv(strides=[2**62 + 1, 1], output_padding=[2**62, 0]))
