# Softmax with two 'axis' attributes: which one holds?
# command: check
# expect-exit: 1
# expect: model\.onnx: node 'sm' \(Softmax\): attribute 'axis' appears more than once
from onnx import helper

from _lib import model, save, value

n = helper.make_node('Softmax', ['x'], ['y'], name='sm', axis=1)
n.attribute.append(helper.make_attribute('axis', 0))
save(model([n], [value('x', [2, 3])], [value('y', [2, 3])]))
