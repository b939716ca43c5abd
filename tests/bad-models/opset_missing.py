# No opset_import at all: required from IR version 3 on.
# command: check
# expect-exit: 1
# expect: model\.onnx: model has no opset_import \(required from IR version 3 on\)

from _lib import relu_model, save

m = relu_model()
del m.opset_import[:]
save(m)
