# ReduceSum over axes [1, -1] of a rank-2 input: the same axis twice.
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'sum' \(ReduceSum\): axis 1 is listed twice in axes
from onnx import helper

from _lib import INT64, model, save, value

def unary(op, dims, out, **attrs):
    n = helper.make_node(op, ['x'], ['y'], name='n', **attrs)
    return model([n], [value('x', dims)], [value('y', out)])

a = helper.make_tensor('axes', INT64, [2], [1, -1])
n = helper.make_node('ReduceSum', ['x', 'axes'], ['y'], name='sum')
save(model([n], [value('x', [2, 3])], [value('y', [2, 1])], initializers=[a]))
