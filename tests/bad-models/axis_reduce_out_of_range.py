# ReduceSum over axes [1, 7] of a rank-2 input.
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'sum' \(ReduceSum\): axes entry 7 is out of range for rank 2
from onnx import helper

from _lib import INT64, model, save, value

def unary(op, dims, out, **attrs):
    n = helper.make_node(op, ['x'], ['y'], name='n', **attrs)
    return model([n], [value('x', dims)], [value('y', out)])

a = helper.make_tensor('axes', INT64, [2], [1, 7])
n = helper.make_node('ReduceSum', ['x', 'axes'], ['y'], name='sum')
save(model([n], [value('x', [2, 3])], [value('y', [2, 1])], initializers=[a]))
