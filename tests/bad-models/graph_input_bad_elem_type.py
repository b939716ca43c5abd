# A graph input of elem_type 99: not a TensorProto data type.
# command: check
# expect-exit: 1
# expect: model\.onnx: main graph input 'x' has invalid elem_type 99 \(valid: 1\.\.26\)

from _lib import relu_model, save

m = relu_model()
m.graph.input[0].type.tensor_type.elem_type = 99
save(m)
