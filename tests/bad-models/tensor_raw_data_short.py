# A float[4] initializer with 12 bytes of raw_data (needs 16): reading it would run past the buffer.
# command: check
# expect-exit: 1
# expect: model\.onnx: main graph initializer 'w': has 12 bytes of raw_data; its dims and float type need 16
from onnx import TensorProto, helper

from _lib import FLOAT, model, save, value

w = TensorProto(name='w', data_type=FLOAT, dims=[4], raw_data=b'\0' * 12)
nodes = [helper.make_node('Add', ['x', 'w'], ['y'], name='add')]
save(model(nodes, [value('x', [4])], [value('y', [4])], initializers=[w]))
