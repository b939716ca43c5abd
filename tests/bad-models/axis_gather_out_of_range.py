# Gather axis 5 on a rank-2 data input.
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'gather' \(Gather\): axis 5 is out of range for rank 2
from onnx import helper

from _lib import INT64, model, save, value

def unary(op, dims, out, **attrs):
    n = helper.make_node(op, ['x'], ['y'], name='n', **attrs)
    return model([n], [value('x', dims)], [value('y', out)])

i = helper.make_tensor('i', INT64, [1], [0])
n = helper.make_node('Gather', ['x', 'i'], ['y'], name='gather', axis=5)
save(model([n], [value('x', [2, 3])], [value('y', [1, 3])], initializers=[i]))
