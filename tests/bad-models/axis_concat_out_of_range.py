# Concat axis -3 on rank-2 inputs.
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'cat' \(Concat\): axis -3 is out of range for rank 2
from onnx import helper

from _lib import model, save, value

def unary(op, dims, out, **attrs):
    n = helper.make_node(op, ['x'], ['y'], name='n', **attrs)
    return model([n], [value('x', dims)], [value('y', out)])

n = helper.make_node('Concat', ['x', 'x'], ['y'], name='cat', axis=-3)
save(model([n], [value('x', [2, 3])], [value('y', [4, 3])]))
