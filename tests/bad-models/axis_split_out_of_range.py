# Split axis 3 on a rank-1 input.
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'split' \(Split\): axis 3 is out of range for rank 1
from onnx import helper

from _lib import model, save, value

def unary(op, dims, out, **attrs):
    n = helper.make_node(op, ['x'], ['y'], name='n', **attrs)
    return model([n], [value('x', dims)], [value('y', out)])

n = helper.make_node('Split', ['x'], ['a', 'b'], name='split', axis=3, num_outputs=2)
save(model([n], [value('x', [4])], [value('a', [2]), value('b', [2])], opset=18))
