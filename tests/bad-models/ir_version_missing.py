# A model without ir_version (field 1 unset): the IR spec requires it.
# command: check
# expect-exit: 1
# expect: model\.onnx: model has no ir_version \(it is required; known versions are 1\.\.13\)

from _lib import relu_model, save

m = relu_model()
m.ClearField('ir_version')
save(m)
