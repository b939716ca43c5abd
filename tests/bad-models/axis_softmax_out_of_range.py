# Softmax axis 2 on a rank-2 input (valid: -2..1).
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'n' \(Softmax\): axis 2 is out of range for rank 2
from onnx import helper

from _lib import model, save, value

def unary(op, dims, out, **attrs):
    n = helper.make_node(op, ['x'], ['y'], name='n', **attrs)
    return model([n], [value('x', dims)], [value('y', out)])

save(unary('Softmax', [2, 3], [2, 3], axis=2))
