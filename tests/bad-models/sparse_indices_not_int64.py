# A sparse initializer whose indices are int32: the IR spec says int64.
# command: check
# expect-exit: 1
# expect: model\.onnx: main graph sparse initializer 's': sparse indices must be int64
from onnx import TensorProto, helper

from _lib import FLOAT, model, save, value

v = helper.make_tensor('s', FLOAT, [2], [1.0, 2.0])
i = helper.make_tensor('s_i', TensorProto.INT32, [2], [0, 1])
sp = helper.make_sparse_tensor(v, i, [2, 2])
m = model([helper.make_node('Add', ['x', 's'], ['y'], name='add')], [value('x', [2, 2])],
          [value('y', [2, 2])])
m.graph.sparse_initializer.append(sp)
save(m)
