# A sparse initializer whose linear indices are not strictly increasing (3 then 1).
# command: check
# expect-exit: 1
# expect: model\.onnx: main graph sparse initializer 's': sparse indices must be strictly ascending; value 1 is at 1 after 3
from onnx import helper

from _lib import FLOAT, INT64, model, save, value

v = helper.make_tensor('s', FLOAT, [2], [1.0, 2.0])
i = helper.make_tensor('s_i', INT64, [2], [3, 1])
sp = helper.make_sparse_tensor(v, i, [2, 2])
m = model([helper.make_node('Add', ['x', 's'], ['y'], name='add')], [value('x', [2, 2])],
          [value('y', [2, 2])])
m.graph.sparse_initializer.append(sp)
save(m)
