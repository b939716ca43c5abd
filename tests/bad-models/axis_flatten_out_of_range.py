# Flatten axis 4 on a rank-3 input (valid: -3..3).
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'n' \(Flatten\): axis 4 is out of range \[-3, 3\]
from onnx import helper

from _lib import model, save, value

def unary(op, dims, out, **attrs):
    n = helper.make_node(op, ['x'], ['y'], name='n', **attrs)
    return model([n], [value('x', dims)], [value('y', out)])

save(unary('Flatten', [2, 3, 4], [24, 1], axis=4))
