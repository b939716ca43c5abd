# --max-bytes 3000 and three 2000-byte initializers: each fits, the 6000 bytes of weights do not.
# command: compile --max-bytes 3000
# expect-exit: 1
# expect: model\.onnx: the weights need 6000 bytes, more than --max-bytes 3000
from onnx import helper

from _lib import model, save, value

import numpy as np
from onnx import numpy_helper
ws = [numpy_helper.from_array(np.full(500, i + 1, np.float32), 'w%d' % i) for i in range(3)]
nodes = [helper.make_node('Sum', ['x', 'w0', 'w1', 'w2'], ['y'], name='sum')]
save(model(nodes, [value('x', [1])], [value('y', [500])], initializers=ws))
