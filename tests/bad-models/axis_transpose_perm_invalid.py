# Transpose perm [0, 0] on a rank-2 input: not a permutation.
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'n' \(Transpose\): perm \{0, 0\} is not a permutation of the 2 input axes
from onnx import helper

from _lib import model, save, value

def unary(op, dims, out, **attrs):
    n = helper.make_node(op, ['x'], ['y'], name='n', **attrs)
    return model([n], [value('x', dims)], [value('y', out)])

save(unary('Transpose', [2, 3], [2, 2], perm=[0, 0]))
