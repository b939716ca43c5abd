# A function-body attribute that holds both ref_attr_name and a value: the spec allows one or the
# other.
# command: check
# expect-exit: 1
# expect: model\.onnx: node 'F/inner' \(Softmax\): attribute 'axis' refers to 'ax' and also holds a value
from onnx import helper

from _lib import save, value

body = helper.make_node('Softmax', ['a'], ['b'], name='inner')
at = helper.make_attribute('axis', 1)
at.ref_attr_name = 'ax'
body.attribute.append(at)
f = helper.make_function('local', 'F', ['a'], ['b'], [body], [helper.make_opsetid('', 17)],
                         attributes=['ax'])
g = helper.make_graph([helper.make_node('F', ['x'], ['y'], name='call', domain='local', ax=1)], 'g',
                      [value('x', [2, 3])], [value('y', [2, 3])])
save(helper.make_model(g, functions=[f],
                       opset_imports=[helper.make_opsetid('', 17),
                                      helper.make_opsetid('local', 1)]))
