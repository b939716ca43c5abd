# The default domain imported twice (17 and 13): the IR spec allows one version per domain.
# command: check
# expect-exit: 1
# expect: model\.onnx: model opset_import lists domain 'ai\.onnx' more than once
from onnx import helper

from _lib import relu_model, save

m = relu_model()
m.opset_import.append(helper.make_opsetid('', 13))
save(m)
