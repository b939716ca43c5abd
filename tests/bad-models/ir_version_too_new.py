# ir_version 99: newer than any IR version onnxc knows; its rules cannot be checked.
# command: check
# expect-exit: 1
# expect: model\.onnx: ir_version 99 is not a known ONNX IR version \(1\.\.13\)

from _lib import relu_model, save

m = relu_model()
m.ir_version = 99
save(m)
