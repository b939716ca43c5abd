# An INT attribute that holds no value (type set, field unset).
# command: check
# expect-exit: 1
# expect: model\.onnx: node 'sm' \(Softmax\): attribute 'axis' has type INT but no value
from onnx import helper

from _lib import model, save, value

n = helper.make_node('Softmax', ['x'], ['y'], name='sm')
a = n.attribute.add()
a.name = 'axis'
a.type = 2
save(model([n], [value('x', [2, 3])], [value('y', [2, 3])]))
