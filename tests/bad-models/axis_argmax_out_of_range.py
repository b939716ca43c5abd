# ArgMax axis -4 on a rank-3 input.
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'argmax' \(ArgMax\): axis -4 is out of range for rank 3
from onnx import helper

from _lib import INT64, model, save, value

def unary(op, dims, out, **attrs):
    n = helper.make_node(op, ['x'], ['y'], name='n', **attrs)
    return model([n], [value('x', dims)], [value('y', out)])

n = helper.make_node('ArgMax', ['x'], ['y'], name='argmax', axis=-4)
save(model([n], [value('x', [2, 3, 4])], [value('y', [1, 3, 4], INT64)]))
