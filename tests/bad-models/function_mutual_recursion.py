# Functions F and G calling each other: recursion through two functions.
# command: check
# expect-exit: 1
# expect: model\.onnx: function 'local:F' calls itself \(local:F -> local:G -> local:F\); recursive functions are not allowed
from onnx import helper

from _lib import save, value

ops = [helper.make_opsetid('', 17), helper.make_opsetid('local', 1)]
f = helper.make_function('local', 'F', ['a'], ['b'],
                         [helper.make_node('G', ['a'], ['b'], domain='local')], ops)
g_ = helper.make_function('local', 'G', ['a'], ['b'],
                          [helper.make_node('F', ['a'], ['b'], domain='local')], ops)
g = helper.make_graph([helper.make_node('F', ['x'], ['y'], name='call', domain='local')], 'mutual',
                      [value('x', [2])], [value('y', [2])])
save(helper.make_model(g, functions=[f, g_], opset_imports=ops))
