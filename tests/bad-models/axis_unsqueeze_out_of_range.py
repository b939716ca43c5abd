# Unsqueeze at axis 3 of a rank-1 input (output rank 2: valid -2..1).
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'unsq' \(Unsqueeze\): axis 3 is out of range for rank 2
from onnx import helper

from _lib import INT64, model, save, value

def unary(op, dims, out, **attrs):
    n = helper.make_node(op, ['x'], ['y'], name='n', **attrs)
    return model([n], [value('x', dims)], [value('y', out)])

a = helper.make_tensor('axes', INT64, [1], [3])
n = helper.make_node('Unsqueeze', ['x', 'axes'], ['y'], name='unsq')
save(model([n], [value('x', [4])], [value('y', [4, 1])], initializers=[a]))
