# MaxPool with pads [2^62, 2^62, 0, 0]: the padded input 8 + 2^63 overflows int64.
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'pool' \(MaxPool\): pads value 4611686018427387904 is larger than 2147483647 \(2\^31 - 1\)
from onnx import helper

from _lib import model, save, value

def pool(op, **attrs):
    n = helper.make_node(op, ['x'], ['y'], name='pool', **attrs)
    return model([n], [value('x', [1, 1, 8, 8])], [value('y', [1, 1, 'H', 'W'])])

save(pool('MaxPool', kernel_shape=[2, 2], pads=[2**62, 2**62, 0, 0]))
