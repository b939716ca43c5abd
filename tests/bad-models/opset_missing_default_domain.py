# A node of the default domain while only 'com.example' is imported: the operator set of Relu is
# unknown.
# command: check
# expect-exit: 1
# expect: model\.onnx: node 'relu' \(Relu\): domain 'ai\.onnx' has no opset_import \(every node's domain must be imported\)
from onnx import helper

from _lib import relu_model, save

m = relu_model()
del m.opset_import[:]
m.opset_import.append(helper.make_opsetid('com.example', 1))
save(m)
