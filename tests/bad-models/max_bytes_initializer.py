# --max-bytes 1000 and a 4096-byte initializer: the tensor is refused before it is read.
# command: compile --max-bytes 1000
# expect-exit: 1
# expect: model\.onnx: tensor 'w' \(float\[1024\]\) needs 4096 bytes, more than --max-bytes 1000
from onnx import helper

from _lib import model, save, value

import numpy as np
from onnx import numpy_helper
w = numpy_helper.from_array(np.ones(1024, np.float32), 'w')
nodes = [helper.make_node('Add', ['x', 'w'], ['y'], name='add')]
save(model(nodes, [value('x', [1])], [value('y', [1024])], initializers=[w]))
