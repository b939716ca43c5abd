# ir_version -3: IR versions start at 1.
# command: check
# expect-exit: 1
# expect: model\.onnx: ir_version -3 is not a known ONNX IR version \(1\.\.13\)

from _lib import relu_model, save

m = relu_model()
m.ir_version = -3
save(m)
