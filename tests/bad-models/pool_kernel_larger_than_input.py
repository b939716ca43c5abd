# MaxPool with a 9x9 window over an 8x8 input and no padding: the output would have 0 rows.
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'pool' \(MaxPool\): window 9 is larger than the padded input 8
from onnx import helper

from _lib import model, save, value

def pool(op, **attrs):
    n = helper.make_node(op, ['x'], ['y'], name='pool', **attrs)
    return model([n], [value('x', [1, 1, 8, 8])], [value('y', [1, 1, 'H', 'W'])])

save(pool('MaxPool', kernel_shape=[9, 9]))
