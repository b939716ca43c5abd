# 70 model-local functions F0 -> F1 -> ... -> F69, each calling the next: deeper than the 64-level
# call limit.
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'call/F1/F2/.*' \(F64\): function calls nest deeper than 64 levels: local:F0 -> local:F1 -> local:F2
from onnx import helper

from _lib import save, value

N = 70
funcs = []
for i in range(N):
    inner = helper.make_node('F%d' % (i + 1), ['a'], ['b'],
                             domain='local') if i + 1 < N else helper.make_node('Relu', ['a'],
                                                                                ['b'])
    funcs.append(helper.make_function('local', 'F%d' % i, ['a'], ['b'], [inner],
                                      [helper.make_opsetid('', 17),
                                       helper.make_opsetid('local', 1)]))
g = helper.make_graph([helper.make_node('F0', ['x'], ['y'], name='call', domain='local')], 'chain',
                      [value('x', [2])], [value('y', [2])])
save(helper.make_model(g, functions=funcs,
                       opset_imports=[helper.make_opsetid('', 17),
                                      helper.make_opsetid('local', 1)]))
