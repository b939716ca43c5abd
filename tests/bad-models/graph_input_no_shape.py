# A main graph input typed float with no shape at all (not even a rank).
# command: compile
# expect-exit: 1
# expect: model\.onnx: main graph input 'x' has no shape; main graph inputs and outputs need at least a rank

from _lib import relu_model, save

m = relu_model()
m.graph.input[0].type.tensor_type.ClearField('shape')
save(m)
